"""Run AS a sandbox user, after each notebook: leave nothing of that user for the next student.

`kernel_users.reap` starts this file as the kernel's own user (a process can always clean up after
its own user, and after no one else's), once root has killed every process of the user: nothing
of it runs meanwhile to stop this or to write again behind it. It empties the user's kernel
keyrings and System V IPC objects (shared memory, semaphores, message queues: each outlives every
process and would hand one student's data, or memory held, to the next) and removes what the
user left in every folder any user may write (root names them: `sys.argv`). It exits 1
if anything of the user is left, and `reap` then never hands the user to another student. Only
the standard library: it runs with `python -I`, nothing of the course imported.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat
import sys

KEYCTL = {"x86_64": 250, "aarch64": 219}  # the keyctl system call's number on each machine
KEYCTL_CLEAR, KEYCTL_GET_PERSISTENT = 7, 22
USER_KEYRINGS = (-4, -5)  # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING
IPC_RMID = 0
SYSV_KINDS = ("shm", "sem", "msg")  # /proc/sysvipc/<kind>: the machine's objects of each kind
# A folder, opened without following a link (nor waiting on a fifo put in its place).
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def clear_keyrings() -> list[str]:
    """Empty the user's keyrings (user, user-session and persistent); return those that would not
    be emptied. Their owner may have made them read-only (no write, no set-attribute: nobody,
    root included, can clear them until the machine restarts), so the user must be retired.
    Where keys are refused altogether (EPERM, ENOSYS: a seccomp filter, Docker's), no kernel of
    the user could have left one."""
    number = KEYCTL.get(platform.machine())
    if number is None:
        return []
    libc = ctypes.CDLL(None, use_errno=True)
    rings = list(USER_KEYRINGS)
    persistent = libc.syscall(number, KEYCTL_GET_PERSISTENT, -1, -1)  # linked to a thread ring
    if persistent > 0:
        rings.append(persistent)
    refused = []
    for ring in rings:
        if libc.syscall(number, KEYCTL_CLEAR, ring) != 0:
            error = ctypes.get_errno()
            if error not in (errno.EPERM, errno.ENOSYS):
                refused.append(f"keyring {ring}: {os.strerror(error)}")
    return refused


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
    `kernel_users.scratch_roots`) and in every folder below them that others may write too (a
    root-owned /tmp/.X11-unix, another user's folders made mode 777, however deeply nested).
    Where kernels are fenced (`kernel_start.fence`), none can make such a folder, so this walk
    meets the machine's folders only and no neighbour's kernel can hide a file from it or slow
    it. Returns what could not be removed (empty: nothing of this user is left there)."""
    failed: list[str] = []
    for root in roots:
        _remove_below(root, failed)
    return failed


def _remove_below(root: str, failed: list[str]) -> None:
    """Remove what is this user's in `root` and in every folder below it others may write, each
    listed once, with one folder open at a time and no recursion, so no depth is out of reach
    (another user's folders nested deeper than a limit hid a file before). Down by name,
    never through a link (`O_NOFOLLOW`, so never into the user's own working copy); back up by
    "..", which is no link, checked to be the very folder left: its owner may have moved the
    folders meanwhile, and then the reset fails rather than guess. A folder this user may not
    list (another's, mode 0773) is passed over."""
    folder = _open_wide(root, None)
    if folder is None:
        return
    trail: list[tuple[tuple[int, int], str, list[str]]] = []  # above: identity, name, to visit
    wide = _remove_mine(folder, lambda: root, failed)
    while wide or trail:
        if wide:
            name = wide.pop()
            inner = _open_wide(name, folder)
            if inner is not None:
                trail.append((_identity(folder), name, wide))
                os.close(folder)
                folder = inner
                path = lambda: "/".join([root, *(step[1] for step in trail)])  # noqa: E731
                wide = _remove_mine(folder, path, failed)
            continue
        identity, name, wide = trail.pop()
        above = os.open("..", FOLDER, dir_fd=folder)
        os.close(folder)
        folder = above
        if _identity(folder) != identity:
            failed.append(f"{root}/.../{name}: moved while the reset looked in it")
            break
    os.close(folder)


def _open_wide(name: str, parent: int | None) -> int | None:
    """The folder `name` (in the open `parent`, or a path) opened, if others may write it (as
    opened, not as listed: it may have been swapped), else None (gone, a link, closed to us)."""
    try:
        folder = os.open(name, FOLDER, dir_fd=parent)
    except OSError:
        return None
    if os.fstat(folder).st_mode & stat.S_IWOTH:
        return folder
    os.close(folder)
    return None


def _identity(folder: int) -> tuple[int, int]:
    status = os.fstat(folder)
    return status.st_dev, status.st_ino


def _remove_mine(folder: int, path, failed: list[str]) -> list[str]:
    """Remove this user's entries in the open `folder` (at `path()`, spelled out only for a
    failure: a deep folder's path is long); return the names of the folders in it others may
    write, to look in next. Only the user's own entries that would not go fail the reset:
    another's may go, or be swapped, meanwhile."""
    me, wide = os.getuid(), []
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
                    wide.append(entry.name)
            except OSError as error:
                if mine and not isinstance(error, FileNotFoundError):
                    failed.append(f"{path()}/{entry.name}: {error.strerror}")
    return wide


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
    left = clear_keyrings()
    remove_system_v_objects()
    left += remove_own_files(sys.argv[1:])
    if left:  # exit 1: `kernel_users.reap` must not hand this user on
        print(*left[:5], sep="\n")
        sys.exit(1)
