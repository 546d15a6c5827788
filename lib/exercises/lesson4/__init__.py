"""Lesson 4's exercises: decoding ids to text.

- `decoding`: `vocab_from_merges`, checked against `lib.bpe.build_vocab`;
- `blame`: `first_bad_token`, which token broke a text;
- `stream`: `stream_decode`, a chat UI's decoder written without codecs;
- `ids`: the tokenizers and ids these are checked on;
- `predict`: which tokenizer spells a sentence in fewer tokens, predicted before the lesson shows
  them.
"""

from __future__ import annotations

from lib.exercises.lesson4.blame import bad_token, first_bad_token
from lib.exercises.lesson4.decoding import vocab_from_merges
from lib.exercises.lesson4.predict import PREDICT_SENTENCES, predict_fewer_tokens
from lib.exercises.lesson4.stream import reference_stream, stream_decode

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
