"""One submission's grading as the kernels are given it, and the rows made of what comes back.

`Job` is what to grade and how (the exercises, their cases computed here and never sent to the
kernel, the program graded, the sandbox); `Limits` its time limits. `judged` scores a kernel's
report of one exercise (untrusted: only plain data is read); `result_row` is the zero-score row
the grader makes up when no report came (a time-out, a crash). `graded_program` is the notebook
the second kernel runs: each code cell cut down to what the grader read and accepted of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from lib.exercises import Case, Exercise
from lib.grading.kernel_side import FUTURE, PATHS_FIRST


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

    def deadline(self, exercises: int) -> float:
        """The longest one submission can take within these limits, with `exercises` to grade:
        its cells twice (the notebook, then the program graded), each exercise's grading (its
        shown cases, then its hidden ones: `rounds`), and each kernel started and stopped. Past
        it, what is stuck is the grader, not the student's code (`batch` then gives up on the
        notebook)."""
        starts = (self.probe + self.kernel_start) * self.kernel_starts
        return 2 * (self.notebook + starts) + 2 * self.cell * exercises


def result_row(exercise: Exercise, status: str, reason: str) -> dict:
    """A zero-score result made up by the grader when the kernel could not give one."""
    return {
        "name": exercise.name,
        "score": 0.0,
        "max_score": float(exercise.points),
        "status": status,
        "reason": reason,
    }


@dataclass
class Job:
    """What to grade and how: the exercises with their test cases (computed by the grader, never
    sent to the kernel), the program graded (`Notebook.program`: code by cell index), the folders
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
    program: dict[int, str] = field(default_factory=dict)


def judged(exercise: Exercise, cases: list[Case], report: dict) -> dict:
    """The row for one exercise from the kernel's report (untrusted: only plain data is read)."""
    if report.get("missing") is True:
        return result_row(exercise, "missing", f"`{exercise.target}` is not defined")
    outcomes = report.get("outcomes")
    outcomes = outcomes if isinstance(outcomes, list) else []
    result = exercise.judge(cases, outcomes, report.get("callable") is not False)
    row = {**result_row(exercise, result.status, result.reason), "score": float(result.score)}
    return {**row, "detail": result.detail} if result.detail else row


def graded_program(notebook: nbformat.NotebookNode, job: Job) -> nbformat.NotebookNode:
    """The notebook as graded: each code cell holds only what the grader read and accepted of it
    (`job.program`), after `FUTURE`; the first also puts the course first on `sys.path`."""
    graded = nbformat.from_dict(notebook)
    first = min(job.program, default=None)
    for index, cell in enumerate(graded.cells):
        if cell.cell_type == "code":
            paths = PATHS_FIRST.format(paths=job.import_paths) if index == first else ""
            code = job.program.get(index, "")
            cell.source = FUTURE + paths + code if code else ""
    return graded
