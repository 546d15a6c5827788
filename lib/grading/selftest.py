"""`python -m lib.grade selftest`: prove that this machine can grade, before the class hands in.

It grades the course's own solutions, every lesson as one whole notebook (`solved`), exactly as
students are graded: `grade_submissions` with the sandbox, the course data, the time limits and
the summary chart's browser. Every lesson must earn all its points with no cell raising; anything
less is a machine that would mark honest students down, so the command says what to fix and
exits non-zero. The records go to a throwaway folder signed with a throwaway key, so the
instructor's key is not made here, nor is a key left in a Gradescope image: there the hidden
cases are salted with the bundle's secret (`gradescope_bundle.SECRET_FILE`), not with a key.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat

from lib.grading import protections, sandbox, summary_chart
from lib.grading.batch import grade_submissions
from lib.grading.grading_job import Limits
from lib.grading.notebook import handouts
from lib.grading.prepare import ROOT
from lib.grading.solved import solved
from lib.grading.store import KEY_VAR
from lib.grading.versions import total

# What usually makes a solved lesson fall short, and what to do about it: (words in the reason).
FIXES = [
    (
        ("ModuleNotFoundError", "ImportError"),
        "install the course's packages: `python -m pip install -r requirements.txt`",
    ),
    (
        ("DataError", "sha256", "COURSE_DATA_MIRROR", "download"),
        "fetch the course data with "
        'network (`python -c "from lib import data; data.fetch_all()"`) or point '
        "COURSE_DATA_MIRROR at the offline mirror",
    ),
    (
        ("longer than", "timeout", "gave up"),
        "this machine is too slow or too busy for the time "
        "limits: grade with fewer --jobs, or raise --cell-timeout / --notebook-timeout",
    ),
    (
        ("kaleido", "Chrome", "Chromium", "browser"),
        "install a browser for the figures: "
        "`apt-get install chromium fonts-noto-core` (or set BROWSER_PATH)",
    ),
]


@contextlib.contextmanager
def _throwaway_key(folder: Path) -> Iterator[None]:
    """Sign the self-test's records with a key of its own, then put the environment back."""
    before = os.environ.get(KEY_VAR)
    os.environ[KEY_VAR] = str(folder / "selftest-key")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(KEY_VAR, None)
        else:
            os.environ[KEY_VAR] = before


def _write_solved_lessons(folder: Path, lessons: set[int] | None = None) -> None:
    """Each lesson's handout (of `lessons`, default all) with every exercise solved, as
    `lesson<N>_solved.ipynb`."""
    folder.mkdir(parents=True)
    for lesson, notebook in handouts(ROOT / "notebooks"):
        if lessons is None or lesson in lessons:
            nbformat.write(solved(notebook), folder / f"lesson{lesson}_solved.ipynb")


def _shortfalls(record: dict) -> list[str]:
    """What kept one solved lesson from a clean full score, in words."""
    found = [] if record["outcome"] == "graded" else [f"{record['outcome']}: {record['note']}"]
    found += [
        f"{e['name']}: {e['status']}, {e['reason'].splitlines()[0] if e['reason'] else ''}"
        for e in record["exercises"]
        if e["score"] < e["max_score"]
    ]
    return found + [f"while it ran: {event}" for event in record["events"]]


def _fixes(problems: list[str]) -> list[str]:
    """The advice (`FIXES`) whose words appear in the problems, each once."""
    text = "\n".join(problems)
    return [advice for words, advice in FIXES if any(w in text for w in words)]


def report(records: list[dict], out_dir: Path, seconds: float, sandboxed: bool) -> tuple[str, bool]:
    """The self-test's text (a line per lesson, problems, protections, verdict) and whether the
    machine is ready: every lesson graded in full, nothing raised, the chart's PNG drawn. Grading
    without the sandbox is not a failure here (`run` only does so when asked, as on Gradescope
    without namespaces), but the protections line says so."""
    lines, problems = [], []
    for record in sorted(records, key=lambda r: r["lesson"] or 0):
        score, most = total(record)
        falls_short = _shortfalls(record)
        mark = "ok" if not falls_short else "FALLS SHORT"
        lesson = record["lesson"] or Path(record["submission"]).name
        lines.append(
            f"Lesson {lesson}: {score:g} of {most:g} points, {record['seconds']:.0f} s  {mark}"
        )
        lines += [f"    {problem}" for problem in falls_short]
        problems += falls_short
    if not records:
        problems.append(f"no lesson notebook to grade in {ROOT / 'notebooks'} (--lesson?)")
        lines.append(problems[-1])
    png = summary_chart.png_note(out_dir)
    if png:
        lines.append(png)
        problems.append(png)
    lines.append(protections.line(sandboxed, records))
    minutes, secs = divmod(round(seconds), 60)
    if problems:
        lines.append(
            f"NOT READY ({minutes} min {secs} s): the course's own solutions did not "
            "all earn full marks here, so students' work would not either."
        )
        lines += [f"  To fix: {advice}" for advice in _fixes(problems)]
        if not _fixes(problems):
            lines.append("  To fix: read the lines above; rerun `python -m lib.grade selftest`.")
        return "\n".join(lines), False
    lines.append(
        f"READY ({minutes} min {secs} s): every lesson's solutions earn full marks, "
        "graded as students will be."
    )
    return "\n".join(lines), True


def run(
    limits: Limits | None = None,
    *,
    jobs: int | None = None,
    lessons: set[int] | None = None,
    sandboxed: bool | None = True,
    progress: bool = True,
) -> tuple[str, bool]:
    """Grade every lesson's solved notebook (or those of `lessons`); returns the report and
    whether the machine is ready.
    `sandboxed=None` uses the sandbox where bubblewrap can run and grades without it elsewhere,
    as the Gradescope autograder does. Raises `sandbox.SandboxUnavailable` when `sandboxed` is
    True and bubblewrap cannot run (its message says what to install)."""
    if sandboxed is None:
        try:
            sandbox.check_available()
            sandboxed = True
        except sandbox.SandboxUnavailable:
            sandboxed = False
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="course-selftest-") as tmp, _throwaway_key(Path(tmp)):
        _write_solved_lessons(Path(tmp, "submissions"), lessons)
        out = Path(tmp, "out")
        records = grade_submissions(
            [Path(tmp, "submissions")],
            out,
            limits=limits,
            jobs=jobs,
            sandboxed=sandboxed,
            progress=progress,
        )
        return report(records, out, time.monotonic() - started, sandboxed)
