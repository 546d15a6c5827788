"""Own-user mode (no namespaces) with a Python under a folder the sandbox user cannot pass through,
as pyenv's under /root (mode 0700) on the course's own machines. `setpriv` keeps root's
capabilities until its exec, so the kernel starts; the kernel then cannot start Python: lesson
8 lost 4 cells to `PermissionError: '/work/venv/bin/python'` and the instructor was told nothing.
Now the grader probes it before anyone is graded, and refuses, naming the folder, unless told
to go on; then the summaries say it first. Needs root (sandbox users); never changes /root.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from lib.grading import gradescope, protections, python_reach, sandbox, user_python

AS_ROOT = os.geteuid() == 0 and shutil.which("setpriv") is not None
pytestmark = pytest.mark.skipif(not AS_ROOT, reason="needs root and setpriv (sandbox users)")


def _blocked_here() -> str:
    """Why this machine's kernels could not start this Python in own-user mode ("" if they can)."""
    return user_python.blocked() if AS_ROOT else ""


# For the own-user tests whose kernels start Python (exec, not fork): on a machine where they
# cannot, such a test would fail, or pass for the wrong reason (a daemon that never started).
needs_a_reachable_python = pytest.mark.skipif(
    bool(_blocked_here()),
    reason="a sandbox user cannot start this Python from its own process here, so own-user "
    "kernels cannot start one: make the folders on its way passable (`.ci/run` runs `chmod o+x` "
    f"on them: README, 'Run every test'). The grader says: {_blocked_here()[:300]}",
)


@pytest.fixture
def private_venv():
    """A venv-like Python, `venv/bin/python` linking to this one's real file, in a folder of mode
    0700 inside a folder every user may pass through (pytest's own folders are private too)."""
    top = Path(tempfile.mkdtemp(prefix="course-private-python-"))
    try:
        top.chmod(0o755)
        private = top / "private"
        (private / "venv" / "bin").mkdir(parents=True)
        (private / "venv" / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
        private.chmod(0o700)
        yield private, str(private / "venv" / "bin" / "python")
    finally:
        shutil.rmtree(top)


@pytest.fixture
def no_namespaces(monkeypatch):
    """As in Docker: bubblewrap cannot make its namespaces, so kernels run as users of their own."""

    def refused() -> None:
        raise sandbox.SandboxUnavailable("no namespaces here")

    monkeypatch.setattr(sandbox, "check_available", refused)


def test_the_probe_finds_the_folder_that_blocks_a_users_python(private_venv, monkeypatch):
    private, python = private_venv
    monkeypatch.setattr(sys, "executable", python)
    # setpriv still starts it: the old check, alone, let the whole class be graded
    assert sandbox.kernel_users.a_user_can_start(python)
    said = user_python.blocked()
    assert said.startswith("KERNELS CANNOT START PYTHON"), said
    assert f"{private} is closed to other users" in said
    assert f"chmod o+x {private}" in said and "Permission denied" in said


def test_a_python_every_user_reaches_is_not_blocked():
    """The probe can say yes: the system's Python, under folders every user passes."""
    system = "/usr/bin/python3"
    if not os.path.exists(system) or python_reach.blocking_folder(os.path.realpath(system)):
        pytest.skip("no system Python every user reaches")
    assert user_python._probe(system) == ""


def test_blocking_folder_follows_links_as_exec_does(tmp_path):
    """Root passes every folder: the walk itself is checked on a chain of links."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "python").write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(tmp_path / "real" / "python")
    (tmp_path / "bin" / "python").symlink_to("python3")
    assert python_reach.blocking_folder(str(tmp_path / "bin" / "python")) is None


def test_without_a_box_grading_is_refused_before_anyone(private_venv, no_namespaces, monkeypatch):
    private, python = private_venv
    monkeypatch.setattr(sys, "executable", python)
    with pytest.raises(sandbox.SandboxUnavailable, match="--allow-blocked-python") as refused:
        sandbox.choose(own_user_fallback=True)
    assert f"chmod o+x {private}" in str(refused.value)


def test_on_gradescope_the_output_says_why_and_no_one_is_graded(
    private_venv, no_namespaces, monkeypatch, tmp_path
):
    """As run_autograder calls it: results.json says what blocks the kernels, and grades no one."""
    private, python = private_venv
    monkeypatch.setattr(sys, "executable", python)
    submission = tmp_path / "submission"
    submission.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), submission / "lesson1.ipynb")
    results = gradescope.run(submission, tmp_path / "results" / "results.json")
    assert results["score"] == 0 and "KERNELS CANNOT START PYTHON" in results["output"]
    assert f"chmod o+x {private}" in results["output"], results["output"]


def test_told_to_go_on_it_warns_now_and_the_protections_line_says_it_first(
    private_venv, no_namespaces, monkeypatch, capsys
):
    private, python = private_venv
    monkeypatch.setattr(sys, "executable", python)
    assert sandbox.choose(own_user_fallback=True, allow_blocked_python=True) is False
    assert "WARNING: KERNELS CANNOT START PYTHON" in capsys.readouterr().err
    graded = [{"outcome": "graded", "protections": [protections.OWN_USER]}]
    line = protections.line(True, graded)
    assert line.startswith("Protections in force: KERNELS CANNOT START PYTHON"), line
    assert str(private) in line


def test_told_to_go_on_gradescope_says_it_first(private_venv, no_namespaces, monkeypatch, tmp_path):
    """Where the student and the instructor look first: before the score's reasons. The grading
    itself (a whole lesson 8 run, a minute, where 4 cells raise PermissionError) and the write
    permissions taken off the Python's folder (this machine's shared venv) are left out."""
    private, python = private_venv
    monkeypatch.setattr(sys, "executable", python)
    monkeypatch.setattr(gradescope, "grade_submissions", lambda *args, **kwargs: [])
    monkeypatch.setattr(gradescope, "_not_writable_by_others", lambda folders: None)
    submission = tmp_path / "submission"
    submission.mkdir()
    results_path = tmp_path / "results" / "results.json"
    results = gradescope.run(submission, results_path, allow_blocked_python=True)
    assert results["output"].startswith("KERNELS CANNOT START PYTHON"), results["output"]
    assert f"chmod o+x {private}" in results["output"]
