"""Lesson 8 exercises: the first merge from the workers' counts, finding the cuts that change a
text's pre-tokens, a .tiktoken line.

`unsafe_cuts` asks for an experiment, not a rule: the learner finds where cutting a text at a
boundary of its pre-tokens still changes them (`unsafe_boundaries` below is the reference), which
is what the course's cutting rule (`lib.corpus_files.safe_cuts`) must never allow.
`tiktoken_line`'s expected values come from `lib.train.tiktoken_line` (what
`python -m lib.train --format tiktoken` writes).
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter

from lib import bpe, patterns, train
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng

# Texts and patterns where cutting at a boundary of the whole text's pre-tokens changes them (a
# lookahead at whitespace), and some where every boundary is safe: "so   \n  far" is section 3's.
_CUT_TEXTS = [
    ("so   \n  far", "gpt4"),
    ("so   \n  far", "gpt2"),
    (" a \n  b", "gpt4"),
    ("2024 was\n\nlong", "gpt2"),
    ("2024 was\n\nlong", "gpt4"),
    ("a\t\tb", "gpt2"),
    ("  1\t", "gpt4"),
    ("\t \t. \nb.é", "gpt2"),
    ("one two\nThree", "gpt4o"),
    ("", "gpt4"),
]
# Hidden texts are drawn from this alphabet, which makes whitespace runs likely.
_CUT_ALPHABET = ["a", "b", "é", "न", "ि", ".", "1", " ", " ", "\n", "\t"]


def unsafe_boundaries(text: str, pattern: str) -> list[int]:
    r"""The positions where the whole text's pre-tokens (split by `pattern`) have a boundary, but
    splitting the two halves apart gives other pre-tokens: cuts that look harmless and are not.

    >>> unsafe_boundaries("so   \n  far", "gpt4")
    [7]
    """
    whole = patterns.split_text(text, pattern)
    ends = set(itertools.accumulate(map(len, whole)))
    return [
        p
        for p in range(1, len(text))
        if p in ends
        and patterns.split_text(text[:p], pattern) + patterns.split_text(text[p:], pattern) != whole
    ]


def _hidden_cut_texts() -> list[tuple[str, str]]:
    """Made-up texts full of whitespace, each with a pattern, three in four with a trap in them."""
    draw = rng(83)
    found: list[tuple[str, str]] = []
    names = ("gpt2", "gpt4", "gpt4o")
    while len(found) < 12:
        text = "".join(draw.choices(_CUT_ALPHABET, k=draw.randint(4, 12)))
        pattern = names[len(found) % 3]
        if bool(unsafe_boundaries(text, pattern)) == (len(found) % 4 != 3):
            found.append((text, pattern))
    return found


def _cut_cases(texts: list[tuple[str, str]]) -> list[Case]:
    return [Case(args=(t, p), expected=unsafe_boundaries(t, p)) for t, p in texts]


# Workers' counts where the plausible slips give another pair, each slip in two cases at least
# (so none keeps most of the points): one worker only, each pre-token once, pairs across
# pre-tokens, no overlapping pairs (skipped, or only every other one), the wrong tie rule, and
# text or ints instead of bytes.
_PARTS = [
    [{b" the": 3, b" cat": 1}, {b"the": 2, b" dog": 5}],
    [{b"ab": 1, b"cd": 1}, {b"cd": 1}, {b"ab": 3}],
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


_TOKENS = [(b"a", 97), (b" the", 262), (bytes([0xE0, 0xA4]), 300), (b"\n\n", 1000)]
_TOKENS += [("👋".encode(), 4095), (b"\xff", 255)]


def _hidden_tokens() -> list[tuple[bytes, int]]:
    return [(text.encode(), 256 + 97 * n) for n, text in enumerate(random_texts(88, 10))]


def _line_cases(tokens: list[tuple[bytes, int]]) -> list[Case]:
    return [
        Case(args=(token, rank), expected=train.tiktoken_line(token, rank))
        for token, rank in tokens
    ]


unsafe_cuts = Exercise(
    name="unsafe_cuts",
    lesson=8,
    points=2,
    target="unsafe_cuts",
    allowed_lib=("lib.patterns.split_text",),
    cases=lambda: _cut_cases(_CUT_TEXTS),
    hidden_cases=lambda: _cut_cases(_hidden_cut_texts()),
    hints=(
        "Two questions for every position p: does one of the whole text's pre-tokens end at p? "
        "And if so, do the two halves, split on their own, give the same pre-tokens as the "
        "whole? You want the positions where the first answer is yes and the second no.",
        "Where the pre-tokens end is a running total of their lengths. Two lists of pre-tokens "
        "are the same when they are equal piece by piece, in order.",
        "Check yourself on section 3's text 'so   \\n  far' with 'gpt4': its pre-tokens end at "
        "2, 6 and 7 (and at the end, which is no cut), and only at 7 do the halves split "
        "differently. Position 3, inside the run of spaces, is no boundary at all, so it is not "
        "in the answer even though the halves differ there.",
    ),
    solution_code="""\
