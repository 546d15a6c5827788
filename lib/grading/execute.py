"""Run one notebook in a fresh kernel with time limits, then grade it: the kernel runs the
student's functions on the test inputs, and the answers are judged here, outside it.

`kernel.Kernel` runs the cells; this module decides what to do when things go wrong:

- a cell raises: noted, and the next cell runs (`allow_errors`), as when a student runs all;
- a cell runs too long: the kernel is interrupted; if it does not answer a tiny probe cell soon
  after (code that ignores Ctrl-C), the kernel is killed;
- the kernel dies (`os._exit`, a kill, a crash) or is killed: a new kernel re-runs the notebook
  without the cells that killed or hung it, so the student still gets what their other cells earn.
  Grading an exercise that kills the kernel scores that exercise 0 and grading goes on the same way.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic

import nbformat

from lib.exercises import Case, Exercise
from lib.grading.cpu_share import contention
from lib.grading.kernel import TIMEOUT, Kernel, KernelLost
from lib.grading.kernel_side import CELL_TEMPLATE, pack

MAX_EVENTS = 12  # a notebook failing in every cell needs only the first few lines of explanation


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
        its cells, each exercise's grading, and each kernel started and stopped. Past it, what
        is stuck is the grader, not the student's code (`batch` then gives up on the notebook)."""
        grading = self.cell * exercises
        return self.notebook + grading + (self.probe + self.kernel_start) * self.kernel_starts


def _where(notebook: nbformat.NotebookNode, index: int) -> str:
    first_line = notebook.cells[index].source.strip().splitlines()[0][:60]
    return f"cell {index + 1} (`{first_line}`)"


