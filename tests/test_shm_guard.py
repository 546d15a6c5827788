"""`shm_guard`: the root guard in front of every fenced kernel bounds what its user keeps in the
machine's /dev/shm (issue 28). Caps set low here (1 MB, 8 files), so that the machine's /dev/shm
sees a few MB at most; the red team's fill of a whole /dev/shm runs in a mount namespace of its
own (`test_red_team_containment_8`)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from lib.grade import Limits, grade_submissions
from lib.grading import (
    batch,
    kernel_users,
    protections,
    sandbox,
    shm_guard,
    shm_holders,
    shm_space,
    user_walk,
)
from tests.red_team_support import shared_folder
from tests.test_gradescope_container import DOCKER_BWRAP

FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

# Sandbox users, the guard and bubblewrap: the machine's, once, in the main run (pyproject).
pytestmark = pytest.mark.machine

UID = sandbox.FIRST_UID + 962  # far from the users of graders and of other tests
AS_ROOT = [
    pytest.mark.machine,  # runs code as a sandbox user: the main run only (pyproject)
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
    pytest.mark.skipif(not sandbox.fence_works(), reason="no Landlock: no guard either"),
]
SMALL = sandbox.Caps(shm_mb=1, shm_files=8)

# A kernel that goes past a cap and then keeps running, with a daemon of its own (setsid), and
# says when it would have finished: the guard must stop it all well before.
KEEPS_RUNNING = r"""
import os, subprocess, sys, time
name = f"/dev/shm/course-guard-test-{os.getpid()}"
subprocess.Popen(["sleep", "40"], start_new_session=True)
if sys.argv[1] == "bytes":
    open(name, "wb").write(bytes(2 * 2**20))
else:
    for i in range(20):
        open(f"{name}-{i}", "w").close()
print("over the cap", flush=True)
time.sleep(20)
print("never stopped")
"""


def _running(uid: int) -> list[int]:
    """The processes of `uid` that still run: a killed orphan stays a zombie (state Z) until the
    grader, its subreaper, waits for it (`reap`)."""
    stats = [Path(f"/proc/{pid}/stat") for pid in sandbox.processes_of(uid)]
    return [s for s in stats if s.exists() and s.read_text().rsplit(")", 1)[1].split()[0] != "Z"]


@pytest.fixture
def shared_tmp():
    """A folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("shm-guard-", 0o777)


def _run(folder: Path, code: str, caps: sandbox.Caps, *args: str) -> tuple[str, int, float]:
    """Run `code` as a fenced kernel of UID starts; what it printed, its status and its time."""
    (folder / "kernel.py").write_text(code)
    kernel = [sys.executable, "-I", str(folder / "kernel.py"), *args]
    readonly = [str(folder), *sandbox.readonly_paths(())]
    command = sandbox.command(kernel, folder, folder, readonly, caps, UID, boxed=False)
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=folder)
    return done.stdout + done.stderr, done.returncode, time.monotonic() - started


def as_root(test):
    """The marks of a test that runs code as a sandbox user, fenced."""
    for mark in AS_ROOT:
        test = mark(test)
    return test


@as_root
@pytest.mark.parametrize("past", ["bytes", "files"])
def test_a_kernel_past_its_dev_shm_cap_is_stopped_with_its_daemon_and_files(shared_tmp, past):
    try:
        seen, status, took = _run(shared_tmp, KEEPS_RUNNING, SMALL, past)
        assert "never stopped" not in seen, seen  # (perhaps stopped before it said "over")
        assert status == shm_guard.STOPPED and took < 10, (status, took)
        assert "stopped the kernel: its user kept" in seen
        assert _running(UID) == []  # the daemon too: kill(-1) as the user
        assert shm_space.usage(UID)[:2] == (0, 0)
    finally:
        assert sandbox.reap(UID, seconds=30)


# An honest kernel: a process pool (its semaphores come and go in /dev/shm) and a small file of
# its own there, under the same low caps, ends as it would unguarded, its file left for `reap`.
HONEST = r"""
import multiprocessing, os, sys
print("pool", multiprocessing.Pool(2).map(abs, [-1, 2]))
open(f"/dev/shm/course-guard-test-{os.getpid()}", "w").write("small")
sys.exit(3)
"""


@as_root
def test_an_honest_kernel_under_the_guard_runs_as_it_would_without(shared_tmp):
    try:
        seen, status, _ = _run(shared_tmp, HONEST, SMALL)
        assert "pool [1, 2]" in seen and "stopped" not in seen, seen
        assert status == 3  # its own exit status, passed on
        assert shm_space.usage(UID)[1] == 1
    finally:
        assert sandbox.reap(UID, seconds=30)
    assert shm_space.usage(UID)[:2] == (0, 0)


