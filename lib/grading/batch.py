"""Grading a whole class: each submission in its own sandbox, temporary folder and kernel.

Each submission is copied into a fresh temporary folder (its notebook, or its student's whole
folder) and its kernel runs in a sandbox (`sandbox`) that sees only that copy, read-only Python
and course files, and nothing of the instructor's: whatever it writes, deletes or starts goes
away with the box. The answers it gives are judged here, in the grader's own process.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from tqdm import tqdm

from lib.exercises import Case, Exercise
from lib.grading import reports, sandbox
from lib.grading.execute import Job, Limits, result_row, run_and_grade
from lib.grading.notebook import (
    Submission,
    UnreadableNotebook,
    answer_questions,
    clean,
    find_submissions,
    handout_prose,
    identify_lesson,
    load_catalog,
    read_notebook,
    solutions_opened,
    written_answers,
)
from lib.grading.own_code import Notebook
from lib.grading.prepare import ROOT, prepared, unboxed_env, working_copy
from lib.grading.roster import Student
from lib.grading.store import RecordStore

RETRIED = {"timeout", "crashed", "error"}  # what --retry-failed grades again
NO_SANDBOX_NOTE = "graded WITHOUT a sandbox (--no-sandbox): its code ran with the grader's rights"


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
    caps: sandbox.Caps = field(default_factory=sandbox.Caps)
    cases: dict[str, list[Case]] = field(default_factory=dict)

    def cases_of(self, exercise: Exercise) -> list[Case]:
        """The exercise's test cases, hidden ones included, computed once per run, here (never
        in a kernel)."""
        if exercise.name not in self.cases:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.cases[exercise.name] = exercise.grading_cases()
        return self.cases[exercise.name]


class _Box:
    """Wraps a kernel command in the sandbox; called once the connection file exists, which it
    hands to the kernel's own user along with the folders it may write in."""

    def __init__(self, settings: Settings, work: Path, runtime: Path, uid: int | None):
        self.settings, self.work, self.runtime, self.uid = settings, work, runtime, uid

    def __call__(self, kernel: list[str]) -> list[str]:
        sandbox.give_to(self.uid, self.work, self.runtime)
        readonly = sandbox.readonly_paths(self.settings.import_paths)
        return sandbox.command(
            kernel, self.work, self.runtime, readonly, self.settings.caps, self.uid
        )


def _record(submission: Submission, settings: Settings, **fields) -> dict:
    return {
        "student": submission.student,
        "submission": clean(str(submission.path)),
        "sha256": submission.sha256,
        "lesson": None,
        "outcome": "graded",
        "note": "",
        "exercises": [],
        "events": [],
        "answers": {},
        "solutions": [],
        "sandboxed": settings.sandboxed,
        "graded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": 0.0,
        **fields,
    }


def _own_code(notebook: nbformat.NotebookNode, exercises: list[Exercise]) -> tuple[dict, set]:
    """Rows for exercises whose code is not the student's own, and the targets that no readable
    cell defines (if the kernel has them anyway, they came from `exec` or a file)."""
    code, rows, unreadable = Notebook(notebook), {}, set()
    for exercise in exercises:
        found = code.borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)
        if found and exercise.target in code.definitions:
            rows[exercise.name] = result_row(exercise, "not own code", found)
        elif found:
            unreadable.add(exercise.target)
    return rows, unreadable


