"""Grading a whole class: every submission through `one_submission.grade_one`, a few at a time,
each within a deadline, each parallel slot with a sandbox user of its own; the signed records
and the instructor's reports written after every notebook, so an interrupted run keeps its work.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from lib.grading import kept_roster, memory_group, reports, sandbox, similarity
from lib.grading.grading_job import Limits
from lib.grading.notebook import answer_questions, handout_prose, load_catalog
from lib.grading.one_submission import Settings, grade_one, new_record
from lib.grading.prepare import ROOT
from lib.grading.roster import Student
from lib.grading.store import RecordStore
from lib.grading.submissions import Submission, clean, find_submissions

RETRIED = {"timeout", "crashed", "error"}  # what --retry-failed grades again


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
    return new_record(submission, settings, outcome="error", note=note)


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
            return new_record(submission, settings, outcome="error", note=note)
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


class CourseDataMissing(RuntimeError):
    """The course data cannot be had here: grading would blame every student for it."""


def _warm_data_cache() -> None:
    """Fetch every course data file now, in the grader: inside a sandbox the cache is read-only
    and there is no network. Without the data every student's cell that reads it would raise,
    and their feedback would blame them (with this machine's paths in it), so stop instead."""
    from lib import data

    try:
        data.fetch_all()
    except data.DataError as error:
        first = " ".join(str(error).split())[:300]
        raise CourseDataMissing(
            f"the course data is not available ({first}). Nothing was graded: connect to the "
            f"internet, or set {data.MIRROR_VAR} to a copy of the course's data mirror, and "
            "run the same command again."
        ) from None


def _refuse_exposed(paths: list[Path], import_paths: tuple[str, ...]) -> None:
    """Refuse to grade when a kernel could read the submissions or --out: they lie inside what
    the box shows every kernel (the course's packages, its data, the Python environment)."""
    inside = sandbox.exposed(paths, sandbox.readonly_paths(tuple(import_paths)))
    if inside:
        raise sandbox.SandboxUnavailable(
            f"{clean(str(inside[0]))} is inside a folder every student's kernel can read (the "
            "course's code or data, or the Python environment): move the submissions and --out "
            "elsewhere (the repository root itself is fine)."
        )


def grade_submissions(
    paths: list[str | Path],
    out_dir: str | Path,
    *,
    limits: Limits | None = None,
    jobs: int | None = None,
    force: bool = False,
    retry_failed: bool = False,
    sandboxed: bool = True,
    own_user_fallback: bool = False,
    progress: bool = True,
    registry: str = "lib.exercises",
    import_paths: tuple[str, ...] = (str(ROOT),),
    questions_from: Path = ROOT / "notebooks",
    roster: list[Student] | None = None,
    drop: tuple[str | Path, ...] = (),
    student_id: str = "",
) -> list[dict]:
    """Grade every notebook in `paths` (files, folders of notebooks, folders of per-student
    folders) into `out_dir`, `jobs` at a time (default: the CPU count, at most 4), each in a
    sandbox unless `sandboxed=False` (`own_user_fallback`: see `sandbox.choose`). Submissions
    an earlier run already graded into `out_dir` are kept unless `force` (or, with
    `retry_failed`, unless a time-out, crash or error spoiled them). `questions_from` holds the
    lesson notebooks as handed out (for the written answers' questions and for recognising
    lessons). A `roster` is kept in `out_dir` and reused by a later run given none
    (`kept_roster`). `drop`: files or folders whose submissions `out_dir` should forget (a file
    removed from the class, say). Returns this run's records, one per submission; the reports
    list every record in `out_dir`, from earlier runs too. The hidden cases are drawn for each
    student (`Settings.student_of`; `student_id`: one student's, for all of them)."""
    boxed = sandbox.choose(own_user_fallback) if sandboxed else False
    if sandboxed and os.geteuid() == 0 and not memory_group.available():
        print("Note: no memory cgroup can be made here: each kernel process is capped, not a box.")
    out_dir = Path(out_dir)
    # One submission per student and contents: the class folder copied elsewhere is not new.
    found: dict[tuple[str, str], Submission] = {}
    for submission in find_submissions(paths):
        found.setdefault((submission.student, submission.sha256), submission)
    submissions = list(found.values())
    if not submissions and not drop:  # nothing to grade: no empty tables in an empty folder
        return []
    if boxed:
        _refuse_exposed([out_dir, *(s.folder or s.path for s in submissions)], import_paths)
    store = RecordStore(out_dir)
    for path in drop:
        gone = store.drop(path)
        print(f"Dropped {len(gone)} submission(s) of {path} from {out_dir}.")
    roster, note = kept_roster.roster_for(out_dir, roster)
    if note:
        print(note)
    if store.rejected:
        print(f"Ignored {store.rejected} line(s) of {store.path} not written by this grader.")
    settings = Settings(
        limits or Limits(),
        registry,
        tuple(import_paths),
        load_catalog(registry),
        handout_prose(Path(questions_from)),
        sandboxed,
        salt=store.secret("hidden cases"),
        boxed=boxed,
        roster=roster or [],
        student_id=student_id,
    )
    questions = answer_questions(Path(questions_from))
    references = similarity.references(settings.catalog, Path(questions_from))

    def stale(submission: Submission) -> bool:
        record = store.get(submission)
        return force or record is None or (retry_failed and needs_retry(record))

    todo = [s for s in submissions if stale(s)]
    if todo and registry == "lib.exercises":
        _warm_data_cache()

    def write_reports(charts: bool = False) -> None:
        reports.write_all(
            out_dir, store.all(), questions, roster, charts=charts, references=references
        )

    bar = tqdm(
        total=len(submissions),
        initial=len(submissions) - len(todo),
        unit="notebook",
        desc="Grading",
        disable=not progress,
    )

    unsaved: dict[str, dict] = {}  # records a full disk kept out of the store

    def done(record: dict) -> None:
        try:
            store.add(record)
            write_reports()  # after every notebook, so an interrupted run keeps what it did
        except OSError as error:  # costs this notebook's row, never the batch
            unsaved[record["submission"]] = record
            bar.write(
                f"Could not save {record['student']}'s grade ({error.strerror}): the next run "
                "grades that notebook again."
            )
        bar.set_postfix_str(record["student"][:20])
        bar.update()

    write_reports()
    try:
        _run(_grade_all(todo, settings, jobs or min(4, os.cpu_count() or 1), done))
    finally:
        bar.close()
    try:
        write_reports(charts=True)  # the chart once, at the end: its PNG starts a browser
    except OSError as error:
        print(f"Could not write the reports in {out_dir} ({error.strerror}).")
    return [store.get(s) or unsaved.get(clean(str(s.path))) for s in submissions]
