"""Which files without a name on /dev/shm's device a user's processes hold: the walk through
/proc that `shm_guard` makes when space without a name could put a user past its cap.

It holds the user still while it looks (SIGSTOP to all its processes by `kill(-1)` as the
user, in a child of ours that takes its uid; SIGCONT after, whatever happens), so that no file
hops to a process born after the walk's list and no thread ends midway. It reads a process's
descriptor table once (a thread's only where `kcmp` says it has one of its own), at most
`BUDGET` descriptors a walk. It walks as root where root may (CAP_SYS_PTRACE and, for a mapping
whose descriptor is closed, CAP_SYS_ADMIN), else as the user: a process may read its own
user's dumpable processes. Where it cannot say (a process made itself undumpable, a mapping
the user may not size, past the budget) the answer is None, and the guard charges the user
with all the space without a name.

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import time
from collections.abc import Callable

BUDGET = 10_000  # descriptors a walk reads at most (~0.3 s on a loaded 2-core machine)
KCMP_FILES = 2  # kcmp's type: do two tasks share one descriptor table?
KCMP = {"x86_64": 312, "aarch64": 272}.get(platform.machine())  # its syscall number
STILL = "tTZX"  # /proc states of a process that runs no more code (stopped, traced, ended)


class TooLong(Exception):
    """The walk read `BUDGET` links."""


def as_user(uid: int, work: Callable[[], object]) -> str | None:
    """Run `work` in a child of ours that takes `uid` (and no group of ours); its answer as
    text, or None if it raised or was killed. `kill(-1)` in it reaches the user's processes
    only."""
    said, told = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(said)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.write(told, str(work()).encode())
        finally:
            os._exit(0)
    os.close(told)
    with os.fdopen(said, "rb") as answer:
        text = answer.read()
    os.waitpid(child, 0)
    return text.decode() if text else None


def signal_all(sent: signal.Signals) -> None:
    """Send `sent` to every process of our user but ourselves (none there: nothing to do)."""
    try:
        os.kill(-1, sent)
    except ProcessLookupError:
        pass


def _processes() -> list[str]:
    """As the user: the PIDs of every process of ours but ourselves, by their /proc folder's
    owner, or where that is root's (an undumpable process's) by whether we may signal it."""
    found, uid, walker = [], os.getuid(), str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid or os.kill(int(pid), 0) is None:
                found.append(pid)
        except (FileNotFoundError, ProcessLookupError, PermissionError):  # ended, or not ours
            continue
    return [pid for pid in found if pid != walker]


def _state(process: str) -> str:
    """The state letter of `process` (X once it has ended)."""
    try:
        with open(f"{process}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return "X"


def _stopped() -> str:
    """As the user: stop all its processes (each as it next leaves the kernel: wait up to ~50 ms
    for all to show it; none can fork meanwhile, a fork under way is stopped too); their PIDs."""
    signal_all(signal.SIGSTOP)
    for _ in range(50):
        found = _processes()
        if all(_state(f"/proc/{pid}") in STILL for pid in found):
            break
        time.sleep(0.001)
    return " ".join(found)


def _continued() -> int:
    """As the user: let all its processes go on."""
    signal_all(signal.SIGCONT)
    return 0


def _own_table(pid: int, tid: int) -> bool:
    """Whether thread `tid` of `pid` may have a descriptor table of its own (unshare or clone
    without CLONE_FILES): `kcmp` says so, or cannot say."""
    if KCMP is None:
        return True
    return ctypes.CDLL(None, use_errno=True).syscall(KCMP, pid, tid, KCMP_FILES, 0, 0) != 0


def _face(process: str) -> str | None:
    """The /proc folder that shows `process`'s descriptors and mappings: its own, or where its
    first thread has ended (a zombie, whose folder no user may read) a live thread's; None
    once none lives."""
    if _state(process) != "Z":
        return process
    for task in (f"{process}/task/{tid}" for tid in os.listdir(f"{process}/task")):
        if _state(task) not in "ZX":
            return task
    return None


def _descriptors(process: str, face: str, budget: list[int]) -> list[str]:
    """/proc links of the descriptors of `process` (seen through `face`) shown as deleted, each
    table read once (a thread's only where it has one of its own). Each descriptor listed
    takes one from `budget`; none left: `TooLong`."""
    seen = int(face.rsplit("/", 1)[1])
    tables = [f"{face}/fd"]
    for tid in os.listdir(f"{process}/task"):
        if int(tid) != seen and _own_table(seen, int(tid)):
            tables.append(f"{process}/task/{tid}/fd")
    links = []
    for table in tables:
        try:
            numbers = os.listdir(table)
        except (FileNotFoundError, ProcessLookupError):  # a thread ended before it stopped
            continue
        budget[0] -= len(numbers)
        if budget[0] < 0:
            raise TooLong
        for number in numbers:
            try:
                if os.readlink(f"{table}/{number}").endswith(" (deleted)"):
                    links.append(f"{table}/{number}")
            except (FileNotFoundError, ProcessLookupError):
                continue
    return links


def _program(face: str) -> list[str]:
    """/proc's link to the program `face` runs, if shown as deleted: a program run from a file
    since removed holds that file with no descriptor, and with no mapping once it unmaps it."""
    link = f"{face}/exe"
    return [link] if os.readlink(link).endswith(" (deleted)") else []


def _mappings(process: str, device: int) -> dict[int, str]:
    """The inodes of the files on `device` shown as deleted that `process` maps, each with its
    /proc link (map_files: root with CAP_SYS_ADMIN may read it, no user may)."""
    dev, found = f"{os.major(device):02x}:{os.minor(device):02x}", {}
    with open(f"{process}/maps") as maps:
        for line in maps:
            where, _, _, on, inode = line.split(maxsplit=5)[:5]
            if on == dev and line.rstrip().endswith(" (deleted)"):
                start, end = (int(address, 16) for address in where.split("-"))
                found[int(inode)] = f"{process}/map_files/{start:x}-{end:x}"
    return found


def _walk(pids: list[str], device: int) -> tuple[int, int]:
    """The bytes (as allocated) and the number of the files without a name on `device` that
    processes `pids` (stopped) hold, each once. PermissionError where one may not be read,
    `TooLong` past `BUDGET` links, any other OSError where a link cannot be read."""
    links: list[str] = []
    mapped: dict[int, str] = {}
    budget = [BUDGET]
    for process in (f"/proc/{pid}" for pid in pids):
        try:
            face = _face(process)
            if face is not None:
                links += _descriptors(process, face, budget) + _program(face)
                mapped |= _mappings(face, device)
        except (FileNotFoundError, ProcessLookupError):  # ended before it stopped
            continue
    held: dict[int, int] = {}
    for link in links:
        try:
            status = os.stat(link)
        except (FileNotFoundError, ProcessLookupError):
            continue
        if status.st_dev == device and status.st_nlink == 0:
            held[status.st_ino] = status.st_blocks * 512
    for inode, link in mapped.items():
        if inode not in held:  # mapped, its descriptor closed (as a pool's semaphores are)
            held[inode] = os.stat(link).st_blocks * 512
    return sum(held.values()), len(held)


def unnamed_held(uid: int, device: int) -> tuple[int, int] | None:
    """The bytes (as allocated) and the number of the files without a name on `device` that
    processes of `uid` hold open, mapped or run, each file once, looked at while they are
    stopped: as root where root may, else as the user; None where they cannot all be read (a
    process undumpable, or a mapping whose descriptor is closed, for the user; more than
    `BUDGET` descriptors; a link that will not read, as one past a page long)."""
    try:
        pids = (as_user(uid, _stopped) or "").split()
        try:
            return _walk(pids, device)
        except PermissionError:  # a root without CAP_SYS_PTRACE (Docker's): walk as the user
            held = as_user(uid, lambda: " ".join(map(str, _walk(pids, device))))
            return None if held is None else tuple(map(int, held.split()))
        except (TooLong, OSError):  # cannot say: the guard charges all
            return None
    finally:
        as_user(uid, _continued)
