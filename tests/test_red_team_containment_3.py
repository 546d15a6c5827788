"""Red team, round 5 (issue 28's new mechanisms attacked): tricks not in `_2`, each a minimal
reproduction run as the sandbox user, as a kernel runs. Marked `xfail(strict=True)` while the
hole is open (the reason says what the attack got): the fix turns it into an unexpected pass,
then drop the mark. "Own user" is the mode without namespaces (Gradescope). About 20 s in all.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from lib.grading import kernel_users, sandbox

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
# Far from the users a grader running beside us claims first, and from rounds 3 and 4's.
UID = sandbox.FIRST_UID + 970


def as_user(uid: int, code: str, *args: str) -> str:
    """Run `code` with this Python as sandbox user `uid` and return what it printed."""
    command = [*kernel_users.become(uid), sys.executable, "-I", "-c", code, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


# --- user_reset's removal: bounded in time, not in work -----------------------------------------

# A chain 63 folders deep, the last holding `wide` empty folders: `remove_tree` holds 64 folders
# open at most, so each of those is moved up to the top under the first free `.deep-N`, found by
# trying .deep-1, .deep-2... from 1 every time: wide * wide / 2 stats for `wide` folders.
QUADRATIC = r"""
import os, sys
top, wide = sys.argv[1], int(sys.argv[2])
os.mkdir(top)
with open(os.path.join(top, "answers"), "w") as file:
    file.write("student A's answers")
fd = os.open(top, os.O_RDONLY)
for _ in range(63):
    os.mkdir("d", dir_fd=fd)
    fd = os.open("d", os.O_RDONLY, dir_fd=fd)
for n in range(wide):
    os.mkdir(str(n), dir_fd=fd)
print("planted")
"""


@pytest.mark.xfail(
    strict=True,
    reason="own user: 3,000 folders at depth 64 still take remove_tree ~5 s (a scan per folder "
    "moved up; its quadratic search for a free name is fixed): user_reset runs past reap's "
    "time-out, is killed, its failure is ignored, and student A's answers stay in /tmp for the "
    "next kernel of that uid",
)
def test_reap_removes_a_folder_built_to_make_its_removal_slow():
    """Planting takes ~1 s; removing took 32 s for 2,000 folders on this machine (reap allows
    10 s). Scaled down here: 3,000 folders (~3.3 s to remove at load 2.5) against a 1 s time-out."""
    planted = Path(tempfile.gettempdir(), f"red-team-3-slow-{os.getpid()}")
    try:
        assert "planted" in as_user(UID, QUADRATIC, str(planted), "3000")  # the attack ran
        sandbox.reap(UID, seconds=1)
        assert not planted.exists(), "student A's answers outlived reap"
    finally:
        shutil.rmtree(planted, ignore_errors=True)
        sandbox.reap(UID)


# --- user_reset's scratch folders: only those at the top of /, /run, /var and /dev --------------


@pytest.mark.xfail(
    strict=True,
    reason="own user: a world-writable folder inside /tmp (as /tmp/.X11-unix, /tmp/.ICE-unix are "
    "on many machines) is not among user_reset's scratch folders, and the folder itself is "
    "root's: a file the kernel's user leaves there outlives reap",
)
def test_reap_removes_what_the_user_left_in_a_world_writable_folder_inside_tmp():
    shared = Path(tempfile.mkdtemp(prefix="red-team-3-shared-"))  # root's, as /tmp/.X11-unix
    shared.chmod(0o1777)
    planted = shared / "answers"
    try:
        as_user(UID, f"open({str(planted)!r}, 'w').write(\"student A's answers\")")
        assert planted.exists()  # the attack ran
        sandbox.reap(UID)
        assert not planted.exists(), "a file of the kernel's user outlived reap"
    finally:
        shutil.rmtree(shared, ignore_errors=True)


# --- The kernel's start-up: what Python itself looks for before the grader's runner ------------

RAN = "import os; os.write(2, b'student code ran: {}\\n')\n"
# What Python runs by itself (site's hooks, a .pth), and what the runners import by name after
# the working folder is dropped from the path (`kernel_start`).
PLANTED = ("sitecustomize", "usercustomize", "runpy", "tempfile", "ctypes", "platform", "site")


@pytest.mark.parametrize("mode", ["box", "own user"])
def test_no_file_in_the_working_folder_runs_before_the_kernel(mode):
    """Guards `kernel_start` beyond `ipykernel_launcher.py` (round 4): site's hooks, a `.pth`, and
    modules the root and student runners import, each in the working folder, never run."""
    from lib.notebooks import ThisPython

    if mode == "box" and not _box_runs():
        pytest.skip("bubblewrap cannot run here")
    folder = Path(tempfile.mkdtemp(prefix="red-team-3-start-"))
    try:
        folder.chmod(0o777)
        for name in PLANTED:
            (folder / f"{name}.py").write_text(RAN.format(name))
        (folder / "planted.pth").write_text(RAN.format(".pth"))
        argv = ThisPython().get_kernel_spec("python3").argv  # as the grader starts every kernel
        kernel = [arg.replace("{connection_file}", str(folder / "kernel.json")) for arg in argv]
        paths = (str(Path(__file__).parents[1]),)
        readonly, caps, boxed = sandbox.readonly_paths(paths), sandbox.Caps(), mode == "box"
        command = sandbox.command(
            [*kernel, "--version"], folder, folder, readonly, caps, UID, boxed
        )
        env = sandbox.environment(paths, str(folder))
        done = subprocess.run(
            command, cwd=folder, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr[-500:]
        assert "student code ran" not in done.stdout + done.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _box_runs() -> bool:
    try:
        sandbox.check_available()
        return True
    except sandbox.SandboxUnavailable:
        return False


# --- What the copy leaves out, named in the record ----------------------------------------------


def test_files_left_out_of_a_copy_add_a_bounded_number_of_events(tmp_path, monkeypatch):
    import nbformat

    from lib.grading import execute, one_submission
    from lib.grading.notebook import load_catalog
    from lib.grading.submissions import Submission

    fixtures = Path(__file__).parent / "grading_fixtures"
    monkeypatch.syspath_prepend(str(fixtures))
    from toy_class import SOLVED, toy

    folder = tmp_path / "ada"
    folder.mkdir()
    nbformat.write(toy(**SOLVED), folder / "toy.ipynb")
    for n in range(40):
        with open(folder / f"\x1b]0;graded\x07big{n}.bin", "wb") as sparse:
            sparse.truncate(2**40)  # 1 TB each, no disk

    async def no_kernel(*args, **kwargs):  # the copy is what is attacked: no kernel needed
        raise RuntimeError("no kernel in this test")

    monkeypatch.setattr(one_submission, "run_and_grade", no_kernel)
    settings = one_submission.Settings(
        registry="toy_exercises",
        import_paths=(str(Path(__file__).parents[1]), str(fixtures)),
        catalog=load_catalog("toy_exercises"),
        sandboxed=False,
    )
    submission = Submission(folder / "toy.ipynb", "ada", "", folder)
    record = asyncio.run(one_submission.grade_one(submission, settings))
    left_out = [e for e in record["events"] if e.startswith("left out")]
    assert left_out, record  # the attack ran: the copy left the files out
    assert len(record["events"]) <= execute.MAX_EVENTS + 2, len(record["events"])
    assert not any("\x1b" in event or "\x07" in event for event in record["events"]), left_out
