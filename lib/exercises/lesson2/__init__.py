"""Lesson 2's exercises: a character-level tokenizer.

- `char_tokenizer`: `build_vocab`, `encode_chars` and `compression_ratio`, checked against
  `lib.char_tokenizer.CharTokenizer`;
- `predict`: which corpus word tokenizers find harder, predicted before the lesson measures it.
"""

from __future__ import annotations

from lib.exercises.lesson2.char_tokenizer import build_vocab, compression_ratio, encode_chars
from lib.exercises.lesson2.predict import PREDICT_QUESTIONS, predict_words

__all__ = [
    "EXERCISES",
    "PREDICT_QUESTIONS",
    "build_vocab",
    "compression_ratio",
    "encode_chars",
    "predict_words",
]

EXERCISES = [build_vocab, encode_chars, compression_ratio, predict_words]
