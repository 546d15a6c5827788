"""Byte-level byte-pair encoding: the algorithms, with no I/O.

A text becomes bytes (ids 0..255). Training repeatedly finds the most frequent pair of adjacent
ids and replaces it by a new id (256, 257, ...); the list of those pairs, in order, is the
tokenizer. Encoding replays the merges on new text; decoding concatenates the bytes back.

`train(..., method="naive")` below is the lesson's loop, written to be read: recount every pair
after every merge. `method="fast"` (in `bpe_fast.py`) learns exactly the same merges while touching
only the places each merge changes. Both learn from chunk counts alone (`train_from_counts`), which
is what lets `bpe_files.train_from_files` count files too large for one string, in parallel.
"""

from __future__ import annotations

import heapq
import operator
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping

from lib import patterns
from lib.bpe_fast import train_fast
from lib.bpe_types import Merges, Vocab  # bpe.Merges and bpe.Vocab, as the lessons name them
from lib.progress import progress as progress_bar


def get_stats(
    ids: list[int], counts: dict | None = None, weight: int = 1
) -> dict[tuple[int, int], int]:
    """Count adjacent pairs of ids, overlapping ones included: [97, 97, 97] has two (97, 97).

    Pass `counts` to add to an existing tally, and `weight` when `ids` stands for several copies of
    the same chunk of text.
    """
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:], strict=False):  # ids[1:] is one shorter
        counts[pair] = counts.get(pair, 0) + weight
    return counts


def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of `pair` in `ids` by `new_id`, scanning left to right.

    Left to right matters when the pair overlaps itself: merging (97, 97) in [97, 97, 97] gives
    [new_id, 97], not [97, new_id].
    """
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def replace_lone_surrogates(text: str) -> str:
    """Make `text` encodable as UTF-8 the way tiktoken does: lone surrogates become U+FFFD.

    A Python str may hold half of a UTF-16 surrogate pair ('\\ud83d'), which UTF-8 cannot encode.
    Adjacent halves that form a valid pair are joined into the character they spell.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def chunk_counts(
    text: str, pattern: str | None = None, special_tokens: Iterable[str] = ()
) -> Counter:
    """The training data as {chunk bytes: how often it occurs}.

    Special tokens are cut out first, so no merge can ever cross one; then each piece is split by
    the pattern (or kept whole when there is none). Counting equal chunks once makes training
    cost depend on the number of *different* words, not the length of the text.
    """
    pattern = patterns.resolve(pattern)
    specials = set(special_tokens)
    counts: Counter = Counter()
    for piece in patterns.split_on_special(replace_lone_surrogates(text), specials):
        if piece not in specials:
            counts.update(patterns.split_text(piece, pattern))
    # Encoded once per distinct chunk, not once per occurrence (UTF-8 keeps distinct strs distinct).
    return Counter({chunk.encode("utf-8"): n for chunk, n in counts.items()})


