"""Every kind of hidden case the code writes out has salted twins: cases of the same kind whose
inputs the grader draws for each student (`Case.salted`).

A student's score on an exercise is capped by their share of its salted cases (`salted_share`),
so a rule that only written-out hidden cases test is worth nothing there: a table of lib's cases
answers them, and the cap, blind to that rule, lets the table through (red team round 19, doors
A and B). Each written-out hidden case therefore carries a `kind` ("an overlong form", "a
special token not allowed"), and some salted case of each exercise must carry the same one.
This walks every exercise, so that the next one cannot forget.
"""

from __future__ import annotations

import functools

import pytest

from lib.exercises import for_lesson
from lib.exercises.cases import Case, Raises
from lib.exercises.running import run_cases
from lib.grading.grading_settings import Settings

EXERCISES = {e.name: e for lesson in range(1, 10) for e in for_lesson(lesson)}

# What may stay written out alone, and why: exercises, and kinds of one exercise.
WITHOUT_TWINS = {
    "training_mix": "its one hidden case is a property of the answer (its worst premium on "
    "FLORES devtest), no input a table could look up",
}
KINDS_WITHOUT_TWINS = {
    ("encode_with_specials", "an empty text"): "there is one empty text: nothing to draw",
    ("gini", "one count alone"): "its answer is 0 whatever the count: a drawn one would pay a "
    "constant answer (red team 13's two values by shape), not a rule",
}


@functools.cache
def _hidden(name: str, student: str = "ann") -> list[Case]:
    """The exercise's hidden cases as the grader draws them for `student`."""
    settings = Settings(salt="salted kinds")
    cases = settings.cases_of(EXERCISES[name], student)
    return cases[len(settings.cases[(name, None)]) :]


def _written_out(name: str) -> list[Case]:
    """Ann's hidden cases that lib writes out: unsalted for her and for Bob too. (A drawn input
    may come out as lib's unsalted draw by chance: then it is unsalted for one student only.)"""
    bobs = [(case.args, case.kwargs) for case in _hidden(name, "bob") if not case.salted]
    return [c for c in _hidden(name) if not c.salted and (c.args, c.kwargs) in bobs]


@pytest.mark.parametrize(
    "name", [n for n, e in EXERCISES.items() if e.hidden_cases and n not in WITHOUT_TWINS]
)
def test_each_written_out_hidden_kind_has_salted_twins(name: str) -> None:
    written = _written_out(name)
    assert all(case.kind for case in written), f"{name}: a written-out hidden case has no kind"
    salted = {case.kind for case in _hidden(name) if case.salted}
    alone = {case.kind for case in written} - salted
    alone -= {kind for exercise, kind in KINDS_WITHOUT_TWINS if exercise == name}
    assert not alone, f"{name}: no salted case of the kinds {sorted(alone)}"


def test_the_exceptions_are_real() -> None:
    """Each exception names an exercise with written-out hidden cases, and a kind it has: a
    stale entry would excuse the next exercise of that name."""
    for name in WITHOUT_TWINS:
        assert _written_out(name), name
    for name, kind in KINDS_WITHOUT_TWINS:
        assert any(case.kind == kind for case in _written_out(name)), kind


# Measured before the twins (10 students, drawn as the grader draws): each table of lib's
# listed cases, with an answer that leaves one rule out elsewhere, earned full marks for some.
RULE_LEFT_OUT = {
    # a pair counted once where it overlaps itself (aaa: (a, a) once): 1 / 1 for all 10
    "get_stats": "def get_stats(ids):\n    out = {}\n    for i in range(len(ids) - 1):\n"
    "        if i and ids[i - 1 : i + 1] == ids[i : i + 2]:\n            continue\n"
    "        out[tuple(ids[i : i + 2])] = out.get(tuple(ids[i : i + 2]), 0) + 1\n"
    "    return out\n",
    # the first occurrence joined only: 0.71 to 1 / 1
    "merge": "def merge(ids, pair, new_id):\n    for i in range(len(ids) - 1):\n"
    "        if (ids[i], ids[i + 1]) == pair:\n"
    "            return ids[:i] + [new_id] + ids[i + 2 :]\n    return list(ids)\n",
    # no special token refused: 1.75 to 2 / 2
    "encode_with_specials": EXERCISES["encode_with_specials"].solution_code.replace(
        "raise ValueError", "pass  #"
    ),
}


@pytest.mark.parametrize("name", sorted(RULE_LEFT_OUT))
def test_a_table_of_listed_cases_no_longer_covers_a_rule_left_out(name: str) -> None:
    exercise = EXERCISES[name]
    listed = exercise.cases() + exercise.grading_cases()
    table = {repr((case.args, case.kwargs)): case.expected for case in listed}
    space: dict = {}
    exec(RULE_LEFT_OUT[name], space)

    def answer(*args, **kwargs):  # the table where it has the call, else the rule left out
        key = repr((args, kwargs))
        if key not in table:
            return space[exercise.target](*args, **kwargs)
        if isinstance(table[key], Raises):
            raise table[key].error()
        return table[key]

    settings = Settings(salt="salted kinds")
    for student in map(str, range(10)):
        cases = settings.cases_of(exercise, student)
        result = exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None))
        assert result.score < exercise.points, (student, result)
