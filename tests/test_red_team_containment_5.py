"""Red team, round 7: the clean-up between students as redesigned (issue 28, commit f888972: the
grader is the subreaper of every process it starts, and `reap` kills every process of a sandbox
user and waits for the grader's own zombies of it). Tricks not in `_1` to `_4`, each run as the
sandbox user runs, against the real `reap`, `sandbox.command` and `summary_chart`. Marked
`xfail(strict=True)` while the hole is open (the reason says what the attack got; "Fix:" what
would close it): the fix turns it into an unexpected pass, then drop the mark. The plain tests
are attacks the design holds against, kept as guards.

"Own user" is the mode without namespaces (Gradescope, Docker), "box" the bubblewrap one. All
need root: the sandbox users exist only when the grader runs as root. About 12 s in all.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lib.grading import kernel_users, sandbox, summary_chart, user_processes
from lib.grading.user_processes import adopt_orphans
from tests.red_team_support import as_user, box_runs, shared_folder

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
# Far from the users a grader running beside us claims first, and from rounds 3 to 6's. Not 707,
# this round's first: its keyring was locked on the test machine (until a restart) before reap
# checked that keyrings clear, and reap now rightly fails for it every time.
UID = sandbox.FIRST_UID + 727
# The keyring test's own user: what it plants there stays until the machine restarts (the hole).
KEYS_UID = sandbox.FIRST_UID + 719
# Users a test locks for good (until the machine restarts), one a run: far from every other test's.
LOCKABLE = range(sandbox.FIRST_UID + 600, sandbox.FIRST_UID + 640)
X86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="system call numbers of x86_64")


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("red-team-5-", 0o777)


def zombie_children() -> dict[int, str]:
    """This process's children that have exited and wait for it: pid -> command name."""
    found = {}
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError, IndexError):
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z" and int(fields[1]) == os.getpid():
                found[int(entry)] = Path(f"/proc/{entry}/comm").read_text().strip()
    return found


def wait_for(pids) -> None:
    """Reap these zombies of ours (what the hole left in this test's process)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


# --- What user_reset cannot undo: the user keyring made read-only by its owner -----------------

# As the kernel: a key in the user keyring, then key and keyring made view-and-read only, for
# their owner too (KEYCTL_SETPERM: no write, search, link or set-attribute left to anyone). The
# next kernel of the uid finds the key's serial in /proc/keys and reads it.
KEYRING = r"""
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
keyctl = lambda *args: libc.syscall(250, *args)
if sys.argv[1] == "plant":
    ring = keyctl(0, -4, 1)  # KEYCTL_GET_KEYRING_ID of the user keyring (fails once locked)
    key = libc.syscall(248, b"user", b"red-team-5", b"student A's answers", 19, ring)
    locked = 0x03030000  # possessor and owner: view, read
    print("planted", key > 0 and keyctl(5, key, locked) == 0 and keyctl(5, ring, locked) == 0)
else:
    found = ctypes.create_string_buffer(64)
    for line in open("/proc/keys"):
        serial, kind = int(line.split()[0], 16), line.split()[7]
        if kind == "user" and keyctl(11, serial, found, 63) > 0:  # KEYCTL_READ
            print("read", found.value.decode())
"""


def as_kernel(uid: int, folder: Path, code: str, *args: str) -> str:
    """Run `code` as a kernel of `uid` starts without a box (`sandbox.command`, `kernel_start`
    included: its own session keyring, the kernels' caps) and return what it printed."""
    (folder / "kernel.py").write_text(code)
    kernel = [sys.executable, "-I", str(folder / "kernel.py"), *args]
    readonly = [str(folder), *sandbox.readonly_paths(())]
    command = sandbox.command(kernel, folder, folder, readonly, sandbox.Caps(), uid, boxed=False)
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=folder)
    return done.stdout + done.stderr