async def grade_one(submission: Submission, settings: Settings, uid: int | None = None) -> dict:
    """Grade one submission (its kernel as `uid`, when the grader is root: see
    `sandbox.OwnUser`). Never raises for anything the submission does: the record says."""
    started = time.monotonic()
    if submission.refused:
        note = f"refused: {submission.refused}, which the grader never follows"
        return _record(submission, settings, outcome="refused", note=note)
    try:
        notebook = read_notebook(submission.path)
    except UnreadableNotebook as error:
        return _record(submission, settings, outcome="unreadable", note=str(error))
    answers, solutions = written_answers(notebook), solutions_opened(notebook)
    lesson, label_note = identify_lesson(notebook, settings.catalog, settings.handouts)
    info = {"answers": answers, "solutions": solutions}
    if lesson is None:
        note = "its cells match no lesson's exercises" + (f" ({label_note})" if label_note else "")
        return _record(submission, settings, outcome="unknown lesson", note=note, **info)
    exercises = settings.catalog[lesson]
    not_own, unreadable = _own_code(notebook, exercises)
    try:
        cases = {e.name: settings.cases_of(e) for e in exercises}
    except Exception as error:  # e.g. a data file the cases need could not be read
        why = f"{type(error).__name__}: {clean(str(error), 300)}"
        note = f"could not make lesson {lesson}'s test cases ({why}); --retry-failed tries again"
        return _record(submission, settings, lesson=lesson, outcome="error", note=note, **info)
    job = Job(
        exercises=exercises,
        cases=cases,
        limits=settings.limits,
        import_paths=list(settings.import_paths),
        skip_grading=not_own,
        unreadable_targets=unreadable,
    )
    events, outcome, note = [], "graded", label_note
    with tempfile.TemporaryDirectory(prefix="course-grade-", ignore_cleanup_errors=True) as tmp:
        try:
            work = working_copy(submission, Path(tmp))
            if settings.sandboxed:
                job.runtime = Path(tmp, "runtime")
                job.runtime.mkdir()
                job.box = _Box(settings, Path(tmp, "work"), job.runtime, uid)
                env = sandbox.environment(settings.import_paths)
            else:
                env = unboxed_env(Path(tmp), settings.import_paths)
            results, events = await run_and_grade(prepared(notebook), work, env, job)
        except Exception as error:  # the kernel would not start, the disk is full...
            outcome = "error"
            note = f"could not run the notebook ({type(error).__name__}: {clean(str(error), 300)})"
            results = {e.name: result_row(e, "error", "not graded") for e in exercises}
    rows = [_checked(results[e.name], e) for e in exercises]
    if settings.sandboxed is False:
        events = [NO_SANDBOX_NOTE, *events]
    return _record(
        submission,
        settings,
        lesson=lesson,
        outcome=outcome,
        note=note,
        events=[clean(e, 500) for e in events],
        exercises=rows,
        seconds=round(time.monotonic() - started, 1),
        **info,
    )


def _checked(result: dict, exercise: Exercise) -> dict:
    """A result row with its score clamped to what the exercise is worth and its text made safe."""
    score = result.get("score")
    score = float(score) if isinstance(score, (int, float)) else 0.0
    return {
        "name": exercise.name,
        "score": min(max(score, 0.0), float(exercise.points)),
        "max_score": float(exercise.points),
        "status": clean(str(result.get("status", "")), 40),
        "reason": clean(str(result.get("reason", "")), 1000),
    }


async def _graded_in_time(
    submission: Submission, settings: Settings, uid: int | None, seconds: float
) -> dict:
    """`grade_one`, given up after `seconds` (`Limits.deadline`): a kernel that never answers,
    or a step of ours that hangs, costs this one row and not the whole batch."""
    task = asyncio.ensure_future(grade_one(submission, settings, uid))
    if (await asyncio.wait({task}, timeout=seconds))[0]:
        return task.result()
    stuck = _innermost_await(task)
    task.cancel()  # its `finally` blocks stop the kernel and remove the temporary folder
    await asyncio.wait({task}, timeout=30)
    note = f"grading gave up after {seconds:g} s, stuck in {stuck}; --retry-failed tries again"
    return _record(submission, settings, outcome="error", note=note)


def _innermost_await(task: asyncio.Task) -> str:
    """Where a task is waiting: the innermost coroutine of its chain of awaits, leaving out
    asyncio's own (an Event's `wait` says nothing about what was awaited)."""
    coroutine, where = task.get_coro(), "an unknown place"
    while coroutine is not None:
        frame = getattr(coroutine, "cr_frame", None) or getattr(coroutine, "gi_frame", None)
        path = Path(frame.f_code.co_filename) if frame is not None else None
        if path is not None and path.parent.name != "asyncio":
            where = f"{frame.f_code.co_name} ({path.name}:{frame.f_lineno})"
        coroutine = getattr(coroutine, "cr_await", None) or getattr(coroutine, "gi_yieldfrom", None)
    return where