def test_usage_counts_a_users_entries_as_allocated(tmp_path):
    (tmp_path / "a").write_bytes(bytes(10_000))
    (tmp_path / "b").touch()
    used, count, everyone, names = shm_space.usage(os.getuid(), str(tmp_path))
    assert count == names == 2 and used >= 10_000 and everyone == used
    assert shm_space.usage(os.getuid() + 1, str(tmp_path)) == (0, 0, used, 2)


def test_each_kernel_gets_an_equal_share_with_one_left_over_and_a_floor():
    assert shm_space.share(60 * 2**20, 5) == 10 * 2**20  # 5 kernels under their caps: 10 MB left
    assert shm_space.share(64 * 2**20, 40) == shm_space.FLOOR


def test_a_run_whose_shares_fall_below_the_floor_is_told(monkeypatch):
    size = 64 * 2**20
    statvfs = os.statvfs_result((4096, 4096, size // 4096, *[0] * 8))
    monkeypatch.setattr(protections.os, "statvfs", lambda path: statvfs)
    assert protections.shm_crowded(4) == ""
    assert "with --jobs 16, each kernel may keep 4 MB" in protections.shm_crowded(16)
    assert "grade with --jobs 15 or fewer" in protections.shm_crowded(16)


def test_the_grader_tells_each_guard_how_many_kernels_share_dev_shm(tmp_path, monkeypatch):
    """--jobs reaches every kernel's caps (`Caps.kernels`), hence its guard's share."""
    seen = []

    async def grade_all(todo, settings, jobs, done) -> None:
        seen.append((jobs, settings.caps.kernels))

    monkeypatch.setattr(batch, "grade_all", grade_all)
    classroom = tmp_path / "submissions"
    classroom.mkdir()
    nbformat.write(toy(**SOLVED), classroom / "alice.ipynb")
    toy_settings = {"registry": "toy_exercises", "import_paths": (str(FIXTURES),)}
    grade_submissions([classroom], tmp_path / "out", jobs=3, sandboxed=False, progress=False,
                      **toy_settings)  # fmt: skip
    assert seen == [(3, 3)]


@as_root
def test_unnamed_held_counts_a_users_unlinked_files_once_each(shared_tmp):
    """A file unlinked but held open (twice: two descriptors) is in no listing; it is found
    among the user's processes, counted once, and only files on the device asked about."""
    said, told = os.pipe()
    child = os.fork()
    if child == 0:  # the kernel's user, holding the file
        try:
            os.setresgid(UID, UID, UID)
            os.setresuid(UID, UID, UID)
            held = os.open(shared_tmp / "hidden", os.O_CREAT | os.O_RDWR, 0o600)
            os.posix_fallocate(held, 0, 2**20)
            os.dup(held)
            os.unlink(shared_tmp / "hidden")
            os.write(told, b"ready")
            time.sleep(30)
        finally:
            os._exit(0)
    try:
        assert os.read(said, 5) == b"ready"
        device = os.stat(shared_tmp).st_dev
        # One file of 1 MB, held twice; beside it pytest's capture files (unlinked, empty).
        space, files, why = shm_holders.unnamed_held(UID, device, lambda: (2**30, 9))
        assert 2**20 <= space < 2**20 + 2**16 and files >= 1 and why == ""
        assert shm_holders.unnamed_held(UID, device + 1, lambda: (2**30, 9)) == (0, 0, "")
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)


def test_a_user_whose_processes_cannot_be_listed_is_charged_all(monkeypatch):
    """The child that stops and lists the user's processes raised or was killed (`as_user` says
    None): no process was read, so nothing may be taken as held by none (it once walked none
    and charged nothing, failing open)."""
    monkeypatch.setattr(user_walk, "as_user", lambda uid, work: None)
    everyone = (5 * 2**20, 3)  # all the space without a name, anyone's
    assert shm_holders.unnamed_held(UID, 0, lambda: everyone) == (*everyone, shm_holders.UNLISTED)


def test_only_a_fenced_kernel_of_its_own_user_is_guarded(monkeypatch, tmp_path):
    """The guard's one listing sees all only where the fence allows no folder in /dev/shm."""
    kernel, readonly = ["python", "kernel.py"], sandbox.readonly_paths(())
    monkeypatch.setattr(sandbox, "fence_works", lambda: True)
    fenced = sandbox.command(kernel, tmp_path, tmp_path, readonly, SMALL, UID, boxed=False)
    assert fenced[:2] == [sys.executable, "-I"] and sandbox._GUARD in fenced
    assert fenced[fenced.index(sandbox._GUARD) + 1 :][:6] == [
        str(UID),
        str(2**20),
        "8",
        str(4096 * 2**20),
        "4",
        "--",
    ]
    boxed = sandbox.command(kernel, tmp_path, tmp_path, readonly, SMALL, UID)
    monkeypatch.setattr(sandbox, "fence_works", lambda: False)
    unfenced = sandbox.command(kernel, tmp_path, tmp_path, readonly, SMALL, UID, boxed=False)
    assert sandbox._GUARD not in boxed and sandbox._GUARD not in unfenced


def test_the_summary_says_what_of_dev_shm_is_bounded():
    guarded = [{"outcome": "graded", "protections": [protections.OWN_USER, protections.FENCE,
                                                      protections.SHM_CAP]}]  # fmt: skip
    said = protections.line(True, guarded)
    assert "at most 64 MB (and its share: the size over --jobs + 1, at least 4 MB)" in said
    assert "256 files in the shared /dev/shm per kernel, files without a name counted" in said
    assert "checked every 0.05 s" in said and "only a memory group counts" in said
    earlier = [{"outcome": "graded", "protections": [protections.OWN_USER, protections.FENCE]}]
    assert "not bounded per kernel" in protections.line(True, earlier)


# A cell that leaves 300 empty files in /dev/shm (no space taken: the count is the cap it passes)
# and then waits; the guard stops it, and the notebook is run again without that cell.
MANY_FILES = """import os, time
for i in range(300):
    open(f"/dev/shm/course-guard-test-{os.getpid()}-{i}", "w").close()
time.sleep(20)"""


# A cell past its time limit: the kernel, now the guard's child and no longer the leader of its
# process group, must still be interrupted (ipykernel then signals itself alone), not killed.
LOOPS = "while True:\n    pass"


@as_root
@pytest.mark.parametrize(
    "cell, said",
    [
        (MANY_FILES, "held more than a kernel may (in /dev/shm, unix socket buffers or ptys)"),
        (LOOPS, "ran longer than 5 s and was interrupted"),
    ],
    ids=["dev-shm", "loop"],
)
def test_through_the_grader_a_guarded_kernel_is_stopped_or_interrupted_and_the_rest_graded(
    tmp_path, monkeypatch, cell, said
):
    """Through the real grader, own user (a `bwrap` failing as Docker's first on PATH)."""
    fake = tmp_path / "docker-bin"
    fake.mkdir()
    (fake / "bwrap").write_text(DOCKER_BWRAP)
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.setattr(kernel_users, "FIRST_UID", UID + 1)  # users of this test's own
    monkeypatch.setattr(kernel_users, "USERS", 2)
    classroom = tmp_path / "submissions"
    classroom.mkdir()
    nbformat.write(toy(**SOLVED, before=[cell]), classroom / "mallory.ipynb")
    toy_settings = {"registry": "toy_exercises", "import_paths": (str(FIXTURES.parent.parent),
                                                                  str(FIXTURES))}  # fmt: skip
    try:
        [record] = grade_submissions(
            [classroom], tmp_path / "out", own_user_fallback=True, progress=False,
            allow_blocked_python=True,  # its kernels start no Python
            limits=Limits(cell=5, notebook=90, probe=5), **toy_settings,
        )  # fmt: skip
        assert said in " ".join(record["events"]), record["events"]
        assert [e["score"] for e in record["exercises"]] == [2, 1], record
        assert protections.SHM_CAP in record["protections"]
    finally:
        for uid in (UID + 1, UID + 2):
            assert sandbox.reap(uid, seconds=30)


def _defined(name: str) -> set[str]:
    """The names module `name`'s source defines at its top level (imports left out)."""
    names = set()
    for node in ast.parse(Path(shm_guard.__file__).with_name(f"{name}.py").read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def test_the_guards_sources_run_as_one_share_no_name():
    """`sandbox` runs the guard's helpers' sources and its own as one `-c`: a name two define (as
    shm_holders and shm_guard each once had their own `STOPPED`) would silently change the
    first one's meaning."""
    defined = [_defined(name) for name in (*shm_guard.HELPERS, "shm_guard")]
    for n, names in enumerate(defined):
        for other in defined[n + 1 :]:
            assert not names & other, names & other