# Closed, twice over: `kernel_start` refuses add_key, request_key and keyctl to every kernel of a
# root grader (a seccomp filter, as Docker's default profile has), and user_reset fails (exit 1,
# the user retired) when a keyring will not clear, instead of ignoring the result.
@X86_64
def test_a_keyring_its_owner_made_read_only_never_reaches_the_next_student(shared_tmp):
    """KEYCTL_CLEAR needs write permission, which the keyring's owner may take from itself (and
    with set-attribute gone, never get back). Here the kernel cannot plant the key; on this
    machine an earlier run, before the fix, locked KEYS_UID's keyring: reap then says False."""
    as_kernel(KEYS_UID, shared_tmp, KEYRING, "plant")
    try:
        reaped = sandbox.reap(KEYS_UID)
        seen = as_kernel(KEYS_UID, shared_tmp, KEYRING, "look")
        assert not (reaped and "student A's answers" in seen), seen
    finally:
        sandbox.reap(KEYS_UID, seconds=30)


# As the kernel: ask for the user keyring (without making one) and add a key to its own session
# keyring (it dies with the kernel: nothing outlives this test if the filter is gone).
KEYS_TRIED = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
ring = libc.syscall(250, 0, -4, 0)  # KEYCTL_GET_KEYRING_ID
print("keyctl", ring, ctypes.get_errno())
key = libc.syscall(248, b"user", b"red-team-5", b"x", 1, -3)  # add_key to the session keyring
print("add_key", key, ctypes.get_errno())
"""


@X86_64
def test_a_kernel_of_a_root_grader_reaches_no_keyring(shared_tmp):
    """The first layer alone: every system call of keys fails with EPERM in the kernel."""
    try:
        seen = as_kernel(UID, shared_tmp, KEYS_TRIED)
        assert seen.split("\n")[:2] == ["keyctl -1 1", "add_key -1 1"], seen
    finally:
        sandbox.reap(UID, seconds=30)


@X86_64
def test_reap_fails_for_a_user_whose_keyring_its_owner_locked():
    """The second layer alone: the key is planted as the user runs outside any kernel (no filter:
    a grader before the fix, or a machine the filter does not cover). The keyring cannot be
    cleared by anyone now, so reap says False and the user is never handed on. The user stays
    locked until the machine restarts, and an earlier run's lock makes the plant fail ("planted
    False", seen when the suite ran twice on one machine): each run locks the first of LOCKABLE
    whose plant succeeds."""
    for uid in LOCKABLE:
        if as_user(uid, KEYRING, "plant").strip() == "planted True":
            break
    else:
        pytest.fail(f"no user of {LOCKABLE} could be locked: restart the machine to free them")
    assert not sandbox.reap(uid)
    said = sandbox.unreaped(uid, seconds=30)  # what an error message then says: the keyring
    assert said is not None and "reset failed (exit 1): keyring" in said, said


# --- Processes that user_reset takes for dead, or that stop it ---------------------------------

# As the kernel: a daemon whose main thread exits alone (SYS_exit, not exit_group): /proc shows
# the process as a zombie ("Z") while its other thread runs on, writing a file whenever it is
# gone.
ZOMBIE_LEADER = r"""
import ctypes, os, sys, threading, time
path = sys.argv[1]
def keep_writing():
    end = time.monotonic() + 20
    while time.monotonic() < end:
        if not os.path.exists(path):
            with open(path, "w") as out:
                out.write("student A's answers")
        time.sleep(0.001)
if os.fork() == 0:
    os.setsid()
    os.closerange(0, 9)
    threading.Thread(target=keep_writing).start()
    time.sleep(0.1)
    ctypes.CDLL(None).syscall(60, 0)  # exit this thread only
