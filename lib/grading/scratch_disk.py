"""A filesystem of its own for each working copy, limited in size and in files, as the box's /tmp.

A submission's working copy (its files, the kernel's sockets, its scratch folder) lies in a
temporary folder of the grader's. On the grader's own disk a notebook could fill that disk (and
with it `--out`: every student's grade lost) or make 400,000 empty files that the grader then
spends seconds removing. Where the grader runs as root and may mount (not in an unprivileged
container such as Gradescope's), the folder becomes a small tmpfs of its own: a full disk or too
many files is then that notebook's error (`No space left on device`) and nobody else's, and
removing it is one unmount, however many files it holds. Elsewhere `mount` returns False and the
folder is an ordinary one, removed file by file.

A grader killed mid-run (SIGKILL, the machine's OOM killer) cannot unmount its copies: each would
hold up to `SIZE_MB` of memory until the machine restarts. So each mount is named after the
grader that made it (its process id and start time), and every `mount` first unmounts the
course's mounts whose grader is gone (`remove_stale`): only ours, only dead graders'.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from lib.grading.user_reset import remove_tree

SIZE_MB = 1024  # as the box's /tmp; lives in memory, counted in the box's memory cgroup
FILES = 50_000  # files and folders: a student's folder copies up to 10,000 (`prepare.MAX_FILES`)
SOURCE = "course-grade"  # the mounts' source, then "-<grader's pid>-<its start time>"
OURS = re.compile(rf"{SOURCE}-(\d+)-(\d+)")


def mount(folder: Path) -> bool:
    """Mount a tmpfs of `SIZE_MB` and `FILES` on the empty `folder`; False where we cannot."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    remove_stale()
    options = f"size={SIZE_MB}m,nr_inodes={FILES},mode=0700,nosuid,nodev"
    source = f"{SOURCE}-{os.getpid()}-{_started(os.getpid())}"
    command = ["mount", "-t", "tmpfs", "-o", options, source, str(folder)]
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        return subprocess.run(command, capture_output=True, timeout=30).returncode == 0
    return False


def remove(folder: Path) -> None:
    """Remove the working copy: unmount its tmpfs (everything in it goes at once), or delete it
    file by file, however deep its folders nest (`remove_tree` does not recurse). Never raises:
    what could not be removed costs disk, never the student's record; `rm` tries it last."""
    if os.path.ismount(folder):
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, timeout=30)
    try:
        remove_tree(str(folder))
    except FileNotFoundError:
        pass
    except Exception:  # noqa: BLE001  (whatever it was, the grading goes on)
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            rm = ["rm", "-rf", "--one-file-system", "--", str(folder)]
            subprocess.run(rm, capture_output=True, timeout=300)


def remove_stale() -> list[Path]:
    """Unmount and remove the working copies of graders that are gone (killed before they could:
    their tmpfs would keep its memory). Returns the folders removed."""
    removed = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split(" - ", 1)[-1].split()  # after the separator: type, source, options
        owner = OURS.fullmatch(fields[1]) if fields[0] == "tmpfs" and len(fields) > 1 else None
        if owner is None or _started(int(owner[1])) == int(owner[2]):
            continue  # not ours, or its grader still runs
        folder = Path(_unescaped(line.split()[4]))
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, timeout=30)
            folder.rmdir()  # empty beneath: made by mkdtemp, all else went into the tmpfs
            removed.append(folder)
    return removed


def _started(pid: int) -> int:
    """When process `pid` started (clock ticks since boot; -1 if there is no such process): with
    the pid, it names a process even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(stat.rsplit(")", 1)[1].split()[19])  # field 22, counted after the command name


def _unescaped(path: str) -> str:
    """A mount point as /proc/self/mountinfo writes it (space, tab, newline, backslash octal)."""
    return re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal[1], 8)), path)
