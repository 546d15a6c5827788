"""The unprivileged users kernels run as when the grader is root, and the clean-up after each.

Linux counts no process of root's against any limit, so as root every kernel drops to a user of
its own (61000 and up): claimed with a lock file, so that two graders running at once never share
one, and after each notebook reset (`reap`): every process of
the user killed, daemons that left with `setsid` included, its keyrings and scratch files gone.
Where the machine allows, a user's kernels also share a memory cgroup (`memory_group`) and one CPU
weight (`cpu_share`).
`sandbox` builds the box around a kernel; this module knows nothing of it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from lib.grading import cpu_share, memory_group

FIRST_UID, USERS = 61_000, 1000  # unprivileged users for kernels when grading as root
BOX_MB = 4096  # all of a box's processes together, where a cgroup can be made

_GROUPS: dict[int, dict[str, Path]] = {}  # sandbox user -> its kernels' cgroups by controller


class SandboxUnavailable(RuntimeError):
    """The grader cannot box kernels here (bwrap missing or refused, no sandbox user free, the
    submissions in the kernels' sight); the message says what to do."""


def become(uid: int) -> list[str]:
    """The command prefix that drops root to `uid`, with no capabilities and no way back."""
    prefix = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return prefix + ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


def groups_of(uid: int | None) -> list[Path]:
    """The cgroups the kernels of `uid` run in: memory, then CPU (none without a user, or where
    no group can be made)."""
    return [] if uid is None else list(_GROUPS.get(uid, {}).values())


def memory_capped(uid: int | None) -> bool:
    """Do the kernels of `uid` share a capped memory cgroup?"""
    return "memory" in _GROUPS.get(uid, {})


def cpu_shared(uid: int | None) -> bool:
    """Do the kernels of `uid` weigh as one for the CPU, however many processes they start?"""
    groups = _GROUPS.get(uid, {})
    return cpu_share.shared(groups.get("memory"), groups.get("cpu"))


class OwnUser:
    """An unprivileged user for one kernel at a time, when the grader runs as root (Linux does not
    count root's processes against any limit). Claimed with a lock file, so two graders running
    at once never share a user: each cleans up (`reap`) only its own kernels' processes.
    `uid` is None when we are not root: kernels then run as we do. Where the machine allows,
    the user's kernels share a memory cgroup capped at `box_mb` (`memory_capped`) and one CPU
    weight (`cpu_shared`)."""

    def __init__(self, box_mb: int = BOX_MB) -> None:
        self.uid, self._lock = None, None
        if os.geteuid() != 0:
            return
        for uid in range(FIRST_UID, FIRST_UID + USERS):
            lock = _claim(uid)
            if lock is not None:
                self.uid, self._lock = uid, lock
                reap(uid)  # a grader killed mid-run (SIGKILL, OOM) left its kernels' daemons
                key = f"{uid}-{os.getpid()}"
                memory = memory_group.make(key, box_mb)
                groups = {"memory": memory, "cpu": cpu_share.make(key, memory)}
                _GROUPS[uid] = {name: g for name, g in groups.items() if g is not None}
                return
        raise SandboxUnavailable(f"all {USERS} sandbox users are in use by other graders")

    @property
    def memory_capped(self) -> bool:
        """Do this user's kernels share a capped memory cgroup?"""
        return memory_capped(self.uid)

    @property
    def cpu_shared(self) -> bool:
        """Do this user's kernels weigh as one for the CPU, however many processes they start?"""
        return cpu_shared(self.uid)

    def release(self) -> None:
        """Kill what is left of this user's processes and let another grader have the user."""
        reap(self.uid)
        for group in _GROUPS.pop(self.uid, {}).values():
            memory_group.remove(group)
        if self._lock is not None:
            self._lock.close()
            self.uid, self._lock = None, None


def _claim(uid: int) -> IO[str] | None:
    """The lock file of sandbox user `uid`, locked for us; None if another grader holds it.
    Opened without following links or truncating: a kernel may write in /tmp too, and must not
    turn our lock into a write of its choosing."""
    path = f"{tempfile.gettempdir()}/course-grader-user-{uid}.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError:
        return None
    lock = os.fdopen(fd, "w")
    try:
        if os.fstat(fd).st_uid != os.geteuid():  # planted by someone else: not ours to use
            raise PermissionError(path)
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    return lock


def leftovers(users: int = 8) -> list[int]:
    """Processes of the first `users` sandbox users that no grader holds at the moment: after a
    batch they should be none (a grader still running elsewhere keeps its users' processes)."""
    found = []
    for uid in range(FIRST_UID, FIRST_UID + users):
        lock = _claim(uid)
        if lock is not None:
            found += processes_of(uid)
            lock.close()
    return found


def reap(uid: int | None, seconds: float = 10) -> int:
    """Leave nothing of `uid` (a kernel's own user) for the next student: run `user_reset` as
    that user (its processes, keyrings and scratch files), then kill from here whatever is still
    running as `uid` and wait until it is gone. Returns how many processes were still there for
    us to kill (normally 0)."""
    if uid is None:
        return 0
    reset = [sys.executable, "-I", str(Path(__file__).with_name("user_reset.py"))]
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run([*become(uid), *reset], timeout=seconds, check=False, capture_output=True)
    killed, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = processes_of(uid)
        if not left:
            break
        for pid in left:  # all at once first: a daemon hopping pids must not get ahead
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        for pid in left:
            _reap_if_our_zombie(pid)
        time.sleep(0.05)
    return killed


def _reap_if_our_zombie(pid: int) -> None:
    """Reap `pid` if it is a zombie whose parent is the grader: a kernel's `clone(CLONE_PARENT)`
    children are ours, no signal removes them, and each counts against the user's processes
    until its parent waits for it. Only a zombie is waited for (WNOHANG), so no child the grader
    still runs is ever touched; one it started itself is done, and its own wait finds it gone."""
    with contextlib.suppress(OSError):  # gone, or not our child after all
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if stat[0] == "Z" and int(stat[1]) == os.getpid():  # the state, the parent's pid
            os.waitpid(pid, os.WNOHANG)


def processes_of(uid: int) -> list[int]:
    """The ids of the processes running as `uid`."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    pids.append(int(entry.name))
    return pids
