"""`Tokenizer`: a byte-level BPE tokenizer you can train, use, save, and compare with GPT's.

The data model is tiktoken's and CS336's: a vocabulary `dict[int, bytes]`, the merges in the
order they were learned (that order, not the ids, decides which pair joins first), a split
pattern and special tokens. `encode` cuts text at special tokens, splits the rest with the
pattern, and turns each chunk into ids by merge rank (`lib.bpe.encode_chunk`); `decode` joins
the bytes.

A tokenizer never changes after it is made: `vocab`, `ranks` and `special_tokens` are read-only
views and `merges` a fresh list, so nothing derived from them can fall out of step.

>>> tok = Tokenizer.train("low lower lowest", 260, pattern="gpt2")
>>> tok.merges[:2]
[(b'o', b'w'), (b'l', b'ow')]
>>> tok.decode(tok.encode("slow"))
'slow'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from lib import bpe, patterns, specials, tokenizer_data
from lib.specials import Specials

_CACHE_LIMIT = 200_000  # chunks remembered: whole words repeat, so a cache saves most BPE work


class Tokenizer:
    """A byte-level BPE tokenizer: vocabulary, merges, split pattern and special tokens.

    `Tokenizer(vocab, merges, pattern, special_tokens=[...])` checks that the parts agree and
    raises ValueError naming the entry at fault. `special_tokens` is a list (ids taken from the
    vocabulary, else the next free ones) or a dict {token: id}.
    """

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Iterable[tuple[bytes, bytes]],
        pattern: str | None = None,
        *,
        special_tokens: Iterable[str] | Mapping[str, int] | None = None,
        name: str = "custom",
    ):
        if merges is None:
            raise TypeError("merges is required; build from tiktoken ranks with from_ranks()")
        self._init(vocab, merges, pattern, special_tokens, name)

    def _init(self, vocab, merges, pattern, special_tokens, name) -> None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        vocab, merges, special = tokenizer_data.check(vocab, merges, special_tokens)
        self._vocab, self._merges, self._special = vocab, merges, special
        self._pattern, self._name = patterns.resolve(pattern), name
        special_ids = set(special.values())
        self._ids = {token: i for i, token in vocab.items() if i not in special_ids}
        # Merge order is the rank. tiktoken's data has no merges: its ids are the ranks.
        self._ranks = self._ids
        if merges is not None:
            self._ranks = {}
            for k, (left, right) in enumerate(merges):
                self._ranks.setdefault(left + right, k)
        self._cache: dict[str, list[int]] = {}  # chunk -> ids, a pure function of the above

    # -- making one ---------------------------------------------------------------------------
    @classmethod
    def train(
        cls,
        text: str,
        vocab_size: int,
        pattern: str | None = None,
        special_tokens: Iterable[str] = (),
        *,
        method: str = "fast",
        progress: bool = False,
    ) -> Tokenizer:
        """Train on `text` (see `lib.bpe.train` for the rules) and return the tokenizer."""
        vocab, merges = bpe.train(text, vocab_size, pattern, special_tokens, method, progress)
        names = list(dict.fromkeys(special_tokens))
        ids = range(256 + len(merges), 256 + len(merges) + len(names))
        return cls(vocab, merges, pattern, special_tokens=dict(zip(names, ids, strict=True)))

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int],
        *,
        pattern: str | None = None,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "custom",
    ) -> Tokenizer:
        """Build from tiktoken-style ranks {token bytes: id}, where an id is also a merge rank."""
        tok = cls.__new__(cls)
        vocab = {i: token for token, i in ranks.items()}
        if len(vocab) != len(ranks):
            raise ValueError("two tokens in ranks share an id; ids must be unique")
        tok._init(vocab, None, pattern, special_tokens, name)
        return tok

    @classmethod
    def from_tiktoken(cls, name: str) -> Tokenizer:
        """Load one of OpenAI's encodings ("gpt2", "r50k_base", "p50k_base", "cl100k_base",
        "o200k_base") from tiktoken's files into this pure-Python tokenizer.

        The ids are tiktoken's own, so `encode` gives exactly what tiktoken gives.
        """
        from lib import tiktoken_files

        ranks, pattern, special = tiktoken_files.load(name)
        return cls.from_ranks(ranks, pattern=pattern, special_tokens=special, name=name)

    # -- what it is made of (read-only) ---------------------------------------------------------
    @property
    def vocab(self) -> Mapping[int, bytes]:
        """{id: token bytes}, special tokens included (read-only)."""
        return MappingProxyType(self._vocab)

    @property
    def ranks(self) -> Mapping[bytes, int]:
        """{token bytes: id} for every token but the special ones (read-only)."""
        return MappingProxyType(self._ids)

    @property
    def special_tokens(self) -> Mapping[str, int]:
        """{special token: id} (read-only)."""
        return MappingProxyType(self._special)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in the order learned (recovered from the ranks for tiktoken's encodings)."""
        if self._merges is None:  # computed once: the ranks it comes from never change
            self._merges = bpe.recover_merges(self._ids)
        return list(self._merges)

    @property
    def pattern(self) -> str | None:
        """The split pattern's regex, or None when each text is one chunk."""
        return self._pattern

    @property
    def name(self) -> str:
        return self._name

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's convention; some ids may be unused)."""
        return max(self._vocab) + 1

    def __repr__(self) -> str:
        return (
            f"Tokenizer(name={self._name!r}, n_vocab={self.n_vocab}, "
            f"special_tokens={sorted(self._special)})"
        )

    # -- encoding -----------------------------------------------------------------------------
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode `text` treating special-token strings as plain text."""
        _check_text(text)
        return self._encode_plain(bpe.replace_lone_surrogates(text))

    def encode(
        self,
        text: str,
        *,
        allowed_special: Specials = frozenset(),
        disallowed_special: Specials = "all",
    ) -> list[int]:
        """Encode `text`, with tiktoken's rules for special tokens (see `lib.specials`).

        Special tokens named in `allowed_special` become their ids. One that is *disallowed* (by
        default: every special token not allowed) raises ValueError if it appears in the text,
        because text from a user that can smuggle in "<|endoftext|>" can end a conversation early.
        """
        _check_text(text)
        allowed, disallowed = specials.resolve(allowed_special, disallowed_special, self._special)
        specials.check_disallowed(text, disallowed)
        return self._encode_allowed(bpe.replace_lone_surrogates(text), allowed)

    def encode_iterable(
        self,
        texts: Iterable[str],
        *,
        allowed_special: Specials = frozenset(),
        disallowed_special: Specials = "all",
    ) -> Iterator[int]:
        """Lazily encode the concatenation of `texts` (an open file works): exactly `encode` of
        the whole, in memory that does not grow with its length. See `lib.lazy_encode`.

        A disallowed special token raises ValueError when the stream reaches it."""
        from lib import lazy_encode

        allowed, disallowed = specials.resolve(allowed_special, disallowed_special, self._special)
        for piece in lazy_encode.pieces(texts, self._pattern, self._special, allowed, disallowed):
            yield from self._encode_allowed(piece, allowed)

    def _encode_allowed(self, text: str, allowed: frozenset[str]) -> list[int]:
        ids: list[int] = []
        for piece, is_special in specials.split(text, self._special, allowed):
            if is_special:
                ids.append(self._special[piece])
            else:
                ids.extend(self._encode_plain(piece))
        return ids

    def _encode_plain(self, text: str) -> list[int]:
        ids: list[int] = []
        cache, ranks, token_ids = self._cache, self._ranks, self._ids
        for chunk in patterns.split_text(text, self._pattern):
            chunk_ids = cache.get(chunk)
            if chunk_ids is None:
                chunk_ids = bpe.encode_chunk(chunk.encode("utf-8"), ranks, token_ids)
                if len(chunk) < 64 and len(cache) < _CACHE_LIMIT:  # long runs rarely repeat
                    cache[chunk] = chunk_ids
            ids.extend(chunk_ids)
        return ids

    # -- decoding -----------------------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes that `ids` stand for, joined; ValueError for an id not in the vocabulary."""
        vocab, ids = self._vocab, list(ids)
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

    # -- files and other libraries ----------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the tokenizer as plain text (see `lib.tokenizer_file` for the format)."""
        from lib import tokenizer_file

        Path(path).write_text(tokenizer_file.dumps(self), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Read a tokenizer written by `save`; a damaged file raises ValueError naming the line."""
        from lib import tokenizer_file

        vocab, merges, pattern, special, name = tokenizer_file.read(Path(path))
        return cls(vocab, merges, pattern, special_tokens=special, name=name)

    @classmethod
    def from_gpt2_files(
        cls,
        vocab_json: str | Path,
        merges_txt: str | Path,
        special_tokens: Iterable[str] | Mapping[str, int] = (),
        *,
        pattern: str | None = "gpt2",
        name: str = "gpt2-files",
    ) -> Tokenizer:
        """Load GPT-2's `vocab.json` and `merges.txt` (see `lib.gpt2_files`); special tokens
        listed by name take the ids vocab.json gives them."""
        from lib import gpt2_files

        vocab, merges = gpt2_files.read(vocab_json, merges_txt)
        return cls(vocab, merges, pattern, special_tokens=special_tokens, name=name)

    def save_gpt2_files(self, vocab_json: str | Path, merges_txt: str | Path) -> None:
        """Write GPT-2's two files (special tokens go in vocab.json, as GPT-2's own did)."""
        from lib import gpt2_files

        ids = {**self._ids, **{s.encode("utf-8"): i for s, i in self._special.items()}}
        gpt2_files.write(vocab_json, merges_txt, ids, self.merges)

    @classmethod
    def from_huggingface(cls, path: str | Path, *, name: str | None = None) -> Tokenizer:
        """Load a byte-level BPE `tokenizer.json` from Hugging Face (see `lib.hf_files`)."""
        from lib import hf_files

        vocab, merges, pattern, special = hf_files.read(path)
        return cls(vocab, merges, pattern, special_tokens=special, name=name or Path(path).stem)

    def save_huggingface(self, path: str | Path) -> None:
        """Write a `tokenizer.json` that Hugging Face's `tokenizers` encodes with the same ids."""
        from lib import hf_files

        text = hf_files.dumps(self._ids, self.merges, self._pattern, self._special)
        Path(path).write_text(text, encoding="utf-8")

    def to_tiktoken(self):
        """This tokenizer as a `tiktoken.Encoding`: the same ids, from tiktoken's Rust core."""
        from lib import tiktoken_files

        if self._ranks is not self._ids and not self._ids_follow_merges():
            raise ValueError(
                "tiktoken uses ids as merge ranks, but this tokenizer's ids are not in merge "
                "order (or it has tokens no merge makes); it cannot be exported to tiktoken"
            )
        return tiktoken_files.to_encoding(self._name, self._pattern, self._ids, self._special)

    def _ids_follow_merges(self) -> bool:
        """True when ordering tokens by id is ordering them by merge: tiktoken's data model."""
        made = [self._ids[left + right] for left, right in self._merges]
        multi_byte = sum(len(token) > 1 for token in self._ids)
        return len(set(made)) == multi_byte and all(
            a < b for a, b in zip(made, made[1:], strict=False)
        )


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        hint = " (decode bytes to str first)" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"text must be a str, not {type(text).__name__}{hint}")
