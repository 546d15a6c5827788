"""The processes a sandbox user leaves behind, and how the grader gets every one of them back.

A process whose parent exits goes to the nearest ancestor marked "child subreaper", else to
pid 1. Which pid 1 a machine has is not ours to choose: in many containers (Gradescope's, a CI
runner's) it never waits for the orphans it inherits, so each becomes a zombie that no signal
removes and that counts against its user's process limit until the container ends. A kernel's
daemon that forks and lets its parent exit, hundreds of times a second, then leaves hundreds of
them, and the next student who gets that user cannot start a process.

So a grader that runs kernels without a box makes itself the subreaper before it starts one
(`adopt_orphans`, from `sandbox.command`): every orphan comes back to it, and `kill_all`
waits for it. In a box, the box's own pid 1 takes the kernel's orphans and
dies with the box; a boxed grader adopts nothing (it would adopt each killed box's pid 1 too).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import time

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
PR_GET_CHILD_SUBREAPER = 37


@functools.cache
def adopt_orphans() -> bool:
    """Make this process the subreaper of everything it starts (once; Linux 3.4+). True if it is."""
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def adopts_orphans() -> bool:
    """Is this process its descendants' subreaper (the kernel's own answer, not our memory)?"""
    flag = ctypes.c_int(0)
    ctypes.CDLL(None).prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    return flag.value == 1


def kill_all(uid: int, end: float) -> bool:
    """Kill every process of `uid` until none is left or `end` (monotonic) passes, and wait for
    those that were the grader's children (adopted orphans, a kernel's `clone(CLONE_PARENT)`
    child). True if none is left. Done from root: nothing the user runs can stop it (a daemon
    of the user may stop the user's own processes, never root's).

    Through pidfds, never by number: a pid listed may be freed and given to another process
    before the kill (a kernel forking fast wraps the pids in seconds). Each pid is opened first;
    the pidfd then names that very process, and it is signalled and waited for only if /proc says,
    after the opening, that it is the user's. A thread group whose leader has exited alone looks
    like a zombie but still runs: SIGKILL to the group reaches its threads, and its pid stays
    listed until the last of them is gone."""
    while True:
        left = processes_of(uid)
        if not left or time.monotonic() >= end:
            return not left
        handles = [fd for fd in map(_pidfd_of, left, [uid] * len(left)) if fd is not None]
        for fd in handles:  # all at once first: a daemon hopping pids must not get ahead
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        for fd in handles:
            with contextlib.suppress(ChildProcessError):  # not the grader's child
                os.waitid(os.P_PIDFD, fd, os.WEXITED | os.WNOHANG)
            os.close(fd)
        time.sleep(0.01)


def _pidfd_of(pid: int, uid: int) -> int | None:
    """A pidfd of the process `pid` if it is one of `uid`'s, else None. Checked after opening:
    if the number was given to another process before, /proc shows that process, not ours."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:  # gone already
        return None
    with contextlib.suppress(OSError):
        if os.stat(f"/proc/{pid}", follow_symlinks=False).st_uid == uid:
            return fd
    os.close(fd)
    return None


def processes_of(uid: int) -> list[int]:
    """The ids of the processes running as `uid`, zombies too (they count against its limit)."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    pids.append(int(entry.name))
    return pids


def described(pids: list[int]) -> str:
    """`pids` as an error message names them: each one's command and /proc state (a few)."""
    said = []
    for pid in pids[:5]:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                name, state = stat.read().split("(", 1)[1].rsplit(")", 1)
            said.append(f"{pid} {name} ({state.split()[0]})")
        except (OSError, IndexError):
            said.append(f"{pid} (gone)")
    return ", ".join(said) + (f" and {len(pids) - 5} more" if len(pids) > 5 else "")
