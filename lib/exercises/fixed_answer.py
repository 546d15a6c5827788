"""What an answer earns: the cases it gets right beyond those a fixed answer gets right.

An answer that reads nothing of its input but its shape can still be right often: one value is
the right answer of many cases (`[]` for every empty text), and an error whose message repeats
the input (`raise ValueError(repr(args))`) is the right answer of every case that wants an error.
So, by one rule rather than a list of shapes, an answer is scored on what no fixed answer earns:

- the cases that want a value count beyond the largest group of them (two or more) sharing one
  right answer (what a constant returned every time gets right);
- the cases that want an error count only if the answer raises none of those errors on a case
  that wants a value (telling them apart is the work; raising everywhere is not).

The score is that count over the cases less the group, so a fully right answer keeps full marks.

>>> from lib.exercises.cases import Case, Raises
>>> cases = [Case((0,), expected=[]), Case((1,), expected=[]), Case((2,), expected=[1]),
...          Case((-1,), expected=Raises(ValueError))]
>>> returned, raised = {"returned": []}, {"raised": "ValueError", "kinds": ["ValueError"]}
>>> earned(cases, [returned, returned, raised, raised], [True, True, False, True], None)[:2]
(0, 2)
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
) -> tuple[int, int, str]:
    """How many of `cases` count as answered (given which the answer got `right`), out of how
    many, and in words why fewer count than were right ("" when none are taken off)."""
    values = [i for i, case in enumerate(cases) if not isinstance(case.expected, Raises)]
    errors = [i for i in range(len(cases)) if i not in set(values)]
    fixed = fixed_share([cases[i].expected for i in values], compare)
    right_values = sum(right[i] for i in values)
    wanted = {cases[i].expected.error.__name__ for i in errors}
    raising = {k for i in values for k in (outcomes[i].get("kinds") or ()) if k in wanted}
    right_errors = sum(right[i] for i in errors)
    count = max(0, right_values - fixed) + (0 if raising else right_errors)
    why = []
    if fixed and right_values:
        why.append(f"{fixed} cases share one answer, which a fixed answer gets: not counted")
    if raising and right_errors:
        kinds = ", ".join(sorted(raising))
        why.append(f"it raises {kinds} where a value is wanted: its errors earn nothing")
    return count, len(cases) - fixed, "; ".join(why)


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
