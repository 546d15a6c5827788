"""Exercises with instant feedback, in the spirit of Kaggle Learn's checks.

An `Exercise` names what the learner must define in the notebook (its `target`, usually a
function) and computes its test `Case`s from lib's reference implementation. In the notebook:

    def utf8_encode(cp: int) -> bytes:     # the learner's cell, shipped as a stub that
        raise NotImplementedError          # raises NotImplementedError
    ex.utf8_encode.check()                 # the next cell: prints what passed and what went wrong

`check()` never raises: whatever the learner's code does (wrong answers, exceptions, `exit()`,
running for ever) becomes a message. `grade(namespace)` is the silent version for the grader: it
returns a `Result` with partial credit per case.
"""

from __future__ import annotations

import copy
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

STATUSES = ("passed", "partial", "failed", "not attempted", "missing", "error")


@dataclass
class Case:
    """One call of the learner's target, `target(*args, **kwargs)`, and the answer it must give."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    expected: Any = None


@dataclass(frozen=True)
class Raises:
    """The expected answer of a case whose call must raise `error`: `Case(expected=Raises(...))`."""

    error: type[BaseException]

    def __repr__(self) -> str:
        return f"raises {self.error.__name__}"


@dataclass(frozen=True)
class Result:
    """How one exercise went. `status` is one of STATUSES; `reason` says why, in words."""

    name: str
    lesson: int
    score: float
    max_score: float
    status: str
    reason: str


class TimeLimitExceeded(BaseException):
    """Raised inside the learner's code when a case runs too long. A BaseException, so that
    an `except Exception:` in the learner's loop cannot swallow it."""


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after `seconds`, where the platform allows it (Unix, main thread, no
    other timer running); otherwise run it without a limit."""
    if not (
        seconds
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    ):
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise TimeLimitExceeded(f"took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _show(value: Any, limit: int = 120) -> str:
    """A short, repeatable repr: memory addresses dropped, long values cut in the middle."""
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    return text if len(text) <= limit else f"{text[: limit - 25]} … {text[-20:]}"


class Exercise:
    """One graded exercise. All arguments are keywords:

    name: short id, e.g. "utf8_encode"; lesson: the lesson's number; points: what it is worth;
    target: the name the learner defines; cases: a function returning the list of Cases (called
    at check time, so expected values come from lib); compare: `compare(got, expected) -> bool`
    when `==` is too strict (e.g. math.isclose); hint: a nudge in words; solution: Python source
    that defines the target; time_limit: seconds per case in `check()`.

    A target that is not callable (e.g. `first_merge = ...`) is compared with each case's
    `expected` as it is; the value `...` counts as not attempted.
    """

    def __init__(
        self,
        *,
        name: str,
        lesson: int,
        target: str,
        cases: Callable[[], list[Case]],
        hint: str,
        solution: str,
        points: int = 1,
        compare: Callable[[Any, Any], bool] | None = None,
        time_limit: float = 10.0,
    ):
        self.name, self.lesson, self.target, self.points = name, lesson, target, points
        self.cases, self.compare, self.time_limit = cases, compare, time_limit
        self.hint_text, self.solution_code = hint, solution

    def __repr__(self) -> str:
        return f"<Exercise {self.name!r} (lesson {self.lesson}, {self.points} points)>"

    def hint(self) -> None:
        print(f"💡 Hint for {self.name}: {self.hint_text}")

    def solution(self) -> None:
        print(f"One solution for {self.name} (run it in a cell to use it):\n\n{self.solution_code}")

    def grade(self, namespace: dict[str, Any], time_limit: float | None = None) -> Result:
        """Run every case against `namespace[self.target]`; never prints, never raises."""

        def result(status: str, score: float, reason: str) -> Result:
            return Result(self.name, self.lesson, score, self.points, status, reason)

        if self.target not in namespace:
            return result("missing", 0, f"`{self.target}` is not defined")
        target = namespace[self.target]
        try:
            cases = self.cases()
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a bug or missing data on our side, not the learner's
            return result("error", 0, f"the checks could not run: {type(error).__name__}: {error}")
        total, passed, answered, first_failure = len(cases), 0, 0, ""
        raised: list[BaseException] = []
        for case in cases:
            try:
                with _time_limit(time_limit):
                    got = self._call(target, case)
                    if got is Ellipsis and not callable(target):
                        raise NotImplementedError
                    ok = bool((self.compare or (lambda a, b: a == b))(got, case.expected))
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # anything the learner's code does, even exit()
                raised.append(error)
                first_failure = first_failure or self._describe(
                    target, case, f"raised:   {type(error).__name__}: {error}"
                )
                if isinstance(error, TimeLimitExceeded):
                    break  # the other cases would most likely hang as well: count them as failed
                continue
            answered, passed = answered + 1, passed + ok
            if not ok and not first_failure:
                first_failure = self._describe(
                    target, case, f"expected: {_show(case.expected)}\ngot:      {_show(got)}"
                )
        if not total:
            return result("error", 0, "the exercise has no test cases")
        if len(raised) == total and all(isinstance(e, NotImplementedError) for e in raised):
            return result("not attempted", 0, "raises NotImplementedError")
        score = round(self.points * passed / total, 2)
        if passed == total:
            return result("passed", score, f"all {total} cases passed")
        status = "partial" if passed else "failed"
        if not answered:  # it never returned an answer: it crashes (or hangs) every time
            status = "error"
        return result(status, score, f"{total - passed} of {total} cases failed\n{first_failure}")

    def check(self, namespace: dict[str, Any] | None = None) -> None:
        """Print whether the learner's target passes (namespace: the notebook's, by default)."""
        if namespace is None:
            namespace = sys.modules["__main__"].__dict__
        result = self.grade(namespace, self.time_limit)
        print(f"Checking {self.name}")
        if result.status == "passed":
            print(f"✅ {result.reason} ({result.score:g}/{self.points} points)")
        elif result.status == "missing":
            print(f"❌ `{self.target}` is not defined — run the cell above")
        elif result.status == "not attempted":
            stub = "`raise NotImplementedError`" if callable(namespace[self.target]) else "`...`"
            print(f"⏳ not attempted yet — replace {stub} with your code")
        else:
            summary, _, detail = result.reason.partition("\n")
            first = ". The first one:" if detail else ""
            print(f"❌ {summary} ({result.score:g}/{self.points} points){first}")
            if detail:
                print("   " + detail.replace("\n", "\n   "))

    def _call(self, target: Any, case: Case) -> Any:
        if not callable(target):
            return target
        try:  # a fresh copy, so code that changes its arguments cannot spoil the next case
            args, kwargs = copy.deepcopy((case.args, case.kwargs))
        except Exception:
            args, kwargs = case.args, case.kwargs
        try:
            return target(*args, **kwargs)
        except Exception as error:
            if isinstance(case.expected, Raises) and isinstance(error, case.expected.error):
                return case.expected  # raising the right exception is the right answer
            raise

    def _describe(self, target: Any, case: Case, outcome: str) -> str:
        if not callable(target):
            return outcome
        arguments = [_show(a, 60) for a in case.args]
        arguments += [f"{key}={_show(value, 60)}" for key, value in case.kwargs.items()]
        return f"input:    {self.target}({', '.join(arguments)})\n{outcome}"
