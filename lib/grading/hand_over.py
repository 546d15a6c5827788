"""Root's only dealings with the folders a kernel's own user writes in: handing them over once,
and writing the one file root puts there later, the kernel's connection file.

Whatever root does by path inside a folder that user can write can be turned against root: a
folder swapped for a symbolic link half-way through a walk sends root's next `chown` into the
grader's own Python environment, and a folder of 100,000 hard links makes a walk take seconds.
Without namespaces (Gradescope) a daemon of the user even outlives a kernel restart to do it.
So root walks a folder only while it is new and no process of that user can reach it (before the
kernel starts), and never after; every change goes through a descriptor of the folder it is in,
with no link followed. At each kernel start root only writes the connection file afresh.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def give_to(uid: int | None, *folders: Path) -> None:
    """Hand `folders`, and everything in them, to `uid` (None: we are not root, nothing to do).

    Only for folders root has just made and that no process of `uid` can reach yet: the
    working copy (at most `prepare.MAX_FILES` entries), the runtime and scratch folders, still
    empty. Even so each entry is changed through its folder's descriptor, without following
    links, and a folder only after what it holds: nothing becomes the user's mid-walk."""
    if uid is None:
        return
    for folder in folders:
        for _, _, names, fd in os.fwalk(folder, topdown=False):  # names: all but folders
            for name in names:
                os.chown(name, uid, uid, dir_fd=fd, follow_symlinks=False)
            os.fchown(fd, uid, uid)


def write_owned(folder: Path, name: str, text: str, uid: int | None) -> None:
    """Write `folder/name` afresh, readable and writable by `uid` only (by us when None).

    `folder` is the user's, so whatever `name` is now (a link, a FIFO, a file with other links)
    is removed, not followed, and the new file is made with `O_EXCL | O_NOFOLLOW`: if the user
    puts something there in between, this raises `FileExistsError` and writes nothing. The file
    is handed over through its descriptor."""
    directory = os.open(folder, _FOLDER)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=directory)  # unlinkat: removes a link itself
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(name, flags, 0o600, dir_fd=directory)
    finally:
        os.close(directory)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
        if uid is not None:
            os.fchown(fd, uid, uid)
