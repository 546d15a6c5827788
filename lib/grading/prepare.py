"""What runs in a student's kernel: a copy of the submission, and its notebook with the set-up
cell pointed at the instructor's course and the check cells left out.

Check cells (`ex.name.check()` and the like) would compute expected answers inside the student's
kernel, where the student's code could read or change them; the grader judges outside instead.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import nbformat

from lib.grading import sandbox, scratch_disk
from lib.grading.submissions import Submission
from lib.notebooks import SETUP_CELL

ROOT = Path(__file__).resolve().parents[2]  # the instructor's repository: its `lib` is the judge
# Stands in for the lessons' set-up cell, which looks for the course folder above the working
# folder (not there in a temporary copy). Same imports, so later cells find what they expect.
GRADER_SETUP = """\
import importlib.util, os, pathlib, re, subprocess, sys
root = pathlib.Path({root!r})
if str(root) not in sys.path:
    sys.path.insert(0, str(root))"""
MAX_FILES = 10_000  # entries of a student's folder copied for its kernel
MAX_DEPTH = 32  # folders within folders: the copy holds a descriptor open for each level
MAX_FILE_BYTES = sandbox.Caps().file_mb * 2**20  # larger: no kernel could write it, left out
MAX_COPY_BYTES = scratch_disk.SIZE_MB * 2**20  # the whole copy: what its own disk holds
CHECK_CALL = re.compile(r"\w+\.\w+\.(check\(\)|hint\(\d*\)|solution\(\))\s*(#.*)?")


def is_setup_cell(source: str) -> bool:
    """Is this the lessons' standard set-up cell? Its first words ("# Set-up: run this cell
    first") are enough: the notebooks handed out may have an older version of the rest."""
    return source.strip().startswith(SETUP_CELL.split(".")[0])


def is_check_cell(source: str) -> bool:
    """Only `ex.name.check()` (or `.hint()`, `.solution()`) calls and comments? Such a cell would
    compute the expected answers inside the student's kernel, so the grader leaves it out."""
    lines = [line.strip() for line in source.splitlines()]
    calls = [line for line in lines if line and not line.startswith("#")]
    return bool(calls) and all(CHECK_CALL.fullmatch(line) for line in calls)


def prepared(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook as it will run: outputs dropped, the set-up cell replaced by `GRADER_SETUP`,
    check cells left out."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            if is_setup_cell(cell.source):
                cell.source = GRADER_SETUP.format(root=str(ROOT))
            elif is_check_cell(cell.source):
                cell.source = ""
    return notebook


class TooManyFiles(Exception):
    """A student's folder holds more files than any lesson needs (`MAX_FILES`), folders nested
    deeper (`MAX_DEPTH`) or more bytes (`MAX_COPY_BYTES`)."""


def working_copy(submission: Submission, tmp: Path, left_out: list[str] | None = None) -> Path:
    """Copy the submission into `tmp/work` and return the folder its notebook runs in. Only
    folders and regular files are copied: a symbolic link could point anywhere, and a named pipe
    would hang the copy. More than `MAX_FILES` entries raise `TooManyFiles`: copying, handing
    over and removing them is the grader's time, spent before any limit of the kernel's. So
    are bytes: a file larger than `MAX_FILE_BYTES` is left out (a sparse file of 1 TB takes no
    disk in the student's folder, and all of it in a copy), named in `left_out`; more than
    `MAX_COPY_BYTES` in all raise `TooManyFiles`.

    The student's folder may be writable by a kernel's user (an upload anyone may write, on a
    machine without namespaces), and such a user's process may still run while we copy: a name
    looked at first and copied after could be a link by then, to a file only root may read. So
    nothing is looked at by name and then used: each entry is opened once, relative to its
    folder's descriptor and never through a link (`O_NOFOLLOW`), and what that descriptor is
    decides whether it is copied, read from that same descriptor."""
    work = tmp / "work"
    if submission.folder is None:  # the notebook alone: its folder is the instructor's
        work.mkdir(parents=True)
        if not _copy_file(os.open(submission.path, _FILE), work / "notebook.ipynb"):
            raise OSError(f"{submission.path.name} is no longer a regular file")
        return work
    folder = os.open(submission.folder, _FOLDER)  # the student's own folder, not a link
    _copy_folder(folder, work, _Tally(work, [] if left_out is None else left_out), MAX_DEPTH)
    return work / submission.path.relative_to(submission.folder).parent


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO opens, unread


class _Tally:
    """What a copy has taken so far: entries, bytes, and the files it left out."""

    def __init__(self, root: Path, left_out: list[str]) -> None:
        self.entries, self.bytes, self.root, self.left_out = 0, 0, root, left_out


def _copy_folder(folder: int, target: Path, seen: _Tally, depth: int) -> None:
    """Copy what the open `folder` holds into a new folder `target` (closing `folder`);
    `seen` counts entries against `MAX_FILES` and bytes, `depth` the levels of folders still
    allowed. Whatever cannot be opened is left out; a failure to write (a full disk) raises."""
    try:
        if depth == 0:
            raise TooManyFiles(f"the student's folder nests more than {MAX_DEPTH} folders deep")
        target.mkdir(parents=True)
        with os.scandir(folder) as entries:
            for entry in entries:
                seen.entries += 1
                if seen.entries > MAX_FILES:
                    raise TooManyFiles(f"the student's folder holds more than {MAX_FILES:,} files")
                # What the entry was when listed: only folders and files are even opened
                # (opening a device could do something); what it is when opened decides.
                kind = entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False)
                if entry.name == ".ipynb_checkpoints" or not kind:
                    continue
                try:
                    fd = os.open(entry.name, _FILE, dir_fd=folder)
                except OSError:  # a link by now (ELOOP), gone, unreadable: left out
                    continue
                status = os.fstat(fd)
                if stat.S_ISDIR(status.st_mode):
                    _copy_folder(fd, target / entry.name, seen, depth - 1)
                elif status.st_size > MAX_FILE_BYTES:
                    os.close(fd)
                    seen.left_out.append(str((target / entry.name).relative_to(seen.root)))
                else:
                    seen.bytes += status.st_size
                    if seen.bytes > MAX_COPY_BYTES:
                        os.close(fd)
                        raise TooManyFiles(
                            f"the student's folder holds more than {MAX_COPY_BYTES // 2**20:,} MB"
                        )
                    _copy_file(fd, target / entry.name)
    finally:
        os.close(folder)


def _copy_file(fd: int, target: Path) -> bool:
    """Copy the open `fd` to `target` if it is a regular file (closing `fd`): its contents,
    permission bits (none for others to write, no set-uid) and modification time. False
    (nothing written) for anything else."""
    with os.fdopen(fd, "rb") as source:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return False
        with open(target, "xb") as copy:
            shutil.copyfileobj(source, copy, 2**20)
            os.fchmod(copy.fileno(), stat.S_IMODE(status.st_mode) & 0o755)
        os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))
    return True


def unboxed_env(tmp: Path, import_paths: tuple[str, ...]) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*import_paths, *filter(None, [env.get("PYTHONPATH")])])
    env.update(
        IPYTHONDIR=str(tmp / "ipython"), PYTHONHASHSEED="0", PYTHONNOUSERSITE="1", MPLBACKEND="Agg"
    )
    return env
