"""`PlainEncoder`: how a `Tokenizer` turns text without special tokens into ids, fast.

A text repeats its words: the 4 M characters of the 32 FLORES files are 1 M chunks but only 190 K
different ones. So each different chunk is encoded once (and remembered beyond the call in
`cache`, up to a limit), and every chunk is then mapped to its ids in C: no Python-level step is
taken per chunk occurrence, only per distinct chunk. The chunks new to the cache are encoded all
together (`_encode_new`), in numpy when there are enough of them (`lib.bpe_batch`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from itertools import chain

from lib import bpe, bpe_batch, patterns

CACHE_LIMIT = 200_000  # chunks remembered: whole words repeat, so a cache saves most BPE work
BATCH_FROM = 20  # new chunks from which numpy's batch encoder beats encoding them one by one


class PlainEncoder:
    """Text -> ids by merge rank (`bpe.encode_chunk`'s rules), remembering the chunks it saw.

    `merge_rank` ({token bytes: rank}) decides which pair joins first; `token_id` ({token bytes:
    id}) names the result. Both are a tokenizer's and never change, so neither does what is
    remembered.
    """

    def __init__(
        self, pattern: str | None, merge_rank: Mapping[bytes, int], token_id: Mapping[bytes, int]
    ):
        self.pattern, self.merge_rank, self.token_id = pattern, merge_rank, token_id
        self.cache: dict[str, list[int]] = {}  # chunk -> ids
        self._pairs: bpe_batch.PairTable | None | bool = None  # built when first needed

    def encode(self, text: str) -> list[int]:
        """Split `text` and encode each *distinct* chunk once, then lay the ids out in order."""
        with _no_gc_pauses():
            return self._encode_chunks(patterns.split_text(text, self.pattern))

    def _encode_chunks(self, chunks: list[str]) -> list[int]:
        cache = self.cache
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
        room = CACHE_LIMIT - len(cache)
        if room > 0:  # long runs rarely repeat: only chunks under 64 characters are kept
            pairs = zip(new, encoded, strict=True)
            kept = [(chunk, ids) for chunk, ids in pairs if len(chunk) < 64]
            cache.update(kept[:room])
        return list(chain.from_iterable(map(distinct.__getitem__, chunks)))

    def _encode_new(self, chunks: list[str]) -> list[list[int]]:
        """The ids of each chunk, by `bpe.encode_chunk`'s rules. A chunk that is a token is that
        token; the others, when there are enough of them to pay numpy's overhead, take their merge
        steps side by side in `lib.bpe_batch` (the same steps, so the same ids), else one by one."""
        ranks, token_ids = self.merge_rank, self.token_id
        datas = [chunk.encode("utf-8") for chunk in chunks]
        found = [ranks.get(data) for data in datas]
        rest = [data for data, rank in zip(datas, found, strict=True) if rank is None]
        table = self._pair_table() if len(rest) >= BATCH_FROM else None
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
            fits = bpe_batch.PairTable.fits(self.merge_rank, self.token_id)
            self._pairs = bpe_batch.PairTable(self.merge_rank, self.token_id) if fits else False
        return self._pairs or None


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
