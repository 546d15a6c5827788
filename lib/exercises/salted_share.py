"""The share of the points an answer earns, capped by what it earns on the cases no one can list.

Every case `lib` writes out is public: the shown ones, and the hidden ones written by hand (an
overlong encoding, a lone surrogate, a sentence in Hindi), since a learner's kernel lists them
with their answers (`ex.<name>.grading_cases()`). A table of them computes nothing, yet would
pass them all. The hidden cases the grader makes from the salt (the instructor's key and the
student: `Case.salted`) are in no such list. So an answer is scored by one rule:

    its share over every case, but never more than its share over its salted cases alone,

each share counted as `fixed_answer.earned` counts it. An answer that computes is as right on
made-up inputs as on written ones, and loses nothing; a table of the public cases, right on none
of the salted ones, earns nothing, whatever the table holds. The cap tests only what the salted
cases test, though: so each kind of hand-written hidden case (`Case.kind`, "an overlong form")
has salted cases of the same kind, which `tests/test_salted_kinds.py` checks for every exercise.

>>> from lib.exercises.cases import Case
>>> cases = [Case((1,), expected=1), Case((2,), expected=2, hidden=True),
...          Case((3,), expected=3, hidden=True, salted=True),
...          Case((4,), expected=4, hidden=True, salted=True)]
>>> table = [{"returned": 1}, {"returned": 2}, {"returned": 0}, {"returned": 4}]
>>> counted_share(cases, table, [True, True, False, True], None)
(0.5, 'scored as on the 2 cases made up for this student alone: 50%')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lib.exercises.cases import Case
from lib.exercises.fixed_answer import earned


def counted_share(
    cases: list[Case],
    outcomes: list[dict],
    right: list[bool],
    compare: Callable[[Any, Any], bool] | None,
) -> tuple[float, str]:
    """The share of the points (0 to 1) an answer earns, given which cases it got `right`, and
    in words why it is less than the share of cases right ("" when nothing is taken off)."""
    count, out_of, why = earned(cases, outcomes, right, compare)
    share = count / out_of if out_of else 0.0
    salted = [i for i, case in enumerate(cases) if case.salted]
    if not salted:
        return share, why
    count, out_of, _ = earned(
        [cases[i] for i in salted],
        [outcomes[i] for i in salted],
        [right[i] for i in salted],
        compare,
    )
    cap = count / out_of if out_of else 0.0
    if cap >= share:
        return share, why
    capped = f"scored as on the {len(salted)} cases made up for this student alone: {cap:.0%}"
    return cap, "; ".join(filter(None, [why, capped]))
