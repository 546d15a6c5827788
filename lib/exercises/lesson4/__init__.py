"""Lesson 4's exercises: decoding ids to text.

- `decoding`: `vocab_from_merges`, `decode` and `stream_decode`, checked against `lib`'s own
  vocabulary, decoder and streaming decoder;
- `predict`: which tokenizer spells a sentence in fewer tokens, predicted before the lesson shows
  them.
"""

from __future__ import annotations

from lib.exercises.lesson4.decoding import (
    decode,
    reference_stream,
    stream_decode,
    vocab_from_merges,
)
from lib.exercises.lesson4.predict import PREDICT_SENTENCES, predict_fewer_tokens

__all__ = [
    "EXERCISES",
    "PREDICT_SENTENCES",
    "decode",
    "predict_fewer_tokens",
    "reference_stream",
    "stream_decode",
    "vocab_from_merges",
]

EXERCISES = [vocab_from_merges, decode, stream_decode, predict_fewer_tokens]
