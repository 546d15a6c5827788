"""The fast BPE trainer: the same merges as the naive loop, without recounting the text.

The naive loop recounts every pair after every merge, although one merge changes only the pairs
right next to where it happens:

    ... x [a b] y ...   becomes   ... x [ab] y ...
    count(x, a) -= w, count(b, y) -= w, count(x, ab) += w, count(ab, y) += w

So this trainer keeps the counts up to date instead, and remembers for every pair the chunks it
occurs in, to visit only those. Every different chunk is stored once, with its number of
occurrences `w` (its weight), and a queue of pairs by count (`PairQueue`) finds each winner.

The speed comes from letting Python's string methods, written in C, do the work per token:
- a chunk of token ids is a `str` with one character per id (`chr(id)`), and a pair is the
  two-character string `chr(a) + chr(b)`. Then `chunk.split(pair)` finds every occurrence, left to
  right and without overlap (exactly BPE's rule: a a a -> [aa] a), and `chr(new).join(pieces)`
  writes the merged chunk;
- the pieces between occurrences end with the left neighbours x and start with the right
  neighbours y, so the count changes are gathered by neighbour and applied once per neighbour;
- every chunk is framed by an `edge` character that is no token, so no piece is ever empty at
  the ends of a chunk, and an empty piece always means two occurrences side by side (a b a b).

A merge so costs the length of the chunks it visits. Trained without a split pattern, the whole
text is one chunk, visited by every merge: then `bpe_long_chunks` keeps the books instead, with
every token in its place in numpy arrays, so that a merge costs the places it changes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from operator import add, itemgetter

from lib.bpe_long_chunks import LongChunks
from lib.bpe_types import Merges
from lib.pair_queue import PairQueue
from lib.progress import progress as progress_bar

LONG = 1000  # bytes per chunk, on average, from which `LongChunks` keeps the books
_LAST, _FIRST = itemgetter(slice(-1, None)), itemgetter(slice(1))  # "" for an empty piece


def train_fast(
    words: Counter,
    n_merges: int,
    progress: bool = False,
    consume: bool = False,
    long_chunks: bool | None = None,
) -> Merges:
    """Learn up to `n_merges` merges from {chunk bytes: count}; see `lib.bpe.train`.

    With `consume=True`, `words` is emptied once the trainer has its own copy of the chunks, for a
    caller with no further use for it: their memory is then free before the merge loop's tables
    grow, which is when a big corpus reaches its peak. `long_chunks` chooses the books (True:
    `LongChunks`, False: strings); by default the chunks' average length does (`is_long`).
    """
    kept = [chunk for chunk in words if len(chunk) > 1]  # a single byte holds no pair
    # Every merge shortens some chunk by one token, so the text cannot give more merges than this;
    # capping here keeps every id a valid character (chr stops at 0x10FFFF) for any vocab_size.
    n_merges = min(n_merges, sum(len(chunk) - 1 for chunk in kept))
    if 256 + n_merges >= 0x110000:
        raise ValueError(f"{n_merges} merges do not fit in the fast trainer's id space (1.1M)")
    edge = chr(256 + n_merges)  # one more than the largest id: never a token
    if long_chunks is None:
        long_chunks = is_long(kept)
    token_bytes = [bytes([i]) for i in range(256)]  # id -> bytes, grown by each merge
    if long_chunks:
        table = LongChunks(kept, [words[chunk] for chunk in kept], n_ids=256 + n_merges)
        counts, merge, k = table.counts, table.merge, table.n_ids

        def by_bytes(pair: int) -> tuple[bytes, bytes]:
            return token_bytes[pair // k], token_bytes[pair % k]

    else:
        chunks, weights, counts, where = prepare_chunks(kept, words, edge)

        def by_bytes(pair: str) -> tuple[bytes, bytes]:
            return token_bytes[ord(pair[0])], token_bytes[ord(pair[1])]

        def merge(pair: str, new_id: int, queue: PairQueue) -> None:
            merge_pair(pair, chr(new_id), edge, chunks, weights, counts, where, queue)

    if consume:
        words.clear()
    del kept  # with `words` consumed, this frees the bytes of every chunk
    # Ties go to the greatest (left bytes, right bytes): that is the order the queue sorts by.
    queue = PairQueue(counts, key=by_bytes)
    merges: Merges = []
    steps = range(256, 256 + n_merges)
    for new_id in progress_bar(steps, total=len(steps), desc="merges", enabled=progress):
        pair = queue.pop(counts)
        if pair is None:
            break
        merges.append(by_bytes(pair))
        token_bytes.append(b"".join(merges[-1]))
        merge(pair, new_id, queue)
    return merges


def is_long(chunks: list[bytes]) -> bool:
    """Whether the chunks are long enough for `LongChunks`, whose every merge costs numpy calls
    (tens of microseconds) but no longer grows with the text."""
    return sum(map(len, chunks)) > LONG * len(chunks)


def prepare_chunks(
    kept: list[bytes], words: Counter, edge: str
) -> tuple[list[str], list[int], dict[str, int], dict[str, Sequence[int]]]:
    """The chunks as framed strings (byte b -> chr(b)), their weights, the pair counts and where
    each pair occurs: everything `merge_pair` keeps up to date."""
    weights = [words[chunk] for chunk in kept]
    chunks = [edge + chunk.decode("latin-1") + edge for chunk in kept]
    return (chunks, weights, *count_pairs(chunks, weights))


def merge_pair(
    pair: str,
    new: str,
    edge: str,
    chunks: list[str],
    weights: list[int],
    counts: dict[str, int],
    where: dict[str, Sequence[int]],
    queue: PairQueue,
) -> int:
    """Write the token `new` for every `pair` in the chunks, update the counts, and file the new
    pairs in `queue`. Returns how many tokens the text lost (weighted by the chunks' counts)."""
    a, b = pair
    # For each neighbour x left of an occurrence: the chunks holding such an occurrence (each once)
    # and the occurrences' total weight; the same for the neighbours y on the right. "" means the
    # neighbour is another occurrence (a b a b).
    lefts: defaultdict[str, list[int]] = defaultdict(list)
    rights: defaultdict[str, list[int]] = defaultdict(list)
    left_w: defaultdict[str, int] = defaultdict(int)
    right_w: defaultdict[str, int] = defaultdict(int)
    removed = 0
    for i in where.pop(pair, ()):
        pieces = chunks[i].split(pair)
        if len(pieces) == 1:
            continue  # stale: an earlier merge already took this chunk's (a, b) apart
        chunks[i] = new.join(pieces)
        w = weights[i]
        removed += (len(pieces) - 1) * w
        if len(pieces) == 2:  # one occurrence, the common case
            x, y = pieces[0][-1], pieces[1][0]
            lefts[x].append(i)
            left_w[x] += w
            rights[y].append(i)
            right_w[y] += w
            continue
        # Many occurrences (a long chunk): the neighbours are counted in C, not one by one.
        for x, n in Counter(map(_LAST, pieces[:-1])).items():
            lefts[x].append(i)
            left_w[x] += n * w
        for y, n in Counter(map(_FIRST, pieces[1:])).items():
            rights[y].append(i)
            right_w[y] += n * w
    # Each neighbour turns one lost pair into one gained pair. Gained pairs hold `new`, so they
    # are new keys: adding them never meets the subtractions.
    changes = [
        ((x or b) + a, (x or new) + new, occ, left_w[x]) for x, occ in lefts.items() if x != edge
    ]
    changes += [(b + y, new + y, occ, right_w[y]) for y, occ in rights.items() if y and y != edge]
    for lost, gained, occurrences, w in changes:  # "" on the left: lost (b, a), gained (new, new)
        left = counts.get(lost, 0) - w  # get: when a == b, the merged pair may come twice
        if left > 0:
            counts[lost] = left
        else:  # gone for good (gained pairs hold new ids): free its entries; the queue skips it
            counts.pop(lost, None)
            where.pop(lost, None)  # None: the merged pair's list was taken above
        counts[gained] = w
        # Stored as a tuple: never appended to, and smaller than the list it was gathered in.
        where[gained] = tuple(occurrences)
        queue.push(gained, w)
    counts.pop(pair, None)  # after the loop above, which subtracts from it when a == b
    return removed


def count_pairs(
    chunks: list[str], weights: list[int]
) -> tuple[dict[str, int], dict[str, Sequence[int]]]:
    """Weighted pair counts, and for each pair the chunks that hold it (each chunk once)."""
    counts: defaultdict[str, int] = defaultdict(int)
    where: defaultdict[str, list[int]] = defaultdict(list)
    for i, (chunk, w) in enumerate(zip(chunks, weights, strict=True)):
        for pair, n in Counter(map(add, chunk[1:-2], chunk[2:-1])).items():  # without the edges
            counts[pair] += n * w
            where[pair].append(i)
    return dict(counts), dict(where)
