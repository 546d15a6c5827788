"""The ways in and out of a `Tokenizer`: our text file, tiktoken, GPT-2's and Hugging Face's files.

`Tokenizer` inherits these from `TokenizerFiles`, so `lib/tokenizer.py` stays about what a
tokenizer is and does. Each format lives in its own module and deals in plain data (vocab, merges,
pattern, special tokens); the methods here only hand that data to the constructor and back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lib import gpt2_files, hf_files, tiktoken_files, tokenizer_text_format

if TYPE_CHECKING:
    import tiktoken

T = TypeVar("T", bound="TokenizerFiles")


class TokenizerFiles:
    """Loading and saving for `lib.Tokenizer` (a mixin: it relies on the Tokenizer's parts)."""

    _merges: list[tuple[bytes, bytes]] | None
    _has_merges: bool
    _token_id: dict[bytes, int]
    _special: dict[str, int]
    _pattern: str | None
    _name: str

    @classmethod
    def from_tiktoken(cls: type[T], name: str) -> T:
        """Load one of OpenAI's encodings ("gpt2", "r50k_base", "p50k_base", "cl100k_base",
        "o200k_base") from tiktoken's files into this pure-Python tokenizer.

        The ids are tiktoken's own, so `encode` gives exactly what tiktoken gives.
        """
        ranks, pattern, special = tiktoken_files.load(name)
        return cls.from_ranks(ranks, pattern=pattern, special_tokens=special, name=name)

    def save(self, path: str | Path) -> None:
        """Write the tokenizer as plain text (see `lib.tokenizer_text_format` for the format)."""
        Path(path).write_text(tokenizer_text_format.dumps(self), encoding="utf-8")

    @classmethod
    def load(cls: type[T], path: str | Path) -> T:
        """Read a tokenizer written by `save`; a damaged file raises ValueError naming the line."""
        vocab, merges, pattern, special, name = tokenizer_text_format.read(Path(path))
        return cls(vocab, merges, pattern, special_tokens=special, name=name)

    @classmethod
    def from_gpt2_files(
        cls: type[T],
        vocab_json: str | Path,
        merges_txt: str | Path,
        special_tokens: Iterable[str] | Mapping[str, int] = (),
        *,
        pattern: str | None = "gpt2",
        name: str = "gpt2-files",
    ) -> T:
        """Load GPT-2's `vocab.json` and `merges.txt` (see `lib.gpt2_files`); special tokens
        listed by name take the ids vocab.json gives them."""
        vocab, merges = gpt2_files.read(vocab_json, merges_txt)
        return cls(vocab, merges, pattern, special_tokens=special_tokens, name=name)

    def save_gpt2_files(self, vocab_json: str | Path, merges_txt: str | Path) -> None:
        """Write GPT-2's two files (special tokens go in vocab.json, as GPT-2's own did)."""
        ids = {**self._token_id, **{s.encode("utf-8"): i for s, i in self._special.items()}}
        gpt2_files.write(vocab_json, merges_txt, ids, self.merges)

    @classmethod
    def from_huggingface(cls: type[T], path: str | Path, *, name: str | None = None) -> T:
        """Load a byte-level BPE `tokenizer.json` from Hugging Face (see `lib.hf_files`)."""
        vocab, merges, pattern, special = hf_files.read(path)
        return cls(vocab, merges, pattern, special_tokens=special, name=name or Path(path).stem)

    def save_huggingface(self, path: str | Path) -> None:
        """Write a `tokenizer.json` that Hugging Face's `tokenizers` encodes with the same ids."""
        text = hf_files.dumps(self._token_id, self.merges, self._pattern, self._special)
        Path(path).write_text(text, encoding="utf-8")

    def to_tiktoken(self) -> tiktoken.Encoding:
        """This tokenizer as a `tiktoken.Encoding`: the same ids, from tiktoken's Rust core."""
        if self._has_merges and not self._ids_follow_merges():
            raise ValueError(
                "tiktoken uses ids as merge ranks, but this tokenizer's ids are not in merge "
                "order (or it has tokens no merge makes); it cannot be exported to tiktoken"
            )
        return tiktoken_files.to_encoding(self._name, self._pattern, self._token_id, self._special)

    def _ids_follow_merges(self) -> bool:
        """True when ordering tokens by id is ordering them by merge: tiktoken's data model."""
        made = [self._token_id[left + right] for left, right in self._merges]
        multi_byte = sum(len(token) > 1 for token in self._token_id)
        return len(set(made)) == multi_byte and all(
            a < b for a, b in zip(made, made[1:], strict=False)
        )
