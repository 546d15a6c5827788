"""Red team, round 10: the Landlock write fence of a kernel without a box (issue 28;
`kernel_start.fence`, `sandbox.fence_works`, GRADING.md promises 4 and 7). Tricks not in `_1` to
`_7`, each run as a slot's kernel starts (`sandbox.command`, `kernel_start`, the fence, the
change of user), against the real `reap`. Marked `xfail(strict=True)` while the hole is open
(the reason says what the attack got, measured; "Fix:" what would close it by design); plain
tests are attacks the fence holds against, kept as guards.

What round 10 tried: what Landlock leaves out at the fence's rights (sockets, TCP, the size and
the count of what /dev/shm may hold), and the fence's own edges (special files, links and
renames into /dev/shm, reopening through /proc/self/fd, truncating a file others may write).
All without a box (Gradescope's mode) and as root. About 8 s in all (the /dev/shm fill runs in
a mount namespace of its own, over a 64 MB tmpfs, so that the machine's /dev/shm is never
filled).

Where the fence is deployed (the Gradescope entry point: one student's submission a container),
the slots are that student's own notebooks, so what crosses slots here harms or helps only the
student; the protections line said "/dev/shm not its to fill". All four holes found are now
closed (TCP and abstract sockets by the fence's newer Landlock rights, /dev/shm by `shm_guard`);
each comment above a test says what the attack got while it was open.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lib.grading import sandbox
from tests.red_team_support import shared_folder
from tests.test_red_team_containment_5 import as_kernel

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
    pytest.mark.skipif(not sandbox.fence_works(), reason="this machine has no Landlock"),
]
# Far from the users a grader running beside us claims first, and from rounds 3 to 9's.
UID = sandbox.FIRST_UID + 960
NEIGHBOUR = sandbox.FIRST_UID + 961  # another slot's user, graded at the same time


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("red-team-8-", 0o777)


# Run in a mount namespace of its own (unshare), with Docker's default /dev/shm (a 64 MB tmpfs)
# over the machine's: the student fills it (80 MB at most, wherever it lands), then the
# neighbour's kernel starts a process pool, as lesson 8 does.
FILL = r"""
import os
try:
    with open(f"/dev/shm/red-team-8-{os.getpid()}", "wb") as f:
        for _ in range(80):
            f.write(bytes(2**20))
            f.flush()
    print("wrote 80 MB")
except OSError as error:
    print("filled", error.errno)
"""
POOL = r"""
import multiprocessing
try:
    print("pool", multiprocessing.Pool(2).map(abs, [-1, 2]))
except OSError as error:
    print("pool failed", error)
"""
FULL_SHM = r"""
import os, subprocess, sys
from pathlib import Path
mount = ["mount", "-t", "tmpfs", "-o", "size=64m,mode=1777", "tmpfs", "/dev/shm"]
subprocess.run(mount, check=True)
shm = os.statvfs("/dev/shm")
assert shm.f_blocks * shm.f_frsize == 64 * 2**20, "not the namespace's own /dev/shm"
from lib.grading import sandbox
from tests.test_red_team_containment_5 import as_kernel
student, neighbour, folder = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
for uid, code, name in ((student, sys.argv[4], "student"), (neighbour, sys.argv[5], "neighbour")):
    (folder / name).mkdir(mode=0o777)
    (folder / name).chmod(0o777)
    print(as_kernel(uid, folder / name, code))
