"""The write fence of a kernel without a box (`kernel_start.fence`, Landlock): it writes its own
folders, devices and plain files in /dev/shm (what process pools need), and nothing else of the
machine's, so no slot's kernel can make a folder in a shared place for a file to hide in or for
every other user's reset to walk (red team round 8, `test_red_team_containment_6`)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from lib.grading import protections, sandbox
from tests.red_team_support import shared_folder

pytestmark = pytest.mark.machine  # runs code as a sandbox user: the main run only (pyproject)
FENCED = pytest.mark.skipif(not sandbox.fence_works(), reason="this machine has no Landlock")
UID = sandbox.FIRST_UID + 750  # far from the users a grader running beside us claims first
LEFT = f"/dev/shm/course-fence-test-{os.getpid()}"

# What a lesson's kernel does (its own folders, TMPDIR, a process pool, sockets and signals among
# its own processes, as ipykernel and a pool use them), then what it may not.
TRIED = rf"""
import multiprocessing, os, socket, subprocess, tempfile
def tried(what, action):
    try:
        action()
        print(what, "done")
    except OSError as error:
        print(what, "refused", error.errno)
tried("work", lambda: open("answers.txt", "w").write("mine"))
tried("tmpdir", lambda: tempfile.NamedTemporaryFile(delete=False).write(b"mine"))
tried("pool", lambda: multiprocessing.Pool(2).map(abs, [-1, 2]))
tried("devnull", lambda: open("/dev/null", "w").write("x"))
tried("own signal", lambda: subprocess.Popen(["sleep", "9"]).terminate())
tried("own socket file", lambda: socket.socket(socket.AF_UNIX).bind("kernel-socket"))
tried("socket pair", socket.socketpair)
tried("interfaces", socket.if_nameindex)  # glibc asks NETLINK_ROUTE, as ZeroMQ's TCP binds do
mine = socket.socket(socket.AF_UNIX)
mine.bind(b"\\0course-fence-own-{{os.getpid()}}")
mine.listen(1)
tried("own abstract socket", lambda: socket.socket(socket.AF_UNIX).connect(mine.getsockname()))
tried("shm file", lambda: open({LEFT!r}, "w").write("left for the next student"))
for folder in ("/tmp", "/var/tmp", "/dev/shm"):
    tried(f"folder in {{folder}}", lambda: os.mkdir(f"{{folder}}/course-fence-{{os.getpid()}}"))
for folder in ("/tmp", "/var/tmp"):
    tried(f"file in {{folder}}", lambda: open(f"{{folder}}/course-fence-{{os.getpid()}}", "w"))
print("tmpdir is", tempfile.gettempdir())
"""


@pytest.fixture
def shared_tmp():
    """A folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("kernel-fence-", 0o777)


@pytest.mark.machine  # see pyproject's markers
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)")
@FENCED
def test_a_fenced_kernel_writes_its_own_folders_and_nothing_shared(shared_tmp):
    scratch = Path(tempfile.mkdtemp(prefix="kernel-fence-scratch-", dir=shared_tmp))
    sandbox.give_to(UID, scratch)
    (shared_tmp / "kernel.py").write_text(TRIED)
    kernel = [sys.executable, "-I", str(shared_tmp / "kernel.py")]
    readonly = [str(shared_tmp), *sandbox.readonly_paths(())]
    command = sandbox.command(
        kernel, shared_tmp, shared_tmp, readonly, sandbox.Caps(), UID, False, scratch
    )
    env = {**os.environ, "TMPDIR": str(scratch)}
    try:
        seen = subprocess.run(
            command, capture_output=True, text=True, timeout=60, cwd=shared_tmp, env=env
        ).stdout
        own = ("own signal", "own socket file", "socket pair", "interfaces", "own abstract socket")
        for allowed in ("work", "tmpdir", "pool", "devnull", "shm file", *own):
            assert f"{allowed} done" in seen, seen
        for place in ("/tmp", "/var/tmp", "/dev/shm"):
            assert f"folder in {place} refused 13" in seen, seen
        for place in ("/tmp", "/var/tmp"):
            assert f"file in {place} refused 13" in seen, seen
        assert f"tmpdir is {scratch}" in seen
        assert os.stat(LEFT).st_uid == UID  # a plain file in /dev/shm: the reset removes it
        assert sandbox.reap(UID)
        assert not os.path.exists(LEFT)
    finally:
        sandbox.reap(UID, seconds=30)
        Path(LEFT).unlink(missing_ok=True)


@FENCED
def test_a_kernel_that_cannot_be_fenced_never_starts(tmp_path):
    """A folder that cannot be fenced in (here: gone) stops the start, rather than run the
    kernel unfenced while the grader believes it fenced."""
    start = [sys.executable, "-I", "-c", sandbox._START, "--writable", str(tmp_path / "gone")]
    done = subprocess.run([*start, "--", "echo", "started"], capture_output=True, text=True)
    assert done.returncode != 0 and "started" not in done.stdout


def test_the_summary_says_whether_kernels_were_fenced():
    fenced = [{"outcome": "graded", "protections": [protections.OWN_USER, protections.FENCE]}]
    shared = [{"outcome": "graded", "protections": [protections.OWN_USER]}]
    assert "writes only in its own folders" in protections.line(True, fenced)
    assert "/dev/shm shared by every kernel (no Landlock" in protections.line(True, shared)
    assert "the network open to every kernel" in protections.line(True, shared)
    assert "the network open" not in protections.line(True, fenced)
    boxed = [{"outcome": "graded", "protections": [protections.BOX, protections.OWN_USER]}]
    assert "Landlock" not in protections.line(True, boxed)  # a box has its own /tmp


@pytest.mark.parametrize("filtered", [True, False], ids=["internet-filter", "unknown-machine"])
@pytest.mark.parametrize("abi", [1, 4, 6])
def test_the_summary_says_which_of_the_fences_rights_this_landlock_has(monkeypatch, abi, filtered):
    """Internet sockets are refused where the fence's filter knows the machine's numbers, else
    TCP from ABI 4; abstract sockets and signals are scoped from ABI 6: below either, the line
    says that door is open, never silently."""
    monkeypatch.setattr(protections, "fence_abi", lambda: abi)
    monkeypatch.setattr(protections, "NETWORK", {platform.machine(): ()} if filtered else {})
    monkeypatch.setattr(protections, "memory_capped", lambda uid: False)
    monkeypatch.setattr(protections, "cpu_shared", lambda uid: False)
    record = {"outcome": "graded", "protections": protections.held(True, False, UID)}
    said = protections.line(True, [record])
    if filtered:  # the fence's filter: no network, whatever the ABI
        assert "no network (unix streams and seqpackets only" in said and "TCP open" not in said
    else:
        assert ("no TCP" in said) == (abi >= 4) and ("TCP open" in said) == (abi < 4)
    assert ("reach only a kernel's own" in said) == (abi >= 6)
    assert ("reach other kernels (Landlock here is older than ABI 6)" in said) == (abi < 6)
