"""Lesson 6's `gini`: how unequal a list of counts is, checked against `lib.fairness.gini`, with
a 💡 for each way of counting the pairs of picks that the definition's wording invites. A
"pick" is one draw; two picks in order make a pair (x, y) (review K1: the word meant both)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lib import fairness
from lib.exercises.core import Case, Exercise, close
from lib.exercises.generated import rng


def _gini_cases(lists: list[list[int]], kind: str = "") -> list[Case]:
    return [Case(args=(values,), expected=fairness.gini(values), kind=kind) for values in lists]


def _drawn() -> list[list[int]]:
    """Eight lists of counts drawn with the grader's salt (`generated.rng`), out of order, some
    with zeros: inputs no table of lib's cases holds."""
    source = rng(61)
    return [
        [source.choice([0, source.randint(1, 999)]) for _ in range(source.randint(2, 9))] + [1]
        for _ in range(8)
    ]


def _hidden_cases() -> list[Case]:
    """Each kind written out, and drawn too (`_drawn`, and fractions), but one count alone,
    whose answer is 0 whatever the count: a drawn one would pay a constant answer, not a rule."""
    source = rng(63)
    fractions = [[source.randint(1, 40) / 4 for _ in range(source.randint(2, 5))] for _ in "ab"]
    return [
        *_gini_cases([[7]], "one count alone"),
        *_gini_cases([[10, 30], [2, 2, 2, 2, 12], *_drawn()], "counts"),
        *_gini_cases([[1.5, 0.5], *fractions], "fractions"),
    ]


def _formula_for_sorted_values(values: list[float]) -> float:
    """The Gini coefficient by the formula that holds only for values sorted smallest first,
    used on the values as given: what an answer that forgets to sort returns."""
    n = len(values)
    return sum((2 * i - n - 1) * x for i, x in enumerate(values, 1)) / (n * sum(values))


def _different_items_only(values: list[float]) -> float:
    """The average gap over the n × (n − 1) pairs of two different items (the same item picked
    twice left out), divided by twice the average value: n / (n − 1) times the Gini
    coefficient. Taking each unordered pair once, over n × (n − 1) / 2 pairs, gives the same."""
    n = len(values)
    return fairness.gini(values) * n / (n - 1)


def _each_pair_once(values: list[float]) -> float:
    """The gaps of the unordered pairs summed, as if over all n × n ordered pairs: half the
    Gini coefficient, since the pair (y, x) has the same gap as (x, y) and was left out."""
    return fairness.gini(values) / 2


def _each_pair_once_itself_included(values: list[float]) -> float:
    """The average gap over the n × (n + 1) / 2 unordered pairs, an item with itself included
    (`combinations_with_replacement`): n / (n + 1) times the Gini coefficient (review K2)."""
    n = len(values)
    return fairness.gini(values) * n / (n + 1)


def _fits(cases: list[Case], answers: list[Any], other: Callable[[list[float]], float]) -> bool:
    """Is every wrong answer `other`'s on its case (and one answer wrong)? Where `other` raises
    (a single value has no two different items), the learner's call must have raised too."""
    wrong = [(c, a) for c, a in zip(cases, answers, strict=True) if not close(a, c.expected)]
    return bool(wrong) and all(_same_as(a, other, c.args[0]) for c, a in wrong)


def _same_as(answer: Any, other: Callable[[list[float]], float], values: list[float]) -> bool:
    try:
        return close(answer, other(values))
    except ZeroDivisionError:
        return answer is None


def _gini_turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Name the slip the wrong answers fit: a forgotten sort, or the pairs counted wrong."""
    if _fits(cases, answers, _formula_for_sorted_values):
        return (
            "Your answers are what the formula over sorted values gives on the values in the "
            "order they came: it assumes the values sorted, smallest first, and these are not. "
            "Sort a copy first (the caller's list must stay as it was), or use the definition "
            "with every pair, which needs no order."
        )
    if _fits(cases, answers, _different_items_only):
        return (
            "Your answers fit pairs of two different items only. Both picks may land on the "
            "same item: its gap is 0, but (x, x) is still a pair, and the average counts it. "
            "How many pairs are there then?"
        )
    if _fits(cases, answers, _each_pair_once):
        return (
            "Your answers are half the right ones: they take each two items together once (x "
            "with y, not also y with x), yet picking x then y and picking y then x make two "
            "pairs, (x, y) and (y, x), each with the same gap."
        )
    if _fits(cases, answers, _each_pair_once_itself_included):
        return (
            "Your answers fit taking each two items together once, an item with itself "
            "included. "
            "Picking x then y and picking y then x make two pairs, (x, y) and (y, x), each with "
            "the same gap: how many pairs are there then?"
        )
    return None


gini = Exercise(
    name="gini",
    lesson=6,
    points=1,
    target="gini",
    # one list out of order: the sorted formula needs a sort, and it must not be the caller's
    cases=lambda: _gini_cases([[0, 0, 0, 4], [4, 1, 3, 2], [52835, 253270, 404265]]),
    hidden_cases=_hidden_cases,
    compare=close,
    wrong_turns=_gini_turns,
    hints=(
        "A pair of picks (x, y) is ordered, and both picks may land on the same item: every "
        "value meets every value, itself included, so two loops (or one over the pairs) visit "
        "them all. An average is a sum divided by how many things were summed.",
        "Work [0, 0, 0, 4] out by hand first: of its 16 pairs, which have a gap, and how big"
        " is it? What are the average gap and the average value, and does the first divided"
        " by twice the second come to 0.75? The order of the values must not matter (nor may"
        " your function change it).",
    ),
    solution_code="""\
def gini(values):
    total = sum(abs(x - y) for x in values for y in values)
    return total / (2 * len(values) * sum(values))
""",
)
