"""The reading of one submission (`reading.read`) in a process of its own, with a deadline and
a memory limit: whatever the notebook's text makes the reading do, it costs that notebook's row,
never the batch, another notebook's slot or the grader's memory.

A thread cannot be killed, so a reading made slow by a hostile cell (red teams found a new
quadratic step in the own-code reading in three rounds running) used to stall its slot for good,
and its memory was the grader's. A process can be killed. Each reading is forked from a small
helper (`reading_server`) that has the course's reading code imported already, started once per
grader: a reading costs two forks, not the second and a half that importing `lib` takes.
Forking the grader itself, async and threaded, would be unsafe.

What comes back is JSON, read here with a cap on its size and on its number of values, then
decoded into a closed set of typed fields (`reading_reply`): the reader parsed the student's
text, so its answer is treated as untrusted too. Nothing it sends is unpickled, and none of it
is spread into a record.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from lib.exercises import Exercise
from lib.grading import reading_reply
from lib.grading.grading_settings import Settings
from lib.grading.prepare import ROOT
from lib.grading.reading_reply import BadReply, Reading, too_many_values
from lib.grading.reading_server import LENGTH, STATUS
from lib.grading.submissions import (
    MAX_BYTES,
    MAX_ELEMENTS,
    UnreadableNotebook,
    opened_submission,
)

MEMORY_MB = 2048  # address space of one reader; an honest lesson's reading needs far less
MAX_ANSWER_BYTES = MAX_BYTES + 2**24  # the notebook without outputs, plus what was read of it
# Values in an answer (`too_many_values`): as many as the notebook may hold lists and objects,
# twice, the cap the reading itself has; an answer at the cap decodes in bounded time (tested).
MAX_VALUES = 2 * MAX_ELEMENTS
FIELDS = dataclasses.fields(Exercise)
LATE = (signal.SIGALRM, signal.SIGXCPU)  # its deadline, or its CPU time's limit
SPARE_SECONDS = 10  # past the reader's own alarm, how long we wait before giving up on it


class ReadingFailed(Exception):
    """The reading of a notebook ran past its deadline or its memory, or crashed: the message
    says which, in words for the student's row."""


class _Helper:
    """The grader's reading helper, started at the first reading: `python -m module FD`
    (`reading_server`, or a module that calls its `serve`)."""

    def __init__(self, module: str = "lib.grading.reading_server") -> None:
        self.module, self.lock = module, threading.Lock()
        self.control: socket.socket | None = None

    def send(self, theirs: socket.socket, file: int) -> None:
        """Hand `theirs` and the open `file` to the helper, starting it first if it is not
        running."""
        fds = [theirs.fileno(), file]
        with self.lock:  # one request at a time on the shared socket, and one helper
            try:
                socket.send_fds(self.control or self._start(), [b"r"], fds)
            except OSError:  # it died (the OOM killer?): a new one, once
                socket.send_fds(self._start(), [b"r"], fds)

    def _start(self) -> socket.socket:
        ours, helper_end = socket.socketpair()
        with helper_end:
            subprocess.Popen(
                [sys.executable, "-m", self.module, str(helper_end.fileno())],
                pass_fds=[helper_end.fileno()],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
            )
        self.control = ours
        return ours


_HELPER = _Helper()


def _rules(settings: Settings) -> tuple:
    """What the reading needs of the settings, picklable: each exercise without its functions
    (cases, comparisons: the reading never calls them), the handouts' prose and code."""
    plain = {"cases": list, "hidden_cases": None, "compare": None, "wrong_turns": None}
    # Made anew as `Exercise` itself: a registry's own subclass would not unpickle in the reader.
    catalog = {
        lesson: [Exercise(**{**{f.name: getattr(e, f.name) for f in FIELDS}, **plain}) for e in es]
        for lesson, es in settings.catalog.items()
    }
    return catalog, settings.handouts, settings.handout_code


