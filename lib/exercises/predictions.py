""" "Predict, then run": exercises where the learner commits an answer before the lesson shows it.

The learner fills a dict literal, one entry per question, in a cell that comes *before* the
cells that compute the answer. Each question is one `Case` whose expected value is an `Answer`:
the right value plus the reason it is right. When a prediction is wrong, `check()` and the
grader show `expected: <the reason>`, so the feedback teaches instead of only saying "no".

The answers are computed from the data (or from Python itself) when the check runs, never typed
in here, and an exercise lists `forbidden` names so that a prediction computed in code
(`len("ß".encode())`) is not own work: a prediction is a literal.

>>> answer = Answer("ß", 2, "'ß' is 2 bytes")
>>> predicted({"ß": 2}, answer), predicted({"ß": 3}, answer), predicted({"ß": True}, answer)
(True, False, False)
>>> predicted({"x": " Ours "}, Answer("x", "ours", "why"))
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.exercises.core import Case, Exercise


@dataclass(frozen=True)
class Answer:
    """The right answer to question `key`, and why; its repr is the why, shown on a miss."""

    key: str
    value: int | str
    why: str

    def __repr__(self) -> str:
        return self.why


def predicted(got: Any, answer: Answer) -> bool:
    """Did the learner's dict get question `answer.key` right? Words are compared without case
    or surrounding spaces; numbers must be ints (`True` is not 1)."""
    if not isinstance(got, dict):
        return False
    guess = got.get(answer.key)
    if isinstance(answer.value, str):
        return isinstance(guess, str) and guess.strip().lower() == answer.value
    return type(guess) is int and guess == answer.value


def every_miss(cases: list[Case], answers: list[Any]) -> str | None:
    """A `wrong_turns` hook: the check shows the first miss in full, this lists every one, each
    with your guess and the reason (`None` when there is at most one)."""
    misses = []
    for case, got in zip(cases, answers, strict=False):
        answer = case.expected
        if not predicted(got, answer):
            guess = got.get(answer.key) if isinstance(got, dict) else None
            misses.append(f"you said {guess!r}, but {answer.why}")
    return f"all {len(misses)} misses:\n" + "\n".join(misses) if len(misses) > 1 else None


def cases(answers: list[Answer]) -> list[Case]:
    """One case per question: the target is a value (the dict), so there are no arguments."""
    return [Case(expected=answer) for answer in answers]


def question(
    *,
    name: str,
    lesson: int,
    target: str,
    cases: Callable[[], list[Case]],
    hints: tuple[str, ...],
    solution_code: str,
) -> Exercise:
    """A "predict, then run" exercise worth a point: the learner's dict is a literal, compared
    question by question (`predicted`), and a miss lists every other one too (`every_miss`)."""
    return Exercise(
        name=name,
        lesson=lesson,
        target=target,
        cases=cases,
        hints=hints,
        solution_code=solution_code,
        compare=predicted,
        wrong_turns=every_miss,
        literal=True,
    )