from lib import patterns


def unsafe_cuts(text: str, pattern: str) -> list[int]:
    whole = patterns.split_text(text, pattern)
    ends, position = set(), 0
    for piece in whole[:-1]:
        position += len(piece)
        ends.add(position)
    unsafe = []
    for p in sorted(ends):
        halves = patterns.split_text(text[:p], pattern) + patterns.split_text(text[p:], pattern)
        if halves != whole:
            unsafe.append(p)
    return unsafe
""",
)

first_merge = Exercise(
    name="first_merge",
    lesson=8,
    points=1,
    target="first_merge",
    cases=lambda: _merge_cases(_PARTS),
    hidden_cases=lambda: _merge_cases(_hidden_parts() + _hidden_runs()),
    hints=(
        "Three questions, in order: how often does a pre-token occur, over all the workers? "
        "Which pairs of bytes does one pre-token hold, and so how often does the whole text "
        "hold each pair? Which pair wins?",
        "Picture the text behind the counts: {b'aaa': 2} stands for two copies of b'aaa' "
        "somewhere in the corpus. Write such a text out and count its pairs by hand, as "
        "lesson 3's get_stats would; then recall what lesson 3's split pattern did before any "
        "pair was counted. Iterating over bytes gives ints, and a merge is a pair of one-byte "
        "bytes objects.",
        "Check yourself: [{b'ab': 1, b'cd': 1}, {b'cd': 1}, {b'ab': 3}] gives (b'a', b'b'), "
        "4 against 2. If you get (b'c', b'd'), you counted each pre-token once, or one worker "
        "only. Ties go to the greatest pair, as in lesson 3.",
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


def _line_turns(cases: list[Case], answers: list) -> str | None:
    """Name the usual slips: base64's bytes written with their b'...' around them, or the line
    break that the file, not the line, ends with."""
    if any(isinstance(a, str) and a.startswith(("b'", 'b"')) for a in answers):
        return "base64.b64encode returns bytes: .decode('ascii') turns them into text first."
    if any(isinstance(a, str) and a.endswith("\n") for a in answers):
        return "Without the line break: whoever writes the file adds it after each line."
    return None


tiktoken_line = Exercise(
    name="tiktoken_line",
    lesson=8,
    points=1,
    target="tiktoken_line",
    cases=lambda: _line_cases(_TOKENS),
    hidden_cases=lambda: _line_cases(_hidden_tokens()),
    allowed_lib=("base64",),
    wrong_turns=_line_turns,
    hints=(
        "The bytes go through base64 (the module `base64`), then a space, then the rank as digits.",
        "base64.b64encode gives bytes, not text: turn them into a str (they are plain "
        "ASCII) before you put the space and the rank after them. Check: b' the' with "
        "rank 262 is 'IHRoZQ== 262'.",
    ),
    solution_code="""\
import base64


def tiktoken_line(token: bytes, rank: int) -> str:
    return base64.b64encode(token).decode("ascii") + " " + str(rank)
""",
)

EXERCISES = [first_merge, unsafe_cuts, tiktoken_line]
