"""Lesson 3's prediction exercise: the first merge of three texts the learner never sees.

Asked to predict the merges of a text shown in the notebook, a learner can just train on it. Here
the notebook prints only what a trainer sees at its first step, each text's pair tally
(`show_tallies`), and the learner predicts the merge the tie rule picks. The texts stay in this
file; the feedback explains a wrong pick from the tally alone, without naming the right one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lib import bpe
from lib.exercises.core import Case, Exercise


def _ids(text: str) -> list[int]:
    return list(text.encode("utf-8"))


# Texts whose first merge the learner predicts from their pair tally alone (`show_tallies`);
# the texts themselves are never printed, so training on them is not an option. Each has a tie
# where the pair seen first is not the one the rule picks.
TALLY_TEXTS = ["a cab, a tab", "abc cab bca", "to to न न"]


def show_tallies() -> None:
    """Print each hidden text's pair counts, most frequent first and tied pairs in the order they
    are first met in the text (so the first one listed is minbpe's pick, not necessarily ours)."""
    for number, text in enumerate(TALLY_TEXTS, start=1):
        stats = bpe.get_stats(_ids(text))
        print(f"text {number}: {len(_ids(text))} bytes, {len(stats)} different pairs")
        for (left, right), count in sorted(stats.items(), key=lambda item: -item[1]):
            print(f"   {bytes([left])!r:>8} + {bytes([right])!r:<8} × {count}")


@dataclass(frozen=True)
class _FirstMerge:
    """The first merge of hidden text number `index + 1`; its repr does not give it away."""

    index: int
    pair: tuple[bytes, bytes]

    def __repr__(self) -> str:
        return f"the pair the rule picks in text {self.index + 1}"


def _as_pair(item: Any) -> tuple[bytes, bytes] | None:
    """(b"e", b" ") as a pair of bytes; None for anything else. ("e", " ") is None too: merges
    are bytes, and "\xe0" as text is two bytes in UTF-8, not the one byte b"\xe0"."""
    try:
        left, right = item
    except (TypeError, ValueError):
        return None
    return (left, right) if isinstance(left, bytes) and isinstance(right, bytes) else None


def _holds_str(got: Any) -> bool:
    """Is some item of the learner's list of pairs written as text: ("a", "b")?"""
    try:
        return any(isinstance(part, str) for item in got for part in item)
    except TypeError:
        return False


def _first_merges_cases() -> list[Case]:
    return [
        Case(expected=_FirstMerge(i, bpe.train(text, 257, method="naive")[1][0]))
        for i, text in enumerate(TALLY_TEXTS)
    ]


def _predicted(got: Any, expected: _FirstMerge) -> bool:
    try:
        return _as_pair(got[expected.index]) == expected.pair
    except (TypeError, IndexError, KeyError):
        return False


def _why_not(cases: list[Case], answers: list[Any]) -> str | None:
    """Say what is wrong with the first wrong prediction, without naming the right one."""
    got = answers[0] if answers else None
    if isinstance(got, list | tuple) and _holds_str(got):
        return (
            "your pairs are str; the merges are bytes: write b'a', and b'\\xe0' for a byte of "
            "128 or more."
        )
    for case in cases:
        index = case.expected.index
        try:
            pair = _as_pair(got[index])
        except (TypeError, IndexError, KeyError):
            pair = None
        if pair == case.expected.pair:
            continue
        stats = bpe.get_stats(_ids(TALLY_TEXTS[index]))
        counts = {(bytes([a]), bytes([b])): n for (a, b), n in stats.items()}
        top = max(counts.values())
        where = f"text {index + 1}"
        if pair is None:
            return f"{where}: give a pair such as (b'x', b'y'), one for each of the 3 texts."
        if pair not in counts:
            return f"{where}: {pair!r} is not in its tally: pick a pair from the list."
        if counts[pair] < top:
            return f"{where}: {pair!r} occurs {counts[pair]} times, but some pairs occur {top}."
        first_seen = next(p for p, n in counts.items() if n == top)
        rule = "the first one listed, minbpe's 'first seen' rule" if pair == first_seen else "one"
        return (
            f"{where}: {pair!r} is among the most frequent pairs, but you took {rule}. Of tied "
            "pairs ours takes the greatest (left, right) as bytes: compare the left bytes' "
            "values first (b' ' is 32, b'a' is 97, and every byte of a multi-byte character is "
            "128 or more), then the right ones. See section 4."
        )
    return None


first_merges = Exercise(
    name="first_merges",
    lesson=3,
    points=1,
    target="first_merges",
    cases=_first_merges_cases,
    compare=_predicted,
    literal=True,
    wrong_turns=_why_not,
    hints=(
        "In each tally, look only at the pairs with the highest count. If there is just one, "
        "that is the merge.",
        "When several pairs share the highest count, the rule compares them as (left bytes, "
        "right bytes): the left byte's value decides, and the right byte only breaks a tie "
        "there. Where a pair is listed does not matter.",
        "Byte values: b' ' is 32, b',' is 44, letters a to z are 97 to 122, and every byte of "
        "a multi-byte character such as b'\\xe0' is 128 or more. Take the greatest.",
    ),
    solution_code="""\
first_merges = [(b"a", b"b"), (b"c", b"a"), (b"\\xe0", b"\\xa4")]
# text 1: (b"a", b" ") and (b"a", b"b") tie; b"b" (98) > b" " (32).
# text 2: three pairs tie; b"c" is the greatest left byte.
# text 3: five pairs tie; b"\\xe0" (224) beats every ASCII byte.
""",
)
