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
    """A student's folder holds more files than any lesson needs (`MAX_FILES`)."""


def working_copy(submission: Submission, tmp: Path) -> Path:
    """Copy the submission into `tmp/work` and return the folder its notebook runs in. Only
    folders and regular files are copied: a symbolic link could point anywhere, and a named pipe
    would hang the copy. More than `MAX_FILES` entries raise `TooManyFiles`: copying, handing
    over and removing them is the grader's time, spent before any limit of the kernel's."""
    work = tmp / "work"
    if submission.folder is None:
        work.mkdir()
        shutil.copyfile(submission.path, work / "notebook.ipynb")
        return work
    seen = 0

    def skipped(folder: str, names: list[str]) -> list[str]:
        nonlocal seen
        seen += len(names)
        if seen > MAX_FILES:
            raise TooManyFiles(f"the student's folder holds more than {MAX_FILES:,} files")
        kinds = {name: os.lstat(os.path.join(folder, name)).st_mode for name in names}
        return [
            name
            for name, mode in kinds.items()
            if name == ".ipynb_checkpoints" or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
        ]

    shutil.copytree(submission.folder, work, ignore=skipped)
    return work / submission.path.relative_to(submission.folder).parent


def unboxed_env(tmp: Path, import_paths: tuple[str, ...]) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*import_paths, *filter(None, [env.get("PYTHONPATH")])])
    env.update(
        IPYTHONDIR=str(tmp / "ipython"), PYTHONHASHSEED="0", PYTHONNOUSERSITE="1", MPLBACKEND="Agg"
    )
    return env
