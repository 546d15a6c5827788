"""The processes a sandbox user leaves behind, and how the grader gets every one of them back.

A process whose parent exits goes to the nearest ancestor marked "child subreaper", else to
pid 1. Which pid 1 a machine has is not ours to choose: in many containers (Gradescope's, a CI
runner's) it never waits for the orphans it inherits, so each becomes a zombie that no signal
removes and that counts against its user's process limit until the container ends. A kernel's
daemon that forks and lets its parent exit, hundreds of times a second, then leaves hundreds of
them, and the next student who gets that user cannot start a process.

So a grader that runs kernels without a box makes itself the subreaper before it starts one
(`adopt_orphans`, from `sandbox.command`): every orphan comes back to it, and
`reap_if_our_zombie` waits for it. In a box, the box's own pid 1 takes the kernel's orphans and
dies with the box; a boxed grader adopts nothing (it would adopt each killed box's pid 1 too).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
from pathlib import Path

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


def reap_if_our_zombie(pid: int) -> None:
    """Wait for `pid` if it is a zombie whose parent is the grader: an orphan adopted by
    `adopt_orphans`, or a kernel's `clone(CLONE_PARENT)` child. Only a zombie is waited for
    (WNOHANG), so no child the grader still runs is ever touched; one it started itself is done,
    and its own wait finds it gone."""
    with contextlib.suppress(OSError):  # gone, or not our child after all
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if stat[0] == "Z" and int(stat[1]) == os.getpid():  # the state, the parent's pid
            os.waitpid(pid, os.WNOHANG)


def processes_of(uid: int) -> list[int]:
    """The ids of the processes running as `uid`, zombies too (they count against its limit)."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    pids.append(int(entry.name))
    return pids
