"""The Gradescope bundle in a container that refuses namespaces, as Docker's default profile (and
Gradescope's) does: a `bwrap` that fails as it fails there comes first on PATH. Each kernel then
runs as an unprivileged user of its own, and three attacks must leave the grade honest: a daemon
left behind to rewrite results.json, a write into the Python environment's packages, a write
into the grader's `lib`. One lesson 3 notebook, solved and cut to its exercises, makes all three
(one Gradescope run: each attack's check reads what the run left, not the score alone).
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


# Each write in a cell of its own, whose first line names it in the run's events.
WRITES = {
    "venv": f"# into the Python environment\nimport pathlib\n"
    f"pathlib.Path({str(PLANTED)!r}).write_text('x = 1')",
    "lib": "# into the grader's lib\nimport pathlib\n"
    "core = pathlib.Path('/autograder/source/lib/exercises/core.py')\n"
    f"core.write_text(core.read_text() + {FULL_MARKS!r})",
}


def attacked() -> nbformat.NotebookNode:
    """Lesson 3 solved and cut to its set-up, imports and exercise cells (the demonstrations would
    only cost time), with the daemon and the two writes added: one run makes all three attacks,
    and the grade must stay the honest one."""
    notebook = lesson3(solved=True)
    exercises = [c for c in notebook.cells if c.metadata.get("exercise")]
    hostile = [new_code_cell(cell) for cell in (DAEMON, *WRITES.values())]
    notebook.cells = notebook.cells[:3] + exercises + hostile
    return notebook


def test_without_namespaces_each_kernel_is_an_unprivileged_user_and_the_grade_holds(tmp_path):
    fake = tmp_path / "docker-bin"
    fake.mkdir()
    (fake / "bwrap").write_text(DOCKER_BWRAP)
    (fake / "bwrap").chmod(0o755)
    source, env = unpacked_bundle(tmp_path)
    env["PATH"] = f"{fake}:{env['PATH']}"
    root = tmp_path / "autograder"
    process = start_autograder(source, root, attacked(), env)
    upload = root / "submission"  # as an upload anyone may write: the grader (still starting
    for path in (upload, *upload.iterdir()):  # Python) takes that off before copying
        path.chmod(0o777)
    try:
        results = finished(root, process)
        time.sleep(2)  # a daemon still alive would have rewritten results.json by now
        rewritten = json.loads((root / "results" / "results.json").read_text())
        survivors = subprocess.run(["pgrep", "-f", f"daemon-{TOKEN}"], capture_output=True)
        planted = PLANTED.exists()
    finally:
        PLANTED.unlink(missing_ok=True)

    assert survivors.stdout == b"", "the daemon outlived the grading"
    assert rewritten == results
    # Full marks and no more: a write into lib that held would also show as a changed lib.
    assert results["score"] == float(sum(e.points for e in for_lesson(3))), results
    assert "ran as an unprivileged user of its own" in results["output"], results["output"]
    assert not planted, "the kernel wrote into the Python environment"
    assert all(not p.stat().st_mode & 0o022 for p in (upload, *upload.iterdir()))
    assert fingerprint(root / "source" / "lib") == fingerprint(source / "lib"), "lib changed"
    for cell in WRITES.values():  # refused by the system, not just noticed afterwards
        refused = f"(`{cell.splitlines()[0]}`) raised PermissionError"
        assert refused in results["output"], results["output"]
