"""Exercises with instant feedback, in the spirit of Kaggle Learn's checks.

An `Exercise` names what the learner must define in the notebook (its `target`, usually a
function) and computes its test `Case`s from lib's reference implementation. In the notebook:

    def utf8_encode(cp: int) -> bytes:     # the learner's cell, shipped as a stub that
        raise NotImplementedError          # raises NotImplementedError
    ex.utf8_encode.check()                 # the next cell: prints what passed and what went wrong

Checking has two halves. `running.run_cases` calls the learner's target on each case's inputs and
reports what happened as plain data (it never sees an expected answer); `Exercise.judge` compares
those outcomes with the expected answers, type-strictly, with partial credit per case. `check()`
does both in the notebook and prints; the grader runs the first half in the student's sandboxed
kernel and the second in its own process, so no student object is ever compared or printed.
`check()` never raises: whatever the learner's code does (wrong answers, exceptions, `exit()`,
running for ever) becomes a message.
"""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.exercises.cases import SOLUTION_MIME, STATUSES, Case, Raises, Result, close
from lib.exercises.forbidden import forbidden_in_function
from lib.exercises.judging import judge_outcomes, result
from lib.exercises.kernel_code import hint_as_value, kernel_notebook
from lib.exercises.running import run_cases

# The names lessons and the grader import from here; the data types live in cases.py.
__all__ = ["SOLUTION_MIME", "STATUSES", "Case", "Exercise", "Raises", "Result", "close"]


