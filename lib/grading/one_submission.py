"""Grading one submission: read it and find its lesson (in a process of its own: `read_apart`),
run it in its own sandbox, temporary folder and kernel, and judge what its functions return,
here in the grader's process.

The submission is copied into a fresh temporary folder (its notebook, or its student's whole
folder) and its kernel runs in a sandbox (`sandbox`) that sees only that copy, read-only Python
and course files, and nothing of the instructor's: whatever it writes, deletes or starts goes
away with the box. Whatever the notebook does, `grade_one` returns a record saying so.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import tempfile
import time
from pathlib import Path

from lib.exercises import Exercise
from lib.grading import prepare, protections, sandbox, scratch_disk
from lib.grading.execute import run_and_grade
from lib.grading.grading_job import Job, result_row
from lib.grading.grading_settings import Settings
from lib.grading.prepare import unboxed_env, working_copy
from lib.grading.read_apart import ReadingFailed, read_apart
from lib.grading.safe_text import printable
from lib.grading.submissions import Submission, clean

NO_SANDBOX_NOTE = "graded WITHOUT a sandbox (--no-sandbox): its code ran with the grader's rights"


class _Box:
    """Wraps a kernel command in the sandbox, at every kernel start. It touches nothing in the
    folders the kernel's user writes in: they were handed over once, new (`_set_up`), and the
    connection file is written link-safely (`sandbox.write_owned`)."""

    def __init__(self, settings: Settings, tmp: Path, uid: int | None):
        self.settings, self.tmp, self.uid = settings, tmp, uid

    def __call__(self, kernel: list[str]) -> list[str]:
        work, runtime = self.tmp / "work", self.tmp / "runtime"
        readonly = sandbox.readonly_paths(self.settings.import_paths)
        caps, boxed = self.settings.caps, self.settings.boxed
        scratch = None if boxed else self.tmp / "scratch"  # see `_set_up`
        return sandbox.command(kernel, work, runtime, readonly, caps, self.uid, boxed, scratch)


def _set_up(
    submission: Submission, settings: Settings, tmp: Path, uid: int | None, left_out: list[str]
) -> tuple[Path, dict[str, str], Path | None, _Box | None]:
    """The kernel's folders in `tmp`, handed to its user: returns the folder the notebook runs
    in, the kernel's environment, and (sandboxed) the runtime folder and the box. They are
    handed over here, new, while `tmp` is private to us (no process of the user can reach them
    yet), and never again: a kernel restart touches nothing in them (`_Box`). Files too large
    to copy are named in `left_out`."""
    work = working_copy(submission, tmp, left_out)
    if not settings.sandboxed:
        return work, unboxed_env(tmp, settings.import_paths), None, None
    runtime = Path(tmp, "runtime")
    runtime.mkdir(mode=0o700)  # its connection file and sockets: no other user's business
    scratch = "/tmp"  # the box's own
    if not settings.boxed:  # no box, no private /tmp: a scratch folder of its own instead
        Path(tmp, "scratch").mkdir(mode=0o700)
        Path(tmp, "scratch", "home").mkdir()
        scratch = str(Path(tmp, "scratch"))
        sandbox.give_to(uid, Path(scratch))
    os.chmod(tmp / "work", 0o700)  # unboxed, other slots' users share the machine's folders
    sandbox.give_to(uid, tmp / "work", runtime)
    if not settings.boxed:  # only now: its user (group `uid`, see `become`) must reach them
        os.chown(tmp, 0, uid)  # no other user may look up the working copy, nor list ours
        os.chmod(tmp, 0o710)
    env = sandbox.environment(settings.import_paths, scratch)
    return work, env, runtime, _Box(settings, tmp, uid)


def new_record(submission: Submission, settings: Settings, **fields) -> dict:
    """The record of one grading: what the submission is, then `fields` over the defaults of a
    graded notebook with nothing found yet."""
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


async def grade_one(submission: Submission, settings: Settings, uid: int | None = None) -> dict:
    """Grade one submission (its kernel as `uid`, when the grader is root: see
    `sandbox.OwnUser`). Never raises for anything the submission does: the record says."""
    started = time.monotonic()
    if submission.refused:
        return new_record(
            submission, settings, outcome="refused", note=f"refused: {submission.refused}"
        )
    # Everything read of the student's file before a kernel starts is read in a process of its
    # own, killed past its deadline or memory (`read_apart`): one notebook's reading costs its
    # own row at worst. Waiting for it takes a worker thread, so the other notebooks go on.
    try:
        read = await asyncio.to_thread(read_apart, submission.path, settings, uid)
    except ReadingFailed as error:
        return new_record(submission, settings, outcome="error", note=str(error))
    if read.unreadable:
        return new_record(submission, settings, outcome="unreadable", note=read.unreadable)
    # Named one by one (`record_fields`): a reply is never spread into a record.
    info, lesson, label_note = read.record_fields(), read.lesson, read.label_note
    if lesson is None or lesson not in settings.catalog:
        note = "its cells match no lesson's exercises" + (f" ({label_note})" if label_note else "")
        return new_record(submission, settings, outcome="unknown lesson", note=note, **info)
    exercises = settings.catalog[lesson]
    # The cases are the instructor's code, run here: of the student, only their name is used.
    try:
        members = settings.members_of(submission)
        grouped = {e.name: settings.group_cases(e, members) for e in exercises}
    except Exception as error:  # e.g. a data file the cases need could not be read
        why = f"{type(error).__name__}: {clean(str(error), 300)}"
        note = f"could not make lesson {lesson}'s test cases ({why}); --retry-failed tries again"
        return new_record(submission, settings, lesson=lesson, outcome="error", note=note, **info)
    job = Job(
        exercises=exercises,
        cases={name: cases for name, (cases, _) in grouped.items()},
        draws={name: draws for name, (_, draws) in grouped.items() if len(draws) > 1},
        limits=settings.limits,
        import_paths=list(settings.import_paths),
        skip_grading=read.skipped_rows(exercises),
        programs=read.programs,
    )
    events, outcome, note, left_out = [], "graded", label_note, []
    tmp = Path(tempfile.mkdtemp(prefix="course-grade-"))
    try:  # copying, handing over and removing the student's files: in a worker thread too
        await asyncio.to_thread(scratch_disk.mount, tmp)  # its own small disk, where we may
        work, env, job.runtime, job.box = await asyncio.to_thread(
            _set_up, submission, settings, tmp, uid, left_out
        )
        job.owner = uid
        notebook = read.notebook()
        results, events = await run_and_grade(notebook, work, env, job, read.demos)
    except Exception as error:  # the kernel would not start, the disk is full...
        outcome = "error"
        note = f"could not run the notebook ({type(error).__name__}: {clean(str(error), 300)})"
        results = {e.name: result_row(e, "error", "not graded") for e in exercises}
    finally:
        await asyncio.to_thread(scratch_disk.remove, tmp)
    rows = [_checked(results[e.name], e) for e in exercises]
    events = _left_out(left_out) + events
    if settings.sandboxed is False:
        events = [NO_SANDBOX_NOTE, *events]
    return new_record(
        submission,
        settings,
        lesson=lesson,
        outcome=outcome,
        note=note,
        events=[clean(e, 500) for e in events],
        exercises=rows,
        seconds=round(time.monotonic() - started, 1),
        protections=protections.held(settings.sandboxed, settings.boxed, uid),
        **info,
    )


def _checked(result: dict, exercise: Exercise) -> dict:
    """A result row with its score clamped to what the exercise is worth and its text made safe.
    `detail` (a hidden case in full) is for the instructor's reports only, never feedback."""
    score = result.get("score")
    score = float(score) if isinstance(score, (int, float)) else 0.0
    detail = {"detail": clean(str(result["detail"]), 1000)} if result.get("detail") else {}
    return {
        "name": exercise.name,
        "score": min(max(score, 0.0), float(exercise.points)),
        "max_score": float(exercise.points),
        "status": clean(str(result.get("status", "")), 40),
        "reason": clean(str(result.get("reason", "")), 1000),
        **detail,
    }


NAMED_LEFT_OUT = 3  # a copy may leave out thousands of files: name a few, count the rest


def _left_out(names: list[str]) -> list[str]:
    """Lines for the files the copy left out (larger than any kernel may write): the first few
    named, printable and cut short (a name may carry escape sequences), the rest counted."""
    big = prepare.MAX_FILE_BYTES // 2**20
    lines = [
        f"left out {printable(clean(name))[:80]}: larger than {big} MB, no kernel could write it"
        for name in names[:NAMED_LEFT_OUT]
    ]
    if len(names) > NAMED_LEFT_OUT:
        lines.append(f"... and {len(names) - NAMED_LEFT_OUT} more files larger than {big} MB")
    return lines
