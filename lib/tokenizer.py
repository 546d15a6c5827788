"""`Tokenizer`: a byte-level BPE tokenizer you can train, use, save, and compare with GPT's.

The data model is tiktoken's: a vocabulary `dict[int, bytes]`, the ordered merges, a split
pattern and special tokens. `encode` cuts text at special tokens, splits the rest with the pattern,
and turns each chunk into ids by merge rank (`lib.bpe.encode_chunk`); `decode` joins the bytes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Literal

from lib import bpe, patterns

Specials = Literal["all"] | Collection[str]


class Tokenizer:
    """A byte-level BPE tokenizer: vocabulary, merges, split pattern and special tokens."""

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: bpe.Merges | None,
        pattern: str | None = None,
        special_tokens: dict[str, int] | None = None,
        name: str = "custom",
    ):
        self.vocab = dict(vocab)
        self.pattern = patterns.resolve(pattern)
        self.special_tokens = dict(special_tokens or {})
        self.name = name
        special_ids = set(self.special_tokens.values())
        # The encoder looks tokens up by their bytes: {token bytes: id}, special tokens excluded.
        self.ranks = {token: i for i, token in self.vocab.items() if i not in special_ids}
        self._merges = merges  # None until asked for, for tokenizers loaded from tiktoken
        self._cache: dict[str, list[int]] = {}

    # -- making one ---------------------------------------------------------------------------
    @classmethod
    def train(
        cls,
        text: str,
        vocab_size: int,
        pattern: str | None = None,
        special_tokens: Iterable[str] = (),
        method: str = "fast",
        progress: bool = False,
    ) -> Tokenizer:
        """Train on `text` (see `lib.bpe.train` for the rules) and return the tokenizer."""
        special_tokens = (
            list(special_tokens) if not isinstance(special_tokens, str) else special_tokens
        )
        vocab, merges = bpe.train(text, vocab_size, pattern, special_tokens, method, progress)
        specials = {s: 256 + len(merges) + k for k, s in enumerate(dict.fromkeys(special_tokens))}
        return cls(vocab, merges, pattern, specials)

    @classmethod
    def train_from_files(
        cls,
        paths: Iterable[str | Path],
        *,
        vocab_size: int,
        pattern: str | None = "gpt4",
        special_tokens: Iterable[str] = (),
        workers: int | None = None,
        progress: bool = False,
    ) -> Tokenizer:
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
        specials = {s: 256 + len(merges) + k for k, s in enumerate(dict.fromkeys(special_tokens))}
        return cls(vocab, merges, pattern, specials)

    @classmethod
    def from_tiktoken(cls, name: str) -> Tokenizer:
        """Load one of OpenAI's encodings ("gpt2", "r50k_base", "p50k_base", "cl100k_base",
        "o200k_base") from tiktoken's files into this pure-Python tokenizer.

        The ids are tiktoken's own, so `encode` gives exactly what tiktoken gives.
        """
        from lib import tiktoken_files

        ranks, pattern, specials = tiktoken_files.load(name)
        vocab = {i: token for token, i in ranks.items()}
        vocab.update({i: s.encode("utf-8") for s, i in specials.items()})
        return cls(vocab, None, pattern, specials, name=name)

    @property
    def merges(self) -> bpe.Merges:
        """The merges in the order learned (recovered from the ranks for tiktoken's encodings)."""
        if self._merges is None:
            from lib import tiktoken_files

            self._merges = tiktoken_files.recover_merges(self.ranks)
        return self._merges

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's convention; some ids may be unused)."""
        return max(self.vocab) + 1

    def __repr__(self) -> str:
        return (
            f"Tokenizer(name={self.name!r}, n_vocab={self.n_vocab}, "
            f"special_tokens={sorted(self.special_tokens)})"
        )

    # -- encoding -----------------------------------------------------------------------------
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode `text` treating special-token strings as plain text."""
        _check_text(text)
        return self._encode_plain(bpe.replace_lone_surrogates(text))

    def encode(
        self,
        text: str,
        allowed_special: Specials = frozenset(),
        disallowed_special: Specials = "all",
    ) -> list[int]:
        """Encode `text`, with tiktoken's rules for special tokens.

        Special tokens named in `allowed_special` become their ids. One that is *disallowed* (by
        default: every special token not allowed) raises ValueError if it appears in the text,
        because
        text from a user that can smuggle in "<|endoftext|>" can end a conversation early.
        """
        _check_text(text)
        allowed = self._special_set(allowed_special, "allowed_special")
        disallowed = self._special_set(disallowed_special, "disallowed_special")
        if disallowed_special == "all":
            disallowed = disallowed - allowed
        found = [special for special in disallowed if special in text]
        if found:
            special = min(found, key=text.find)
            raise ValueError(
                f"the text contains the special token {special!r}, which is disallowed. "
                f"To encode it "
                f'as its special id, pass allowed_special={{{special!r}}} (or "all"); to encode it '
                f"as plain text, pass disallowed_special=() or use encode_ordinary()."
            )
        text = bpe.replace_lone_surrogates(text)
        ids: list[int] = []
        for piece in patterns.split_on_special(text, allowed):
            if piece in allowed:
                ids.append(self.special_tokens[piece])
            else:
                ids.extend(self._encode_plain(piece))
        return ids

    def _encode_plain(self, text: str) -> list[int]:
        ids: list[int] = []
        cache, ranks = self._cache, self.ranks
        for chunk in patterns.split_text(text, self.pattern):
            chunk_ids = cache.get(chunk)
            if chunk_ids is None:
                chunk_ids = bpe.encode_chunk(chunk.encode("utf-8"), ranks)
                if (
                    len(chunk) < 64 and len(cache) < 200_000
                ):  # whole words repeat; long runs rarely do
                    cache[chunk] = chunk_ids
            ids.extend(chunk_ids)
        return ids

    def _special_set(self, value: Specials, argument: str) -> set[str]:
        if value == "all":
            return set(self.special_tokens)
        if isinstance(value, str):
            raise TypeError(
                f'{argument} must be "all" or a collection of strings, e.g. {{{value!r}}}'
            )
        unknown = set(value) - set(self.special_tokens)
        if unknown:
            raise ValueError(
                f"{argument} names {sorted(unknown)}, which are not special tokens of this "
                f"tokenizer "
                f"(it has {sorted(self.special_tokens) or 'none'})"
            )
        return set(value)

    # -- decoding -----------------------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes that `ids` stand for, joined; ValueError for an id not in the vocabulary."""
        vocab, ids = self.vocab, list(ids)
        try:
            return b"".join([vocab[i] for i in ids])
        except (KeyError, TypeError):
            for i in ids:
                if not isinstance(i, int) or i not in vocab:
                    raise ValueError(
                        f"token id {i!r} is not in this tokenizer's vocabulary "
                        f"(ids run from 0 to {self.n_vocab - 1})"
                    ) from None
            raise

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode ids to text. A token can be part of a character, so a sequence of ids need not be
        valid UTF-8: by default broken bytes become "\ufffd"; `errors="strict"` raises instead."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # -- files and tiktoken ---------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the tokenizer as plain text (see `lib.tokenizer_file` for the format)."""
        from lib import tokenizer_file

        tokenizer_file.save(self, Path(path))

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Read a tokenizer written by `save`; a damaged file raises ValueError naming the line."""
        from lib import tokenizer_file

        return tokenizer_file.load(cls, Path(path))

    def to_tiktoken(self):
        """This tokenizer as a `tiktoken.Encoding`: the same ids, from tiktoken's Rust core."""
        from lib import tiktoken_files

        return tiktoken_files.to_encoding(self)


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        hint = " (decode bytes to str first)" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"text must be a str, not {type(text).__name__}{hint}")