def train(
    text: str,
    vocab_size: int,
    pattern: str | None = None,
    special_tokens: Iterable[str] = (),
    method: str = "fast",
    progress: bool = False,
) -> tuple[Vocab, Merges]:
    """Learn a byte-level BPE tokenizer from `text`.

    `vocab_size` counts the 256 byte tokens, the merges and the special tokens. Of the most frequent
    pairs, the one with the greatest (left bytes, right bytes) wins, so training is deterministic.
    Returns the vocabulary (ids 0..255 are bytes, then one id per merge, then the special tokens)
    and the merges in the order they were learned.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}; decode bytes first")
    specials = check_request(vocab_size, special_tokens, method)  # before the counting, not after
    words = chunk_counts(text, pattern, specials)
    return _learn(words, vocab_size, specials, method, progress, consume=True)


def check_request(
    vocab_size: int, special_tokens: Iterable[str], method: str = "fast"
) -> list[str]:
    """Validate a training request before any work; returns the special tokens, each once."""
    specials = _check_specials(special_tokens)
    minimum = 256 + len(specials)
    if not isinstance(vocab_size, int) or vocab_size < minimum:
        raise ValueError(
            f"vocab_size must be an integer of at least {minimum} (256 bytes + {len(specials)}"
            f" special tokens), got {vocab_size!r}"
        )
    if method not in ("fast", "naive"):
        raise ValueError(f'method must be "fast" or "naive", got {method!r}')
    return specials


def train_from_counts(
    words: Counter,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    method: str = "fast",
    progress: bool = False,
    consume: bool = False,
) -> tuple[Vocab, Merges]:
    """Learn the merges from {chunk bytes: count}, however those counts were gathered.

    `train` counts the chunks of one string; `lib.bpe_files` counts them file by file, in several
    processes. The merges depend only on the counts, so both learn the same tokenizer.
    `consume=True` lets the fast trainer empty `words` once it has built its own tables from it.
    """
    specials = check_request(vocab_size, special_tokens, method)
    return _learn(words, vocab_size, specials, method, progress, consume)


def _learn(
    words: Counter, vocab_size: int, specials: list[str], method: str, progress: bool, consume: bool
) -> tuple[Vocab, Merges]:
    """`train_from_counts` once the request is checked."""
    n_merges = vocab_size - 256 - len(specials)
    if method == "naive":
        merges = _train_naive(words, n_merges, progress)
    else:
        merges = train_fast(words, n_merges, progress, consume)
    if len(merges) < n_merges:
        warnings.warn(
            f"stopped after {len(merges)} of {n_merges} merges: no pair of adjacent tokens is left"
            f" in the training text, so the vocabulary has {vocab_size - n_merges + len(merges)}"
            f" tokens, not {vocab_size}. Train on more text or ask for a smaller vocab_size.",
            stacklevel=3,  # the line that called train or train_from_counts
        )
    return build_vocab(merges, specials), merges


def _train_naive(words: Counter, n_merges: int, progress: bool) -> Merges:
    """The textbook loop: count every pair, merge the winner everywhere, repeat."""
    chunks = [(list(chunk), count) for chunk, count in words.items()]
    vocab = {i: bytes([i]) for i in range(256)}
    merges: Merges = []
    steps = range(256, 256 + n_merges)
    for new_id in progress_bar(steps, total=len(steps), desc="merges", enabled=progress):
        stats: dict[tuple[int, int], int] = {}
        for ids, count in chunks:
            get_stats(ids, stats, count)
        if not stats:
            break
        a, b = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
        chunks = [(merge(ids, (a, b), new_id), count) for ids, count in chunks]
        vocab[new_id] = vocab[a] + vocab[b]
        merges.append((vocab[a], vocab[b]))
    return merges


def _check_specials(special_tokens: Iterable[str]) -> list[str]:
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of strings, e.g. [{special_tokens!r}]")
    specials = list(dict.fromkeys(special_tokens))
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"special tokens must be non-empty strings, got {s!r}")
    return specials


def build_vocab(merges: Merges, special_tokens: Iterable[str] = ()) -> Vocab:
    """Ids 0..255 for the bytes, 256.. for the merges in order, then the special tokens."""
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (left, right) in enumerate(merges):
        vocab[256 + i] = left + right
    for s in special_tokens:
        vocab[len(vocab)] = s.encode("utf-8")
    return vocab


def encode_chunk_naive(data: bytes, merges: Merges) -> list[int]:
    """Encode one chunk by replaying every merge in the order it was learned (slow, obvious)."""
    ids = list(data)
    token_id = {bytes([i]): i for i in range(256)}
    for new_id, (left, right) in enumerate(merges, start=256):
        ids = merge(ids, (token_id[left], token_id[right]), new_id)
        token_id[left + right] = new_id
    return ids


_BYTES = [bytes([b]) for b in range(256)]  # byte value -> the one-byte token


def encode_chunk(
    data: bytes, ranks: Mapping[bytes, int], ids: Mapping[bytes, int] | None = None
) -> list[int]:
    """Encode one chunk the rank-driven way, as tiktoken does.

    Start from single bytes; repeatedly join the adjacent pair whose joined bytes have the lowest
    rank (the earliest-learned merge), leftmost first among equals, until no joined pair is a token.
    A min-heap of candidate pairs keeps this fast on long chunks. An entry goes stale when one of
    its two parts was merged with another neighbour first: that part grew, so the two lengths no
    longer add up to the size the entry recorded, and the entry is skipped when it surfaces.

    `ranks` maps token bytes to merge order; the result maps the final parts through `ids`
    ({token bytes: id}), which defaults to `ranks` because tiktoken's ids *are* the ranks.

    >>> encode_chunk(b"aaab", {b"aa": 256, b"aaa": 257, b"a": 97, b"b": 98})
    [257, 98]
    """
    ids = ranks if ids is None else ids
    get = ranks.get
    if get(data) is not None:  # a chunk that is one token is taken as it is, as tiktoken does
        return [ids[data]]
    parts: list[bytes | None] = list(map(_BYTES.__getitem__, data))
    nxt = [*range(1, len(parts)), -1]  # a doubly linked list over the parts still alive
    prv = [*range(-1, len(parts) - 1)]
    pair_ranks = map(get, map(operator.add, parts, parts[1:]))
    heap = [(rank, i, 2) for i, rank in enumerate(pair_ranks) if rank is not None]
    heapq.heapify(heap)
    while heap:
        rank, i, size = heapq.heappop(heap)
        left, j = parts[i], nxt[i]
        if left is None or j < 0 or len(left) + len(parts[j]) != size:
            continue
        joined = parts[i] = left + parts[j]
        parts[j] = None
        k = nxt[i] = nxt[j]
        if k >= 0:  # the new pair on the right: (joined, parts[k])
            prv[k] = i
            rank = get(joined + parts[k])
            if rank is not None:
                heapq.heappush(heap, (rank, i, size + len(parts[k])))
        h = prv[i]
        if h >= 0:  # and on the left: (parts[h], joined)
            rank = get(parts[h] + joined)
            if rank is not None:
                heapq.heappush(heap, (rank, h, size + len(parts[h])))
    return list(map(ids.__getitem__, filter(None, parts)))


def recover_merges(ranks: Mapping[bytes, int]) -> Merges:
    """The merges behind tiktoken-style `ranks`, in rank order.

    tiktoken stores only {token bytes: rank}. Running BPE on a token's own bytes with only the
    tokens ranked before it stops at exactly the two parts that were merged to make it.

    >>> recover_merges({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3})
    [(b'a', b'b'), (b'ab', b'b')]
    """
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) > 1:
            parts = _bpe_below(token, ranks, rank)
            if len(parts) != 2:
                raise ValueError(
                    f"token {token!r} (rank {rank}) is not the merge of two earlier tokens"
                )
            merges.append((parts[0], parts[1]))
    return merges


def _bpe_below(token: bytes, ranks: Mapping[bytes, int], max_rank: int) -> list[bytes]:
    """BPE on `token` with only the tokens ranked below `max_rank`: lowest-ranked pair first."""
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 1:
        best, best_rank = None, max_rank
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best, best_rank = i, rank
        if best is None:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return parts
