"""Red team, round 6 (issue 28's proven resets attacked): tricks not in `_1` to `_3`, run as the
sandbox user runs, through the real grader where it matters. Marked `xfail(strict=True)` while
the hole is open (the reason says what the attack got): the fix turns it into an unexpected pass,
then drop the mark. "Own user" is the mode without namespaces (Gradescope, Docker): emulated as
tests/test_gradescope_container.py does, with a `bwrap` that fails as Docker's does first on PATH.

Every attack here works in a folder any user may write, so each test points the grader's resets
at a private one (`private_roots`: root's, mode 1777, deeper than the 4 levels any grader here
looks at, below folders others may not write), not at /tmp: a real run of the attack would
fail the resets of every other grader on this machine too.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from lib.grade import Limits, grade_submissions
from lib.grading import kernel_users, one_submission, parallel_grading, sandbox
from lib.grading.submissions import Submission
from tests.red_team_support import as_user
from tests.test_gradescope_container import DOCKER_BWRAP

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
UID = sandbox.FIRST_UID + 860  # far from the users other graders and rounds 3 to 5 claim
TOY = {"registry": "toy_exercises", "import_paths": (str(ROOT), str(FIXTURES)), "progress": False}
LIMITS = Limits(cell=5, notebook=60, probe=2)


@pytest.fixture
def private_roots(monkeypatch):
    """A folder any user may write (root's, 1777, as /tmp), the only one the grader's resets
    look in; sandbox users `UID` to `UID`+3 only."""
    top = Path(tempfile.mkdtemp(prefix="red-team-4-"))  # 0700: no other grader looks below
    shared = top / "a" / "b" / "c" / "shared"
    shared.mkdir(parents=True)
    for folder in (top, top / "a", top / "a" / "b", top / "a" / "b" / "c"):
        folder.chmod(0o711)
    shared.chmod(0o1777)
    monkeypatch.setattr(kernel_users, "scratch_roots", lambda: (str(shared),))
    monkeypatch.setattr(kernel_users, "FIRST_UID", UID)
    monkeypatch.setattr(kernel_users, "USERS", 4)
    try:
        yield shared
    finally:
        for uid in range(UID, UID + 4):
            sandbox.reap(uid)
        subprocess.run(["rm", "-rf", "--", str(top)], check=False)


@pytest.fixture
def own_user_mode(tmp_path, monkeypatch):
    """No namespaces: `bwrap` fails as in Docker, each kernel runs as a sandbox user only."""
    fake = tmp_path / "docker-bin"
    fake.mkdir()
    (fake / "bwrap").write_text(DOCKER_BWRAP)
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    # Its tests' kernels fork but start no Python (exec): a Python blocked to them costs nothing.
    assert sandbox.choose(own_user_fallback=True, allow_blocked_python=True) is False


# --- 1. A folder others may write but not read: every other user's reset fails ------------------

# Mode 0773: others may write (so user_reset looks in it) but not list it: os.scandir raises
# PermissionError, which remove_own_files does not catch, and user_reset exits 1 for every user
# but its maker. A daemon keeps it there while the notebook runs.
LOCKED = """\
import os, sys, time
path = {path!r}
if os.fork() == 0:
    os.setsid()
    for _ in range(600):
        try:
            os.mkdir(path, 0o773)
            os.chmod(path, 0o773)
        except FileExistsError:
            pass
        time.sleep(0.05)
    os._exit(0)
time.sleep(0.5)"""


def test_an_unreadable_world_writable_folder_fails_no_other_users_reset(private_roots):
    """Cheap form (~2 s): a clean user's reset beside a folder another user made mode 0773."""
    locked = private_roots / "locked"
    as_user(UID + 1, f"import os; os.mkdir({str(locked)!r}); os.chmod({str(locked)!r}, 0o773)")
    assert oct(locked.stat().st_mode & 0o777) == "0o773"  # the attack ran
    try:
        assert sandbox.reap(UID), "a user with nothing left was refused: its reset failed"
    finally:
        assert sandbox.reap(UID + 1)


def test_an_unreadable_world_writable_folder_never_leaves_a_slot_without_a_user(
    private_roots, monkeypatch
):
    """Cheap form (~5 s) of what a batch then does: the slot's clean user handed on, or a fresh
    one claimed in its place."""
    locked = private_roots / "locked"
    user, mallory = sandbox.OwnUser(), sandbox.OwnUser()  # the batch's two slots: UID, UID+1
    users = [user, mallory]
    as_user(mallory.uid, f"import os; os.mkdir({str(locked)!r}); os.chmod({str(locked)!r}, 0o773)")
    monkeypatch.setattr(parallel_grading, "RESET_SECONDS", 2)
    monkeypatch.setattr(parallel_grading, "LONGER_RESET_SECONDS", 2)
    try:
        after = asyncio.run(parallel_grading._handed_on(user, {"events": []}, users))
        assert isinstance(after, sandbox.OwnUser), f"the slot has no user left: {after}"
    finally:
        for each in users:
            each.release()


def test_a_slot_without_a_user_says_why(monkeypatch):
    """Was: users skipped because their reset failed were counted as "in use by other
    graders", which sent the instructor looking for a grader that did not exist."""
    monkeypatch.setattr(kernel_users, "FIRST_UID", UID)
    monkeypatch.setattr(kernel_users, "USERS", 2)
    monkeypatch.setattr(kernel_users, "reap", lambda uid, seconds=10: False)
    with pytest.raises(sandbox.SandboxUnavailable) as raised:
        sandbox.OwnUser()
    assert "0 are held by running graders and 2 could not be reset" in str(raised.value)


def test_an_honest_student_graded_beside_an_unreadable_folder_keeps_her_marks(
    private_roots, own_user_mode, tmp_path
):
    """Own user, `--jobs 2`, through the real grader: mallory's first run leaves a daemon that
    keeps a folder of mode 0773 in a scratch folder; alice, graded beside her, must keep her
    marks and her sandbox user. Seen: alice's reset before her graded kernel failed ("could not
    be cleaned up before the graded kernel started"): 0 of 3 points."""
    classroom = tmp_path / "submissions"
    classroom.mkdir()
    sleeps = [f"import time\ntime.sleep(4)  # {n}" for n in range(4)]
    attack = LOCKED.format(path=str(private_roots / "locked"))
    nbformat.write(toy(**SOLVED, before=[attack, *sleeps]), classroom / "mallory.ipynb")
    nbformat.write(toy(**SOLVED), classroom / "alice.ipynb")
    records = grade_submissions(
        [classroom],
        tmp_path / "out",
        jobs=2,
        own_user_fallback=True,
        limits=LIMITS,
        **TOY,
        allow_blocked_python=True,  # mallory's daemon forks; no kernel starts Python
    )
    alice = next(r for r in records if r["student"] == "alice")
    assert [e["score"] for e in alice["exercises"]] == [2, 1], alice["note"]
    assert "retired_user" not in alice, alice["events"]


# --- 2. A folder swapped for a link while another user's reset walks it, by path ---------------

# Was: user_reset checked each folder it met with lstat (`entry.stat(follow_symlinks=False)`),
# but then listed it, and removed what was its user's in it, by a path string: the folder
# swapped for a link in between sent the walk anywhere (now: by descriptor, `O_NOFOLLOW`). Here
# the kernel's user keeps exchanging its folder `x` (mode 777) with a link `xl` to another
# user's working copy (as /tmp/course-grade-XXXX/work: its name shows in /tmp, and mode 711 let
# anyone look it up; this test keeps 711). The other user's reset listed `x` through the link,
# and unlinked its user's files there.
# No timing needed: renameat2(RENAME_EXCHANGE) in a loop.
SWAPPER = r"""
import ctypes, os, sys, time
os.chdir(sys.argv[1])
os.mkdir("x"); os.chmod("x", 0o777)
os.symlink(sys.argv[2], "xl")
libc = ctypes.CDLL(None, use_errno=True)
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:
    libc.syscall(316, -100, b"x", -100, b"xl", 2)  # renameat2(..., RENAME_EXCHANGE)
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="renameat2's number on x86_64")
def test_a_reset_never_follows_a_link_another_user_swaps_in(private_roots, tmp_path):
    """Own user (~10-25 s): another user's reset, run again and again beside the swapper (as it
    runs before each kernel start and after each notebook), must leave its own user's working
    copy alone."""
    grade = private_roots.parent.parent / "grade"  # as /tmp/course-grade-XXXX: root's, 0711
    grade.mkdir(mode=0o711)
    work = grade / "work"
    work.mkdir(mode=0o700)
    (work / "alice.ipynb").write_text("alice's notebook, before her graded kernel starts")
    for path in (work, work / "alice.ipynb"):
        os.chown(path, UID, UID)
    swapper = [sys.executable, "-I", "-c", SWAPPER, str(private_roots), str(work), "40"]
    daemon = subprocess.Popen([*kernel_users.become(UID + 1), *swapper])
    try:
        for _ in range(60):
            if not (work / "alice.ipynb").exists():
                break
            sandbox.reap(UID, seconds=5)
        assert (work / "alice.ipynb").exists(), "alice's reset removed her own working copy"
    finally:
        daemon.kill()
        daemon.wait()
        shutil.rmtree(grade, ignore_errors=True)


def test_no_other_user_can_look_up_a_working_copy(tmp_path):
    """Own user: the grader's folder of a kernel (as /tmp/course-grade-XXXX) was mode 711, so
    any user could reach `work` by its name (seen in /tmp) and aim a link at it. Now only the
    kernel's user (its group) passes through it, and still reaches its folders."""
    (tmp_path / "alice.ipynb").write_text("{}")
    submission = Submission(path=tmp_path / "alice.ipynb", student="alice", sha256="0")
    settings = SimpleNamespace(sandboxed=True, boxed=False, import_paths=(), limits=LIMITS)
    grade = Path(tempfile.mkdtemp(prefix="course-grade-"))
    try:
        work = one_submission._set_up(submission, settings, grade, UID, [])[0]
        look = "import os, sys; print(sorted(os.listdir(sys.argv[1])))"
        assert "['notebook.ipynb']" in as_user(UID, look, str(work))
        stat = "import os, sys; os.stat(sys.argv[1]); print('reached')"
        assert "PermissionError" in as_user(UID + 1, stat, str(work))
    finally:
        shutil.rmtree(grade)
