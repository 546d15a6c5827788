"""Lesson 8's `unsafe_cuts`: finding the cuts that change a text's pre-tokens.

It asks for an experiment, not a rule: the learner finds where cutting a text at a boundary of
its pre-tokens still changes them (`unsafe_boundaries` below is the reference), which is what the
course's cutting rule (`lib.corpus_files.safe_cuts`) must never allow.
"""

from __future__ import annotations

import itertools

from lib import patterns
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng

# Texts and patterns where cutting at a boundary of the whole text's pre-tokens changes them (a
# lookahead at whitespace), and some where every boundary is safe: "so   \n  far" is section 3's.
# In "né   \n  far" the é comes before the cuts, so positions counted in bytes are off by one.
_CUT_TEXTS = [
    ("so   \n  far", "gpt4"),
    ("so   \n  far", "gpt2"),
    ("né   \n  far", "gpt4"),
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
