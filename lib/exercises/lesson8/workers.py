"""Lesson 8's `first_merge`: the first merge, from the counts the workers send back.

Expected values come from `lib.bpe.train_from_counts`, the trainer's own merge loop, on the
workers' counts added up.
"""

from __future__ import annotations

import warnings
from collections import Counter

from lib import bpe
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng
from lib.exercises.lesson8.workers_turns import merge_turns

# Workers' counts where the plausible slips give another pair, each slip in two cases at least
# (so none keeps most of the points): one worker only, each pre-token once, one worker's count
# kept where several counted a pre-token (dicts merged with update), pairs across pre-tokens, no
# overlapping pairs (skipped, or only every other one), the wrong tie rule, and text or ints
# instead of bytes.
_PARTS = [
    [{b" the": 3, b" cat": 1}, {b"the": 2, b" dog": 5}],
    [{b"ab": 2, b"cd": 3}, {b"ab": 2}],
    [{b"ab": 1, b"cd": 1}, {b"cd": 1}, {b"ab": 3}],
    [{b"xy": 1, b"ab": 1}, {b"ab": 1}],
    [{b"x": 5, b"y": 5}, {b"zz": 1}],
    [{b"aaa": 2, b"ab": 3}],
    [{b"aaa": 1, b"ab": 2}],
    [{b"aaa": 1, b"ba": 1}],
    [{b"bbbb": 1, b"cb": 2}],
    [{b"ab": 1}, {b"cd": 2, b"aaa": 1}],
    [{b"abab": 1}, {b"ab": 1, b"ba": 2}],
    [{" न".encode(): 2}, {" न".encode(): 3, b"!": 1}],
    [{b"ba": 2}, {b"ab": 2}],
    [{b"a": 3}, {}],
    [],
]


def _hidden_parts() -> list[list[dict[bytes, int]]]:
    """Workers' counts of made-up pre-tokens: some in several parts, some once."""
    texts = random_texts(81, 40)
    chunks = [text.encode() for text in texts]
    return [
        [{chunk: n + 1 for n, chunk in enumerate(chunks[start : start + width])}, {chunks[0]: 7}]
        for start, width in zip(range(0, 40, 4), (1, 2, 3, 4, 2, 3, 4, 1, 2, 3), strict=True)
    ]


def _hidden_runs() -> list[list[dict[bytes, int]]]:
    """Workers' counts where a run of one repeated byte (b"xxxx", a run of spaces) wins only if
    its overlapping pairs all count: another pair, split over two workers, beats the run's pairs
    counted once per pre-token or without overlaps, and loses to them counted right."""
    draw = rng(84)
    cases = []
    for _ in range(20):
        run_byte, left, right = (bytes([b]) for b in draw.sample(b"abcdexyz .,-0123", 3))
        length, n = draw.randint(3, 6), draw.randint(2, 4)
        rival = n * (length - 1) - 1  # more than n * (length // 2), fewer than all the pairs
        token = left + right + draw.choice([b"", left])
        first = draw.randint(1, rival - 1)
        parts = [{run_byte * length: n, token: first}, {token: rival - first}]
        cases.append(parts[::-1] if draw.random() < 0.5 else parts)
    return cases


def _hidden_splits() -> list[list[dict[bytes, int]]]:
    """Workers' counts where a run of one byte (b"aaa"), counted by two or three workers, wins
    only if their counts are added and its overlapping pairs all count: a rival pair, which one
    worker counted, beats any one worker's count of the run, and the run's pairs without
    overlaps, and loses to the run counted right."""
    draw = rng(85)
    cases = []
    for _ in range(12):
        run, left, right = (bytes([x]) for x in draw.sample(b"abcdexyz .,-0123", 3))
        length = draw.choice((3, 4))
        counts = [draw.randint(1, 4) for _ in range(draw.randint(2, 3))]
        beaten = max((length - 1) * max(counts), length // 2 * sum(counts))
        rival = draw.randint(beaten + 1, (length - 1) * sum(counts) - 1)
        parts: list[dict[bytes, int]] = [{run * length: n} for n in counts]
        parts[draw.randrange(len(parts))][left + right] = rival
        cases.append(parts)
    return cases


def _first_merge(parts: list[dict[bytes, int]]) -> tuple[bytes, bytes] | None:
    """The trainer's first merge on the workers' counts added up (None: no pair to merge)."""
    total: Counter = Counter()
    for part in parts:
        total.update(part)
    with warnings.catch_warnings():  # one merge asked, none possible: say None, not a warning
        warnings.simplefilter("ignore")
        merges = bpe.train_from_counts(total, 257)[1]
    return merges[0] if merges else None


def _merge_cases(parts: list[list[dict[bytes, int]]]) -> list[Case]:
    return [Case(args=(counts,), expected=_first_merge(counts)) for counts in parts]


first_merge = Exercise(
    name="first_merge",
    lesson=8,
    points=1,
    target="first_merge",
    cases=lambda: _merge_cases(_PARTS),
    hidden_cases=lambda: _merge_cases(_hidden_parts() + _hidden_runs() + _hidden_splits()),
    wrong_turns=merge_turns,
    hints=(
        "Three questions, in order: how often does a pre-token occur, over all the workers? "
        "Which pairs of bytes does one pre-token hold, and so how often does the whole text "
        "hold each pair? Which pair wins?",
        "Picture the text behind the counts: {b'aaa': 2} stands for two copies of b'aaa' "
        "somewhere in the corpus. Write such a text out and count its pairs by hand, as "
        "lesson 3's get_stats would; then recall what lesson 3's split pattern did before any "
        "pair was counted. Iterating over bytes gives ints, and a merge is a pair of one-byte "
        "bytes objects.",
        "Check yourself: [{b'ab': 2, b'cd': 3}, {b'ab': 2}] gives (b'a', b'b'), 4 against 3. "
        "If you get (b'c', b'd'), two workers saw b'ab' and one of their counts went missing "
        "on the way. And [{b'ab': 1, b'cd': 1}, {b'cd': 1}, {b'ab': 3}] gives (b'a', b'b'), "
        "4 against 2: (b'c', b'd') there means each pre-token counted once. Ties go to the "
        "greatest pair, as in lesson 3.",
    ),
    solution_code="""\
def first_merge(parts: list[dict[bytes, int]]) -> tuple[bytes, bytes] | None:
    pairs = {}
    for part in parts:
        for token, n in part.items():
            for left, right in zip(token, token[1:]):
                pair = (bytes([left]), bytes([right]))
                pairs[pair] = pairs.get(pair, 0) + n  # n occurrences, each holding the pair
    if not pairs:
        return None
    return max(pairs, key=lambda pair: (pairs[pair], pair))  # ties: the greatest pair
""",
)
