"""Grading a whole class: each submission in its own throwaway folder and kernel, a few at a time.

Each submission is copied into a fresh temporary folder (its notebook, or its student's whole
folder) and runs there, so whatever it deletes or writes in its working folder goes away with the
copy. Its kernel gets an IPython profile folder of its own (no start-up files from the instructor
or from an earlier submission) and is killed, with everything it started, when grading ends.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from tqdm import tqdm

from lib.grading import reports
from lib.grading.execute import Limits, result_row, run_and_grade
from lib.grading.notebook import (
    ExerciseInfo,
    Submission,
    UnreadableNotebook,
    answer_questions,
    find_submissions,
    identify_lesson,
    load_catalog,
    read_notebook,
    written_answers,
)
from lib.grading.roster import Student
from lib.grading.store import RecordStore
from lib.notebooks import SETUP_CELL

ROOT = Path(__file__).resolve().parents[2]  # the instructor's repository: its `lib` is the judge
# Stands in for the lessons' set-up cell, which looks for the course folder above the working
# folder (not there in a temporary copy). Same imports, so later cells find what they expect.
GRADER_SETUP = """\
import importlib.util, os, pathlib, re, subprocess, sys
root = pathlib.Path({root!r})
if str(root) not in sys.path:
    sys.path.insert(0, str(root))"""


@dataclass(frozen=True)
class Settings:
    """How to grade: time limits, and where the exercises come from (`registry`, a module with
    `for_lesson(n)`, imported in the kernel from `import_paths`, the instructor's root first)."""

    limits: Limits = Limits()
    registry: str = "lib.exercises"
    import_paths: tuple[str, ...] = (str(ROOT),)
    catalog: dict[int, list[ExerciseInfo]] = field(default_factory=dict)


def is_setup_cell(source: str) -> bool:
    """Is this the lessons' standard set-up cell? Its first words ("# Set-up: run this cell
    first") are enough: the notebooks handed out may have an older version of the rest."""
    return source.strip().startswith(SETUP_CELL.split(".")[0])


def _prepared(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook as it will run: the standard set-up cell replaced by `GRADER_SETUP`."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and is_setup_cell(cell.source):
            cell.source = GRADER_SETUP.format(root=str(ROOT))
    return notebook


def _working_copy(submission: Submission, tmp: Path) -> Path:
    """Copy the submission into `tmp/work` and return the folder its notebook runs in. Symbolic
    links are left out: writing through one would reach outside the copy."""
    work = tmp / "work"
    if submission.folder is None:
        work.mkdir()
        shutil.copyfile(submission.path, work / submission.path.name)
        return work

    def skipped(folder: str, names: list[str]) -> list[str]:
        return [
            name
            for name in names
            if name == ".ipynb_checkpoints" or os.path.islink(os.path.join(folder, name))
        ]

    shutil.copytree(submission.folder, work, ignore=skipped)
    return work / submission.path.relative_to(submission.folder).parent


def _kernel_env(tmp: Path, import_paths: tuple[str, ...]) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*import_paths, *filter(None, [env.get("PYTHONPATH")])])
    env.update(
        IPYTHONDIR=str(tmp / "ipython"), PYTHONHASHSEED="0", PYTHONNOUSERSITE="1", MPLBACKEND="Agg"
    )
    return env


def _checked(result: dict, info: ExerciseInfo) -> dict:
    """A result from the kernel, its score clamped to what the exercise is worth."""
    score = result.get("score")
    score = float(score) if isinstance(score, (int, float)) else 0.0
    return {
        "name": info.name,
        "score": min(max(score, 0.0), float(info.points)),
        "max_score": float(info.points),
        "status": str(result.get("status", ""))[:40],
        "reason": str(result.get("reason", ""))[:500],
    }


def _record(submission: Submission, **fields) -> dict:
    return {
        "student": submission.student,
        "submission": str(submission.path),
        "sha256": submission.sha256,
        "lesson": None,
        "outcome": "graded",
        "note": "",
        "exercises": [],
        "events": [],
        "answers": {},
        "seconds": 0.0,
        **fields,
    }


