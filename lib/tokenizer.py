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

import gc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from types import MappingProxyType

from lib import bpe, bpe_batch, patterns, specials, tokenizer_checks
from lib.specials import Specials
from lib.tokenizer_formats import TokenizerFiles

_IDS_ARE_MERGE_ORDER: list = []  # from_ranks's "merges": a marker, compared by identity
_CACHE_LIMIT = 200_000  # chunks remembered: whole words repeat, so a cache saves most BPE work
_BATCH_FROM = 20  # new chunks from which numpy's batch encoder beats encoding them one by one


class Tokenizer(TokenizerFiles):
    """A byte-level BPE tokenizer: vocabulary, merges, split pattern and special tokens.

    `Tokenizer(vocab, merges, pattern, special_tokens=[...])` checks that the parts agree and
    raises ValueError naming the entry at fault. `special_tokens` is a list (ids taken from the
    vocabulary, else the next free ones) or a dict {token: id}. Loading and saving (tiktoken,
    GPT-2's and Hugging Face's files, our own) come from `lib.tokenizer_formats`.
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
        self._cache: dict[str, list[int]] = {}  # chunk -> ids, a pure function of the above
        self._pairs: bpe_batch.PairTable | None | bool = None  # built when first needed

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
        if not isinstance(special_tokens, str):  # a str is refused by bpe.train, clearly
            special_tokens = list(special_tokens)  # read twice below: a generator would not be
        vocab, merges = bpe.train(text, vocab_size, pattern, special_tokens, method, progress)
        return cls._trained(vocab, merges, pattern, special_tokens)

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
        return cls._trained(vocab, merges, pattern, special_tokens)

    @classmethod
    def _trained(
        cls, vocab: dict[int, bytes], merges: list, pattern: str | None, special_tokens: list[str]
    ) -> Tokenizer:
        """What a trainer learned, as a tokenizer: special tokens numbered after the merges."""
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
        """Split `text` and encode each *distinct* chunk once, then lay the ids out in order.

        A text repeats its words: the 4 M characters of the 32 FLORES files are 1 M chunks but
        only 190 K different ones. Each different chunk is encoded once (remembered beyond this
        call in `_cache`, up to a limit), and every chunk is then mapped to its ids in C, so no
        Python-level step is taken per chunk occurrence, only per distinct chunk. The chunks new
        to the cache are encoded all together (`_encode_new`).
        """
        with _no_gc_pauses():
            return self._encode_chunks(patterns.split_text(text, self._pattern))

    def _encode_chunks(self, chunks: list[str]) -> list[int]:
        cache = self._cache
        distinct = dict.fromkeys(chunks)
        new = []
        for chunk in distinct:
            chunk_ids = cache.get(chunk)
            if chunk_ids is None:
                new.append(chunk)
            else:
                distinct[chunk] = chunk_ids
        encoded = self._encode_new(new)
        distinct.update(zip(new, encoded, strict=True))
        room = _CACHE_LIMIT - len(cache)
        if room > 0:  # long runs rarely repeat: only chunks under 64 characters are kept
            pairs = zip(new, encoded, strict=True)
            kept = [(chunk, ids) for chunk, ids in pairs if len(chunk) < 64]
            cache.update(kept[:room])
        return list(chain.from_iterable(map(distinct.__getitem__, chunks)))

    def _encode_new(self, chunks: list[str]) -> list[list[int]]:
        """The ids of each chunk, by `bpe.encode_chunk`'s rules. A chunk that is a token is that
        token; the others, when there are enough of them to pay numpy's overhead, take their merge
        steps side by side in `lib.bpe_batch` (the same steps, so the same ids), else one by one."""
        ranks, token_ids = self._merge_rank, self._token_id
        datas = [chunk.encode("utf-8") for chunk in chunks]
        found = [ranks.get(data) for data in datas]
        rest = [data for data, rank in zip(datas, found, strict=True) if rank is None]
        table = self._pair_table() if len(rest) >= _BATCH_FROM else None
        if table is None:
            merged = iter([bpe.encode_chunk(data, ranks, token_ids) for data in rest])
        else:
            merged = iter(bpe_batch.encode_chunks(rest, table))
        return [
            next(merged) if rank is None else [token_ids[data]]
            for data, rank in zip(datas, found, strict=True)
        ]

    def _pair_table(self) -> bpe_batch.PairTable | None:
        """The batch encoder's table of pairs, built on first use (about a second for o200k_base);
        None for a vocabulary it cannot hold, which is then encoded chunk by chunk."""
        if self._pairs is None:
            fits = bpe_batch.PairTable.fits(self._merge_rank, self._token_id)
            self._pairs = bpe_batch.PairTable(self._merge_rank, self._token_id) if fits else False
        return self._pairs or None

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


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Hold off Python's cycle collector while encoding. A text's encoding makes a list for each
    distinct chunk, hundreds of thousands of them, and none can be part of a cycle; the collector,
    counting those allocations, would otherwise walk every object in the process again and again
    (a third of a cold encode's time, measured)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        hint = " (decode bytes to str first)" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"text must be a str, not {type(text).__name__}{hint}")