print("reset", sandbox.reap(student, seconds=30), sandbox.reap(neighbour, seconds=30))
"""


# Was open (round 10): the student filled Docker's default /dev/shm (64 MB) with one plain file
# (ENOSPC at 64 MB, 0.1 s), and the next slot's honest process pool failed: "No space left on
# device"; where /dev/shm is half the memory or more, ~100 such files reach a global OOM. Closed:
# `shm_guard` (as root, in front of every fenced kernel) lists /dev/shm every 0.05 s and, past a
# share of its size (over --jobs + 1), or `Caps.shm_mb`, kills every process of the user and
# removes its files.
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_a_fenced_kernel_fills_a_containers_dev_shm_and_a_neighbours_pool_fails(shared_tmp):
    driver = [sys.executable, "-c", FULL_SHM, str(UID), str(NEIGHBOUR), str(shared_tmp)]
    command = ["unshare", "--mount", "--propagation", "private", *driver, FILL, POOL]
    root = Path(__file__).resolve().parent.parent
    seen = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=root)
    assert "reset True True" in seen.stdout, seen.stdout + seen.stderr
    assert "stopped the kernel: its user kept" in seen.stdout, seen.stdout
    assert "pool [1, 2]" in seen.stdout, seen.stdout


# As the neighbour: listen on an abstract unix socket (no file, so no fence) and hand over
# "its answers" to whoever connects; as the student: connect to it.
LISTEN = r"""
import socket, sys
server = socket.socket(socket.AF_UNIX)
server.bind(b"\0" + sys.argv[1].encode())
server.listen(1)
print("listening", flush=True)
server.settimeout(10)
peer, _ = server.accept()
peer.sendall(b"the neighbour's answers")
"""
CONNECT = r"""
import socket, sys, time
for _ in range(100):
    try:
        client = socket.socket(socket.AF_UNIX)
        client.connect(b"\0" + sys.argv[1].encode())
        print("got:", client.recv(100).decode())
        break
    except OSError as error:
        seen = error
        time.sleep(0.05)
else:
    print("refused", seen)
"""


# Was open (round 10): the neighbour handed over its "answers" (Landlock's fence handled files
# only). Closed: the ruleset's `scoped` holds abstract unix sockets and signals to the kernel's
# own processes (`kernel_start.fence`, Landlock ABI 6, Linux 6.12); where the ABI is lower the
# summary says so (`protections`).
@pytest.mark.skipif(sandbox.fence_abi() < 6, reason="Landlock here has no scopes (ABI < 6)")
def test_two_slots_kernels_talk_over_an_abstract_socket(shared_tmp):
    name = f"red-team-8-{os.getpid()}"
    theirs, mine = shared_tmp / "neighbour", shared_tmp / "student"
    for folder in (theirs, mine):
        folder.mkdir(mode=0o777)
        folder.chmod(0o777)
    (theirs / "kernel.py").write_text(LISTEN)
    kernel = [sys.executable, "-I", str(theirs / "kernel.py"), name]
    readonly = [str(shared_tmp), *sandbox.readonly_paths(())]
    command = sandbox.command(kernel, theirs, theirs, readonly, sandbox.Caps(), NEIGHBOUR, False)
    neighbour = subprocess.Popen(command, cwd=theirs, stdout=subprocess.PIPE, text=True)
    try:
        assert neighbour.stdout.readline().strip() == "listening"
        seen = as_kernel(UID, mine, CONNECT, name)
        assert "the neighbour's answers" not in seen, seen
    finally:
        neighbour.kill()
        neighbour.wait()
        assert sandbox.reap(NEIGHBOUR, seconds=30) and sandbox.reap(UID, seconds=30)


# Was open (round 10): the kernel read what root's listener served and bound a port of its own.
# Closed: the ruleset handles TCP's bind and connect with no port allowed (Landlock ABI 4, Linux
# 6.7): kernels talk to the grader over ipc sockets. Where the ABI is lower the summary says so.
@pytest.mark.skipif(sandbox.fence_abi() < 4, reason="Landlock here has no network rules (ABI < 4)")
def test_a_fenced_kernel_reaches_tcp(shared_tmp):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        server.settimeout(10)
        try:
            peer, _ = server.accept()
            peer.sendall(b"the grader's secret")
            peer.close()
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    reach = (
        "import socket\n"
        "def tried(what, action):\n"
        "    try:\n"
        "        print(what, action())\n"
        "    except OSError as error:\n"
        "        print(what, 'refused', error.errno)\n"
        f"tried('connect', lambda: socket.create_connection(('127.0.0.1', {port})).recv(99))\n"
        "tried('bind', lambda: socket.create_server(('127.0.0.1', 0)).getsockname())\n"
    )
    try:
        seen = as_kernel(UID, shared_tmp, reach)
        assert "the grader's secret" not in seen and "bind refused" in seen, seen
    finally:
        server.close()
        assert sandbox.reap(UID, seconds=30)


# Each way a kernel might put something other than a plain file of its own into /dev/shm (where
# the fence lets it make files), or write outside its folders through a door the fence might
# not see: a link or rename of its working copy's file (Landlock's REFER), a FIFO, a socket,
# a symbolic link, a folder; reopening a read-only descriptor for writing through /proc/self/fd;
# truncating (no write needed) a file of root's that anyone may write.
EDGES = r"""
import os, socket, sys
shm, victim = sys.argv[1], sys.argv[2]
def tried(what, action):
    try:
        action()
        print(what, "done")
    except OSError as error:
        print(what, "refused", error.errno)