@dataclass(frozen=True, kw_only=True)
class Exercise:
    """One graded exercise, made once per lesson with keywords and never changed after.

    A target that is not callable (e.g. `first_merge = ...`) is compared with each case's
    `expected` as it is; the value `...` counts as not attempted.
    """

    name: str
    """Short id, e.g. "utf8_encode": what `ex.<name>.check()` and the grade tables call it."""
    lesson: int
    """The lesson's number, 1 to 9."""
    target: str
    """The name the learner defines in the notebook (a function, or a value for a prediction)."""
    cases: Callable[[], list[Case]]
    """Returns the cases `check()` shows. Called at check time, so the expected answers come
    from lib's reference implementation, never from numbers typed in by hand."""
    hints: tuple[str, ...]
    """Nudges in words, from gentle to nearly the answer: `hint()`, `hint(2)`, ..."""
    solution_code: str
    """Python source that defines the target: what `solution()` shows, and what the tests and
    the grader's self-test run to prove the exercise can be passed."""
    points: int = 1
    """What passing every case is worth; each case passed earns an equal share."""
    compare: Callable[[Any, Any], bool] | None = None
    """`compare(got, expected) -> bool` where the strict `plain.same` is too strict (e.g.
    `close` for measurements); None for `plain.same`."""
    hidden_cases: Callable[[], list[Case]] | None = None
    """Returns more cases that only the grader runs, so that hard-coding the answers `check()`
    shows earns nothing; None when there are none."""
    time_limit: float = 10.0
    """Seconds per case in `check()` (the grader sets its own limits)."""
    allowed_lib: tuple[str, ...] = ()
    """What the learner may use beyond `allowed`'s list: `lib` helpers by full name
    ("lib.bpe.merge") or modules ("codecs"); anything else is not own code (`own_code`)."""
    forbidden: tuple[str, ...] = ()
    """What of `allowed`'s list this exercise takes away: ".encode" for any such attribute,
    "bytes" for a name (see `forbidden.py`)."""
    literal: bool = False
    """The target is a prediction: it must be a value written out, not computed."""
    wrong_turns: Callable[[list[Case], list[Any]], str | None] | None = None
    """Called when some case fails, with the cases and every case's answer (None where there was
    none); returns words naming a known mistake the answers fit (e.g. a different tie rule), which
    join the feedback, or None."""
    well_done: str = ""
    """A line `check()` adds when every case passes, saying what the learner has built."""
    keeps_arguments: bool = True
    """The target must leave the arguments it is given as they were: a case whose call changes
    one fails (`changed_arguments`). True for every exercise of the course, since each asks for
    a function that returns its answer, and a caller's list that grows behind its back is a bug
    the answer's own cases would never show. False only for one meant to work in place."""

    def __repr__(self) -> str:
        return f"<Exercise {self.name!r} (lesson {self.lesson}, {self.points} points)>"

    def hint(self, step: int = 1) -> None:
        """Print hint number `step` (1 is the gentlest), wrapped to a width that reads well in a
        notebook, and say whether a further step exists."""
        count = len(self.hints)
        if not 1 <= step <= count:
            print(
                f"{self.name} has hints 1 to {count}: try ex.{self.name}.hint({min(step, count)})"
            )
            return
        label = f"Hint {step} of {count}" if count > 1 else "Hint"
        text = f"💡 {label} for {self.name}: {self.hints[step - 1]}"
        if step < count:
            text += f" (Still stuck? ex.{self.name}.hint({step + 1}))"
        print(textwrap.fill(text, width=88))

    def grading_cases(self) -> list[Case]:
        """Every case the grader runs: the ones `check()` shows, then the hidden ones."""
        return self.cases() + self.secret_cases()

    def secret_cases(self) -> list[Case]:
        """The cases only the grader runs, marked hidden so that no student sees their detail."""
        hidden = self.hidden_cases() if self.hidden_cases else []
        return [dataclasses.replace(case, hidden=True) for case in hidden]

    def solution(self) -> None:
        """Show one solution. In a notebook the output also carries a marker the grader reads
        (`SOLUTION_MIME`), so the instructor can see which solutions a student opened."""
        text = f"One solution for {self.name} (run it in a cell to use it):\n\n{self.solution_code}"
        shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
        if shell is None:
            print(text)
            return
        from IPython.display import display

        display({"text/plain": text, SOLUTION_MIME: {"exercise": self.name}}, raw=True)

    def not_own(self, namespace: dict[str, Any]) -> str:
        """What makes the target not the learner's own code, read as the grader reads it ("" if
        nothing): from the notebook's cells in a kernel, else from the target's own source."""
        code = kernel_notebook(namespace)
        early = hint_as_value(namespace) if code is not None else ""
        if early:
            return (
                f"`{early}` was defined before the lesson's set-up cell ran, so its type hints"
                " are values here and text where it is graded: run the set-up cell, then its cell"
            )
        if code is not None:
            return code.borrowed(self.target, self.allowed_lib, self.forbidden, self.literal)
        used = forbidden_in_function(namespace[self.target], self.forbidden)
        return f"`{self.target}` {used}" if used else ""

    def inputs(self, cases: list[Case]) -> list[tuple[tuple, dict]]:
        """What the learner's target is called with: each case without its expected answer."""
        return [(case.args, case.kwargs) for case in cases]

    def grade(self, namespace: dict[str, Any], time_limit: float | None = None) -> Result:
        """Run and judge every case against `namespace[self.target]`; never prints or raises."""
        if self.target not in namespace:
            return result(self, "missing", 0, f"`{self.target}` is not defined")
        try:
            cases = self.cases()
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a bug or missing data on our side, not the learner's
            return result(
                self, "error", 0, f"the checks could not run: {type(error).__name__}: {error}"
            )
        target = namespace[self.target]
        used = self.not_own(namespace)
        if used:
            return result(self, "not own code", 0, used)
        outcomes = run_cases(target, self.inputs(cases), time_limit)
        return self.judge(cases, outcomes, callable(target))

    def judge(self, cases: list[Case], outcomes: list[dict], is_callable: bool = True) -> Result:
        """Score `outcomes` (from `running.run_cases`, possibly sent by an untrusted kernel)
        against `cases` (`judging.judge_outcomes`)."""
        return judge_outcomes(self, cases, outcomes, is_callable)

    def check(self, namespace: dict[str, Any] | None = None) -> None:
        """Print whether the learner's target passes (namespace: the notebook's, by default)."""
        if namespace is None:
            namespace = sys.modules["__main__"].__dict__
        result = self.grade(namespace, self.time_limit)
        print(f"Checking {self.name}")
        if result.status == "passed":
            more = "; the grader also runs cases not shown here" if self.hidden_cases else ""
            print(f"✅ {result.reason} ({result.score:g}/{self.points} points{more})")
            if self.well_done:
                print(
                    textwrap.fill(
                        self.well_done, width=88, initial_indent="   ", subsequent_indent="   "
                    )
                )
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
