"""Lesson 9's exercises: tokens meet the model.

- `ids_in_practice`: `find_specials` (an injection detector), `grow_embeddings` (new rows at the
  mean) and `uint16_bytes` (ids as a memmap stores them);
- `dropout`: `dropout_bpe`, BPE-dropout on one word with its random numbers given.
"""

from __future__ import annotations

from lib.exercises.lesson9.dropout import dropout_bpe
from lib.exercises.lesson9.ids_in_practice import find_specials, grow_embeddings, uint16_bytes

__all__ = ["EXERCISES", "dropout_bpe", "find_specials", "grow_embeddings", "uint16_bytes"]

EXERCISES = [find_specials, grow_embeddings, uint16_bytes, dropout_bpe]