async def grade_one(submission: Submission, settings: Settings) -> dict:
    """Grade one submission. Never raises for anything the submission does: the record says."""
    started = time.monotonic()
    try:
        notebook = read_notebook(submission.path)
    except UnreadableNotebook as error:
        return _record(submission, outcome="unreadable", note=str(error))
    answers = written_answers(notebook)
    lesson = identify_lesson(notebook, settings.catalog)
    if lesson is None:
        return _record(
            submission,
            outcome="unknown lesson",
            answers=answers,
            note="no lesson in its metadata and no cells matching a lesson's exercises",
        )
    exercises, events, outcome, note = settings.catalog[lesson], [], "graded", ""
    with tempfile.TemporaryDirectory(prefix="course-grade-", ignore_cleanup_errors=True) as tmp:
        try:
            results, events = await run_and_grade(
                _prepared(notebook),
                _working_copy(submission, Path(tmp)),
                _kernel_env(Path(tmp), settings.import_paths),
                lesson,
                exercises,
                settings.limits,
                settings.registry,
                list(settings.import_paths),
            )
        except Exception as error:  # the kernel would not start, the disk is full...
            outcome, note = "error", f"could not run the notebook ({type(error).__name__}: {error})"
            results = {e.name: result_row(e, lesson, "error", "not graded") for e in exercises}
    return _record(
        submission,
        lesson=lesson,
        outcome=outcome,
        note=note,
        events=events,
        answers=answers,
        exercises=[_checked(results[e.name], e) for e in exercises],
        seconds=round(time.monotonic() - started, 1),
    )


async def _grade_all(todo: list[Submission], settings: Settings, jobs: int, done) -> None:
    slots = asyncio.Semaphore(jobs)

    async def one(submission: Submission) -> dict:
        async with slots:
            try:
                return await grade_one(submission, settings)
            except Exception as error:  # a bug of ours must not cost the rest of the class
                return _record(
                    submission,
                    outcome="error",
                    note=f"grader error ({type(error).__name__}: {error})",
                )

    for finished in asyncio.as_completed([one(s) for s in todo]):
        done(await finished)


def _run(coroutine) -> None:
    """asyncio.run, also from inside Jupyter (where an event loop is already running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def grade_submissions(
    paths: list[str | Path],
    out_dir: str | Path,
    *,
    limits: Limits | None = None,
    jobs: int | None = None,
    force: bool = False,
    progress: bool = True,
    registry: str = "lib.exercises",
    import_paths: tuple[str, ...] = (str(ROOT),),
    questions_from: Path = ROOT / "notebooks",
    roster: list[Student] | None = None,
) -> list[dict]:
    """Grade every notebook in `paths` (files, folders of notebooks, folders of per-student
    folders) into `out_dir`, `jobs` at a time (default: the CPU count, at most 4). Submissions an
    earlier run already graded into `out_dir` are kept unless `force`. `questions_from` holds the
    lesson notebooks as handed out (the written answers' questions come from there); `roster`
    (from `roster.load_roster`) adds ids to the reports and a roster report. Returns
    one record per submission: the rows of grades.csv and totals.csv come from these."""
    out_dir = Path(out_dir)
    submissions = find_submissions(paths)
    store = RecordStore(out_dir)
    settings = Settings(limits or Limits(), registry, tuple(import_paths), load_catalog(registry))
    questions = answer_questions(Path(questions_from))
    todo = [s for s in submissions if force or store.get(s) is None]

    def write_reports(charts: bool = False) -> None:
        graded = [store.get(s) for s in submissions]
        reports.write_all(out_dir, [r for r in graded if r], questions, roster, charts=charts)

    bar = tqdm(
        total=len(submissions),
        initial=len(submissions) - len(todo),
        unit="notebook",
        desc="Grading",
        disable=not progress,
    )

    def done(record: dict) -> None:
        store.add(record)
        write_reports()  # after every notebook, so an interrupted run keeps what it did
        bar.set_postfix_str(record["student"][:20])
        bar.update()

    write_reports()
    try:
        _run(_grade_all(todo, settings, jobs or min(4, os.cpu_count() or 1), done))
    finally:
        bar.close()
    write_reports(charts=True)  # the chart once, at the end: its PNG starts a browser
    return [store.get(s) for s in submissions]
