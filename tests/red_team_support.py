"""What the red-team containment tests (`tests/test_red_team_containment*.py`) share: running
code as a sandbox user or in a forked child, a folder such users can reach, whether bubblewrap
runs here, and one io_uring entry (what a process can do without the system call it stands for)."""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from lib.grading import kernel_users, sandbox


def as_user(uid: int, code: str, *args: str, caps: bool = False) -> str:
    """Run `code` with this Python as sandbox user `uid` (under the kernels' `prlimit` caps if
    `caps`) and return what it printed."""
    command = [*kernel_users.become(uid), sys.executable, "-I", "-c", code, *args]
    if caps:
        limits = sandbox.command([], Path("/"), Path("/"), [], sandbox.Caps(), None, boxed=False)
        command = [*limits, *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def in_child(attempt: Callable[[], object]) -> object:
    """What `attempt()` returns (JSON-ready; or the error it raised, as text) in a forked child
    of this process: for rights a process gives up for good."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery past this point, only os._exit
        try:
            found = attempt()
        except BaseException as error:  # noqa: BLE001 - said to the parent, as text
            found = f"{type(error).__name__}: {error}"
        os.write(write, json.dumps(found).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        found = json.loads(answer.read() or "null")
    os.waitpid(pid, 0)
    return found


def shared_folder(prefix: str, mode: int) -> Iterator[Path]:
    """A temporary folder of `mode` the sandbox users can reach (pytest's tmp_path is private to
    root), removed afterwards: the body of each file's `shared_tmp` fixture."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(mode)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def box_runs() -> bool:
    """Can bubblewrap box a kernel on this machine?"""
    try:
        sandbox.check_available()
        return True
    except sandbox.SandboxUnavailable:
        return False


URING_SETUP, URING_ENTER = 425, 426  # x86_64's numbers of io_uring_setup and io_uring_enter


def uring_one(entry: tuple[int, int, int, int, int, int, int]) -> int:
    """Submit one io_uring entry `(opcode, flags, priority, fd, offset, address, length)` (the
    head of struct io_uring_sqe) on a ring of our own, wait for it, and return its result (the
    value the matching system call would return, or minus the error number); minus the error
    number if no ring can be made."""
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)  # struct io_uring_params
    ring = libc.syscall(URING_SETUP, 4, params)
    if ring < 0:
        return -ctypes.get_errno()
    sq_entries, cq_entries = struct.unpack_from("II", params, 0)
    _, sq_tail, sq_mask, _, _, _, sq_array = struct.unpack_from("7I", params, 40)
    cq_head, _, cq_mask, _, _, cqes = struct.unpack_from("6I", params, 80)
    sq = mmap.mmap(ring, sq_array + 4 * sq_entries, offset=0)
    cq = mmap.mmap(ring, cqes + 16 * cq_entries, offset=0x8000000)
    entries = mmap.mmap(ring, 64 * sq_entries, offset=0x10000000)
    tail = struct.unpack_from("I", sq, sq_tail)[0]
    index = tail & struct.unpack_from("I", sq, sq_mask)[0]
    struct.pack_into("BBHiQQI", entries, 64 * index, *entry)
    struct.pack_into("I", sq, sq_array + 4 * index, index)
    struct.pack_into("I", sq, sq_tail, tail + 1)
    if libc.syscall(URING_ENTER, ring, 1, 1, 1, None, 0) < 0:  # submit one, wait for it
        return -ctypes.get_errno()
    head = struct.unpack_from("I", cq, cq_head)[0] & struct.unpack_from("I", cq, cq_mask)[0]
    return struct.unpack_from("Qi", cq, cqes + 16 * head)[1]


def become_user(uid: int) -> None:
    """Turn this (forked, root) process into sandbox user `uid`, groups and all."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def as_fenced_kernel(uid: int, attack: Callable[[], object]) -> object:
    """What `attack` returns (or the error it raised, as text) in a forked process fenced as a
    kernel without a box is (`kernel_start.fence` as root, then the slot's user)."""
    from lib.grading import kernel_start

    def fenced() -> object:
        kernel_start.fence([])  # no folder of its own: it writes nowhere
        become_user(uid)
        return attack()

    return in_child(fenced)


def rows(record: dict) -> dict[str, dict]:
    """A graded record's exercise rows by name."""
    return {row["name"]: row for row in record["exercises"]}


def honest_marks_kept(graded: dict, attacked: set[str], honest: str = "olivia") -> None:
    """Every notebook of a red-team batch was graded, and every exercise but the `attacked` ones
    (all of them, for the `honest` student) kept full marks."""
    from lib.exercises import for_lesson

    points = {e.name: e.points for lesson in range(1, 10) for e in for_lesson(lesson)}
    for student, record in graded.items():
        assert record["outcome"] == "graded", record
        found = rows(record)
        kept = {n: found[n]["score"] for n in found if n not in attacked or student == honest}
        assert kept and all(s == points[n] for n, s in kept.items()), (student, kept)
