"""Judging one exercise, in the grader's process: its outcomes scored against its cases.

Each case the learner's target answered right (`verdicts.verdict`) counts, beyond what a fixed
answer gets right (`fixed_answer.earned`), and never beyond its share on the cases made from the
salt, which no list in `lib` holds (`salted_share`); a case whose call changed an argument fails
(`changed_arguments`). An answer that ignores its input earns nothing where the right answers
differ (`verdicts.trivial_answer`, `blind_by_raising`). The reason tells the first failed shown
case in full, and of a hidden case only its kind: its detail is the instructor's
(`Result.detail`). Tips follow (`tips`), in words that quote no hidden case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from lib.exercises.cases import Case, Result
from lib.exercises.changed_arguments import changed_line, changes, parameter_names, tip
from lib.exercises.salted_share import counted_share
from lib.exercises.tips import cause_of_errors, tip_lines, wrong_turn_words
from lib.exercises.verdicts import (
    answer_of,
    blind_by_raising,
    describe_failure,
    is_stub,
    raised_expected,
    trivial_answer,
    verdict,
)


class Judged(Protocol):
    """What judging reads of an exercise: `core.Exercise` says what each one means."""

    name: str
    lesson: int
    target: str
    points: int
    solution_code: str
    compare: Callable[[Any, Any], bool] | None
    wrong_turns: Callable[[list[Case], list[Any]], str | None] | None
    keeps_arguments: bool


def judge_outcomes(
    exercise: Judged, cases: list[Case], outcomes: list[dict], is_callable: bool = True
) -> Result:
    """Score `outcomes` (from `running.run_cases`, possibly sent by an untrusted kernel)
    against `cases`: each case passed is worth an equal share of the points. Outcomes that
    are missing or malformed count as failed cases. A function that ignores its input (the same
    answer every time, or an argument handed back) earns nothing where the right answers
    differ: `return []` must not collect the points of the cases whose answer is empty."""
    if not cases:
        return result(exercise, "error", 0, "the exercise has no test cases")
    outcomes = [o if isinstance(o, dict) else {} for o in outcomes[: len(cases)]]
    if outcomes and all(is_stub(o) for o in outcomes):
        blank = "is still `...`" if outcomes[0].get("stub") else "raises NotImplementedError"
        return result(exercise, "not attempted", 0, blank)
    trivial = trivial_answer(cases, outcomes) if is_callable else None
    if trivial is not None:
        return result(exercise, "failed", 0, f"it {trivial}, and the right answers differ")
    passed, answered, answers, oks = 0, 0, [], []
    first_failure = hidden_failure = detail = ""
    names = parameter_names(exercise.solution_code, exercise.target)
    changed: dict = {}  # position or keyword -> (the first case it changed in, it, after)
    right_but_changed = 0  # cases that failed only because an argument changed
    for index, case in enumerate(cases):
        outcome = outcomes[index] if index < len(outcomes) else {"not_run": True}
        ok, got = verdict(case, outcome, exercise.compare)
        moved = changes(outcome) if exercise.keeps_arguments else []
        if moved:
            right_but_changed += ok
            lines = [changed_line(case, where, after, names) for where, after in moved]
            ok, got = False, "\n".join(filter(None, [got, *lines]))
            for where, after in moved:
                changed.setdefault(where, (case, where, after))
        answers.append(answer_of(outcome))
        oks.append(ok)
        passed += ok
        answered += (
            "returned" in outcome or "not_plain" in outcome or raised_expected(case, outcome)
        )
        if ok or (first_failure and hidden_failure):
            continue
        described = describe_failure(case, exercise.target if is_callable else None, got)
        if not case.hidden:
            first_failure = first_failure or described
        elif not hidden_failure:  # the student sees its kind; the rest is detail
            # Never its number: the cases come in one order on every resubmission, so a
            # number would tell which call to answer otherwise next time (red team round 15).
            kind = f" ({case.kind})" if case.kind else ""
            hidden_failure = f"a hidden case failed{kind}"
            detail = described
    total = len(cases)
    if passed == total:
        return result(exercise, "passed", float(exercise.points), f"all {total} cases passed")
    share, fixed = passed / total, ""
    if is_callable:  # a missing outcome is a case not run
        ran = outcomes + [{"not_run": True}] * (total - len(outcomes))
        share, fixed = counted_share(cases, ran, oks, exercise.compare)
    score = round(exercise.points * share, 2)
    status = "partial" if share else ("failed" if answered else "error")
    turn = wrong_turn_words(exercise.wrong_turns, cases, answers)
    if changed:  # names the argument and its type only: safe for a hidden case
        right = right_but_changed == total - passed
        turn += tip_lines(tip(list(changed.values()), names, right))
    turn += cause_of_errors(outcomes)  # its own words only: safe for a hidden case
    first = first_failure or hidden_failure
    blind = blind_by_raising(cases, outcomes, oks) if is_callable else None
    if blind is not None:  # the failures still teach; the errors earn nothing
        reason = f"it {blind}, so no case earns\n{first}{turn}"
        return result(exercise, "failed", 0, reason, detail)
    fixed = f" ({fixed})" if fixed else ""
    reason = f"{total - passed} of {total} cases failed{fixed}\n{first}{turn}"
    return result(exercise, status, score, reason, detail)


def result(exercise: Judged, status: str, score: float, reason: str, detail: str = "") -> Result:
    """How `exercise` went, as a `Result`."""
    return Result(exercise.name, exercise.lesson, score, exercise.points, status, reason, detail)
