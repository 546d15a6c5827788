"""The ways to train a `Tokenizer`: on a string, or on text files streamed in parallel.

`Tokenizer` inherits these from `TokenizerTraining`. Each runs a trainer (`lib.bpe`,
`lib.bpe_files`) and hands what it learned to the tokenizer's constructor, with the special tokens
numbered after the merges.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from lib import bpe

T = TypeVar("T", bound="TokenizerTraining")


class TokenizerTraining:
    """Training for `lib.Tokenizer` (a mixin: each method builds the class it is called on)."""

    @classmethod
    def train(
        cls: type[T],
        text: str,
        vocab_size: int,
        pattern: str | None = None,
        special_tokens: Iterable[str] = (),
        *,
        method: str = "fast",
        progress: bool = False,
    ) -> T:
        """Train on `text` (see `lib.bpe.train` for the rules) and return the tokenizer."""
        if not isinstance(special_tokens, str):  # a str is refused by bpe.train, clearly
            special_tokens = list(special_tokens)  # read twice below: a generator would not be
        vocab, merges = bpe.train(text, vocab_size, pattern, special_tokens, method, progress)
        return cls._trained(vocab, merges, pattern, special_tokens)

    @classmethod
    def train_from_files(
        cls: type[T],
        paths: Iterable[str | Path],
        *,
        vocab_size: int,
        pattern: str | None = "gpt4",
        special_tokens: Iterable[str] = (),
        workers: int | None = None,
        progress: bool = False,
    ) -> T:
        """Train on text files, streamed and split in parallel (see `lib.bpe_files`); the result
        is the tokenizer `train` would learn from the files' concatenated text."""
        from lib.bpe_files import train_from_files

        if not isinstance(special_tokens, str):  # a str is refused by the trainer, with a hint
            special_tokens = list(special_tokens)
        vocab, merges = train_from_files(
            paths,
            vocab_size=vocab_size,
            pattern=pattern,
            special_tokens=special_tokens,
            workers=workers,
            progress=progress,
        )
        return cls._trained(vocab, merges, pattern, special_tokens)

    @classmethod
    def _trained(
        cls, vocab: dict[int, bytes], merges: list, pattern: str | None, special_tokens: list[str]
    ) -> T:
        """What a trainer learned, as a tokenizer: special tokens numbered after the merges."""
        names = list(dict.fromkeys(special_tokens))
        ids = range(256 + len(merges), 256 + len(merges) + len(names))
        return cls(vocab, merges, pattern, special_tokens=dict(zip(names, ids, strict=True)))