def _while_busy() -> str:
    """What to add to a note about a time limit hit while the machine was contended: the same
    code may pass on a quieter machine (`--retry-failed` grades it again)."""
    busy = contention()
    return f", while {busy}: a run on a quieter machine may pass" if busy else ""


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
    sent to the kernel), the folders to import the course from, and optionally a sandbox (`box`
    wraps the kernel command; `runtime` is the folder its sockets live in, its user `owner`'s)."""

    exercises: list[Exercise]
    cases: dict[str, list[Case]]
    limits: Limits
    import_paths: list[str]
    runtime: Path | None = None
    box: Callable[[list[str]], list[str]] | None = None
    owner: int | None = None
    skip_grading: dict[str, dict] = field(default_factory=dict)  # e.g. rows for not own code
    unreadable_targets: set[str] = field(default_factory=set)  # defined by exec, a file...


class _Run:
    """One submission's run: the cells left out after a crash, the results so far and what
    happened (each event once, though a re-run repeats them), across kernel starts. The time
    limit for the student's cells holds for all kernel starts together."""

    def __init__(self, notebook: nbformat.NotebookNode, job: Job):
        self.notebook, self.job, self.limits = notebook, job, job.limits
        self.skip: set[int] = set()  # cells that killed or hung a kernel
        self.results: dict[str, dict] = dict(job.skip_grading)
        self.events: list[str] = []
        self.marker = secrets.token_hex(16)  # only the grading cells know it
        self.deadline = monotonic() + job.limits.notebook

    def note(self, event: str) -> None:
        if event not in self.events:
            self.events.append(event)

    def summary(self) -> list[str]:
        """The events, cut short: a notebook failing in every cell needs no more than a few."""
        extra = len(self.events) - MAX_EVENTS
        return self.events[:MAX_EVENTS] + ([f"... and {extra} more"] if extra > 0 else [])

    async def run_cells(self, client: Kernel) -> None:
        """Run the student's code cells in order, within what is left of the time limit."""
        for index, cell in enumerate(self.notebook.cells):
            if cell.cell_type != "code" or index in self.skip or not cell.source.strip():
                continue
            if monotonic() >= self.deadline:
                self.note(
                    f"stopped before {_where(self.notebook, index)}: running the notebook "
                    f"took longer than {self.limits.notebook:g} s"
                )
                return
            left = self.deadline - monotonic()
            error = await client.run(index, cell, min(self.limits.cell, left))
            if error == TIMEOUT:
                self.note(
                    f"{_where(self.notebook, index)} ran longer than "
                    f"{min(self.limits.cell, left):g} s and was interrupted{_while_busy()}"
                )
            elif error:
                self.note(f"{_where(self.notebook, index)} raised {error}")

    async def grade(self, client: Kernel, exercise: Exercise) -> dict:
        """Grade one exercise: a grading cell runs the student's target on the inputs, and the
        report carrying our marker is judged here against the cases' expected answers."""
        client.published.clear()
        client.expected = (self.marker, exercise.name)
        cases = self.job.cases[exercise.name]
        seconds = min(exercise.time_limit, self.limits.cell)
        source = CELL_TEMPLATE.format(
            tag=self.marker[:8],
            paths=self.job.import_paths,
            packages=["lib"],
            exercise=exercise.name,
            target=exercise.target,
            inputs=pack(exercise.inputs(cases)),
            seconds=seconds,
            marker=self.marker,
        )
        cell = nbformat.v4.new_code_cell(source)
        error = await client.run(client.scratch, cell, self.limits.cell, grading=True)

        if not error and not client.published:  # late: a chatty cell's output was in the way
            await client.drain(self.limits.probe)
        if client.published:
            return _judged(exercise, cases, client.published[0], self.job.unreadable_targets)
        if error == TIMEOUT:
            why = f"grading took longer than {self.limits.cell:g} s (an endless loop?)"
            return result_row(exercise, "timeout", why + _while_busy())
        return result_row(
            exercise, "error", f"could not be graded: {error or 'no result came back'}"
        )


def _judged(exercise: Exercise, cases: list[Case], report: dict, unreadable: set[str]) -> dict:
    """The row for one exercise from the kernel's report (untrusted: only plain data is read)."""
    if report.get("missing") is True:
        return result_row(exercise, "missing", f"`{exercise.target}` is not defined")
    if exercise.target in unreadable:
        reason = f"`{exercise.target}` is not defined in any code cell the grader can read"
        return result_row(exercise, "not own code", reason + " (exec, a cell magic, a file?)")
    module = report.get("module")
    if isinstance(module, str) and module.partition(".")[0] == "lib":
        reason = f"`{exercise.target}` is a function of the course's library (`{module[:80]}`)"
        return result_row(exercise, "not own code", reason)
    outcomes = report.get("outcomes")
    outcomes = outcomes if isinstance(outcomes, list) else []
    result = exercise.judge(cases, outcomes, report.get("callable") is not False)
    row = {**result_row(exercise, result.status, result.reason), "score": float(result.score)}
    return {**row, "detail": result.detail} if result.detail else row


async def run_and_grade(
    notebook: nbformat.NotebookNode, cwd: Path, env: dict[str, str], job: Job
) -> tuple[dict[str, dict], list[str]]:
    """Run `notebook` in `cwd` and grade `job`'s exercises. Returns the results by exercise name
    and the notable events (errors, time-outs, crashes), in order."""
    run = _Run(notebook, job)
    limits = job.limits
    hung = f"ran longer than {limits.cell:g} s and ignored the interrupt, so the kernel was killed"
    for _ in range(limits.kernel_starts):
        client = Kernel(notebook, limits.probe)
        current: Exercise | None = None
        try:
            await client.start(cwd, env, job.runtime, job.box, job.owner)
            await run.run_cells(client)
            for current in [e for e in job.exercises if e.name not in run.results]:
                run.results[current.name] = await run.grade(client, current)
            return run.results, run.summary()
        except KernelLost as lost:
            how = "killed the kernel" if lost.why == "died" else hung + _while_busy()
            if lost.cell_index == client.scratch and current is not None:
                run.results[current.name] = result_row(current, "crashed", f"grading it {how}")
            else:
                run.skip.add(lost.cell_index)
                run.note(
                    f"{_where(notebook, lost.cell_index)} {how}; "
                    "the notebook was run again without it"
                )
        finally:
            await client.stop()
    for exercise in job.exercises:
        run.results.setdefault(
            exercise.name, result_row(exercise, "error", "not graded: the kernel kept dying")
        )
    return run.results, run.summary()
