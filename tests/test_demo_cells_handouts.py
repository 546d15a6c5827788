"""The lessons as shipped: no demonstration the first run leaves out (`demo_cells.left_out`)
writes a file where the graded kernels look, or starts a process.

`demo_cells` keeps a handout cell that names a file or process function (`FILES`), because the
graded kernels run in the first run's working folder. `FILES` is a list of names, and a lesson
can write a file by a name not on it (sentencepiece's `model_prefix`, plotly's `write_html`...).
So each lesson runs here as the grader's first run would without leaving anything out (the
grader's set-up, check cells blanked), with an audit hook in the kernel (`sys.addaudithook`:
every open for writing, every file made, moved or removed, every process) and, after each cell,
a look at the working folder (what C and Rust code writes is audited by no hook). What the cells
left out did must stay inside the kernel's own scratch folder (`TMPDIR`, `HOME`: a box's
private /tmp when grading). A whole lesson runs: lesson 6 takes ~40 s of CPU, so `end_to_end`.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from lib import data
from lib.grading.demo_cells import handout_code, left_out
from lib.grading.notebook import handouts
from lib.grading.prepare import prepared
from lib.notebooks import execute

ROOT = Path(__file__).resolve().parent.parent
LESSONS = dict(handouts(ROOT / "notebooks"))

# Runs first in the kernel. `_red["cell"]` is the index of the lesson's cell running (None
# between cells); paths are made absolute when the event happens (a cell could change folder).
HOOK = r"""
import os as _red_os, sys as _red_sys
_red = {"cell": None, "events": [], "files": {}}
_RED_WRITES = _red_os.O_WRONLY | _red_os.O_RDWR | _red_os.O_CREAT | _red_os.O_APPEND
_RED_FILES = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.symlink", "os.link",
    "os.truncate", "os.chmod", "os.chown", "os.mkfifo", "os.mknod", "shutil.copyfile",
    "shutil.copytree", "shutil.move", "shutil.rmtree", "shutil.make_archive",
    "shutil.unpack_archive", "sqlite3.connect"}
_RED_PROCESSES = {"os.chdir", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
    "os.spawn", "os.fork", "os.forkpty", "pty.spawn", "os.kill", "os.killpg"}
def _red_path(path, os=_red_os):
    if isinstance(path, (str, bytes, os.PathLike)):
        return os.path.abspath(os.fsdecode(path))
    return repr(path)  # a descriptor: no name to judge, so never in the scratch folder
def _red_hook(event, args, red=_red):
    if red["cell"] is None:
        return
    if event == "open":
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _RED_WRITES)
        if writes:
            red["events"].append([red["cell"], event, _red_path(path)])
    elif event in _RED_FILES:
        red["events"].append([red["cell"], event, _red_path(args[0])])
    elif event in _RED_PROCESSES:
        red["events"].append([red["cell"], event, repr(args)[:200]])
_red_sys.addaudithook(_red_hook)
def _red_files():
    found = {}
    for top, folders, files in _red_os.walk(_red_os.getcwd()):
        for name in folders + files:
            status = _red_os.lstat(_red_os.path.join(top, name))
            found[_red_os.path.join(top, name)] = [status.st_size, status.st_mtime_ns]
    return found
_red["files"] = _red_files()
"""
BEFORE = "_red['cell'] = {index}"
AFTER = """\
_red_cell, _red["cell"] = _red["cell"], None
_red_now = _red_files()
for _red_name in sorted(set(_red_now) | set(_red["files"])):
    if _red_now.get(_red_name) != _red["files"].get(_red_name):
        _red["events"].append([_red_cell, "changed in the working folder", _red_name])
_red["files"] = _red_now"""
REPORT = "import json as _red_json\nprint(_red_json.dumps(_red['events']))"


def traced(notebook: nbformat.NotebookNode, cwd: Path) -> list[list]:
    """Run `notebook` as the grader's first run would, every cell, in `cwd`: what each cell did
    to files and processes, as [cell index, event, path or arguments]."""
    run = prepared(copy.deepcopy(notebook))
    cells = [new_code_cell(HOOK)]
    for index, cell in enumerate(run.cells):
        if cell.cell_type == "code" and cell.source.strip():
            cells += [new_code_cell(BEFORE.format(index=index)), cell, new_code_cell(AFTER)]
    run.cells = [*cells, new_code_cell(REPORT)]
    execute(run, cwd, timeout=600)
    return json.loads(run.cells[-1].outputs[0]["text"])


def outside(notebook: nbformat.NotebookNode, tmp: Path, monkeypatch) -> list[str]:
    """What the cells `left_out` leaves out of `notebook` (as handed out) did to files outside
    the kernel's scratch folder, or to processes, when every cell ran (`traced`)."""
    work, scratch = tmp / "work", tmp / "scratch"
    work.mkdir(), scratch.mkdir()
    for name, folder in (("HOME", ""), ("TMPDIR", ""), ("IPYTHONDIR", "/ipython")):
        monkeypatch.setenv(name, f"{scratch}{folder}")  # as the grader's kernels have them
    skipped = left_out(notebook, handout_code([(0, notebook)])[0])
    return [
        f"cell {c} ({notebook.cells[c].source.splitlines()[0][:50]}): {what} {path}"
        for c, what, path in traced(notebook, work)
        if c in skipped and not path.startswith(f"{scratch}/")
    ]


def test_the_trace_sees_what_a_demonstration_left_out_writes(tmp_path, monkeypatch):
    """The check below can fail: two demonstrations the first run leaves out write files by
    names `FILES` does not list, one of them from C (sqlite)."""
    cells = [
        "import sqlite3, zipfile",
        "sqlite3.connect('runs.db').execute('create table t (x)').connection.commit()",
        "with zipfile.ZipFile('corpus.zip', 'w') as pack:\n    pack.writestr('a', 'b')",
    ]
    notebook = nbformat.v4.new_notebook(cells=[new_code_cell(c) for c in cells])
    found = "\n".join(outside(notebook, tmp_path, monkeypatch))
    for what in ("cell 1 (sqlite3.connect", "runs.db", "cell 2 (with zipfile", "corpus.zip"):
        assert what in found


# Every lesson run whole under the hook: ~170 CPU s, too much for every run of the suite. Asked
# for after a change to a lesson's demonstrations or to `demo_cells` (see the README's tests).
AUDIT = "COURSE_AUDIT_HANDOUTS"


@pytest.mark.end_to_end
@pytest.mark.skipif(
    os.environ.get(AUDIT) != "1",
    reason=f"runs every lesson whole (~170 CPU s): {AUDIT}=1 python -m pytest "
    "tests/test_demo_cells_handouts.py",
)
@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_no_demonstration_left_out_writes_a_file_or_starts_a_process(lesson, tmp_path, monkeypatch):
    data.fetch_all()  # as the grader does first: no cell fills the cache while it runs
    handout = handout_code([(lesson, LESSONS[lesson])])[lesson]
    assert left_out(LESSONS[lesson], handout), "the lesson as handed out leaves cells out"
    assert outside(LESSONS[lesson], tmp_path, monkeypatch) == []
