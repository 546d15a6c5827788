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
from types import MappingProxyType

from lib import bpe, patterns, specials, tokenizer_checks
from lib.specials import Specials
from lib.tokenizer_encoder import PlainEncoder
from lib.tokenizer_formats import TokenizerFiles
from lib.tokenizer_training import TokenizerTraining

_IDS_ARE_MERGE_ORDER: list = []  # from_ranks's "merges": a marker, compared by identity


class Tokenizer(TokenizerTraining, TokenizerFiles):
    """A byte-level BPE tokenizer: vocabulary, merges, split pattern and special tokens.

    `Tokenizer(vocab, merges, pattern, special_tokens=[...])` checks that the parts agree and
    raises ValueError naming the entry at fault. `special_tokens` is a list (ids taken from the
    vocabulary, else the next free ones) or a dict {token: id}. Training comes from
    `lib.tokenizer_training`; loading and saving (tiktoken, GPT-2's and Hugging Face's files, our
    own) from `lib.tokenizer_formats`; encoding text between special tokens, fast, from
    `lib.tokenizer_encoder`.
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
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        # from_ranks passes _IDS_ARE_MERGE_ORDER: tiktoken's files have no merges, their ids are
        # the merge order, and the merges are recovered from the vocabulary when asked for.
        self._has_merges = merges is not _IDS_ARE_MERGE_ORDER
        given = merges if self._has_merges else None
        vocab, merges, special = tokenizer_checks.check(vocab, given, special_tokens)
        self._vocab, self._merges, self._special = vocab, merges, special
        self._pattern, self._name = patterns.resolve(pattern), name
        special_ids = set(special.values())
        self._token_id = {token: i for i, token in vocab.items() if i not in special_ids}
        # Which pair joins first is decided by merge order, not by id. Given merges, a token's
        # merge rank is the position of the first merge that makes it; without them the ids are
        # the merge order, and one table serves as both.
        self._merge_rank = self._token_id
        if self._has_merges:
            self._merge_rank = {}
            for k, (left, right) in enumerate(merges):
                self._merge_rank.setdefault(left + right, k)
        self._plain = PlainEncoder(self._pattern, self._merge_rank, self._token_id)

    # -- from tiktoken's ranks ------------------------------------------------------------------
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
        vocab = {i: token for token, i in ranks.items()}
        if len(vocab) != len(ranks):
            raise ValueError("two tokens in ranks share an id; ids must be unique")
        return cls(vocab, _IDS_ARE_MERGE_ORDER, pattern, special_tokens=special_tokens, name=name)

    # -- what it is made of (read-only) ---------------------------------------------------------
    @property
    def vocab(self) -> Mapping[int, bytes]:
        """{id: token bytes}, special tokens included (read-only)."""
        return MappingProxyType(self._vocab)

    @property
    def ranks(self) -> Mapping[bytes, int]:
        """{token bytes: id} for every token but the special ones (read-only)."""
        return MappingProxyType(self._token_id)

    @property
    def merge_ranks(self) -> Mapping[bytes, int]:
        """{token bytes: merge rank} (read-only): which adjacent pair joins first when encoding,
        the lowest rank first. For tiktoken's encodings the same as `ranks`; given merges, a
        token's position in them (`lib.bpe_dropout` encodes with it)."""
        return MappingProxyType(self._merge_rank)

    @property
    def special_tokens(self) -> Mapping[str, int]:
        """{special token: id} (read-only)."""
        return MappingProxyType(self._special)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in the order learned (recovered from the ranks for tiktoken's encodings)."""
        if self._merges is None:  # recovered once: the ranks it comes from never change
            self._merges = bpe.recover_merges(self._token_id)
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
        return self._plain.encode(bpe.replace_lone_surrogates(text))

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
                ids.extend(self._plain.encode(piece))
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


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        hint = " (decode bytes to str first)" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"text must be a str, not {type(text).__name__}{hint}")
