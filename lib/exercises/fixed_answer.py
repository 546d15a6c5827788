"""What an answer earns: the cases it gets right beyond those a fixed answer gets right.

An answer that reads nothing of its input but its shape can still be right often: one value is
the right answer of many cases (`[]` for every empty text), and an error whose message repeats
the input (`raise ValueError(repr(args))`) is the right answer of every case that wants an error.
So, by one rule rather than a list of shapes, an answer is scored on what no fixed answer earns:

- the cases that want a value count beyond the largest group of them (two or more) sharing one
  right answer (what a constant returned every time gets right);
- the cases that want an error count if the answer raises none of those errors on a case that
  wants a value (telling them apart is the work; raising everywhere is not). If it does raise
  one there, they count only when the answer gets at least half the cases that want a value
  right (beyond the group), and then in proportion to those it raises none on: a slip such as
  `max([])` in a right answer costs about a case, while raising by the input's shape, or
  wherever a table of the shown answers has none, earns nothing.

The score is that count over the cases less the group, so a fully right answer keeps full marks.

>>> from lib.exercises.cases import Case, Raises
>>> cases = [Case((0,), expected=[]), Case((1,), expected=[]), Case((2,), expected=[1]),
...          Case((-1,), expected=Raises(ValueError))]
>>> empty, one, raised = {"returned": []}, {"returned": [1]}, {"kinds": ["ValueError"]}
>>> earned(cases, [empty, empty, one, raised], [True] * 4, None)  # the two [] count as none
(2, 2, '2 cases want the same answer, which a function ignoring its input gets too: not counted')
>>> cases[1] = Case((3,), expected=[3])
>>> slip = earned(cases, [empty, raised, one, raised], [True, False, True, True], None)
>>> round(slip[0], 2), slip[1]  # its error counts for the 2 of 3 value cases raising none
(2.67, 4)
>>> earned(cases, [empty, raised, raised, raised], [True, False, False, True], None)[:2]
(1.0, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lib.exercises.cases import Case, Raises
from lib.exercises.plain import same


def earned(
    cases: list[Case],
    outcomes: list[dict],
    right: list[bool],
    compare: Callable[[Any, Any], bool] | None,
) -> tuple[float, int, str]:
    """How many of `cases` count as answered (given which the answer got `right`), out of how
    many, and in words why fewer count than were right ("" when none are taken off)."""
    values = [i for i, case in enumerate(cases) if not isinstance(case.expected, Raises)]
    fixed = fixed_share([cases[i].expected for i in values], compare)
    right_values = sum(right[i] for i in values)
    mostly_right = not values or right_values - fixed >= (len(values) - fixed) / 2
    errors, why_errors = _error_credit(cases, values, outcomes, right, mostly_right)
    why = []
    if fixed and right_values:
        why.append(
            f"{fixed} cases want the same answer, which a function ignoring its input gets too: "
            "not counted"
        )
    return max(0, right_values - fixed) + errors, len(cases) - fixed, "; ".join(why + why_errors)


def _error_credit(
    cases: list[Case], values: list[int], outcomes: list[dict], right: list[bool], mostly: bool
) -> tuple[float, list[str]]:
    """What the right errors count for, `values` being the places of the cases that want a
    value: all of them if the answer raises none of the wanted errors on those; else, if it gets
    `mostly` those right, their share of them on which it raised none; else nothing. And why,
    in words."""
    errors = [i for i in range(len(cases)) if i not in set(values)]
    wanted = {cases[i].expected.error.__name__ for i in errors}
    raised = [wanted.intersection(outcomes[i].get("kinds") or ()) for i in values]
    slips = sum(map(bool, raised))
    right_errors = sum(right[i] for i in errors)
    if not slips or not right_errors:
        return right_errors, []
    kept = 1 - slips / len(values) if mostly else 0.0
    kinds = ", ".join(sorted(set().union(*raised)))
    worth = f"{kept:.0%} of their share" if kept else "nothing"
    where = f"{slips} of the {len(values)} cases that want a value"
    return right_errors * kept, [f"it raises {kinds} on {where}: its errors earn {worth}"]


def fixed_share(expected: list[Any], compare: Callable[[Any, Any], bool] | None) -> int:
    """How many of these right answers the best fixed answer matches: the largest group of two
    or more sharing one answer (as `compare`, else `plain.same`, judges); 0 when no two share
    one, or when they are all one answer and a fixed answer is simply right."""

    def matches(got: Any, due: Any) -> bool:
        try:
            return bool((compare or same)(got, due))
        except Exception:  # a compare that cannot handle this shape: no match
            return False

    largest = max((sum(matches(a, b) for b in expected) for a in expected), default=0)
    return 0 if largest < 2 or largest == len(expected) else largest
