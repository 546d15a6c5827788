"""The grader's cost: the sandbox's overhead per notebook, and a class of 30 full lessons.

Run by `python tests/benchmark.py --only grade` (part of the whole benchmark). Two measurements:

- overhead: one small notebook graded again and again, in the sandbox and without it, alternating
  so a busy machine slows both alike; the difference of the medians is what the sandbox costs per
  notebook (kernel start in bubblewrap, limits, the clean-up of its user's processes);
- class: 30 submissions (each of the six lessons, whole, solved / as shipped / half solved / solved
  twice more), graded sandboxed with the default `--jobs`, as an instructor would.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path[:0] = [str(ROOT), str(FIXTURES)]
os.environ["GRADER_FULL_NOTEBOOKS"] = "1"  # the class grades whole lessons, not cut-down ones

from lesson_variants import variant  # noqa: E402
from toy_class import SOLVED, toy  # noqa: E402

from lib.exercises import for_lesson  # noqa: E402
from lib.grading import batch, one_submission, sandbox  # noqa: E402
from lib.grading.notebook import load_catalog  # noqa: E402
from lib.grading.submissions import find_submissions, read_notebook  # noqa: E402


def overhead(rounds: int) -> tuple[float, float]:
    """Median seconds to grade the toy notebook: (sandboxed, not sandboxed)."""
    times: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        nbformat.write(toy(**SOLVED), Path(tmp, "toy.ipynb"))
        (submission,) = find_submissions([tmp])
        for _ in range(rounds + 1):  # the first round warms caches and is not counted
            for boxed in (True, False):
                settings = one_submission.Settings(
                    registry="toy_exercises",
                    import_paths=(str(ROOT), str(FIXTURES)),
                    catalog=load_catalog("toy_exercises"),
                    sandboxed=boxed,
                )
                user = sandbox.OwnUser() if boxed else None
                started = time.perf_counter()
                uid = user and user.uid
                record = asyncio.run(one_submission.grade_one(submission, settings, uid))
                if user:
                    user.release()
                assert [e["score"] for e in record["exercises"]] == [2.0, 1.0], record
                times[boxed].append(time.perf_counter() - started)
    return statistics.median(times[True][1:]), statistics.median(times[False][1:])


def write_class(folder: Path) -> int:
    """Thirty whole-lesson notebooks; returns the points they should earn together."""
    expected = 0.0
    for path in sorted((ROOT / "notebooks").glob("0[1-6]*.ipynb")):
        notebook = read_notebook(path)
        names = [e.name for e in for_lesson(notebook.metadata["course"]["lesson"])]
        points = {e.name: e.points for e in for_lesson(notebook.metadata["course"]["lesson"])}
        kinds = {"solved": names, "shipped": [], "half": names[: (len(names) + 1) // 2]}
        kinds |= {"solved2": names, "solved3": names}
        for kind, solved in kinds.items():
            nbformat.write(variant(notebook, set(solved)), folder / f"{path.stem}_{kind}.ipynb")
            expected += sum(points[n] for n in solved)
    return expected


def class_minutes() -> tuple[float, int, float, float]:
    """(minutes, submissions, points earned, points expected) for the 30-notebook class."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "class").mkdir()
        expected = write_class(Path(tmp, "class"))
        started = time.perf_counter()
        records = batch.grade_submissions([Path(tmp, "class")], Path(tmp, "out"), progress=False)
        minutes = (time.perf_counter() - started) / 60
    earned = sum(e["score"] for r in records for e in r["exercises"])
    return minutes, len(records), earned, expected


def report(rounds: int) -> bool:
    """Print both rows; False when a check failed."""
    boxed, bare = overhead(rounds)
    print(
        f"{'grade one small notebook (toy lesson)':46} {boxed:7.2f} {'no box':>8} {bare:7.2f} "
        f"{boxed / bare:8.2f}  sandbox overhead {boxed - bare:+.2f} s per notebook (target <= 1 s)",
        flush=True,
    )
    minutes, count, earned, expected = class_minutes()
    ok = earned == expected
    print(
        f"{f'grade a class of {count} whole lessons':46} {minutes:6.1f}m  jobs {os.cpu_count()} "
        f"cores; {earned:g} of {expected:g} expected points  [{'ok' if ok else 'FAILED'}]",
        flush=True,
    )
    return ok