"""


# Closed: `reap` kills every process of the uid from root before user_reset starts
# (`user_processes.kill_all`), and lists the leader while any thread of it runs: nothing of the
# user runs while user_reset removes files.
@X86_64
def test_reap_never_reports_success_while_a_zombie_leaders_thread_writes_on():
    path = Path(f"/tmp/red-team-5-leader-{os.getpid()}")
    as_user(UID, ZOMBIE_LEADER, str(path))
    try:
        time.sleep(0.3)
        assert path.exists(), "the attack ran"
        reaped = sandbox.reap(UID)
        assert sandbox.processes_of(UID) == []  # root's own kill loop holds
        assert not (reaped and path.exists()), "reap said True, the file is still there"
    finally:
        sandbox.reap(UID, seconds=30)
        path.unlink(missing_ok=True)


# As the kernel: a daemon that sends SIGSTOP to every other process of its user, as soon as one
# appears (the grader's user_reset runs as that user: it may).
STOPPER = r"""
import os, signal, time
if os.fork() == 0:
    os.setsid()
    os.closerange(0, 9)
    time.sleep(0.2)  # its parent has gone by then
    me, mine, end = os.getuid(), str(os.getpid()), time.monotonic() + 30
    while time.monotonic() < end:
        for name in os.listdir("/proc"):
            if name.isdigit() and name != mine:
                try:
                    if os.stat("/proc/" + name).st_uid == me:
                        os.kill(int(name), signal.SIGSTOP)
                except OSError:
                    pass
"""


# Closed: as above, `reap` kills every process of the uid from root before user_reset starts:
# none is left to stop it.
def test_a_daemon_that_stops_user_reset_costs_reap_little():
    as_user(UID, STOPPER)
    try:
        time.sleep(0.4)
        assert sandbox.processes_of(UID), "the attack ran"
        started = time.monotonic()
        reaped = sandbox.reap(UID, seconds=3)
        took = time.monotonic() - started
        assert sandbox.processes_of(UID) == []
        assert reaped and took < 1.5, f"reap {reaped} after {took:.1f} s"
    finally:
        sandbox.reap(UID, seconds=30)


# --- Held: orphans kept from the grader -------------------------------------------------------

# As the kernel: a daemon that makes itself the subreaper of its own orphans (no privilege
# needed) and never waits for them, and that ptrace-attaches a child of its own, so that the
# child's exit is reported to it, not to its parent.
OWN_SUBREAPER = r"""
import ctypes, os, time
libc = ctypes.CDLL(None)
if os.fork() == 0:
    os.setsid()
    os.closerange(0, 9)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    for _ in range(50):
        if os.fork() == 0:
            if os.fork() == 0:
                time.sleep(0.1)
                os._exit(0)  # an orphan of the daemon's, then its zombie
            os._exit(0)
    child = os.fork()
    if child == 0:
        time.sleep(0.2)
        os._exit(0)
    libc.ptrace(16, child, 0, 0)  # PTRACE_ATTACH
    time.sleep(60)
"""


def test_zombies_a_kernel_keeps_from_the_grader_are_gone_after_reap():
    """Own user (held): the daemon's 100 zombies go to the grader once root kills it, and reap
    waits for every one, within a second."""
    as_user(UID, OWN_SUBREAPER)
    try:
        time.sleep(0.6)
        assert len(sandbox.processes_of(UID)) > 50, "the attack ran"
        started = time.monotonic()
        assert sandbox.reap(UID, seconds=3)
        assert sandbox.processes_of(UID) == [] and time.monotonic() - started < 2
    finally:
        sandbox.reap(UID, seconds=30)


# --- What the grader adopts and never waits for: root's orphans --------------------------------


# A grader runs either boxed or unboxed for a whole run: run as a boxed one, in a fresh process
# (this test process may have adopted orphans for the unboxed tests). It prints whether it
# adopts orphans and the zombies it is left with after a killed box and reap.
BOXED_GRADER = r"""
import os, signal, subprocess, sys, time
from pathlib import Path
from lib.grading import sandbox
from lib.grading.user_processes import adopts_orphans
tmp, uid = Path(sys.argv[1]), int(sys.argv[2])
kernel = [sys.executable, "-I", "-c", "import time; time.sleep(60)"]
command = sandbox.command(kernel, tmp, tmp, sandbox.readonly_paths(()), sandbox.Caps(), uid)
box = subprocess.Popen(command, start_new_session=True)  # as jupyter_client launches it
time.sleep(1)
os.killpg(box.pid, signal.SIGKILL)  # shutdown_kernel(now=True)
box.wait()
time.sleep(0.3)
sandbox.reap(uid)
zombies = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    if fields[0] == "Z" and int(fields[1]) == os.getpid():
        zombies.append(pid)
