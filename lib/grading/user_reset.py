"""Run AS a sandbox user, after each notebook: leave nothing of that user for the next student.

`kernel_users.reap` starts this file as the kernel's own user (a process can always signal and clean
up after its own user, and after no one else's). It kills every process of the user (daemons
that left with `setsid` included: `kill(-1)` reaches all of them at once), empties the user's
kernel keyrings and System V IPC objects (shared memory, semaphores, message queues: each
outlives every process and would hand one student's data, or memory held, to the next) and removes
what the user left in the machine's shared scratch folders. Only the standard library:
it runs with `python -I`, nothing of the course imported.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import shutil
import signal
import time

SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
KEYCTL = {"x86_64": 250, "aarch64": 219}  # the keyctl system call's number on each machine
KEYCTL_CLEAR, KEYCTL_GET_PERSISTENT = 7, 22
USER_KEYRINGS = (-4, -5)  # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING
IPC_RMID = 0
SYSV_KINDS = ("shm", "sem", "msg")  # /proc/sysvipc/<kind>: the machine's objects of each kind


def kill_everything(seconds: float = 5) -> None:
    """Kill every other process of this user, until none is left (a fork loop refills)."""
    end = time.monotonic() + seconds
    while _others() and time.monotonic() < end:
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        time.sleep(0.02)


def _others() -> bool:
    """Does any process of this user run besides this one? (kill(-1) need not say.) Zombies do
    not count: no signal reaches them, their parent reaps them (the grader, for those a kernel
    handed it with `clone(CLONE_PARENT)`: see `kernel_users.reap`)."""
    me, mine = os.getuid(), str(os.getpid())
    with os.scandir("/proc") as entries:
        for entry in entries:
            if entry.name.isdigit() and entry.name != mine:
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid == me and not _zombie(entry.path):
                        return True
    return False


def _zombie(process: str) -> bool:
    """Has the process `/proc/<pid>` exited, waiting for its parent to reap it?"""
    with open(f"{process}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"  # the state, after the name


def clear_keyrings() -> None:
    """Empty the user's keyrings (user, user-session and persistent)."""
    number = KEYCTL.get(platform.machine())
    if number is None:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    rings = list(USER_KEYRINGS)
    persistent = libc.syscall(number, KEYCTL_GET_PERSISTENT, -1, -1)  # linked to a thread ring
    if persistent > 0:
        rings.append(persistent)
    for ring in rings:
        libc.syscall(number, KEYCTL_CLEAR, ring)


def remove_system_v_objects() -> None:
    """Remove every System V shared memory segment, semaphore set and message queue this user
    owns or created (what `ipcrm` does): a kernel sharing the machine's IPC namespace (no
    bubblewrap) leaves them behind, and the next student graded as this user would find them.
    The owner or the creator may remove an object, so one handed to another user is found too."""
    libc = ctypes.CDLL(None, use_errno=True)
    remove = {
        "shm": lambda ident: libc.shmctl(ident, IPC_RMID, None),
        "sem": lambda ident: libc.semctl(ident, 0, IPC_RMID),
        "msg": lambda ident: libc.msgctl(ident, IPC_RMID, None),
    }
    me = str(os.getuid())
    for kind in SYSV_KINDS:
        with contextlib.suppress(OSError), open(f"/proc/sysvipc/{kind}") as table:
            header = table.readline().split()
            for line in table:
                row = dict(zip(header, line.split(), strict=False))
                if me in (row.get("uid"), row.get("cuid")):
                    remove[kind](int(row[header[1]]))  # shmid, semid or msqid


def remove_own_files() -> None:
    """Remove what this user left at the top of the shared scratch folders."""
    me = os.getuid()
    for folder in SHARED_SCRATCH:
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid != me:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)


if __name__ == "__main__":
    kill_everything()
    clear_keyrings()
    remove_system_v_objects()
    remove_own_files()
