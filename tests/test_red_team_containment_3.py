"""Red team, round 5 (issue 28's new mechanisms attacked): tricks not in `_2`, each a minimal
reproduction run as the sandbox user, as a kernel runs. Marked `xfail(strict=True)` while the
hole is open (the reason says what the attack got): the fix turns it into an unexpected pass,
then drop the mark. "Own user" is the mode without namespaces (Gradescope). About 30 s in all.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from lib.grading import kernel_users, parallel_grading, sandbox
from tests.red_team_support import as_user, box_runs

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
# Far from the users a grader running beside us claims first, and from rounds 3 and 4's.
UID = sandbox.FIRST_UID + 970


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


def test_a_user_whose_reset_outlasts_its_time_is_never_handed_on(monkeypatch, tmp_path):
    """Was: 3,000 folders took user_reset ~5 s (13 s on this machine's ext4 with `discard`, as
    long as `rm -rf`) against reap's 1 s here; reap ignored the time-out and the slot handed
    the user on with student A's answers in /tmp. Now reap says whether the reset finished, and
    a slot whose reset did not finish (twice) retires the user for a fresh one."""
    planted = Path(tempfile.gettempdir(), f"red-team-3-slow-{os.getpid()}")
    users = [claimed(monkeypatch, UID)]
    try:
        assert "planted" in as_user(UID, QUADRATIC, str(planted), "3000")  # the attack ran
        finished = sandbox.reap(UID, seconds=1)
        assert isinstance(finished, bool), "reap must say whether its reset finished"
        assert not (finished and planted.exists()), "reap said done; student A's answers stay"
        monkeypatch.setattr(parallel_grading, "RESET_SECONDS", 1)
        monkeypatch.setattr(parallel_grading, "LONGER_RESET_SECONDS", 1)
        record = {"events": []}
        after = asyncio.run(parallel_grading._handed_on(users[0], record, users))
        assert after.uid != UID or not planted.exists(), "the next student runs beside A's files"
    finally:
        shutil.rmtree(planted, ignore_errors=True)
        for each in users:
            each.release()


def test_a_user_whose_files_would_not_go_is_retired_and_the_summary_says_so(monkeypatch, tmp_path):
    """A folder of the user holding one of root's (the user cannot empty it): reap reports the
    reset unfinished, the slot's next notebook runs as another user, and the run's summary
    names the user retired."""
    from lib.grading.run_summary import summary

    stuck = Path(tempfile.gettempdir(), f"red-team-3-stuck-{os.getpid()}")
    user = claimed(monkeypatch, UID)
    users = [user]
    try:
        as_user(UID, f"import os; os.mkdir({str(stuck)!r})")
        (stuck / "root's").mkdir()  # root's folder, 0755, with a file: not the user's to empty
        (stuck / "root's" / "answers").write_text("student A's answers")
        assert not sandbox.reap(UID, seconds=5)
        monkeypatch.setattr(parallel_grading, "RESET_SECONDS", 2)
        monkeypatch.setattr(parallel_grading, "LONGER_RESET_SECONDS", 2)
        record = {"student": "mallory", "lesson": 1, "outcome": "graded", "events": ["a cell"]}
        after = asyncio.run(parallel_grading._handed_on(user, record, users))
        assert after.uid not in (None, UID) and after in users and user in users
        assert record["retired_user"] == UID and str(UID) in record["events"][0]
        text = summary([record], 1.0, tmp_path)
        assert f"Sandbox user {UID} was retired after mallory's notebook" in text
        shutil.rmtree(stuck)
        assert sandbox.reap(UID), "the reset of a clean user reports finished"
    finally:
        shutil.rmtree(stuck, ignore_errors=True)
        for each in users:
            each.release()


def claimed(monkeypatch, uid: int) -> kernel_users.OwnUser:
    """Claim sandbox user `uid` as a grader's slot does; later claims get `uid`+1 to +5."""
    monkeypatch.setattr(kernel_users, "FIRST_UID", uid)
    monkeypatch.setattr(kernel_users, "USERS", 1)
    user = kernel_users.OwnUser()
    assert user.uid == uid
    monkeypatch.setattr(kernel_users, "FIRST_UID", uid + 1)
    monkeypatch.setattr(kernel_users, "USERS", 5)
    return user


# --- user_reset's scratch folders: only those at the top of /, /run, /var and /dev --------------


def test_reap_removes_what_the_user_left_in_a_world_writable_folder_inside_tmp():
    """Was: a world-writable folder inside /tmp (as /tmp/.X11-unix, /tmp/.ICE-unix are on many
    machines) was not among user_reset's scratch folders, and the folder itself is root's: a
    file the kernel's user left there outlived reap. user_reset now looks in every folder others
    may write that it meets, to a depth."""
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

    if mode == "box" and not box_runs():
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


# --- Own user: another slot's user beside the working copy ---------------------------------------

PEEK = r"""
import os, sys
for folder in sys.argv[1:]:
    try:
        print(folder, os.listdir(folder))
    except OSError as error:
        print(folder, type(error).__name__)
"""


def test_another_sandbox_user_cannot_list_a_working_copy_or_scratch_folder(tmp_path, monkeypatch):
    """Own user, two slots at once: the working copy and the scratch folder were 0755, so the
    other slot's kernel (another uid, the same /tmp) listed and read a student's copy (the
    grader's folder is 0711: its names are known). Now both are the kernel's user's alone."""
    from lib.grading import one_submission
    from lib.grading.notebook import load_catalog
    from lib.grading.submissions import Submission

    fixtures = Path(__file__).parent / "grading_fixtures"
    monkeypatch.syspath_prepend(str(fixtures))
    folder = tmp_path / "ada"
    folder.mkdir()
    (folder / "toy.ipynb").write_text("{}")
    (folder / "answers.txt").write_text("ada's answers")
    settings = one_submission.Settings(
        registry="toy_exercises",
        import_paths=(str(Path(__file__).parents[1]), str(fixtures)),
        catalog=load_catalog("toy_exercises"),
        boxed=False,
    )
    grader = Path(tempfile.mkdtemp(prefix="red-team-3-copy-"))
    try:
        submission = Submission(folder / "toy.ipynb", "ada", "", folder)
        one_submission._set_up(submission, settings, grader, UID, [])
        seen = as_user(UID + 1, PEEK, str(grader / "work"), str(grader / "scratch"))
        assert "answers.txt" not in seen and seen.count("PermissionError") == 2, seen
        assert "answers.txt" in as_user(UID, PEEK, str(grader / "work"))  # its own user reads it
    finally:
        shutil.rmtree(grader, ignore_errors=True)
