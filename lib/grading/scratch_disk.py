"""A filesystem of its own for each working copy, limited in size and in files, as the box's /tmp.

A submission's working copy (its files, the kernel's sockets, its scratch folder) lies in a
temporary folder of the grader's. On the grader's own disk a notebook could fill that disk (and
with it `--out`: every student's grade lost) or make 400,000 empty files that the grader then
spends seconds removing. Where the grader runs as root and may mount (not in an unprivileged
container such as Gradescope's), the folder becomes a small tmpfs of its own: a full disk or too
many files is then that notebook's error (`No space left on device`) and nobody else's, and
removing it is one unmount, however many files it holds. Elsewhere `mount` returns False and the
folder is an ordinary one, removed file by file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

SIZE_MB = 1024  # as the box's /tmp; lives in memory, counted in the box's memory cgroup
FILES = 50_000  # files and folders: a student's folder copies up to 10,000 (`prepare.MAX_FILES`)


def mount(folder: Path) -> bool:
    """Mount a tmpfs of `SIZE_MB` and `FILES` on the empty `folder`; False where we cannot."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    options = f"size={SIZE_MB}m,nr_inodes={FILES},mode=0700,nosuid,nodev"
    command = ["mount", "-t", "tmpfs", "-o", options, "course-grade", str(folder)]
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        return subprocess.run(command, capture_output=True, timeout=30).returncode == 0
    return False


def remove(folder: Path) -> None:
    """Remove the working copy: unmount its tmpfs (everything in it goes at once), or delete it."""
    if os.path.ismount(folder):
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, timeout=30)
    shutil.rmtree(folder, ignore_errors=True)
