"""Reading a user's processes through /proc: which files without a name on a device they hold
(`walk`, for `shm_holders`, while they are stopped), and which descriptors of theirs point where
a guard asks (`held_links`: ptys without an entry, netlink sockets).

It reads a process's descriptor table once (a thread's only where `kcmp` says it has one of its
own), at most `BUDGET` descriptors a walk, its mappings, and the program it runs. A mapping
whose descriptor is closed only a root with CAP_SYS_ADMIN may size (map_files): the walk names
those it could not.

Only the standard library: `sandbox` runs this file's source after `user_freeze`'s.
"""

import ctypes
import os
import platform
from collections.abc import Callable

if __name__ != "__main__":  # run as `-c`, `sandbox` puts user_freeze's source ahead of ours
    from lib.grading.user_freeze import state

BUDGET = 10_000  # descriptors a walk reads at most (~0.3 s on a loaded 2-core machine)
KCMP_FILES = 2  # kcmp's type: do two tasks share one descriptor table?
KCMP = {"x86_64": 312, "aarch64": 272}.get(platform.machine())  # its syscall number


class TooLong(Exception):
    """The walk read `BUDGET` links."""


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
    if state(process) != "Z":
        return process
    for task in (f"{process}/task/{tid}" for tid in os.listdir(f"{process}/task")):
        if state(task) not in "ZX":
            return task
    return None


def _descriptors(
    process: str, face: str, budget: list[int], wanted: Callable[[str], bool]
) -> dict[str, str]:
    """/proc links of the descriptors of `process` (seen through `face`) whose target `wanted`
    keeps, each with its target, each table read once (a thread's only where it has one of its
    own). Each descriptor listed takes one from `budget`; none left: `TooLong`."""
    seen = int(face.rsplit("/", 1)[1])
    tables = [f"{face}/fd"]
    for tid in os.listdir(f"{process}/task"):
        if int(tid) != seen and _own_table(seen, int(tid)):
            tables.append(f"{process}/task/{tid}/fd")
    links = {}
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
                target = os.readlink(f"{table}/{number}")
            except (FileNotFoundError, ProcessLookupError):
                continue
            if wanted(target):
                links[f"{table}/{number}"] = target
    return links


def deleted(target: str) -> bool:
    """Whether a /proc link's `target` is a file without a name (unlinked, or a pty's slave
    whose entry went with its master)."""
    return target.endswith(" (deleted)")


def _each_process(pids: list[str], look: Callable[[str, str], None]) -> None:
    """`look(process, face)` at each of `pids` whose threads have not all ended (`_face`),
    passing over those that end meanwhile."""
    for process in (f"/proc/{pid}" for pid in pids):
        try:
            face = _face(process)
            if face is not None:
                look(process, face)
        except (FileNotFoundError, ProcessLookupError):  # ended meanwhile
            continue


def held_links(pids: list[str], wanted: Callable[[str], bool]) -> dict[str, str]:
    """/proc links of the descriptors of processes `pids` whose target `wanted` keeps, each
    with its target, at most `BUDGET` descriptors read (else `TooLong`); PermissionError where
    a process may not be read."""
    links: dict[str, str] = {}
    budget = [BUDGET]
    _each_process(
        pids, lambda process, face: links.update(_descriptors(process, face, budget, wanted))
    )
    return links


def _program(face: str) -> list[str]:
    """/proc's link to the program `face` runs, if shown as deleted: a program run from a file
    since removed holds that file with no descriptor, and with no mapping once it unmaps it."""
    link = f"{face}/exe"
    return [link] if deleted(os.readlink(link)) else []


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


def walk(pids: list[str], device: int) -> tuple[dict[int, int], list[int]]:
    """The files without a name on `device` that processes `pids` (stopped) hold, each once:
    their bytes (as allocated) by inode, and the inodes of those only mapped whose size we may
    not read (map_files: root with CAP_SYS_ADMIN only). PermissionError where a process may not
    be read, `TooLong` past `BUDGET` links, any other OSError where a link cannot be read."""
    links: list[str] = []
    mapped: dict[int, str] = {}
    budget = [BUDGET]

    def look(process: str, face: str) -> None:
        links.extend([*_descriptors(process, face, budget, deleted), *_program(face)])
        mapped.update(_mappings(face, device))

    _each_process(pids, look)
    held: dict[int, int] = {}
    for link in links:
        try:
            status = os.stat(link)
        except (FileNotFoundError, ProcessLookupError):
            continue
        if status.st_dev == device and status.st_nlink == 0:
            held[status.st_ino] = status.st_blocks * 512
    unsized = []
    for inode, link in mapped.items():
        if inode not in held:  # mapped, its descriptor closed (as a pool's semaphores are)
            try:
                held[inode] = os.stat(link).st_blocks * 512
            except PermissionError:
                unsized.append(inode)
            except (FileNotFoundError, ProcessLookupError):  # ended before it stopped
                continue
    return held, unsized
