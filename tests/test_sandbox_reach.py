"""What a sandboxed kernel can reach and what it leaves behind, checked on the sandbox alone
(no notebook, no kernel): the box shows the course's packages and data but not the rest of the
repository, where the README puts submissions and grades; and after `reap` nothing of a sandbox
user is left for the next student (processes, keyrings, scratch files). Needs root and bwrap.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib.grade import grade_submissions
from lib.grading import sandbox

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(
        os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root and bubblewrap"
    ),
]
ROOT = Path(__file__).resolve().parent.parent


def course_repository(tmp_path: Path) -> Path:
    """A course repository laid out as the README's example: the course, then the class's
    submissions and the grades beside it."""
    repo = tmp_path / "course"
    shutil.copytree(ROOT / "lib", repo / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "datasets").mkdir()
    (repo / "datasets" / "manifest.json").write_text("{}")
    planted = {"submissions/alice.ipynb": "alice's work", "grades/totals.csv": "a,8"}
    for name, text in planted.items():
        (repo / name).parent.mkdir()
        (repo / name).write_text(text)
        (repo / name).chmod(0o644)
    return repo


def boxed(
    code: str, import_paths: tuple[str, ...], tmp_path: Path, user: sandbox.OwnUser | None = None
) -> subprocess.CompletedProcess:
    """Run Python `code` in a box as a kernel would be (own user, same binds)."""
    work, runtime = tmp_path / "work", tmp_path / "runtime"
    work.mkdir(exist_ok=True)
    runtime.mkdir(exist_ok=True)
    user = user or sandbox.OwnUser()
    try:
        sandbox.give_to(user.uid, work, runtime)
        readonly = sandbox.readonly_paths(import_paths)
        command = sandbox.command(
            [sys.executable, "-c", code], work, runtime, readonly, sandbox.Caps(), user.uid
        )
        env = sandbox.environment(import_paths)
        return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    finally:
        user.release()


def test_the_box_shows_the_course_but_not_the_submissions_beside_it(tmp_path):
    repo = course_repository(tmp_path)
    code = (
        "import pathlib, lib.bpe\n"
        f"repo = pathlib.Path({str(repo)!r})\n"
        "print(sorted(p.name for p in repo.iterdir()))\n"
        "for name in ('submissions/alice.ipynb', 'grades/totals.csv'):\n"
        "    print(name, (repo / name).exists())\n"
    )
    done = boxed(code, (str(repo),), tmp_path)
    assert done.stdout.splitlines() == [
        "['datasets', 'lib']",
        "submissions/alice.ipynb False",
        "grades/totals.csv False",
    ], done.stderr


def test_submissions_or_out_inside_what_the_box_shows_are_refused(tmp_path):
    repo = course_repository(tmp_path)
    inside = repo / "datasets" / "grades"
    with pytest.raises(sandbox.SandboxUnavailable, match="every student's kernel can read"):
        grade_submissions([repo / "submissions"], inside, import_paths=(str(repo),))
    assert not inside.exists()


# As the sandbox user: a key in its user keyring, a file in the shared /tmp, a daemon.
LEAVE_BEHIND = """
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(248, b"user", b"answers", b"alice: 42", 9, -4)  # add_key to the user keyring
open(sys.argv[1], "w").write("alice: 42")
if os.fork() == 0:
    os.setsid()
    os.execv("/bin/sleep", ["/bin/sleep", "300"])
"""
FIND_KEY = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(250, 10, -4, b"user", b"answers", 0) > 0)  # keyctl search
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="system call numbers of x86_64")
def test_nothing_of_one_student_is_left_for_the_next_with_the_same_user(tmp_path):
    user = sandbox.OwnUser()
    left = Path("/tmp", f"course-leftover-{secrets.token_hex(6)}")
    try:
        as_user = [*sandbox.kernel_users.become(user.uid), sys.executable, "-c"]
        subprocess.run([*as_user, LEAVE_BEHIND, str(left)], check=True, timeout=30)
        before = (sandbox.processes_of(user.uid), left.exists())
        key = subprocess.run([*as_user, FIND_KEY], capture_output=True, text=True, timeout=30)
        assert (bool(before[0]), before[1], key.stdout) == (True, True, "True\n")
        sandbox.reap(user.uid)
        key = subprocess.run([*as_user, FIND_KEY], capture_output=True, text=True, timeout=30)
        assert (sandbox.processes_of(user.uid), left.exists(), key.stdout) == ([], False, "False\n")
    finally:
        user.release()
        left.unlink(missing_ok=True)


def test_a_box_memory_cap_holds_for_all_its_processes_together(tmp_path):
    """Three processes of 150 MB each, under the per-process cap, over a 300 MB box."""
    user = sandbox.OwnUser(box_mb=300)
    if not user.memory_capped:
        user.release()
        pytest.skip("no memory cgroup can be made here: only the per-process caps hold")
    code = (
        "import multiprocessing, time\n"
        "def hold():\n"
        "    block = bytearray(150 * 2**20)\n"
        "    time.sleep(3)\n"
        "workers = [multiprocessing.Process(target=hold) for _ in range(3)]\n"
        "for worker in workers:\n"
        "    worker.start()\n"
        "for worker in workers:\n"
        "    worker.join()\n"
        "print([worker.exitcode for worker in workers])\n"
    )
    done = boxed(code, (str(ROOT),), tmp_path, user)
    # The kernel of the OOM killer picks its victims: the parent or some of the workers.
    assert done.returncode != 0 or "-9" in done.stdout, done


def test_without_a_box_a_python_users_cannot_run_stops_grading_before_anyone(tmp_path, monkeypatch):
    """Gradescope's fallback with a Python under a folder private to root (pyenv's under /root):
    every kernel died and a solved lesson scored 0.0 with no reason. Now the choice refuses."""
    # What pyenv's Python needs after exec (its libpython) is under /root; a script stands for
    # it here: setpriv may still exec it, but the shell then cannot read it as the user.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    python = private / "python"
    python.write_text(f'#!/bin/sh\nexec "{os.path.realpath(sys.executable)}" "$@"\n')
    python.chmod(0o755)

    def no_bubblewrap() -> None:
        raise sandbox.SandboxUnavailable("no namespaces here")

    monkeypatch.setattr(sandbox, "check_available", no_bubblewrap)
    # This Python: every user's setpriv starts it (test_user_python: whether a kernel can again).
    assert sandbox.choose(own_user_fallback=True, allow_blocked_python=True) is False
    monkeypatch.setattr(sys, "executable", str(python))
    with pytest.raises(sandbox.SandboxUnavailable, match="cannot start this Python"):
        sandbox.choose(own_user_fallback=True)


def test_a_reset_runs_where_the_graders_python_is_private_to_root(tmp_path, monkeypatch):
    """The other Pythons' test runs keep their venvs in a folder private to root: `user_reset`
    could not start as the sandbox user, every reset failed and every user was retired ("1000
    could not be reset"). The reset now runs in a Python the user can start."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    python = private / "python"  # as above: a script the user cannot read stands for it
    python.write_text(f'#!/bin/sh\nexec "{os.path.realpath(sys.executable)}" "$@"\n')
    python.chmod(0o755)
    user = sandbox.OwnUser()
    try:
        monkeypatch.setattr(sys, "executable", str(python))
        sandbox.kernel_users._reset_command.cache_clear()
        assert sandbox.reap(user.uid)
    finally:
        sandbox.kernel_users._reset_command.cache_clear()
        user.release()
