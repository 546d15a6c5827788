"""Run one notebook in a fresh kernel with time limits, then grade it inside that kernel.

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
from dataclasses import dataclass
from pathlib import Path
from time import monotonic

import nbformat

from lib.grading.kernel import TIMEOUT, Kernel, KernelLost
from lib.grading.kernel_side import CELL_TEMPLATE
from lib.grading.notebook import ExerciseInfo

MAX_EVENTS = 12  # a notebook failing in every cell needs only the first few lines of explanation


@dataclass(frozen=True)
class Limits:
    """Time limits, in seconds. `cell` applies to each cell and to grading each exercise;
    `notebook` to running all the student's cells once; `probe` is how long an interrupted kernel
    has to show it listens again. A kernel is started at most `kernel_starts` times (the first
    run, plus re-runs after a crash)."""

    cell: float = 60
    notebook: float = 300
    probe: float = 5
    kernel_starts: int = 3


def _where(notebook: nbformat.NotebookNode, index: int) -> str:
    first_line = notebook.cells[index].source.strip().splitlines()[0][:60]
    return f"cell {index + 1} (`{first_line}`)"


def result_row(info: ExerciseInfo, lesson: int, status: str, reason: str) -> dict:
    """A zero-score result made up by the grader when the kernel could not give one."""
    return {
        "name": info.name,
        "lesson": lesson,
        "score": 0.0,
        "max_score": float(info.points),
        "status": status,
        "reason": reason,
    }


class _Run:
    """One submission's run: the cells left out after a crash, the results so far and what
    happened (each event once, though a re-run repeats them), across kernel starts."""

    def __init__(
        self,
        notebook: nbformat.NotebookNode,
        lesson: int,
        limits: Limits,
        registry: str,
        import_paths: list[str],
    ):
        self.notebook, self.lesson, self.limits = notebook, lesson, limits
        self.registry, self.import_paths = registry, import_paths
        self.skip: set[int] = set()  # cells that killed or hung a kernel
        self.results: dict[str, dict] = {}
        self.events: list[str] = []
        self.marker = secrets.token_hex(16)  # only the grading cells know it

    def note(self, event: str) -> None:
        if event not in self.events:
            self.events.append(event)

    def summary(self) -> list[str]:
        """The events, cut short: a notebook failing in every cell needs no more than a few."""
        extra = len(self.events) - MAX_EVENTS
        return self.events[:MAX_EVENTS] + ([f"... and {extra} more"] if extra > 0 else [])

    async def run_cells(self, client: Kernel) -> None:
        """Run the student's code cells in order, within the notebook's time limit."""
        deadline = monotonic() + self.limits.notebook
        for index, cell in enumerate(self.notebook.cells):
            if cell.cell_type != "code" or index in self.skip or not cell.source.strip():
                continue
            if monotonic() >= deadline:
                self.note(
                    f"stopped before {_where(self.notebook, index)}: running the notebook "
                    f"took longer than {self.limits.notebook:g} s"
                )
                return
            error = await client.run(index, cell, min(self.limits.cell, deadline - monotonic()))
            if error == TIMEOUT:
                self.note(
                    f"{_where(self.notebook, index)} ran longer than "
                    f"{self.limits.cell:g} s and was interrupted"
                )
            elif error:
                self.note(f"{_where(self.notebook, index)} raised {error}")

    async def grade(self, client: Kernel, info: ExerciseInfo) -> dict:
        """Grade one exercise with a grading cell; the result is the one carrying our marker."""
        client.published.clear()
        packages = sorted({"lib", self.registry.partition(".")[0]})
        source = CELL_TEMPLATE.format(
            tag=self.marker[:8],
            paths=self.import_paths,
            packages=packages,
            registry=self.registry,
            lesson=self.lesson,
            name=info.name,
            marker=self.marker,
        )
        error = await client.run(
            client.scratch, nbformat.v4.new_code_cell(source), self.limits.cell, grading=True
        )

        def sent() -> list[dict]:
            return [
                p["result"]
                for p in client.published
                if isinstance(p, dict)
                and p.get("marker") == self.marker
                and isinstance(p.get("result"), dict)
                and p["result"].get("name") == info.name
            ]

        if not error and not sent():  # late: a chatty cell's output may still be in the way
            await client.drain(self.limits.probe)
        if sent():
            return sent()[0]
        if error == TIMEOUT:
            return result_row(
                info,
                self.lesson,
                "timeout",
                f"grading took longer than {self.limits.cell:g} s (an endless loop?)",
            )
        return result_row(
            info, self.lesson, "error", f"could not be graded: {error or 'no result came back'}"
        )


async def run_and_grade(
    notebook: nbformat.NotebookNode,
    cwd: Path,
    env: dict[str, str],
    lesson: int,
    exercises: list[ExerciseInfo],
    limits: Limits,
    registry: str,
    import_paths: list[str],
) -> tuple[dict[str, dict], list[str]]:
    """Run `notebook` in `cwd` and grade `exercises` of `lesson` in its kernel, importing
    `registry` (a module with `for_lesson(n)`) from `import_paths`. Returns the results by
    exercise name and the notable events (errors, time-outs, crashes), in order."""
    run = _Run(notebook, lesson, limits, registry, import_paths)
    hung = f"ran longer than {limits.cell:g} s and ignored the interrupt, so the kernel was killed"
    for _ in range(limits.kernel_starts):
        client = Kernel(notebook, limits.probe)
        current: ExerciseInfo | None = None
        try:
            await client.start(cwd, env)
            await run.run_cells(client)
            for current in [e for e in exercises if e.name not in run.results]:
                run.results[current.name] = await run.grade(client, current)
            return run.results, run.summary()
        except KernelLost as lost:
            how = "killed the kernel" if lost.why == "died" else hung
            if lost.cell_index == client.scratch and current is not None:
                run.results[current.name] = result_row(
                    current, lesson, "crashed", f"grading it {how}"
                )
            else:
                run.skip.add(lost.cell_index)
                run.note(
                    f"{_where(notebook, lost.cell_index)} {how}; "
                    "the notebook was run again without it"
                )
        finally:
            await client.stop()
    for info in exercises:
        run.results.setdefault(
            info.name, result_row(info, lesson, "error", "not graded: the kernel kept dying")
        )
    return run.results, run.summary()
