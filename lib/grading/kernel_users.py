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
import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from lib.grading import cpu_share, memory_group
from lib.grading.user_processes import described, kill_all, processes_of

FIRST_UID, USERS = 61_000, 1000  # unprivileged users for kernels when grading as root
BOX_MB = 4096  # all of a box's processes together, where a cgroup can be made
# A user's reset gets this long, then (a loaded machine, a slow file system) once more this long,
# before the user is given up: after each notebook, and between a notebook's two runs.
RESET_SECONDS, LONGER_RESET_SECONDS = 10, 60
ROOTS_DEPTH = 4  # `scratch_roots`: /var/lib/php/sessions is 4 deep

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
        unclean = 0  # users free, but whose reset failed
        for uid in range(FIRST_UID, FIRST_UID + USERS):
            lock = _claim(uid)
            # A grader killed mid-run (SIGKILL, OOM) left its kernels' daemons and files: a user
            # whose reset cannot be finished now is skipped, never handed a kernel.
            if lock is not None and not reap(uid):
                lock.close()
                unclean += 1
            elif lock is not None:
                self.uid, self._lock = uid, lock
                key = f"{uid}-{os.getpid()}"
                memory = memory_group.make(key, box_mb)
                groups = {"memory": memory, "cpu": cpu_share.make(key, memory)}
                _GROUPS[uid] = {name: g for name, g in groups.items() if g is not None}
                return
        raise SandboxUnavailable(
            f"no sandbox user is free: of {USERS}, {USERS - unclean} are held by running graders "
            f"and {unclean} could not be reset (what they left would not go)"
        )

    @property
    def memory_capped(self) -> bool:
        """Do this user's kernels share a capped memory cgroup?"""
        return memory_capped(self.uid)

    @property
    def cpu_shared(self) -> bool:
        """Do this user's kernels weigh as one for the CPU, however many processes they start?"""
        return cpu_shared(self.uid)

    def release(self, seconds: float = 10) -> None:
        """Kill what is left of this user's processes and let another grader have the user
        (who claims it only once a reset of its own has finished: see `__init__`)."""
        reap(self.uid, seconds)
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


NOBODY = 65_534  # any unprivileged uid shows it; this one is no sandbox user's


@functools.cache
def _reset_command() -> tuple[str, ...]:
    """`user_reset` as a sandbox user runs it: its text on the command line (the user may not
    read the course's folder), in a Python that user can start. That is this Python, unless a
    folder on its way is private to root, as pyenv's under /root are; then the system's, since
    `user_reset` needs only the standard library. A reset that cannot start would fail every
    time, and every sandbox user would be retired."""
    source = Path(__file__).with_name("user_reset.py").read_text()
    for python in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if python and a_user_can_start(python):
            return (python, "-I", "-c", source)
    return (sys.executable, "-I", "-c", source)


def a_user_can_start(python: str) -> bool:
    """Whether an unprivileged user can start `python` (not if a folder on its way is private)."""
    tried = subprocess.run(
        [*become(NOBODY), python, "-I", "-c", "pass"], capture_output=True, timeout=60
    )
    return tried.returncode == 0


def reap(uid: int | None, seconds: float = 10) -> bool:
    """Leave nothing of `uid` (a kernel's own user) for the next student; True only if the reset
    is proven complete (`unreaped` says what is left otherwise). The caller must not hand a user
    whose reset failed to another student (`OwnUser.__init__`, `parallel_grading`)."""
    return unreaped(uid, seconds) is None


def unreaped(uid: int | None, seconds: float = 10) -> str | None:
    """Reset `uid`: kill every process of it from here (`kill_all`: root's signals, which no
    process of the user can stop or dodge), then run `user_reset` as that user (its keyrings,
    IPC objects and files in `scratch_roots`): with nothing of the user running, nothing can
    stop the reset nor write again behind it. None once the reset is proven complete (no process
    of `uid` was left, `user_reset` said so, and none is left after it); else what went wrong,
    in a few words an error message can carry."""
    if uid is None:
        return None
    end = time.monotonic() + seconds
    if not kill_all(uid, end):
        return f"processes outlived {seconds:g} s of SIGKILL: {described(processes_of(uid))}"
    try:
        done = subprocess.run(
            [*become(uid), *_reset_command(), *scratch_roots()],
            timeout=max(end - time.monotonic(), 0.1),
            check=False,
            capture_output=True,
        )
        failed = None if done.returncode == 0 else _said(done)
    except subprocess.TimeoutExpired:
        failed = f"the reset did not end within {seconds:g} s"
    # Killing gets its own time: a reset that ran out of it must not leave a process.
    if not kill_all(uid, time.monotonic() + seconds):
        return f"processes outlived the reset: {described(processes_of(uid))}"
    return failed


def unreaped_patiently(
    uid: int | None, times: tuple[float, ...] = (RESET_SECONDS, LONGER_RESET_SECONDS)
) -> str | None:
    """`unreaped`, tried again with each of `times` while it fails (a loaded machine, a slow
    file system): None once the reset is complete, else what the last try left."""
    for seconds in times:
        left = unreaped(uid, seconds)
        if left is None:
            return None
    return left


def _said(done: subprocess.CompletedProcess) -> str:
    """What a failed `user_reset` said (its first lines), with its exit status."""
    lines = (done.stdout + done.stderr).decode(errors="replace").strip().splitlines()
    return f"the reset failed (exit {done.returncode}): {'; '.join(lines[:3]) or 'nothing said'}"


@functools.cache
def scratch_roots() -> tuple[str, ...]:
    """The folders any user may write in (mode o+w), within `ROOTS_DEPTH` of `/` (not /proc or
    /sys): /tmp, /var/tmp, /dev/shm, /run/lock, /tmp/.X11-unix, /var/lib/php/sessions...
    Looked for once per grader (~0.1 s), as root, who sees every folder; a sandbox user's
    folders are not looked in (a kernel could make them wide, to slow this). A kernel's user
    (no groups, no capability, in no passwd, so no ACL names it) can create files only in these,
    in folders made later inside them that others may write (`user_reset` looks in those too,
    to a depth), and in the folders root hands it (removed by root after each notebook)."""
    found, level = [], ["/"]
    for _ in range(ROOTS_DEPTH):
        below = []
        for folder in level:
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    if entry.path in ("/proc", "/sys") or not entry.is_dir(follow_symlinks=False):
                        continue
                    with contextlib.suppress(OSError):
                        status = entry.stat(follow_symlinks=False)
                        if status.st_mode & stat.S_IWOTH:
                            found.append(entry.path)
                        if not FIRST_UID <= status.st_uid < FIRST_UID + USERS:
                            below.append(entry.path)
        level = below
    return tuple(found)
