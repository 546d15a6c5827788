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
  right (beyond the group): raising by the input's shape, or wherever a table of the shown
  answers has none, earns nothing, while in a mostly right answer a wanted error raised where
  a value is due costs that case and no more, as a wrong value does. So a slip such as
  `max([])` costs one case, and a draft raising `ValueError` where it cannot compute yet earns
  what one returning made-up values there earns.

The score is that count over the cases less the group, so a fully right answer keeps full marks.

>>> from lib.exercises.cases import Case, Raises
>>> cases = [Case((0,), expected=[]), Case((1,), expected=[]), Case((2,), expected=[1]),
...          Case((-1,), expected=Raises(ValueError))]
>>> empty, one, raised = {"returned": []}, {"returned": [1]}, {"kinds": ["ValueError"]}
>>> earned(cases, [empty, empty, one, raised], [True] * 4, None)  # the two [] count as none
(2, 2, '2 cases want the same answer, which a function ignoring its input gets too: not counted')
>>> cases[1] = Case((3,), expected=[3])
>>> earned(cases, [empty, raised, one, raised], [True, False, True, True], None)[:2]  # a slip
(3, 4)
>>> earned(cases, [empty, raised, raised, raised], [True, False, False, True], None)
(1, 4, 'it raises ValueError on 2 of the 3 cases that want a value, and gets fewer than half \
of those right: its errors earn nothing')
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
    value: all of them if the answer raises none of the wanted errors on those, or if it gets
    `mostly` those right; else nothing. And why, in words."""
    errors = [i for i in range(len(cases)) if i not in set(values)]
    wanted = {cases[i].expected.error.__name__ for i in errors}
    raised = [wanted.intersection(outcomes[i].get("kinds") or ()) for i in values]
    slips = sum(map(bool, raised))
    right_errors = sum(right[i] for i in errors)
    if not slips or not right_errors or mostly:
        return right_errors, []
    kinds = ", ".join(sorted(set().union(*raised)))
    where = f"{slips} of the {len(values)} cases that want a value"
    return 0, [
        f"it raises {kinds} on {where}, and gets fewer than half of those right: its errors earn"
        " nothing"
    ]


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