async def _grade_all(todo: list[Submission], settings: Settings, jobs: int, done) -> None:
    """Grade `todo`, `jobs` at a time; each parallel slot has a sandbox user of its own."""
    slots: asyncio.Queue[sandbox.OwnUser | None] = asyncio.Queue()
    users = [sandbox.OwnUser() if settings.sandboxed else None for _ in range(jobs)]
    for user in users:
        slots.put_nowait(user)
    most = max((len(exercises) for exercises in settings.catalog.values()), default=0)
    deadline = settings.limits.deadline(most)  # the same for every notebook: its lesson is unread

    async def one(submission: Submission) -> dict:
        user = await slots.get()
        try:
            uid = user.uid if user else None
            return await _graded_in_time(submission, settings, uid, deadline)
        except Exception as error:  # a bug of ours must not cost the rest of the class
            note = f"grader error ({type(error).__name__}: {clean(str(error), 300)})"
            return _record(submission, settings, outcome="error", note=note)
        finally:
            if user is not None:  # what a fork bomb left must not count against the next one
                await asyncio.to_thread(sandbox.reap, user.uid)
            slots.put_nowait(user)

    try:
        for finished in asyncio.as_completed([one(s) for s in todo]):
            done(await finished)
    finally:
        for user in users:
            if user is not None:
                user.release()


def _run(coroutine) -> None:
    """asyncio.run, also from inside Jupyter (where an event loop is already running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def needs_retry(record: dict) -> bool:
    """Did grading fail for reasons that may pass another time (a time-out, a crash, an error)?"""
    return record["outcome"] == "error" or any(e["status"] in RETRIED for e in record["exercises"])


def _warm_data_cache() -> None:
    """Fetch every course data file now, in the grader: inside a sandbox the cache is read-only
    and there is no network. What cannot be fetched is left for the lesson to report."""
    from lib import data

    try:
        data.fetch_all()
    except data.DataError as error:
        print(f"Note: not all course data could be fetched ({str(error)[:200]}...)")


def grade_submissions(
    paths: list[str | Path],
    out_dir: str | Path,
    *,
    limits: Limits | None = None,
    jobs: int | None = None,
    force: bool = False,
    retry_failed: bool = False,
    sandboxed: bool = True,
    progress: bool = True,
    registry: str = "lib.exercises",
    import_paths: tuple[str, ...] = (str(ROOT),),
    questions_from: Path = ROOT / "notebooks",
    roster: list[Student] | None = None,
) -> list[dict]:
    """Grade every notebook in `paths` (files, folders of notebooks, folders of per-student
    folders) into `out_dir`, `jobs` at a time (default: the CPU count, at most 4), each in a
    sandbox unless `sandboxed=False`. Submissions an earlier run already graded into `out_dir`
    are kept unless `force` (or, with `retry_failed`, unless a time-out, crash or error spoiled
    them). `questions_from` holds the lesson notebooks as handed out (for the written answers'
    questions and for recognising lessons). Returns this run's records, one per submission; the
    reports list every record in `out_dir`, from earlier runs too."""
    if sandboxed:
        sandbox.check_available()
    out_dir = Path(out_dir)
    submissions = find_submissions(paths)
    store = RecordStore(out_dir)
    if store.rejected:
        print(f"Ignored {store.rejected} line(s) of {store.path} not written by this grader.")
    settings = Settings(
        limits or Limits(),
        registry,
        tuple(import_paths),
        load_catalog(registry),
        handout_prose(Path(questions_from)),
        sandboxed,
    )
    questions = answer_questions(Path(questions_from))

    def stale(submission: Submission) -> bool:
        record = store.get(submission)
        return force or record is None or (retry_failed and needs_retry(record))

    todo = [s for s in submissions if stale(s)]
    if todo and registry == "lib.exercises":
        _warm_data_cache()

    def write_reports(charts: bool = False) -> None:
        reports.write_all(out_dir, store.all(), questions, roster, charts=charts)

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
