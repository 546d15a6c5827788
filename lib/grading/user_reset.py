"""Run AS a sandbox user, after each notebook: leave nothing of that user for the next student.

`kernel_users.reap` starts this file as the kernel's own user (a process can always signal and clean
up after its own user, and after no one else's). It kills every process of the user (daemons
that left with `setsid` included: `kill(-1)` reaches all of them at once), empties the user's
kernel keyrings and System V IPC objects (shared memory, semaphores, message queues: each
outlives every process and would hand one student's data, or memory held, to the next) and removes
what the user left in every folder any user may write (root names them: `sys.argv`). It exits 1
if anything of the user is left, and `reap` then never hands the user to another student. Only
the standard library: it runs with `python -I`, nothing of the course imported.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import signal
import stat
import sys
import time

NESTED = 8  # folders others may write, within one another, looked in below each root
KEYCTL = {"x86_64": 250, "aarch64": 219}  # the keyctl system call's number on each machine
KEYCTL_CLEAR, KEYCTL_GET_PERSISTENT = 7, 22
USER_KEYRINGS = (-4, -5)  # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING
IPC_RMID = 0
SYSV_KINDS = ("shm", "sem", "msg")  # /proc/sysvipc/<kind>: the machine's objects of each kind
# A folder, opened without following a link (nor waiting on a fifo put in its place).
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def kill_everything(seconds: float = 5) -> bool:
    """Kill every other process of this user, until none is left (a fork loop refills).
    True if some still run after `seconds`."""
    end = time.monotonic() + seconds
    while _others():
        if time.monotonic() >= end:
            return True
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        time.sleep(0.02)
    return False


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


def remove_own_files(roots: list[str]) -> list[str]:
    """Remove what this user left in the folders any user may write (`roots`, found by root:
    `kernel_users.scratch_roots`) and in folders met inside them that others may write too (a
    root-owned /tmp/.X11-unix, another user's folder made mode 777), at most `NESTED` deep.
    Returns what could not be removed (empty: nothing of this user is left there)."""
    failed: list[str] = []
    for root in roots:
        _remove_in(root, None, root, 0, failed)
    return failed


def _remove_in(name: str, parent: int | None, path: str, depth: int, failed: list[str]) -> None:
    """Remove what is this user's in the folder `name` (in the open `parent`, or a path; at
    `path`), then look in each folder in it others may write. By descriptor: a folder swapped
    for a link is refused (`O_NOFOLLOW`), never followed into the user's own working copy; one
    it may not list (another user's, mode 0773 or 0776) is passed over. Only the user's own
    entries that would not go fail the reset."""
    try:
        folder = os.open(name, FOLDER, dir_fd=parent)
    except OSError:  # gone, a link, or closed to this user: nothing it can list is there
        return
    me = os.getuid()
    try:
        if not os.fstat(folder).st_mode & stat.S_IWOTH:  # the very folder listed, as named
            return
        with os.scandir(folder) as entries:
            for entry in entries:
                mine = False
                try:
                    status = entry.stat(follow_symlinks=False)
                    mine = status.st_uid == me
                    if mine and stat.S_ISDIR(status.st_mode):
                        remove_tree(entry.name, folder)
                    elif mine:
                        os.unlink(entry.name, dir_fd=folder)
                    elif stat.S_ISDIR(status.st_mode) and status.st_mode & stat.S_IWOTH:
                        if depth < NESTED:  # deeper: nothing of ours is looked for
                            inner = f"{path}/{entry.name}"
                            _remove_in(entry.name, folder, inner, depth + 1, failed)
                except OSError as error:  # another's entry gone, swapped, closed: not ours
                    if mine and not isinstance(error, FileNotFoundError):
                        failed.append(f"{path}/{entry.name}: {error.strerror}")
    finally:
        os.close(folder)


def remove_tree(name: str, parent: int | None = None, depth: int = 64) -> None:
    """Remove the folder `name` (in the open folder `parent`, or a path) and all it holds, by
    descriptor, with at most `depth` folders open: a deeper one is moved up to the top and
    emptied there (shutil.rmtree recurses: RecursionError at 1,000 before Python 3.13). Each
    folder is listed once, so the work grows with the entries (listing a wide folder again for
    each folder in it made 3,000 cost 5 to 17 s). A folder of ours made unreadable or read-only
    is given back its rights first; one not ours (swapped in meanwhile) is left alone."""
    top = _open_folder(name, parent)
    if os.fstat(top).st_uid != os.geteuid():
        os.close(top)
        return
    stack = [(top, "", _emptied(top))]  # open folders, each: its name above, folders to visit
    while stack:
        folder, inner_name, inner = stack[-1]
        if inner:
            child = inner.pop()
            if len(stack) >= depth:  # too deep: move it up, empty it from the top later
                moved = _free_name(top)
                _retry(folder, os.rename, child, moved, src_dir_fd=folder, dst_dir_fd=top)
                stack[0][2].append(moved)
            else:
                opened = _open_folder(child, folder)
                stack.append((opened, child, _emptied(opened)))
            continue
        inner.extend(_emptied(folder))  # made meanwhile (nothing of its user still runs)
        if not inner:
            stack.pop()
            os.close(folder)  # first: on ext4 a folder removed while open costs ~3 ms more
            if stack:
                _retry(stack[-1][0], os.rmdir, inner_name, dir_fd=stack[-1][0])
    os.rmdir(name, dir_fd=parent)


def _emptied(folder: int) -> list[str]:
    """Unlink everything but folders in the open `folder`, in one listing; return the folders."""
    inner = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                inner.append(entry.name)
            else:
                _retry(folder, os.unlink, entry.name, dir_fd=folder)
    return inner


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
    try:
        return os.open(name, FOLDER, dir_fd=parent)
    except PermissionError:
        handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
        try:
            os.chmod(f"/proc/self/fd/{handle}", 0o700)  # that very inode, not a name
        finally:
            os.close(handle)
        return os.open(name, FOLDER, dir_fd=parent)


def _retry(folder: int, change, *args, **kwargs) -> None:
    """`change(*args, **kwargs)` in the open `folder`, giving the folder back its owner's
    rights if it was refused (a read-only folder of the user's)."""
    try:
        change(*args, **kwargs)
    except PermissionError:
        os.fchmod(folder, 0o700)
        change(*args, **kwargs)


if __name__ == "__main__":  # the folders any user may write: see `remove_own_files`
    running = kill_everything()
    clear_keyrings()
    remove_system_v_objects()
    left = remove_own_files(sys.argv[1:])
    if running or left:  # exit 1: `kernel_users.reap` must not hand this user on
        print(*(["processes of this user still run"] if running else []), *left[:5], sep="\n")
        sys.exit(1)