open("mine", "w").write("answers")
tried("link", lambda: os.link("mine", shm + "-link"))
tried("rename", lambda: os.rename("mine", shm + "-moved"))
tried("fifo", lambda: os.mkfifo(shm + "-fifo"))
tried("socket", lambda: socket.socket(socket.AF_UNIX).bind(shm + "-socket"))
tried("symlink", lambda: os.symlink("/etc/passwd", shm + "-symlink"))
tried("folder", lambda: os.mkdir(shm + "-folder"))
reader = os.open(victim, os.O_RDONLY)
tried("reopen", lambda: open(f"/proc/self/fd/{reader}", "w").write("changed"))
tried("truncate", lambda: os.truncate(victim, 0))
"""


def test_only_plain_files_of_its_own_reach_dev_shm_and_no_door_opens_outside(shared_tmp):
    shm = f"/dev/shm/red-team-8-{os.getpid()}"
    victim = Path(f"/tmp/red-team-8-victim-{os.getpid()}")
    victim.write_text("root's, anyone may write")
    victim.chmod(0o666)
    try:
        seen = as_kernel(UID, shared_tmp, EDGES, shm, str(victim))
        for door in ("link", "rename"):
            assert f"{door} refused 18" in seen, seen  # EXDEV: Landlock's REFER
        for door in ("fifo", "socket", "symlink", "folder", "reopen", "truncate"):
            assert f"{door} refused 13" in seen, seen
        assert victim.read_text() == "root's, anyone may write"
        assert not [e for e in os.listdir("/dev/shm") if e.startswith(Path(shm).name)]
    finally:
        victim.unlink()
        assert sandbox.reap(UID, seconds=30)


# Was open (round 10): nothing bounded how many plain files a fenced kernel left in /dev/shm:
# 20,000 made in 0.45 s added 0.12 s to another user's reset (about 6 us a file), so ~1.6 million
# (~36 s of one kernel's time) passed the 10 s that retires a user. Closed: past `Caps.shm_files`
# (256) `shm_guard` stops the kernel and removes its files, within 0.05 s of a listing.
def test_a_fenced_kernel_leaves_files_in_dev_shm_without_bound(shared_tmp):
    many = (
        "import os\n"
        "for i in range(20000):\n"
        "    open(f'/dev/shm/red-team-8-{os.getpid()}-{i}', 'w').close()\n"
    )
    try:
        seen = as_kernel(UID, shared_tmp, many)
        assert "stopped the kernel: its user kept" in seen, seen
        left = sum(1 for e in os.scandir("/dev/shm") if e.name.startswith("red-team-8-"))
        assert left <= 1000, f"{left} files left in /dev/shm"
    finally:
        assert sandbox.reap(UID, seconds=30)
