"""How a class is graded (`Settings`): limits, sandbox, the exercises, and each student's cases.

The cases are computed in the grader's process, never in a kernel: the shown ones once per run,
the hidden ones once per student, their made-up inputs drawn from a salt of the instructor's key
and the student, so that one student's hidden cases are no use to another.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from lib.exercises import Case, Exercise
from lib.exercises.generated import secret_inputs
from lib.grading import sandbox
from lib.grading.demo_cells import Handout
from lib.grading.grading_job import Limits
from lib.grading.prepare import ROOT
from lib.grading.roster import Student, match
from lib.grading.submissions import Submission

Draws = list[list[int]]  # each group member's cases: positions in the list the kernel runs


@dataclass
class Settings:
    """How to grade: limits, sandbox, and the exercises (`registry`, a module with
    `for_lesson(n)`, importable from `import_paths`, the instructor's root first)."""

    limits: Limits = field(default_factory=Limits)
    registry: str = "lib.exercises"
    import_paths: tuple[str, ...] = (str(ROOT),)
    catalog: dict[int, list[Exercise]] = field(default_factory=dict)
    handouts: dict[int, set[str]] = field(default_factory=dict)
    sandboxed: bool = True
    boxed: bool = True  # bubblewrap runs here; else (sandboxed) an own user only: `sandbox.choose`
    caps: sandbox.Caps = field(default_factory=sandbox.Caps)
    cases: dict[tuple[str, str | None], list[Case]] = field(default_factory=dict)
    # Each exercise's hidden cases as lib makes them with no salt, which a learner's kernel can
    # list too (`ex.<name>.grading_cases()`): a hidden case not among them is `salted`.
    public: dict[str, list[Case]] = field(default_factory=dict)
    salt: str = ""  # makes the hidden cases' made-up inputs secret (`generated.secret_inputs`)
    roster: list[Student] = field(default_factory=list)
    student_id: str = ""  # whose every submission is (on Gradescope, from its metadata)
    # Each lesson's code as handed out: the demonstrations a first run may leave out
    # (`demo_cells`); none for a lesson not here.
    handout_code: dict[int, Handout] = field(default_factory=dict)

    def student_of(self, submission: Submission) -> str:
        """Who the hidden cases are drawn for: the id Gradescope gives, else the roster's id of
        the student the submission matches, else the name it was handed in under."""
        found = match(submission.student, self.roster).student if self.roster else None
        return self.student_id or (found.id if found else submission.student)

    def members_of(self, submission: Submission) -> list[str]:
        """Whose hidden cases the submission is graded on: each member of a Gradescope group
        (`student_id` holds their ids joined by "+"; ids are numbers), else its one student."""
        return self.student_id.split("+") if self.student_id else [self.student_of(submission)]

    def group_cases(self, exercise: Exercise, members: list[str]) -> tuple[list[Case], Draws]:
        """The cases a group's submission runs: the shown ones, then every member's own hidden
        ones; and which of them are each member's draw (`Draws`, positions in that list). A
        group is scored on the draw it does worst on (`grading_job.judged`), so a partner can
        only lower a student's score, never redraw it: choosing partners is no lottery."""
        cases: list[Case] = []
        draws: Draws = []
        for place, member in enumerate(dict.fromkeys(members)):  # one draw per member, in order
            every = self.cases_of(exercise, member)
            shown = len(self.cases[(exercise.name, None)])
            cases = cases or every[:shown]
            draws.append([*range(shown), *range(len(cases), len(cases) + len(every) - shown)])
            cases += [replace(case, draw=place) for case in every[shown:]]
        return cases, draws

    def cases_of(self, exercise: Exercise, student: str = "") -> list[Case]:
        """The exercise's test cases, computed here (never in a kernel): the shown ones once per
        run, the hidden ones once per student, with made-up inputs drawn from a salt of the
        instructor's key and the student, so that one student's cases are no use to another.
        A hidden case whose input lib also makes with no salt is one a learner can list; the
        others are marked `salted`, and what an answer earns on them caps its score
        (`salted_share`)."""
        shown, hidden = (exercise.name, None), (exercise.name, student)
        if shown not in self.cases:
            self.cases[shown] = _made(exercise.cases, "")
            self.public[exercise.name] = _made(exercise.secret_cases, "")
        if hidden not in self.cases:
            salt = hashlib.sha256(f"{self.salt}\n{student}".encode()).hexdigest()
            public = [(case.args, case.kwargs) for case in self.public[exercise.name]]
            self.cases[hidden] = [
                replace(case, salted=(case.args, case.kwargs) not in public)
                for case in _made(exercise.secret_cases, salt)
            ]
        return self.cases[shown] + self.cases[hidden]


def _made(make: Callable[[], list[Case]], salt: str) -> list[Case]:
    with warnings.catch_warnings(), secret_inputs(salt):
        warnings.simplefilter("ignore")
        return make()
