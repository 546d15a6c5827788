"""Lesson 5: the small tokenizers `encode` and `encode_with_specials` are checked against.

They are trained on a few sentences written for these checks (`texts`), with `lib`'s reference
code, which gives the expected values.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from lib import bpe
from lib.exercises.lesson5.texts import SPECIALS, TRAINING_TEXT
from lib.tokenizer import Tokenizer


@functools.cache
def trained_merges(vocab_size: int) -> tuple[tuple[bytes, bytes], ...]:
    """The merges of a `vocab_size` tokenizer trained on the training text (once: cached)."""
    return tuple(Tokenizer.train(TRAINING_TEXT, vocab_size, special_tokens=SPECIALS).merges)


def reference_tokenizer(
    merges: Sequence[tuple[bytes, bytes]], special_tokens: dict[str, int] | None = None
) -> Tokenizer:
    """A tokenizer made of exactly these merges: bytes are ids 0-255, merge i is id 256 + i."""
    return Tokenizer(bpe.build_vocab(list(merges)), list(merges), special_tokens=special_tokens)
