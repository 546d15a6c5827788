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
import signal
import stat
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
    for folder in scratch_folders():
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid != me:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        remove_tree(entry.path)
                    else:
                        os.unlink(entry.path)


def scratch_folders() -> list[str]:
    """`SHARED_SCRATCH` and every other folder any user may write in that the machine lists in
    its usual places (/run/lock, /var/lock, /var/crash...): those writable by all."""
    found = list(SHARED_SCRATCH)
    for parent in ("/", "/run", "/var", "/dev"):
        with contextlib.suppress(OSError), os.scandir(parent) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    mode = entry.stat(follow_symlinks=False).st_mode
                    if stat.S_ISDIR(mode) and mode & stat.S_IWOTH and entry.path not in found:
                        found.append(entry.path)
    return found


def remove_tree(path: str, depth: int = 64) -> None:
    """Remove the folder `path` and all it holds, by descriptor (no link followed), with at most
    `depth` folders open at once: a deeper folder is moved up to `path` and emptied from there
    (shutil.rmtree recurses: 1,000 nested folders raise RecursionError before Python 3.13).
    A folder its owner made unreadable or read-only (mode 000) is given back its rights first."""
    top = _open_folder(path, None)
    stack = [(top, "")]  # the folders being emptied, each with its name in the one above
    while stack:
        folder, name = stack[-1]
        with os.scandir(folder) as entries:
            inner = next((e.name for e in entries if e.is_dir(follow_symlinks=False)), None)
        if inner is not None and len(stack) >= depth:  # too deep: move it up, empty it later
            _retry(folder, os.rename, inner, _free_name(top), src_dir_fd=folder, dst_dir_fd=top)
        elif inner is not None:
            stack.append((_open_folder(inner, folder), inner))
        else:
            with os.scandir(folder) as entries:
                for entry in list(entries):
                    _retry(folder, os.unlink, entry.name, dir_fd=folder)
            stack.pop()
            if stack:
                _retry(stack[-1][0], os.rmdir, name, dir_fd=stack[-1][0])
            os.close(folder)
    os.rmdir(path)


def _free_name(folder: int) -> str:
    """A name nothing in the open `folder` has. Random, so that finding one costs one look
    however many folders were moved up before (counting up from 1 made removing N folders cost
    N**2/2 looks: 4,000 took 103 s, far beyond reap's time)."""
    while True:
        name = f".deep-{os.urandom(8).hex()}"
        try:
            os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return name


def _open_folder(name: str, parent: int | None) -> int:
    """Open the folder `name` (in `parent`) without following a link; one its owner made
    unreadable is made readable first (as its owner; root needs no such thing)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, flags, dir_fd=parent)
    except PermissionError:
        handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
        try:
            os.chmod(f"/proc/self/fd/{handle}", 0o700)  # that very inode, not a name
        finally:
            os.close(handle)
        return os.open(name, flags, dir_fd=parent)


def _retry(folder: int, change, *args, **kwargs) -> None:
    """`change(*args, **kwargs)` in the open `folder`, giving the folder back its owner's
    rights if it was refused (a read-only folder of the user's)."""
    try:
        change(*args, **kwargs)
    except PermissionError:
        os.fchmod(folder, 0o700)
        change(*args, **kwargs)


if __name__ == "__main__":
    kill_everything()
    clear_keyrings()
    remove_system_v_objects()
    remove_own_files()
