"""The fast BPE trainer: the same merges as the naive loop, without recounting the text.

The naive loop recounts every pair after every merge, although one merge changes only the pairs
right next to where it happens. Here the chunks live in flat arrays as doubly linked lists, so a
merge can rewrite one occurrence in place and fix the counts of its two neighbouring pairs:

    ... x [a b] y ...   becomes   ... x [ab] y ...
    count(x, a) -= w, count(b, y) -= w, count(x, ab) += w, count(ab, y) += w

`where` remembers, for every pair, the positions where it started (some of them stale by now),
and a lazy max-heap finds the next winner: an entry whose count has changed since it was pushed is
corrected when it reaches the top. Every chunk is stored once with its number of occurrences `w`.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict

from lib.bpe import Merges, _steps

_REMOVED = -1


def _tie_key(token: bytes) -> tuple[int, ...]:
    """A key that sorts *greater* byte strings first, for a min-heap.

    Bytes are complemented (255 - x) and a terminator 256 is appended, so that b"ab" (a prefix of
    b"abc", hence smaller as bytes) gets the larger key.
    """
    return tuple(255 - x for x in token) + (256,)


def train_fast(words: Counter, n_merges: int, progress: bool = False) -> Merges:
    """Learn up to `n_merges` merges from {chunk bytes: count}; see `lib.bpe.train`."""
    tok: list[int] = []  # token id at each position, _REMOVED once merged into its left neighbour
    nxt: list[int] = []  # next position in the same chunk, or -1
    prv: list[int] = []  # previous position in the same chunk, or -1
    weight: list[int] = []  # how many times the chunk holding this position occurs
    counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], list[int]] = defaultdict(list)
    for chunk, w in words.items():
        start = len(tok)
        n = len(chunk)
        tok.extend(chunk)
        nxt.extend(range(start + 1, start + n))
        nxt.append(-1)
        prv.append(-1)
        prv.extend(range(start, start + n - 1))
        weight.extend([w] * n)
        for pos, pair in enumerate(zip(chunk, chunk[1:]), start):
            counts[pair] += w
            where[pair].append(pos)

    token_bytes = [bytes([i]) for i in range(256)]
    tie_key = [_tie_key(t) for t in token_bytes]
    heap = [(-c, tie_key[a] + tie_key[b], a, b) for (a, b), c in counts.items()]
    heapq.heapify(heap)
    merges: Merges = []

    for new_id in _steps(range(256, 256 + n_merges), progress):
        pair = _pop_best(heap, counts)
        if pair is None:
            break
        a, b = pair
        merges.append((token_bytes[a], token_bytes[b]))
        token_bytes.append(token_bytes[a] + token_bytes[b])
        tie_key.append(_tie_key(token_bytes[-1]))
        changed: set[tuple[int, int]] = set()
        positions = where.pop(pair)
        if a == b:
            positions.sort()  # overlapping runs (a a a) must merge left to right
        for p in positions:
            q = nxt[p]
            if tok[p] != a or q < 0 or tok[q] != b:
                continue  # stale: this occurrence was already rewritten by an earlier merge
            w = weight[p]
            before, after = prv[p], nxt[q]
            if before >= 0:
                counts[tok[before], a] -= w
            if after >= 0:
                counts[b, tok[after]] -= w
            tok[p] = new_id
            tok[q] = _REMOVED
            nxt[p] = after
            if after >= 0:
                prv[after] = p
                counts[new_id, tok[after]] += w
                where[new_id, tok[after]].append(p)
                changed.add((new_id, tok[after]))
            if before >= 0:
                counts[tok[before], new_id] += w
                where[tok[before], new_id].append(before)
                changed.add((tok[before], new_id))
        del counts[pair]
        for x, y in changed:
            if counts[x, y] > 0:
                heapq.heappush(heap, (-counts[x, y], tie_key[x] + tie_key[y], x, y))
    return merges


def _pop_best(heap: list, counts: dict[tuple[int, int], int]) -> tuple[int, int] | None:
    """The pair with the highest count (ties: greatest bytes), correcting stale heap entries."""
    while heap:
        neg_count, key, a, b = heap[0]
        current = counts.get((a, b), 0)
        if current == -neg_count:
            return a, b
        heapq.heappop(heap)
        if 0 < current < -neg_count:
            # Counts fall without a push; put the pair back with its true count.
            heapq.heappush(heap, (-current, key, a, b))
    return None
