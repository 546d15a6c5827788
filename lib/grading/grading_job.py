"""One submission's grading as the kernels are given it, and the rows made of what comes back.

`Job` is what to grade and how (the exercises, their cases computed here and never sent to the
kernel, the programs graded, the sandbox); `Limits` its time limits. `judged` scores a kernel's
report of one exercise (untrusted: only plain data is read); `result_row` is the zero-score row
the grader makes up when no report came (a time-out, a crash).

**Each exercise judged by its own rules.** Exercises of a lesson ask for different things
(`utf8_encode` may not use `.encode`, `bytes_per_char` may), and a unit accepted under one
exercise's rules can hand what it may use to another's code at run time: a default argument that
puts an `.encode` lambda in a shared dict, read by a function that may not call `.encode`. So
the grader runs `programs`, each in a kernel of its own (`graded_program`: the notebook, each
code cell cut down to that program's part of it), and a program holds an exercise's accepted
units only beside units that also read as own code under that exercise's rules. Every statement
that runs in the process where an exercise is graded was read and accepted under its own rules.
Honest exercises mostly fit together: lesson 1's solutions need two kernels, not five.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from lib.exercises import Case, Exercise
from lib.exercises.own_code import Notebook
from lib.grading.kernel_side import FUTURE, PATHS_FIRST, SHOWS_NOTHING


@dataclass(frozen=True)
class Limits:
    """Time limits, in seconds. `cell` applies to each cell and to grading each exercise;
    `notebook` to running the student's cells, all kernel starts together; `probe` is how long an
    interrupted kernel
    has to show it listens again. A kernel is started at most `kernel_starts` times (the first
    run, plus re-runs after a crash)."""

    cell: float = 60
    notebook: float = 300
    probe: float = 5
    kernel_starts: int = 3
    kernel_start: float = 90  # to start a kernel (nbclient waits 60 s for it) and stop it

    @property
    def reading(self) -> float:
        """How long reading the notebook may take before any kernel starts (`read_apart`): half
        of `notebook`. An honest lesson reads in well under a second."""
        return self.notebook / 2

    def deadline(self, exercises: int, members: int = 1) -> float:
        """The longest one submission can take within these limits, with `exercises` to grade:
        its reading, its cells once as the student ran them, then each program graded (at most
        one per exercise: `programs`), each exercise's grading (its shown cases, then each of
        the `members`' hidden ones: `rounds`), and each kernel started and stopped. Past it,
        what is stuck is the grader, not the student's code (`batch` then gives up)."""
        starts = (self.probe + self.kernel_start) * self.kernel_starts
        rounds = (1 + members) * self.cell * exercises
        grading = (1 + exercises) * (self.notebook + starts) + rounds
        return self.reading + grading


def result_row(exercise: Exercise, status: str, reason: str) -> dict:
    """A zero-score result made up by the grader when the kernel could not give one."""
    return {
        "name": exercise.name,
        "score": 0.0,
        "max_score": float(exercise.points),
        "status": status,
        "reason": reason,
    }


@dataclass(frozen=True)
class Program:
    """What one kernel grades: `exercises` (by name), after running `cells`, the units accepted
    for them (`Notebook.program`: code by cell index)."""

    exercises: tuple[str, ...]
    cells: dict[int, str]


@dataclass
class Job:
    """What to grade and how: the exercises with their test cases (computed by the grader, never
    sent to the kernel), the programs graded (one kernel each: `programs`), the folders
    to import the course from, and optionally a sandbox (`box` wraps the kernel command;
    `runtime` is the folder its sockets live in, its user `owner`'s)."""

    exercises: list[Exercise]
    cases: dict[str, list[Case]]
    limits: Limits
    import_paths: list[str]
    runtime: Path | None = None
    box: Callable[[list[str]], list[str]] | None = None
    owner: int | None = None
    skip_grading: dict[str, dict] = field(default_factory=dict)  # e.g. rows for not own code
    programs: list[Program] = field(default_factory=list)
    # Per exercise, each group member's cases (positions in `cases`): scored on the worst draw.
    draws: dict[str, list[list[int]]] = field(default_factory=dict)


def programs(code: Notebook, exercises: list[Exercise]) -> list[Program]:
    """The programs graded for `exercises`, each accepted as own code (`code.borrowed`) first.
    An exercise joins the first program where what was accepted for it reads as own code under
    the rules of every exercise already there, and theirs under its rules (`Notebook.fits`);
    else it starts a program of its own."""

    def fit(a: Exercise, b: Exercise) -> bool:  # a's units under b's rules
        return code.fits(a.target, b.allowed_lib, b.forbidden)

    groups: list[list[Exercise]] = []
    for e in exercises:
        fitting = (g for g in groups if all(fit(e, other) and fit(other, e) for other in g))
        group = next(fitting, None)
        if group is None:
            groups.append(group := [])
        group.append(e)
    return [Program(tuple(e.name for e in g), code.program(e.target for e in g)) for g in groups]


def judged(
    exercise: Exercise, cases: list[Case], report: dict, draws: list[list[int]] | None = None
) -> dict:
    """The row for one exercise from the kernel's report (untrusted: only plain data is read).
    With `draws` (a group's: each member's positions in `cases`), the row of the draw scored
    lowest, the first such: a partner's cases can lower a student's score, never raise it."""
    if report.get("missing") is True:
        return result_row(exercise, "missing", f"`{exercise.target}` is not defined")
    outcomes = report.get("outcomes")
    outcomes = outcomes if isinstance(outcomes, list) else []
    is_callable = report.get("callable") is not False
    if not draws:
        result = exercise.judge(cases, outcomes, is_callable)
    else:  # a missing outcome is a failed case, as `judge` counts one
        outcomes = outcomes + [{}] * (len(cases) - len(outcomes))
        mine = [([cases[i] for i in own], [outcomes[i] for i in own]) for own in draws]
        result = min((exercise.judge(*m, is_callable) for m in mine), key=lambda r: r.score)
    row = {**result_row(exercise, result.status, result.reason), "score": float(result.score)}
    return {**row, "detail": result.detail} if result.detail else row


def graded_program(
    notebook: nbformat.NotebookNode, program: Program, import_paths: list[str]
) -> nbformat.NotebookNode:
    """The notebook as one kernel grades it: each code cell holds only `program`'s part of it,
    between `FUTURE` and `SHOWS_NOTHING`; the first also puts the course (`import_paths`) first
    on `sys.path`."""
    graded = nbformat.from_dict(notebook)
    first = min(program.cells, default=None)
    for index, cell in enumerate(graded.cells):
        if cell.cell_type == "code":
            paths = PATHS_FIRST.format(paths=import_paths) if index == first else ""
            code = program.cells.get(index, "")
            cell.source = FUTURE + paths + code + SHOWS_NOTHING if code else ""
    return graded
