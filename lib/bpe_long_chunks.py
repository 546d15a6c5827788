"""The fast trainer's bookkeeping for long chunks: every token keeps its place, merges go to where
the pair is.

`bpe_fast.merge_pair` rewrites every chunk that holds the winning pair, a whole string at a time.
That is cheap when the chunks are words. Trained with no split pattern, though, the text is one
chunk of 100,000s of tokens, and late in training a merge changes it in a few hundred places: most
of the work would be copying the text, once per merge.

So here the chunks are laid end to end in numpy arrays, one place per token, and each place is
linked to the places left and right of it that are still alive. Every pair knows the places it
starts at. A merge writes the new token at those places and unlinks the place after each:

    place   0 1 2 3 4 5 6         merging (a, b) at places 1 and 3:
    token   . a b a b c .   ->    . N - N - c .      ("-": gone, skipped by the links)

The counts change as in `bpe_fast` (see there), computed for all occurrences at once: an
occurrence with left neighbour x and right neighbour y loses the pairs (x, a) and (b, y) and gains
(x, N) and (N, y), by its chunk's weight. When the right neighbour is the next occurrence (a b a b)
only the left side counts that boundary: it loses (b, a) and gains (N, N). numpy finds the
neighbours of all occurrences at once and groups them; Python then updates one count per group.
A pair is keyed by one number, left * n_ids + right.

On taylorswift.txt with no pattern (185,000 bytes, 256 merges) this takes about half the time of
the string books; on words (chunks of a few bytes) the string books are faster, so `bpe_fast`
picks by the chunks' average length.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lib.pair_queue import PairQueue

END, GONE = -1, -2  # the token of a place between chunks (in no pair), and of a merged-away place


class LongChunks:
    """Chunks of token ids in place-linked arrays; `counts` holds the pairs' weighted counts."""

    def __init__(self, chunks: list[bytes], weights: list[int], n_ids: int):
        """`n_ids`: one more than the largest id training can give (pairs are numbered by it)."""
        self.n_ids = n_ids
        self.small = np.uint16 if 2 * n_ids <= 1 << 16 else np.uint32  # holds 2 * n_ids: see merge
        lengths = np.array([len(chunk) for chunk in chunks], dtype=np.int64)
        # An END place before every chunk and after the last, so that every token has a place on
        # either side and no pair spans two chunks.
        joined = np.frombuffer(b"\0" + b"\0".join(chunks) + b"\0", dtype=np.uint8)
        self.token = token = joined.astype(np.int32)
        token[np.concatenate(([0], np.cumsum(lengths + 1)))] = END
        self.weight = np.concatenate(([0], np.repeat(np.array(weights, np.int64), lengths + 1)))
        # Places are numpy's own index type: arrays of them index others without a conversion.
        self.next = np.arange(1, len(token) + 1, dtype=np.intp)
        self.prev = np.arange(-1, len(token) - 1, dtype=np.intp)
        starts = np.flatnonzero((token[:-1] >= 0) & (token[1:] >= 0))
        two_bytes = (joined[:-1].astype(np.uint16) << 8 | joined[1:])[starts]
        self.counts: dict[int, int] = {}
        # pair -> the places it started at when filed, in text order (a merge since may have
        # taken some of them apart: `merge` checks)
        self.where: dict[int, np.ndarray] = {}
        for two, total, places in _grouped(two_bytes, self.weight[starts], starts, np.uint16):
            pair = self.pair(two >> 8, two & 255)
            self.counts[pair], self.where[pair] = total, places

    def pair(self, left: int, right: int) -> int:
        """The key of the pair (left, right) in `counts`; `ids` turns it back."""
        return left * self.n_ids + right

    def ids(self, pair: int) -> tuple[int, int]:
        return divmod(pair, self.n_ids)

    def merge(self, pair: int, new: int, queue: PairQueue) -> None:
        """Write the token `new` for every `pair`, update the counts and file the new pairs."""
        a, b = self.ids(pair)
        token, nxt, prv, counts, where = self.token, self.next, self.prev, self.counts, self.where
        at = where.pop(pair)
        # Some places may no longer hold the pair: a merge since took one of its tokens away.
        at = at[(token[at] == a) & (token[nxt[at]] == b)]
        if a == b:
            at = _left_to_right(at, nxt)
        gone = nxt[at]
        right = nxt[gone]
        x, y = token[prv[at]], token[right]  # the neighbours, before the merge
        token[at], token[gone] = new, GONE
        nxt[at], prv[right] = right, at
        left = prv[at]  # now the previous occurrence, if it was next door
        # Left sides lose (x, a) and gain (new_x, new), grouped by new_x, which tells x (new_x is
        # new when x was the b of the previous occurrence). Right sides lose (b, y) and gain
        # (new, y), except where y is the next occurrence: its left side counts that boundary.
        # Right sides are numbered after the left ones, k + y, so that one sort groups both.
        k = self.n_ids
        counted = np.concatenate((x >= 0, (y >= 0) & (token[right] != new)))
        sides = _grouped(
            np.concatenate((token[left], y + k))[counted],
            np.concatenate((self.weight[at],) * 2)[counted],
            np.concatenate((left, at))[counted],
            self.small,
        )
        for side, total, places in sides:
            if side < k:
                lost, gained = (b if side == new else side) * k + a, side * k + new
            else:
                lost, gained = b * k + side - k, new * k + side - k
            remaining = counts[lost] - total
            if remaining > 0:
                counts[lost] = remaining
            else:  # gone for good (never the merged pair: its occurrences outnumber its losses)
                del counts[lost], where[lost]
            counts[gained] = total  # a new pair: it holds the new token
            where[gained] = places
            queue.push(gained, total)
        counts.pop(pair, None)  # after the subtractions, which may meet it when a == b


def _grouped(
    ids: np.ndarray, weights: np.ndarray, places: np.ndarray, small: type[np.unsignedinteger]
) -> Iterator[tuple[int, int, np.ndarray]]:
    """(id, total weight, its places) for each different id among `ids`, in order; each id's
    places stay in the order given. Every id fits the unsigned type `small`."""
    if not len(ids):
        return
    # Stable, and for 16-bit numbers numpy's sort is a radix sort, which takes linear time.
    order = np.argsort(ids.astype(small), kind="stable")
    ids, places = ids[order], places[order]
    starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    totals = np.add.reduceat(weights[order], starts).tolist()
    ends = [*starts[1:].tolist(), len(ids)]
    groups = zip(ids[starts].tolist(), starts.tolist(), ends, totals, strict=True)
    for id_, start, end, total in groups:
        yield id_, total, places[start:end]


def _left_to_right(at: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """Of the places where (a, a) starts, those a left-to-right scan joins: in a run a a a a of
    overlapping occurrences, the 1st and the 3rd (BPE's rule: a a a -> [aa] a)."""
    if len(at) < 2:
        return at
    follows = np.concatenate(([False], nxt[at[:-1]] == at[1:]))  # overlaps the one before it
    run_starts = np.flatnonzero(~follows)
    run_lengths = np.diff(np.append(run_starts, len(at)))
    in_run = np.arange(len(at)) - np.repeat(run_starts, run_lengths)
    return at[in_run % 2 == 0]
