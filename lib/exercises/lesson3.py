"""Lesson 3 exercises: training byte-pair encoding.

Expected values come from `lib.bpe` (`get_stats`, `merge`, and the lesson's own loop,
`train(..., method="naive")`). The texts are short sentences written for these checks, in several
scripts, with ties and long runs of one letter, where a careless loop goes wrong.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from lib import bpe
from lib.exercises.core import Case, Exercise

_TEXTS = [
    "aaabdaaabac",
    "the cat ate the hat",
    "aaaaaa",
    "abababab abba",
    "नमस्ते नमस्ते दुनिया",
    "안녕 안녕하세요 👋👋",
    "low lower lowest newer newest",
]

PREDICT_CORPUS = "the cat ate the hat"


def _ids(text: str) -> list[int]:
    return list(text.encode("utf-8"))


def _get_stats_cases() -> list[Case]:
    sequences = [[], [7], [97, 97, 97], [256, 100, 256, 97, 99], [1, 2, 1, 2, 1, 2, 1]]
    sequences += [_ids(text) for text in _TEXTS]
    return [Case(args=(ids,), expected=bpe.get_stats(ids)) for ids in sequences]


def _merge_cases() -> list[Case]:
    calls = [
        ([97, 97, 97], (97, 97), 256),  # overlapping: left to right gives [256, 97]
        ([97, 97, 97, 97], (97, 97), 256),
        ([1, 2, 3, 1, 2], (1, 2), 300),  # the pair at the very end
        ([1, 2, 3], (3, 1), 256),  # not there: nothing changes
        ([], (1, 2), 256),
        ([5], (5, 5), 256),
        ([256, 97, 98, 100, 256, 97, 98, 97, 99], (256, 97), 257),
    ]
    for text in _TEXTS:  # merge each text's most frequent pair
        ids = _ids(text)
        stats = bpe.get_stats(ids)
        calls.append((ids, max(stats, key=lambda p: (stats[p], p)), 256))
    return [Case(args=call, expected=bpe.merge(*call)) for call in calls]


def _train_bpe_cases() -> list[Case]:
    sizes = [(text, 256 + 3) for text in _TEXTS] + [(text, 256 + 12) for text in _TEXTS[1:]]
    sizes += [("aaabdaaabac", 256), ("the cat sat on the mat. " * 4 + "नमस्ते " * 3, 256 + 40)]
    with warnings.catch_warnings():  # some texts run out of pairs early, on purpose: no warning
        warnings.simplefilter("ignore")
        return [
            Case(args=(text, size), expected=bpe.train(text, size, method="naive")[1])
            for text, size in sizes
        ]


@dataclass(frozen=True)
class _Secret:
    """One merge the learner must predict. Its repr, shown when the prediction is wrong, does not
    give the answer away."""

    index: int
    pair: tuple[bytes, bytes]

    def __repr__(self) -> str:
        return f"a different merge number {self.index + 1}"


def _first_merges_cases() -> list[Case]:
    merges = bpe.train(PREDICT_CORPUS, 256 + 3, method="naive")[1]
    return [Case(expected=_Secret(i, pair)) for i, pair in enumerate(merges)]


def _predicted(got: Any, secret: _Secret) -> bool:
    """Is merge number `secret.index` right? Accept ("e", " ") as well as (b"e", b" ")."""
    try:
        left, right = (p.encode("utf-8") if isinstance(p, str) else p for p in got[secret.index])
        return (left, right) == secret.pair
    except (TypeError, ValueError, IndexError, KeyError):
        return False


get_stats = Exercise(
    name="get_stats",
    lesson=3,
    points=1,
    target="get_stats",
    cases=_get_stats_cases,
    hint=(
        "zip(ids, ids[1:]) walks over the adjacent pairs: (ids[0], ids[1]), (ids[1], ids[2]), ... "
        "For each pair add 1 to counts[pair], starting from 0 (counts.get(pair, 0) + 1)."
    ),
    solution="""\
def get_stats(ids: list[int]) -> dict[tuple[int, int], int]:
    counts = {}
    for pair in zip(ids, ids[1:]):  # every adjacent pair, overlapping ones included
        counts[pair] = counts.get(pair, 0) + 1
    return counts
""",
)

merge = Exercise(
    name="merge",
    lesson=3,
    points=1,
    target="merge",
    cases=_merge_cases,
    hint=(
        "Walk with an index i and build a new list. If ids[i] and ids[i + 1] are the pair (check "
        "that i + 1 < len(ids) first), append new_id and jump by 2; otherwise append ids[i] and "
        "move by 1. A for loop cannot skip ahead, so use while i < len(ids)."
    ),
    solution="""\
def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2  # both halves of the pair are used up
        else:
            out.append(ids[i])
            i += 1
    return out
""",
)

train_bpe = Exercise(
    name="train_bpe",
    lesson=3,
    points=2,
    target="train_bpe",
    cases=_train_bpe_cases,
    allowed_lib=("lib.bpe.get_stats", "lib.bpe.merge"),
    hint=(
        'Start with ids = list(text.encode("utf-8")) and vocab = {i: bytes([i]) for i in '
        "range(256)}. For each new_id in range(256, vocab_size): count the pairs (stop early if "
        "there are none), pick the pair with "
        "max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]])), merge it into new_id, "
        "set vocab[new_id] = vocab[a] + vocab[b] and append (vocab[a], vocab[b]) to the merges. "
        "Use your own get_stats and merge, or bpe.get_stats and bpe.merge (keep the bpe. prefix: "
        "`from lib.bpe import merge` would replace your own merge in the notebook)."
    ),
    solution="""\
from lib import bpe


def train_bpe(text: str, vocab_size: int) -> list[tuple[bytes, bytes]]:
    ids = list(text.encode("utf-8"))
    vocab = {i: bytes([i]) for i in range(256)}  # id -> the bytes it stands for
    merges = []
    for new_id in range(256, vocab_size):
        stats = bpe.get_stats(ids)  # or your own get_stats
        if not stats:  # fewer than two tokens left: nothing to merge
            break
        # The most frequent pair; among equals, the greatest (left bytes, right bytes).
        a, b = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
        ids = bpe.merge(ids, (a, b), new_id)  # or your own merge
        vocab[new_id] = vocab[a] + vocab[b]
        merges.append((vocab[a], vocab[b]))
    return merges
""",
)

first_merges = Exercise(
    name="first_merges",
    lesson=3,
    points=1,
    target="first_merges",
    cases=_first_merges_cases,
    compare=_predicted,
    hint=(
        f"Write out every adjacent pair of {PREDICT_CORPUS!r} (spaces count) and tally them. Two "
        "pairs tie for first place: the tie rule picks the greater (left, right), compared as "
        "bytes, so b'e' beats b'a'. Then redo the tally on the merged text, where a merged pair is "
        "one symbol."
    ),
    solution=f"""\
first_merges = [(b"e", b" "), (b"a", b"t"), (b"t", b"h")]
# {PREDICT_CORPUS!r}: "e " and "at" both occur 3 times; (b"e", b" ") > (b"a", b"t").
# After those two merges, "th" and "h"+"e " both occur twice; (b"t", b"h") > (b"h", b"e ").
""",
)

EXERCISES = [get_stats, merge, train_bpe, first_merges]
