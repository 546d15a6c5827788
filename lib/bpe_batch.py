"""Rank-driven BPE on many chunks at once, in numpy: `bpe.encode_chunk`'s algorithm, batched.

`bpe.encode_chunk` is tiktoken's algorithm: in a chunk, join the neighbouring pair whose joined
bytes have the lowest rank (the leftmost of equals), until no pair is a token. In Python each join
costs a microsecond or two, and a text never seen before needs millions of them (3 million for
the 32 FLORES files under o200k_base). Here every chunk of a batch takes its step *at the same
time*: one round joins one pair in every chunk that has one left, in a few numpy operations over
arrays that hold all the chunks' tokens. Each chunk still takes exactly the steps it would take
alone, in the same order, so the ids are the same; only the loop over chunks has moved into C.

Only the chunk's own lowest pair can be joined in a round, never two pairs of one chunk: joining
one pair makes new pairs with its neighbours, and a new pair can rank *below* one already there
(o200k_base has 71,000 cuts of a token into two tokens where a part ranks after the whole), so no
other pair is known to be next until that one is.

The arrays, for all chunks laid end to end ("slots", one per byte of the batch):
- `tok`: the token id at each slot; a joined pair keeps the left slot, the right one dies;
- `nxt`/`prv`: the next and previous live slot in the same chunk; at its ends, one "edge" slot
  after all the others, whose pairs are no token;
- `key`: for the pair starting at a slot, `rank << 32 | slot`, so that one minimum per chunk
  (`np.minimum.reduceat`) finds both the lowest rank and, among equals, the leftmost pair.
Chunks that are done, and dead slots, are dropped from the arrays once they are half of them.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping

import numpy as np

_NONE = (1 << 31) - 1  # the rank of a pair that is not a token: above every real rank
_DONE = _NONE << 32  # a key at or above this is no pair at all
_DEAD = _DONE | ((1 << 32) - 1)  # the key of a slot whose token was joined to its left neighbour
_SLOT = (1 << 32) - 1  # the slot bits of a key
_RANK_BITS = 24  # a table entry is (left id * width + right id) << 24 | rank
_RANK = (1 << _RANK_BITS) - 1
_BATCH_BYTES = 1 << 19  # bytes of chunks encoded together: measured best of 2**16..2**30
_FIBONACCI = 0x9E3779B97F4A7C15 - (1 << 64)  # 2**64 / golden ratio, as an int64 (it wraps)


class PairTable:
    """{(left id, right id): rank of the joined bytes} for every pair whose joined bytes are a
    token, as a numpy hash table, so that thousands of pairs are looked up in one call.

    `ranks` gives each token's merge rank and `ids` its id (the same dict for tiktoken's files).
    A pair's rank is the rank of its *joined bytes*, however the token was first made: a token
    of three bytes can be reached as (ab, c) and as (a, bc), and both are entries here.
    """

    def __init__(self, ranks: Mapping[bytes, int], ids: Mapping[bytes, int]):
        self.byte_ids = np.array([ids[bytes([b])] for b in range(256)], np.int64)
        self.edge = max(ids.values()) + 1  # an id no token has: the right end of every chunk
        self.width = self.edge + 1  # left * width + right names a pair, the edge's too
        self.rank_ids = np.zeros(max(ranks.values(), default=0) + 1, np.int64)
        self.ids_are_ranks = ranks is ids  # tiktoken's files: a token's id is its rank
        pairs, pair_ranks = array("q"), array("q")  # 8 bytes an entry, no int objects kept
        get, width = ids.get, self.width
        for token, rank in ranks.items():
            self.rank_ids[rank] = ids[token]
            for k in range(1, len(token)):  # every cut of the token into two tokens
                left = get(token[:k])
                if left is not None:
                    right = get(token[k:])
                    if right is not None:
                        pairs.append(left * width + right)
                        pair_ranks.append(rank)
        bits = max(10, (3 * len(pairs)).bit_length())  # a table at most a third full
        self.shift, self.mask = 64 - bits, (1 << bits) - 1
        self.table = np.full(1 << bits, -1, np.int64)
        self._insert(np.frombuffer(pairs, np.int64), np.frombuffer(pair_ranks, np.int64))

    @staticmethod
    def fits(ranks: Mapping[bytes, int], ids: Mapping[bytes, int]) -> bool:
        """Whether a vocabulary fits the table: every byte a token, pair and rank within 63 bits."""
        width = max(ids.values(), default=0) + 2
        top_rank = max(ranks.values(), default=0)
        return (
            all(bytes([b]) in ids for b in range(256))
            and width * width < 1 << (63 - _RANK_BITS)
            and top_rank < 1 << _RANK_BITS
        )

    def _slots(self, pairs: np.ndarray) -> np.ndarray:
        """Where each pair's search starts: Fibonacci hashing (the top bits of a product)."""
        return (pairs * _FIBONACCI) >> self.shift & self.mask

    def _insert(self, pairs: np.ndarray, ranks: np.ndarray) -> None:
        """Linear probing, vectorized: of the pairs that want the same empty slot, the first takes
        it; the others, and those that find it taken, try the next slot."""
        table, mask = self.table, self.mask
        entries = pairs << _RANK_BITS | ranks
        slots = self._slots(pairs)
        while len(entries):
            free = table[slots] == -1
            _, first = np.unique(slots[free], return_index=True)
            placed = np.flatnonzero(free)[first]
            table[slots[placed]] = entries[placed]
            waiting = np.ones(len(entries), bool)
            waiting[placed] = False
            entries, slots = entries[waiting], (slots[waiting] + 1) & mask

    def lookup(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The rank of each pair (left[i], right[i]), or `_NONE` where the joined bytes are no
        token."""
        pairs = left * self.width + right
        slots = self._slots(pairs)
        entry = self.table[slots]
        found = entry >> _RANK_BITS == pairs
        out = np.where(found, entry & _RANK, _NONE)
        # The few that met another pair in their slot search on; an empty slot ends a search.
        on = np.flatnonzero(~found & (entry != -1))
        pairs, slots = pairs[on], slots[on]
        while len(on):
            slots = (slots + 1) & self.mask
            entry = self.table[slots]
            found = entry >> _RANK_BITS == pairs
            out[on[found]] = entry[found] & _RANK
            going = ~found & (entry != -1)
            on, pairs, slots = on[going], pairs[going], slots[going]
        return out


def encode_chunks(chunks: list[bytes], table: PairTable) -> list[list[int]]:
    """The ids of each chunk (non-empty bytes), exactly as `bpe.encode_chunk` gives them for a
    chunk that is not itself a token.

    The chunks go in batches of similar lengths, shortest first, of about `_BATCH_BYTES` bytes
    each: the arrays stay small (memory, and the processor's caches), and a batch of short chunks
    is done in as many rounds as its longest chunk needs, not the longest of the whole text.
    """
    lengths = np.fromiter(map(len, chunks), np.int64, len(chunks))
    order = np.argsort(lengths, kind="stable")
    ends = np.cumsum(lengths[order])
    cuts = np.searchsorted(
        ends, np.arange(_BATCH_BYTES, int(ends[-1]) if len(ends) else 0, _BATCH_BYTES)
    )
    result: list[list[int]] = [[]] * len(chunks)
    for part in np.split(order, cuts):
        part = part.tolist()
        for i, ids in zip(part, _encode_batch([chunks[i] for i in part], table), strict=True):
            result[i] = ids
    return result


def _encode_batch(chunks: list[bytes], table: PairTable) -> list[list[int]]:
    """`encode_chunks` on one batch, in rounds: one step of every chunk a round."""
    if not chunks:
        return []
    lengths = np.fromiter(map(len, chunks), np.int64, len(chunks))
    starts = np.cumsum(lengths) - lengths
    out = np.full(int(lengths.sum()), -1, np.int64)  # the ids, at the slot of each token's start
    # The working arrays, over the slots of the chunks not done yet, and one more slot (the
    # edge) that every chunk's last slot points to, so that no step has to test for the ends.
    tok = table.byte_ids[np.frombuffer(b"".join(chunks) + b"\0", np.uint8)]
    tok[-1] = table.edge
    orig, seg, seg_len = np.arange(len(out)), starts, lengths
    nxt, prv, key = _links(seg, seg_len, table.lookup(tok[:-2], tok[1:-1]))
    dead = 0  # slots that died since the arrays were last compacted
    while len(seg):
        best = np.minimum.reduceat(key, seg)
        going = best < _DONE
        n_going = int(np.count_nonzero(going))
        # Compact (emit the chunks that are done, drop the dead slots) once half the slots or half
        # the chunks are of no more use: each round costs time for both.
        if (dead + int(seg_len[~going].sum())) * 2 > len(orig) or n_going * 2 < len(seg):
            live = key[:-1] != _DEAD
            done = np.repeat(~going, seg_len)
            emit = live & done
            out[orig[emit]] = tok[:-1][emit]
            keep = live & ~done
            seg_len = np.add.reduceat(keep, seg, dtype=np.int64)[going]
            seg = np.cumsum(seg_len) - seg_len
            tok = np.append(tok[:-1][keep], table.edge)
            orig, ranks = orig[keep], key[:-1][keep] >> 32
            nxt, prv, key = _links(seg, seg_len, ranks)
            dead = 0
            continue  # the slots have new numbers: find the lowest pairs again
        best = best[going]
        _join(best & _SLOT, best >> 32, tok, nxt, prv, key, table)
        dead += len(best)
    found = out >= 0
    flat = out[found].tolist()
    ends = np.cumsum(np.add.reduceat(found, starts, dtype=np.int64)).tolist()
    return [flat[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _links(seg: np.ndarray, seg_len: np.ndarray, pair_ranks: np.ndarray):
    """`nxt`, `prv` and `key` for chunks whose live slots are consecutive (at the start, and after
    each compaction), the edge slot last; `pair_ranks[i]` is the rank of the pair (i, i + 1)."""
    n = int(seg_len.sum())
    last = seg + seg_len - 1
    nxt, prv = np.arange(1, n + 2), np.arange(-1, n)
    nxt[last], prv[seg] = n, n  # the edge
    ranks = np.empty(n + 1, np.int64)
    ranks[: n - 1] = pair_ranks[: n - 1]
    ranks[last] = _NONE  # no pair across the end of a chunk
    key = ranks << 32 | np.arange(n + 1)
    key[n] = _DEAD
    return nxt, prv, key


def _join(pos, ranks, tok, nxt, prv, key, table: PairTable) -> None:
    """In every chunk at once: join the pair at slot `pos` (of rank `ranks`) and rank the two new
    pairs it makes with its neighbours. The chunks are distinct, so no two joins meet; a neighbour
    may be the edge, whose pairs are no token (and whose entries nobody reads)."""
    right = nxt[pos]
    joined = tok[pos] = ranks if table.ids_are_ranks else table.rank_ids[ranks]
    key[right] = _DEAD
    after = nxt[pos] = nxt[right]
    prv[after] = pos
    key[pos] = table.lookup(joined, tok[after]) << 32 | pos
    before = prv[pos]
    key[before] = table.lookup(tok[before], joined) << 32 | before
