"""What runs in a student's kernel: a copy of the submission, and its notebook with the set-up
cell pointed at the instructor's course and the check cells left out.

Check cells (`ex.name.check()` and the like) would compute expected answers inside the student's
kernel, where the student's code could read or change them; the grader judges outside instead.
"""

from __future__ import annotations

import os
import re
import shutil
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


def working_copy(submission: Submission, tmp: Path) -> Path:
    """Copy the submission into `tmp/work` and return the folder its notebook runs in. Symbolic
    links are left out: they could point anywhere."""
    work = tmp / "work"
    if submission.folder is None:
        work.mkdir()
        shutil.copyfile(submission.path, work / "notebook.ipynb")
        return work

    def skipped(folder: str, names: list[str]) -> list[str]:
        return [
            name
            for name in names
            if name == ".ipynb_checkpoints" or os.path.islink(os.path.join(folder, name))
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
