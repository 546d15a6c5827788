"""Lesson 3: `get_stats`, `merge` and `train_bpe`, byte-pair encoding's training loop.

Expected values come from `lib.bpe` (`get_stats`, `merge`, and the lesson's own loop,
`train(..., method="naive")`). The texts are short sentences written for these checks, in several
scripts, with ties and long runs of one letter, where a careless loop goes wrong. The feedback on
known wrong turns is in `turns`.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from lib import bpe
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng
from lib.exercises.lesson3.hidden_texts import RUN, TURNS, hidden_texts, in_turn
from lib.exercises.lesson3.stats_turns import stats_turns
from lib.exercises.lesson3.turns import train_turns

_TEXTS = [
    "aaabdaaabac",
    "the cat ate the hat",
    "aaaaaa",
    "abababab abba",
    "नमस्ते नमस्ते दुनिया",
    "안녕 안녕하세요 👋👋",
    "low lower lowest newer newest",
]


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


def _hidden_get_stats_cases() -> list[Case]:
    source = rng(35)
    sequences = [(RUN, [5, 5, 5, 5]), (RUN, [source.randrange(256)] * source.randint(3, 7))]
    sequences += [(TURNS, [3, 4, 3, 4, 3]), (TURNS, [0, 255, 0, 255]), (TURNS, in_turn(37))]
    sequences += [(kind, _ids(text)) for kind, text in hidden_texts()]
    return [Case(args=(s,), expected=bpe.get_stats(s), kind=kind) for kind, s in sequences]


def _hidden_merge_cases() -> list[Case]:
    source = rng(38)
    one, new_id = source.randrange(256), source.randint(300, 999)  # no id drawn above
    drawn = in_turn(39)
    calls = [(RUN, ([9, 9, 9, 9, 9], (9, 9), 300)), (RUN, ([2, 2], (2, 2), 9))]
    calls += [(RUN, ([one] * source.randint(2, 7), (one, one), new_id))]
    calls += [
        (TURNS, ([1, 2, 1, 2, 2], (2, 1), 400)),
        (TURNS, (drawn, (drawn[1], drawn[0]), new_id)),
    ]
    calls += [(kind, (_ids(text), tuple(_ids(text)[:2]), 256)) for kind, text in hidden_texts()]
    return [Case(args=call, expected=bpe.merge(*call), kind=kind) for kind, call in calls]


def _naive_train_cases(sizes: list[tuple[str, int]]) -> list[Case]:
    with warnings.catch_warnings():  # some texts run out of pairs early, on purpose: no warning
        warnings.simplefilter("ignore")
        return [
            Case(args=(text, size), expected=bpe.train(text, size, method="naive")[1])
            for text, size in sizes
        ]


def _hidden_train_bpe_cases() -> list[Case]:
    texts = hidden_texts()
    cases = _naive_train_cases([(text, 256 + 6) for _, text in texts])
    return [replace(case, kind=kind) for case, (kind, _) in zip(cases, texts, strict=True)]


def _train_bpe_cases() -> list[Case]:
    sizes = [(text, 256 + 3) for text in _TEXTS] + [(text, 256 + 12) for text in _TEXTS[1:]]
    sizes += [("aaabdaaabac", 256), ("the cat sat on the mat. " * 4 + "नमस्ते " * 3, 256 + 40)]
    # Ties where comparing the joined bytes picks another pair than comparing (left, right):
    # in "aaab", after aa, the pair aa + a beats a + b, though "ab" > "aaa".
    sizes += [("aaab", 256 + 2), ("a a ab", 256 + 6), ("b b abb", 256 + 6)]
    return _naive_train_cases(sizes)


get_stats = Exercise(
    name="get_stats",
    lesson=3,
    points=1,
    target="get_stats",
    cases=_get_stats_cases,
    hidden_cases=_hidden_get_stats_cases,
    wrong_turns=stats_turns,
    hints=(
        "Look at each position i and the id just after it: together they are one pair. "
        "Keep a dictionary of how many times you have met each pair.",
        "Pairs overlap: in [7, 7, 7] the middle 7 belongs to two pairs, so move one "
        "position at a time, and stop where no id follows. A pair met for the first time "
        "is not in the dictionary yet: adding 1 to it needs a starting value.",
        "Check your loop on [1, 2, 3]: it must see exactly (1, 2) and (2, 3), two pairs "
        "from three ids; one too few or too many is the usual slip. [7, 7, 7] gives "
        "{(7, 7): 2}, and [] and [7] give {}.",
    ),
    solution_code="""\
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
    hidden_cases=_hidden_merge_cases,
    hints=(
        "Build a new list while walking over ids. When the pair starts at the current "
        "position, both of its ids are used up at once; a for loop cannot skip ahead like"
        " that.",
        "Move a position yourself instead. At each position the pair starts there or it "
        "does not, and the two outcomes use up a different number of ids. At the last "
        "position no pair can start: nothing follows it.",
        "Check yourself: merge([5, 5, 5], (5, 5), 9) is [9, 5], the last 5 left without a "
        "partner; merge([1, 2, 1, 2], (1, 2), 9) is [9, 9]; merge([1, 2], (2, 1), 9) is "
        "[1, 2], unchanged; and merge([], (1, 2), 9) is [].",
    ),
    solution_code="""\
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
    hidden_cases=_hidden_train_bpe_cases,
    wrong_turns=train_turns,
    well_done="The same merges as the course's trainer, ties and overlapping runs included: this "
    "loop is byte-pair encoding's whole training algorithm.",
    allowed_lib=("lib.bpe.get_stats", "lib.bpe.merge"),
    hints=(
        "Follow the numbered steps of section 5. Keep two things up to date: the list of "
        "ids, and a dictionary vocab from each id to the bytes it stands for (the merges "
        "are bytes).",
        "One round per new id, 256 up to vocab_size - 1, and stop early once no pair is "
        "left. The tie rule compares bytes, not ids: to rank a pair, look both halves up in "
        "vocab.",
        "Check yourself by hand on train_bpe('aaab', 258): aa occurs twice, so the first "
        "merge is (b'a', b'a'); the ids become [256, 97, 98], where aa + a and a + b tie "
        "once each, and (b'aa', b'a') beats (b'a', b'b') because b'aa' > b'a'. So: "
        "[(b'a', b'a'), (b'aa', b'a')]. train_bpe('ab', 300) stops after [(b'a', b'b')].",
    ),
    solution_code="""\
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
