"""The order the grader runs test cases in: every exercise's shown cases, then the hidden ones.

One kernel grades all of a notebook's exercises, and it keeps its state from one call to the
next: a function can store the inputs it is called with, and another can hand them back as its
answer. The feedback quotes a student's answer to a shown case (that is what makes it helpful),
and says of a hidden case only that it failed. So if exercise A's hidden cases ran before
exercise B's shown ones, B could return A's hidden inputs and the feedback would print them.

Run in two rounds, all shown cases first, no answer a student sees can be computed after a
hidden input entered the kernel: there is nothing there yet to hand back. What is left is what a
hidden case's verdict itself says (passed or failed), which the README names.

In a group's submission each member's hidden cases (their `Case.draw`) are a round of their own,
a grading cell with its own time limit: one member's case that runs too long stops that round
only, and a right but slow answer has as long for each member as it has alone.

>>> from lib.exercises import Case
>>> shown, secret = Case((1,), expected=1), Case((2,), expected=2, hidden=True)
>>> rounds({"a": [shown, secret], "b": [shown]})
[('a', 0, 1), ('b', 0, 1), ('a', 1, 2)]
>>> partner = Case((3,), expected=3, hidden=True, draw=1)
>>> rounds({"a": [shown, secret, secret, partner]})
[('a', 0, 1), ('a', 1, 3), ('a', 3, 4)]
"""

from __future__ import annotations

from lib.exercises import Case


def rounds(cases: dict[str, list[Case]]) -> list[tuple[str, int, int]]:
    """The calls to make, in order: (exercise name, first case, end) slices of each exercise's
    cases (shown first, then hidden, as `Exercise.grading_cases` lists them), every exercise's
    shown slice before any hidden one, and a hidden slice per draw. An exercise with no hidden
    cases has one slice."""
    shown, hidden = [], []
    for name, listed in cases.items():
        split = next((i for i, case in enumerate(listed) if case.hidden), len(listed))
        if any(not case.hidden for case in listed[split:]):
            raise ValueError(f"{name}: a shown case is listed after a hidden one")
        shown += [(name, 0, split)] if split else []
        starts = [i for i in range(split, len(listed)) if i == split or _new_draw(listed, i)]
        ends = [*starts[1:], len(listed)]  # one longer than `starts` when it is empty
        hidden += [(name, a, b) for a, b in zip(starts, ends, strict=False)]
    return shown + hidden


def _new_draw(listed: list[Case], i: int) -> bool:
    return listed[i].draw != listed[i - 1].draw