def read_apart(path: Path, settings: Settings, uid: int | None = None) -> Reading:
    """The reading of the notebook at `path` (blocking: call it in a worker thread), by a reader
    that runs as `uid` when the grader is root (`reader_rights`). Raises `ReadingFailed` when
    the reading ran past `settings.limits.reading` seconds or its memory, or crashed."""
    seconds = settings.limits.reading
    try:  # opened here, so that the reader needs no right to open anything
        file = opened_submission(path)
    except UnreadableNotebook as error:
        return Reading(unreadable=str(error))
    request = {"name": path.name, "rules": _rules(settings), "uid": uid}
    data = pickle.dumps(request | {"seconds": seconds, "memory_mb": MEMORY_MB})
    ours, theirs = socket.socketpair()
    with ours:
        with theirs, file:
            _HELPER.send(theirs, file.fileno())
        ours.sendall(LENGTH.pack(len(data)) + data)
        answer = _answer(ours, time.monotonic() + seconds + SPARE_SECONDS)
    if answer is None:
        raise ReadingFailed(_late(seconds))
    try:
        return reading_reply.checked(_decoded(answer, seconds), settings.catalog)
    except BadReply as error:
        raise _failed(0, f"an answer not understood: {error}") from None


def _answer(conn: socket.socket, deadline: float) -> bytes | None:
    """Everything sent on `conn` until it closes (None past `deadline`), at most
    `MAX_ANSWER_BYTES` and the status."""
    chunks, size = [], 0
    while (left := deadline - time.monotonic()) > 0:
        conn.settimeout(left)
        try:
            chunk = conn.recv(2**20)
        except TimeoutError:
            return None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES + LENGTH.size + STATUS.size:
            raise ReadingFailed("reading your notebook's code gave an answer too large to use")
    return None


def _late(seconds: float) -> str:
    return (
        f"reading your notebook's code took longer than {seconds:g} s (half of the notebook's "
        "time limit), so it was not run; --retry-failed tries again"
    )


def _failed(wait_status: int | None, failed: str = "") -> ReadingFailed:
    """Words for a reading that ended without a usable result: how the reader ended
    (`wait_status`, None when unknown), or the error it reported (`failed`)."""
    signalled = wait_status is not None and os.WIFSIGNALED(wait_status)
    number = os.WTERMSIG(wait_status) if signalled else 0
    if failed == "MemoryError" or number == signal.SIGKILL:  # SIGKILL: the kernel's OOM killer
        why = f"needed more than {MEMORY_MB} MB of memory"
    elif failed:
        why = f"failed ({textwrap.shorten(failed, 120, placeholder=' ...')})"
    elif signalled:
        why = f"crashed ({signal.Signals(number).name})"
    elif wait_status is not None:
        why = f"crashed (exit status {os.waitstatus_to_exitcode(wait_status)})"
    else:
        why = "ended without an answer"
    return ReadingFailed(f"reading your notebook's code {why}, so it was not run")


def _decoded(data: bytes, seconds: float) -> Reading:
    """The `Reading` in what the reader and its watcher sent (`reading_server`): the reader's
    framed JSON, then its wait status. Any key or type not of the reading's is refused."""
    if len(data) < STATUS.size:
        raise _failed(None)
    (wait_status,) = STATUS.unpack(data[-STATUS.size :])
    if os.WIFSIGNALED(wait_status) and os.WTERMSIG(wait_status) in LATE:
        raise ReadingFailed(_late(seconds))
    body = data[LENGTH.size : -STATUS.size]
    if wait_status != 0 or len(data) < LENGTH.size + STATUS.size:
        raise _failed(wait_status)
    if LENGTH.unpack(data[: LENGTH.size])[0] != len(body):
        raise _failed(wait_status, "an answer cut short")
    if too_many_values(body, MAX_VALUES):  # outside strings: a few a cell, honestly
        raise _failed(wait_status, f"an answer of more than {MAX_VALUES:,} values: fewer cells?")
    try:
        found = json.loads(body)
        if type(found) is dict and "failed" in found:
            raise _failed(wait_status, str(found["failed"]))
        return reading_reply.decoded(found)
    except (TypeError, ValueError, RecursionError) as error:  # BadReply is a ValueError
        why = str(error) if isinstance(error, BadReply) else type(error).__name__
        raise _failed(wait_status, f"an answer not understood: {why}") from None
