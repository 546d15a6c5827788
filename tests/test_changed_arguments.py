"""A function that changes the arguments it was given fails the case, in check() and in the
grader alike, with a 💡 that names the argument; a hidden case's input stays secret."""

from __future__ import annotations

import dataclasses
import json

from lib.exercises import Case, Exercise
from lib.exercises.lesson3.training_loop import merge
from lib.exercises.lesson8 import first_merge
from lib.exercises.lesson9 import grow_embeddings
from lib.exercises.running import run_cases
from lib.grading.grading_job import judged


def grow_in_place(rows, n_new):
    mean = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
    for _ in range(n_new):
        rows.append(list(mean))
    return rows


def first_merge_into_first(parts):
    total = parts[0]  # adds every worker's counts into the caller's first dict
    for part in parts[1:]:
        for token, n in part.items():
            total[token] = total.get(token, 0) + n
    pairs = {}
    for token, n in total.items():
        for a, b in zip(token, token[1:], strict=False):
            pair = (bytes([a]), bytes([b]))
            pairs[pair] = pairs.get(pair, 0) + n
    return max(pairs, key=lambda pair: (pairs[pair], pair)) if pairs else None


def merge_in_place(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i : i + 2] = [new_id]
        i += 1
    return ids


WRONG = [
    (grow_embeddings, grow_in_place, "changed `rows`, its argument: build a new list"),
    (
        first_merge,
        first_merge_into_first,
        "changed `parts[0]`, inside its argument `parts`: build a new dict",
    ),
    (merge, merge_in_place, "changed `ids`, its argument: build a new list"),
]


def test_answers_that_change_their_arguments_fail_in_check_with_a_tip(capsys):
    for exercise, answer, words in WRONG:
        exercise.check({exercise.target: answer})
        shown = capsys.readouterr().out
        assert "❌" in shown and "changed:  " in shown, shown
        assert words in " ".join(shown.split()), shown


def test_the_grader_judges_them_the_same_from_the_kernels_report():
    for exercise, answer, words in WRONG:
        cases = exercise.grading_cases()
        outcomes = run_cases(answer, exercise.inputs(cases), 10)
        report = json.loads(json.dumps({"callable": True, "outcomes": outcomes}))
        row = judged(exercise, cases, report)
        assert row["status"] == "partial" and row["score"] < 1, row
        assert words in " ".join(row["reason"].split()), row["reason"]


def test_the_reference_solutions_change_nothing():
    for exercise, _, _ in WRONG:
        namespace: dict = {}
        exec(exercise.solution_code, namespace)
        cases = exercise.grading_cases()
        outcomes = run_cases(namespace[exercise.target], exercise.inputs(cases), 10)
        assert not any("changed" in outcome for outcome in outcomes)
        assert exercise.judge(cases, outcomes).status == "passed"


def _total(xs: list[int]) -> int:
    return sum(xs)


TOTAL = Exercise(
    name="total",
    lesson=1,
    target="total",
    cases=lambda: [Case(args=([1, 2],), expected=3), Case(args=([4],), expected=4)],
    hidden_cases=lambda: [Case(args=([5, 7, 9123],), expected=9135, kind="three numbers")],
    hints=("Add them.",),
    solution_code="def total(xs: list[int]) -> int:\n    return sum(xs)\n",
)


def test_a_change_in_a_hidden_case_names_the_argument_but_not_the_input():
    def total(xs):
        if len(xs) > 2:
            xs.sort(reverse=True)  # only the hidden case has three numbers
        return sum(xs)

    cases = TOTAL.grading_cases()
    result = TOTAL.judge(cases, run_cases(total, TOTAL.inputs(cases), 10))
    assert result.status == "partial"
    assert "hidden case 3 of 3 failed (three numbers)" in result.reason
    assert "changed `xs`, its argument" in result.reason
    assert "9123" not in result.reason  # the input is for the instructor only
    assert "changed:  xs was [5, 7, 9123], now [9123, 7, 5]" in result.detail


def test_an_exercise_meant_to_work_in_place_may_say_so():
    def total(xs):
        xs.append(0)
        return sum(xs)

    cases = TOTAL.cases()
    outcomes = run_cases(total, TOTAL.inputs(cases), 10)
    assert TOTAL.judge(cases, outcomes).status == "failed"
    in_place = dataclasses.replace(TOTAL, keeps_arguments=False)
    assert in_place.judge(cases, outcomes).status == "passed"


def test_a_forged_report_of_changes_is_read_safely():
    cases = TOTAL.cases()
    for forged in ({"changed": "rows"}, {"changed": [[0]]}, {"changed": [[[0], 1]]}):
        outcomes = [{"returned": 3, **forged}, {"returned": 4}]
        assert TOTAL.judge(cases, outcomes).status == "passed"
    outcomes = [{"returned": 3, "changed": [[0, {"bad": 1}]]}, {"returned": 4}]
    result = TOTAL.judge(cases, outcomes)
    assert "xs was [1, 2], now something that is not plain data" in result.reason
