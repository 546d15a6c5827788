"""The data of an exercise's check: the `Case`s it runs, the `Result` it gives, and the small
helpers every lesson's comparisons share.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

SOLUTION_MIME = "application/vnd.tokenization-course.solution+json"
STATUSES = ("passed", "partial", "failed", "not attempted", "missing", "error", "not own code")


@dataclass
class Case:
    """One call of the learner's target, `target(*args, **kwargs)`, and the answer it must give.
    A `hidden` case is one only the grader runs: what a student sees of it is that it failed,
    with its `kind` (e.g. "a Hindi sentence"), never its input or answer. In a group's submission,
    `draw` says whose hidden case it is (the member's place in the group), so that each member's
    hidden cases run as a round of their own (`grading.rounds`). A `salted` case is a hidden one
    whose input the grader made from the salt (the instructor's key and the student), so that
    nothing `lib` lists in a learner's kernel holds it (`salted_share`)."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    expected: Any = None
    hidden: bool = False
    kind: str = ""
    draw: int = field(default=0, compare=False)  # where it runs, not what it asks
    salted: bool = field(default=False, compare=False)  # who can know it, not what it asks


def of_kind(kind: str, cases: list[Case]) -> list[Case]:
    """`cases`, each with its `kind` set: what a student reads of a hidden one that failed, and
    which written-out hidden cases a salted one stands in for (`tests/test_salted_kinds.py`)."""
    return [replace(case, kind=kind) for case in cases]


@dataclass(frozen=True)
class Raises:
    """The expected answer of a case whose call must raise `error`: `Case(expected=Raises(...))`.
    With `naming`, the error's message must hold that text too (e.g. the id that does not fit):
    an error raised by some built-in on the way, which names nothing, is not enough."""

    error: type[BaseException]
    naming: str = ""

    def __repr__(self) -> str:
        return f"raises {self.error.__name__}" + (f" naming {self.naming}" if self.naming else "")


@dataclass(frozen=True)
class Result:
    """How one exercise went. `status` is one of STATUSES; `reason` says why, in words a student
    may read; `detail` is for the instructor only (the first failing hidden case in full)."""

    name: str
    lesson: int
    score: float
    max_score: float
    status: str
    reason: str
    detail: str = ""


def show(value: Any, limit: int = 120, exact: bool = False) -> str:
    """A short, repeatable repr: memory addresses dropped, a set's items in order (its own order
    changes from kernel to kernel: strings hash differently in each), floats to 12 significant
    digits unless `exact` (-0.1575, not the noise of -0.15749999999999997; for display only, the
    comparison is made on the values), long values cut in the middle."""
    shown = value if exact else _rounded(value)
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", _ordered_repr(shown))
    return text if len(text) <= limit else f"{text[: limit - 25]} … {text[-20:]}"


def _rounded(value: Any) -> Any:
    """`value` with each float in it to 12 significant digits. Only the exact built-in containers
    are rebuilt: anything else is shown as it is."""
    kind = type(value)
    if kind is float:
        return float(f"{value:.12g}")
    if kind in (list, tuple, set, frozenset):
        return kind(_rounded(item) for item in value)
    if kind is dict:
        return {_rounded(k): _rounded(v) for k, v in value.items()}
    return value


def _ordered_repr(value: Any) -> str:
    if type(value) not in (set, frozenset) or not value:
        return repr(value)
    try:
        inner = ", ".join(map(repr, sorted(value)))
    except TypeError:  # items that do not compare (str beside int): as Python shows them
        return repr(value)
    return f"{{{inner}}}" if type(value) is set else f"frozenset({{{inner}}})"


def close(got: Any, expected: float) -> bool:
    """For answers that are measurements: a number (not a bool) within rounding of `expected`."""
    return type(got) in (int, float) and math.isclose(got, expected)


def answers_fit(cases: list[Case], answers: list[Any], other: Callable[..., Any]) -> bool:
    """For a `wrong_turns` hook: does a known wrong answer, `other`, explain every failed case
    (and one case fail)? A case where `other` raises fits an answer of None (the learner's call
    raised too, or returned nothing readable)."""
    failed = [(c, a) for c, a in zip(cases, answers, strict=False) if a != c.expected]
    return bool(failed) and all(a == _given_by(other, c) for c, a in failed)


def answers_match(cases: list[Case], answers: list[Any], other: Callable[..., Any]) -> bool:
    """Does `other` give every answer, right ones included? Of several known wrong answers that
    fit the failed cases (`answers_fit`), the one that also fits the passed ones is the closer."""
    return all(a == _given_by(other, c) for c, a in zip(cases, answers, strict=False))


def _given_by(other: Callable[..., Any], case: Case) -> Any:
    try:
        return other(*case.args, **case.kwargs)
    except Exception:
        return None
