"""Run one notebook in a fresh kernel with time limits, then grade it in another: the program
graded is only what the grader read of the notebook and accepted as the student's own code
(`lib.exercises.own_code`), run in a kernel of its own, which calls the student's functions on
the test inputs; the answers are judged here, outside it.

Two kernels, because a cell that no graded function reaches can still replace a graded function
from a string (`cProfile.run`, `pdb.run`) or patch a module it uses, and no reading sees that.
The first kernel runs the notebook, as the student did, for what its cells do (the errors and
time-outs the feedback reports); nothing is graded there. It leaves out the handout's
demonstrations that nothing of the student's reaches (`demo_cells`): they would report nothing.
The second runs the program read, each cell cut down to the statements read, so whatever the
other cells do, it does not happen where the answers are computed.

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
from pathlib import Path
from time import monotonic

import nbformat

from lib.exercises import Exercise
from lib.grading.cpu_share import contention
from lib.grading.grading_job import Job, graded_program, judged, result_row
from lib.grading.kernel import LOST, TIMEOUT, Kernel, KernelLost
from lib.grading.kernel_side import CELL_TEMPLATE, pack
from lib.grading.rounds import rounds

MAX_EVENTS = 12  # a notebook failing in every cell needs only the first few lines of explanation


def _where(notebook: nbformat.NotebookNode, index: int) -> str:
    first_line = notebook.cells[index].source.strip().splitlines()[0][:60]
    return f"cell {index + 1} (`{first_line}`)"


def _while_busy() -> str:
    """What to add to a note about a time limit hit while the machine was contended: the same
    code may pass on a quieter machine (`--retry-failed` grades it again)."""
    busy = contention()
    return f", while {busy}: a run on a quieter machine may pass" if busy else ""


class _Run:
    """One run of a notebook: the cells left out after a crash, the results so far and what
    happened (each event once, though a re-run repeats them), across kernel starts. The time
    limit for the cells holds for all kernel starts together. Events name the cells of `shown`
    (the student's notebook, also when the program graded runs), and say `when` they happened
    unless the student's own run already said the same (`known`)."""

    def __init__(
        self,
        notebook: nbformat.NotebookNode,
        job: Job,
        shown: nbformat.NotebookNode,
        when: str = "",
        known: tuple[str, ...] = (),
    ):
        self.notebook, self.job, self.limits = notebook, job, job.limits
        self.shown, self.when, self.known = shown, when, known
        self.skip: set[int] = set()  # cells left out: demonstrations, or killed or hung a kernel
        self.results: dict[str, dict] = dict(job.skip_grading)
        self.events: list[str] = []
        self.reports: dict[str, dict] = {}  # each exercise's report, hidden outcomes added
        self.current: Exercise | None = None
        self.marker = secrets.token_hex(16)  # only the grading cells know it
        self.hidden_sent = False  # a hidden case's input went to a kernel (it may be kept)
        self.deadline = monotonic() + job.limits.notebook

    def note(self, event: str) -> None:
        if event not in self.known and self.when + event not in (*self.known, *self.events):
            self.events.append(self.when + event)

    async def run_cells(self, client: Kernel) -> None:
        """Run the student's code cells in order, within what is left of the time limit."""
        for index, cell in enumerate(self.notebook.cells):
            if cell.cell_type != "code" or index in self.skip or not cell.source.strip():
                continue
            if monotonic() >= self.deadline:
                self.note(
                    f"stopped before {_where(self.shown, index)}: running the notebook "
                    f"took longer than {self.limits.notebook:g} s"
                )
                return
            left = self.deadline - monotonic()
            error = await client.run(index, cell, min(self.limits.cell, left))
            if error == TIMEOUT:
                self.note(
                    f"{_where(self.shown, index)} ran longer than "
                    f"{min(self.limits.cell, left):g} s and was interrupted{_while_busy()}"
                )
            elif error:  # once a hidden input was in a kernel, a message could carry it
                error = client.last_error_name if self.hidden_sent else error
                self.note(f"{_where(self.shown, index)} raised {error}")

    async def grade(self, client: Kernel, exercises: list[Exercise]) -> None:
        """Grade `exercises` not graded yet, in `rounds`: every shown case before any hidden one,
        so that no answer the feedback quotes is computed once a hidden input is in the kernel.
        `current` is the exercise being asked about, for a kernel lost meanwhile."""
        by_name = {e.name: e for e in exercises}
        for name, start, end in rounds({e.name: self.job.cases[e.name] for e in exercises}):
            if name in self.results or (name in self.reports and start == 0):
                continue  # judged already, or its shown round done before a kernel was lost
            self.current = by_name[name]
            row = await self._ask(client, self.current, start, end)
            if row is not None:
                self.results[name] = row
        self.current = None
        for exercise in exercises:
            if exercise.name not in self.results:
                self.results[exercise.name] = self._judged(exercise)

    def _judged(self, exercise: Exercise) -> dict:
        report = self.reports[exercise.name]
        return judged(
            exercise, self.job.cases[exercise.name], report, self.job.draws.get(exercise.name)
        )

    async def _ask(self, client: Kernel, exercise: Exercise, start: int, end: int) -> dict | None:
        """Run the exercise's cases `start:end` in the kernel, keeping the report in `reports`;
        a result row instead when that ends its grading (missing, timed out, no answer)."""
        client.published.clear()
        client.expected = (self.marker, exercise.name)
        cases = self.job.cases[exercise.name][start:end]
        self.hidden_sent |= any(case.hidden for case in cases)
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
            report = client.published[0]
            outcomes = report.get("outcomes")
            outcomes = outcomes[: len(cases)] if isinstance(outcomes, list) else []
            stopped = len(outcomes) < len(cases)  # a time-out: the rest would most likely hang
            outcomes += [{"not_run": True}] * (len(cases) - len(outcomes))
            if start:
                self.reports[exercise.name]["outcomes"] += outcomes
                return None
            self.reports[exercise.name] = {**report, "outcomes": outcomes}
            if report.get("missing") is True or stopped:  # nothing more to ask
                return self._judged(exercise)
            return None
        if error == TIMEOUT:
            why = f"grading took longer than {self.limits.cell:g} s (an endless loop?)"
            return result_row(exercise, "timeout", why + _while_busy())
        # The grader's own words: the kernel's report of the error is the student's code's
        # (`raise KeyboardInterrupt(<every input seen>)`, a lone surrogate's "position N").
        why = (
            f"grading it stopped with {client.last_error_name}" if error else "no result came back"
        )
        return result_row(exercise, "error", f"could not be graded: {why}")


async def run_and_grade(
    notebook: nbformat.NotebookNode,
    cwd: Path,
    env: dict[str, str],
    job: Job,
    demos: frozenset[int] = frozenset(),
) -> tuple[dict[str, dict], list[str]]:
    """Run `notebook` in `cwd` (but the handout's cells `demos`, which nothing of the student's
    reaches: `demo_cells`), then grade `job`'s exercises, each program graded (`job.programs`,
    one per set of rules) in a fresh kernel running only that program. Returns the results by
    exercise name and the notable events (errors, time-outs, crashes), in order."""
    ran = _Run(notebook, job, notebook)
    ran.skip |= demos
    await _attempts(ran, [], cwd, env)
    results, events = dict(job.skip_grading), ran.events
    by_name = {e.name: e for e in job.exercises}
    for program in job.programs:
        cells = graded_program(notebook, program, job.import_paths)
        graded = _Run(cells, job, notebook, "when graded: ", tuple(events))
        await _attempts(graded, [by_name[name] for name in program.exercises], cwd, env)
        results.update(graded.results)
        events = events + graded.events
    # A notebook failing in every cell needs no more than the first few lines of explanation.
    extra = len(events) - MAX_EVENTS
    return results, events[:MAX_EVENTS] + ([f"... and {extra} more"] if extra > 0 else [])


async def _attempts(run: _Run, exercises: list[Exercise], cwd: Path, env: dict[str, str]) -> None:
    """Run `run`'s notebook and grade `exercises` there, starting a new kernel without the cell
    that killed or hung the last one, up to `kernel_starts` times."""
    limits, job = run.limits, run.job
    hung = f"ran longer than {limits.cell:g} s and ignored the interrupt, so the kernel was killed"
    for _ in range(limits.kernel_starts):
        client = Kernel(run.notebook, limits.probe)
        try:
            await client.start(cwd, env, job.runtime, job.box, job.owner)
            await run.run_cells(client)
            await run.grade(client, exercises)
            return
        except KernelLost as lost:
            how = LOST.get(lost.why) or hung + _while_busy()
            current, run.current = run.current, None
            if lost.cell_index == client.scratch and current is not None:
                run.results[current.name] = result_row(current, "crashed", f"grading it {how}")
            else:
                run.skip.add(lost.cell_index)
                run.note(
                    f"{_where(run.shown, lost.cell_index)} {how}; "
                    "the notebook was run again without it"
                )
        finally:
            await client.stop()
    for exercise in exercises:
        run.results.setdefault(
            exercise.name, result_row(exercise, "error", "not graded: the kernel kept dying")
        )
