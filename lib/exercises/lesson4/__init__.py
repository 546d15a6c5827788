"""Lesson 4's exercises: decoding ids to text.

- `decoding`: `vocab_from_merges`, `first_bad_token` (which token broke a text) and
  `stream_decode` (a chat UI's decoder, without codecs), checked against `lib`'s vocabulary and
  reference functions built on Python's strict UTF-8 decoder;
- `predict`: which tokenizer spells a sentence in fewer tokens, predicted before the lesson shows
  them.
"""

from __future__ import annotations

from lib.exercises.lesson4.decoding import (
    bad_token,
    first_bad_token,
    reference_stream,
    stream_decode,
    vocab_from_merges,
)
from lib.exercises.lesson4.predict import PREDICT_SENTENCES, predict_fewer_tokens

__all__ = [
    "EXERCISES",
    "PREDICT_SENTENCES",
    "bad_token",
    "first_bad_token",
    "predict_fewer_tokens",
    "reference_stream",
    "stream_decode",
    "vocab_from_merges",
]

EXERCISES = [vocab_from_merges, first_bad_token, stream_decode, predict_fewer_tokens]
