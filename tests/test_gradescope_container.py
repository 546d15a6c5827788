"""The Gradescope bundle in a container that refuses namespaces, as Docker's default profile (and
Gradescope's) does: a `bwrap` that fails as it fails there comes first on PATH. Each kernel then
runs as an unprivileged user of its own, and three attacks must leave the grade honest: a daemon
left behind to rewrite results.json, a write into the Python environment's packages, a write
into the grader's `lib`. Three lesson 3 notebooks at once, cut to their exercises.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import sysconfig
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from lib.exercises import for_lesson
from tests.test_gradescope import (
    FORGED,
    FULL_MARKS,
    fingerprint,
    finished,
    lesson3,
    start_autograder,
    unpacked_bundle,
)
from tests.test_user_python import needs_a_reachable_python

pytestmark = [
    pytest.mark.end_to_end,
    pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap (`bwrap`) on PATH"),
    needs_a_reachable_python,  # the daemon's kernel starts Python (exec) as its own user
]
DOCKER_BWRAP = """#!/bin/sh
echo 'bwrap: Creating new namespace failed: Operation not permitted' >&2
exit 1
"""
TOKEN = secrets.token_hex(8)  # names this run's daemon and planted file
PLANTED = Path(sysconfig.get_paths()["purelib"], f"course_planted_{TOKEN}.py")
DAEMON = f"""
import json, os, pathlib, sys, time
loop = '''
import json, pathlib, time
target = pathlib.Path("/autograder/results/results.json")
for _ in range(2400):
    try:
        if target.exists():
            target.write_text(json.dumps({FORGED!r}))
    except OSError:
        pass
    time.sleep(0.05)
'''
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", loop, "daemon-{TOKEN}"])
    os._exit(0)
time.sleep(0.2)
"""


def attacked(cell: str, solved: bool = False) -> nbformat.NotebookNode:
    """Lesson 3 cut to its set-up, imports and exercise cells (solved, or stubs: it earns 0; the
    demonstrations would only cost time), with one hostile cell added."""
    notebook = lesson3(solved)
    exercises = [c for c in notebook.cells if c.metadata.get("exercise")]
    notebook.cells = notebook.cells[:3] + exercises + [new_code_cell(cell)]
    return notebook


def test_without_namespaces_each_kernel_is_an_unprivileged_user_and_the_grade_holds(tmp_path):
    fake = tmp_path / "docker-bin"
    fake.mkdir()
    (fake / "bwrap").write_text(DOCKER_BWRAP)
    (fake / "bwrap").chmod(0o755)
    source, env = unpacked_bundle(tmp_path)
    env["PATH"] = f"{fake}:{env['PATH']}"
    notebooks = {
        "daemon": attacked(DAEMON, solved=True),
        "venv": attacked(f"import pathlib\npathlib.Path({str(PLANTED)!r}).write_text('x = 1')"),
        "lib": attacked(
            "import pathlib\ncore = pathlib.Path('/autograder/source/lib/exercises/core.py')\n"
            f"core.write_text(core.read_text() + {FULL_MARKS!r})"
        ),
    }
    runs = {}
    for name, notebook in notebooks.items():
        root = tmp_path / name / "autograder"
        runs[name] = (root, start_autograder(source, root, notebook, env))
    upload = runs["daemon"][0] / "submission"  # as an upload anyone may write: the grader (still
    for path in (upload, *upload.iterdir()):  # starting Python) takes that off before copying
        path.chmod(0o777)
    try:
        results = {name: finished(root, process) for name, (root, process) in runs.items()}
        time.sleep(2)  # a daemon still alive would have rewritten results.json by now
        rewritten = {
            name: json.loads((root / "results" / "results.json").read_text())
            for name, (root, _) in runs.items()
        }
        survivors = subprocess.run(["pgrep", "-f", f"daemon-{TOKEN}"], capture_output=True)
        planted = PLANTED.exists()
    finally:
        PLANTED.unlink(missing_ok=True)

    assert survivors.stdout == b"", "the daemon outlived the grading"
    assert rewritten == results
    points = sum(e.points for e in for_lesson(3))
    scores = {name: result["score"] for name, result in results.items()}
    assert scores == {"daemon": float(points), "venv": 0.0, "lib": 0.0}, results
    for result in results.values():
        assert "ran as an unprivileged user of its own" in result["output"], result["output"]
    assert not planted, "the kernel wrote into the Python environment"
    assert all(not p.stat().st_mode & 0o022 for p in (upload, *upload.iterdir()))
    lib_root = runs["lib"][0] / "source" / "lib"
    assert fingerprint(lib_root) == fingerprint(source / "lib"), "the kernel changed lib"
    for name in ("venv", "lib"):  # refused by the system, not just noticed afterwards
        assert "raised PermissionError" in results[name]["output"], results[name]["output"]