print(adopts_orphans(), len(zombies))
"""


def test_a_killed_box_leaves_no_zombie_with_the_grader(shared_tmp):
    """`become` made the grader the subreaper of all it starts, boxes too: the outer bwrap died
    first, its pid 1 came back to the grader, and `reap` waited only for the kernel user's
    zombies: one per kernel start (two per notebook), until the grader exits, against a pids
    limit (Docker's --pids-limit, a CI runner's). Now only an unboxed grader adopts orphans
    (`sandbox.command`): in a box, the box's pid 1 takes them."""
    if not box_runs():
        pytest.skip("bubblewrap cannot run here")
    try:
        said = subprocess.run(
            [sys.executable, "-c", BOXED_GRADER, str(shared_tmp), str(UID)],
            cwd=Path(__file__).resolve().parents[1],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert said.stdout.split() == ["False", "0"], said.stdout + said.stderr
    finally:
        sandbox.reap(UID, seconds=30)


# Closed: after killing the drawing's process group, `_drawn` waits for every child of that group
# (`summary_chart._wait_for_group`), adopted ones included.
@pytest.mark.draws_chart  # the real `_drawn`, with a stand-in for chromium: see conftest
def test_drawing_the_chart_leaves_no_zombie_with_the_grader(monkeypatch):
    """kaleido's chromium starts helpers (crashpad handlers) whose parent exits first; the
    drawing's process group is killed, and each comes back to the grader. Drawn here by a
    stand-in that starts one such helper (chromium itself takes 7 s)."""
    adopt_orphans()  # as after any kernel of a sandbox user
    helper = "import subprocess, sys; subprocess.Popen(['sleep', '60'], stdout=subprocess.DEVNULL)"
    monkeypatch.setattr(summary_chart, "_DRAW", f"{helper}; sys.stdout.buffer.write(b'\\x89PNG')")
    before = set(zombie_children())
    assert summary_chart._drawn("{}") == b"\x89PNG"
    time.sleep(0.3)
    left = {pid: name for pid, name in zombie_children().items() if pid not in before}
    wait_for(left)
    assert left == {}, f"zombies of the grader's: {left}"


# --- Killing by number: a pid listed, freed and given to someone else ----------------------------

# As the kernel: a daemon whose child's pid is freed the moment the child dies (it waits for it).
WAITER = r"""
import os, time
if os.fork() == 0:
    os.setsid()
    os.closerange(0, 9)
    child = os.fork()
    if child == 0:
        time.sleep(60)
        os._exit(0)
    os.waitpid(child, 0)
    time.sleep(60)
"""
NS_LAST_PID = Path("/proc/sys/kernel/ns_last_pid")


# Closed: `user_processes.kill_all` opens a pidfd per pid, checks /proc/PID is the uid's after
# opening it, then signals and waits through the pidfd: a number freed meanwhile names nobody.
@pytest.mark.skipif(not NS_LAST_PID.exists(), reason="no ns_last_pid to give the pid again")
def test_reap_never_kills_nor_waits_for_a_process_that_took_a_listed_pid(monkeypatch):
    """A busy grader thread (2 cores, 256 busy processes of the kernel's) lists the uid's
    processes, then kills them a while later; on a machine whose pid_max is 32,768 (this one) a
    kernel forking fast wraps the pids in seconds. The unlucky moment is staged here: between the
    listing and the kill, the kernel's child dies (its parent waits for it) and another sandbox
    user's process, started by the grader, gets its number."""
    other = sandbox.FIRST_UID + 708
    as_user(UID, WAITER)
    listing, victim = user_processes.processes_of, None

    def stale(uid: int) -> list[int]:
        nonlocal victim
        monkeypatch.setattr(user_processes, "processes_of", listing)  # once
        listed = listing(uid)
        child = max(listed)  # the waiter's child, forked after it
        os.kill(child, signal.SIGKILL)  # dies, as it may on its own; its parent frees the pid
        while Path(f"/proc/{child}").exists():
            time.sleep(0.01)
        for _ in range(20):  # another process forking in between takes the number: again
            NS_LAST_PID.write_text(str(child - 1))
            victim = subprocess.Popen([*kernel_users.become(other), "sleep", "30"])
            if victim.pid == child:
                return listed
            victim.kill()
            victim.wait()
        pytest.skip("the machine forks too much to give a pid again")

    try:
        time.sleep(0.3)
        monkeypatch.setattr(user_processes, "processes_of", stale)
        assert user_processes.kill_all(UID, time.monotonic() + 3)  # the kill loop reap runs
        time.sleep(0.1)
        assert victim.poll() is None, f"another user's process was killed: {victim.returncode}"
    finally:
        if victim is not None:
            victim.kill()
            victim.wait()
        sandbox.reap(UID, seconds=30)
        sandbox.reap(other, seconds=30)


# --- Another user's folders, deeper than user_reset looks ----------------------------------------


# Closed: user_reset walks every folder others may write, however deep, one folder open at a
# time (down by name without following links, up by "..", checked).
def test_a_file_below_another_users_deep_folders_never_outlives_reap():
    """Two kernels at once (one student's two notebooks in two slots, say): the one of user
    `other` makes the folders and keeps running, the one of `UID` writes below them. The file
    goes only when `other` is reset, after the next student of `UID` may have started."""
    other = sandbox.FIRST_UID + 708
    top = f"/tmp/red-team-5-nested-{os.getpid()}"
    deep = top + "/d" * 10
    try:
        as_user(other, f"import os; os.umask(0); os.makedirs({deep!r}, 0o777)")
        as_user(UID, f"open({deep!r} + '/answers', 'w').write('student A')")
        assert os.path.exists(f"{deep}/answers"), "the attack ran"
        reaped = sandbox.reap(UID)
        assert not (reaped and os.path.exists(f"{deep}/answers")), "reap said True, file left"
    finally:
        sandbox.reap(UID, seconds=30)
        sandbox.reap(other, seconds=30)
        shutil.rmtree(top, ignore_errors=True)


# As a kernel: go `depth` folders down `top`, making them (mode 777) or writing a file there.
DIG = r"""
import os, sys
top, depth, make = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "make"
os.umask(0)
os.chdir(top)
for _ in range(depth):
    if make:
        os.mkdir("d", 0o777)
    os.chdir("d")
if not make:
    open("answers", "w").write("student A")
"""


def test_a_file_below_1500_nested_folders_of_another_user_goes_too():
    """No depth limit, and none in disguise: 1,500 levels are beyond Python's recursion limit (a
    recursive walk fails) and the 1,024 files a process may hold open by default (a walk holding
    every level open would need that limit raised). The file is gone, the reset proven, in
    well under reap's time."""
    other, depth = sandbox.FIRST_UID + 708, 1500
    top = Path(f"/tmp/red-team-5-dig-{os.getpid()}")
    top.mkdir(mode=0o777)
    top.chmod(0o777)
    bottom = top.joinpath(*["d"] * depth, "answers")
    try:
        as_user(other, DIG, str(top), str(depth), "make")
        as_user(UID, DIG, str(top), str(depth), "write")
        assert bottom.exists(), "the attack ran"
        started = time.monotonic()
        assert sandbox.reap(UID)
        assert time.monotonic() - started < 3
        assert not bottom.exists()
    finally:
        sandbox.reap(UID, seconds=30)
        sandbox.reap(other, seconds=30)  # removes its 1,500 folders (shutil.rmtree would recurse)
        shutil.rmtree(top, ignore_errors=True)
