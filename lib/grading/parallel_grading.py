"""Grading submissions a few at a time (`grade_all`): each parallel slot with a sandbox user of
its own, each submission within a deadline (`Limits.deadline`), past which it costs its own row,
not the class's; and `run_to_end`, which runs that from a script or from inside Jupyter.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lib.grading import sandbox
from lib.grading.grading_settings import Settings
from lib.grading.kernel_users import LONGER_RESET_SECONDS, RESET_SECONDS
from lib.grading.one_submission import grade_one, new_record
from lib.grading.submissions import Submission, clean


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


async def grade_all(todo: list[Submission], settings: Settings, jobs: int, done) -> None:
    """Grade `todo`, `jobs` at a time; each parallel slot has a sandbox user of its own, handed
    to the slot's next submission only once its reset is proven complete (`_handed_on`)."""
    slots: asyncio.Queue[sandbox.OwnUser | None | Exception] = asyncio.Queue()
    users = [sandbox.OwnUser() if settings.sandboxed else None for _ in range(jobs)]
    for user in users:
        slots.put_nowait(user)
    most = max((len(exercises) for exercises in settings.catalog.values()), default=0)
    members = len(settings.members_of(None)) if settings.student_id else 1  # a group
    deadline = settings.limits.deadline(most, members)  # the same for all: the lesson is unread

    async def one(submission: Submission) -> dict:
        user = await slots.get()
        record = None
        try:
            if isinstance(user, Exception):  # this slot has no clean user left
                note = f"not graded: {clean(str(user), 300)}; --retry-failed tries again"
                record = new_record(submission, settings, outcome="error", note=note)
            else:
                uid = user.uid if user else None
                record = await _graded_in_time(submission, settings, uid, deadline)
        except Exception as error:  # a bug of ours must not cost the rest of the class
            note = f"grader error ({type(error).__name__}: {clean(str(error), 300)})"
            record = new_record(submission, settings, outcome="error", note=note)
        finally:
            if isinstance(user, sandbox.OwnUser):  # nothing of this student for the next
                user = await _handed_on(user, record, users)
            slots.put_nowait(user)
        return record

    try:
        for finished in asyncio.as_completed([one(s) for s in todo]):
            done(await finished)
    finally:
        for user in users:
            if isinstance(user, sandbox.OwnUser):
                user.release()


async def _handed_on(
    user: sandbox.OwnUser, record: dict | None, users: list
) -> sandbox.OwnUser | Exception:
    """The sandbox user for the slot's next submission: `user` if its reset (`sandbox.reap`)
    finishes, within `RESET_SECONDS` or else `LONGER_RESET_SECONDS`; otherwise `user` is
    retired (kept claimed, unused, for the rest of the batch, so no grader hands it on) and a
    fresh user claimed, or the exception saying none could be. `record` (the submission just
    graded) says so: the run's summary names the user retired."""
    times = (RESET_SECONDS, LONGER_RESET_SECONDS)
    if await asyncio.to_thread(sandbox.unreaped_patiently, user.uid, times) is None:
        return user
    if record is not None:
        record["retired_user"] = user.uid
        record["events"] = [retired_event(user.uid), *record["events"]]
    try:
        fresh = await asyncio.to_thread(sandbox.OwnUser)
    except sandbox.SandboxUnavailable as error:
        return error
    users.append(fresh)
    return fresh


def retired_event(uid: int) -> str:
    """What a record says when the clean-up after it could not be finished."""
    return (
        f"the clean-up after this notebook did not finish within {LONGER_RESET_SECONDS} s "
        f"(what it left is too slow to remove, or would not go): its sandbox user {uid} was "
        "retired for the rest of the batch, and the next notebooks ran as another"
    )


def run_to_end(coroutine) -> None:
    """asyncio.run, also from inside Jupyter (where an event loop is already running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
