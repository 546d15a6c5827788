"""Red team, round 4 (issue 28's design, attacked again): tricks not in
`test_red_team_containment.py`, each a minimal reproduction run as the sandbox user, as a kernel
runs. Marked `xfail(strict=True)` while the hole is open (the reason says what the attack got), so
the fix that closes it turns the test into an unexpected pass: then drop the mark.

"Own user" is the mode without namespaces (Gradescope: `sandbox.command(..., boxed=False)`), "box"
the bubblewrap one. All need root: the sandbox users exist only when the grader runs as root.
About 15-20 s in all on 2 busy cores.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from lib.grading import kernel_users, prepare, sandbox, scratch_disk
from lib.grading.submissions import Submission
from lib.grading.user_processes import adopt_orphans
from tests.red_team_support import as_user as run_as_user
from tests.red_team_support import box_runs, shared_folder

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
# Far from the users a grader running beside us claims first, and from round 3's (+990).
UID, OTHER = sandbox.FIRST_UID + 980, sandbox.FIRST_UID + 981
X86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="system call numbers of x86_64")


def as_user(uid: int, code: str, *args: str, caps: bool = False) -> str:
    """`red_team_support.as_user`, with orphans coming back to this process, as to a grader
    that starts a kernel without a box."""
    adopt_orphans()
    return run_as_user(uid, code, *args, caps=caps)


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("red-team-2-", 0o755)


# --- The session keyring: one for every kernel the grader starts -----------------------------

KEYS = r"""
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "plant":  # add_key("user", ..., KEY_SPEC_SESSION_KEYRING)
    print(libc.syscall(248, b"user", b"red-team-2", b"student A's answers", 19, -3) > 0)
else:  # keyctl(KEYCTL_SEARCH, session, ...), then KEYCTL_READ
    key = libc.syscall(250, 10, -3, b"user", b"red-team-2", 0)
    found = ctypes.create_string_buffer(64)
    print(key > 0 and libc.syscall(250, 11, key, found, 63) > 0 and found.value.decode())
"""
# The grader, as Docker (runc), `sudo` with pam_keyinit or a login session start it: with a
# session keyring of its own, which every process it starts inherits, setpriv or not. Its
# kernels keep the system calls of keys here: this is the session keyring's layer alone (a root
# grader's kernels now lose those calls too, `kernel_start.refuse_keys`: red team 5's tests).
GRADER = r"""
import ctypes, subprocess, sys
from pathlib import Path
from lib.grading import sandbox
KEYS = "    if not refuse_keys() and keys_to_refuse():"  # the filter, or no kernel at all
assert KEYS in sandbox._START
sandbox._START = sandbox._START.replace(KEYS, "    if False:")
ctypes.CDLL(None).syscall(250, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: a new, anonymous one
folder, boxed = Path(sys.argv[1]), sys.argv[2] == "box"
readonly = [str(folder), *sandbox.readonly_paths(())]
for uid, step in ((int(sys.argv[3]), "plant"), (int(sys.argv[4]), "look")):
    kernel = [sys.executable, "-I", str(folder / "keys.py"), step]
    command = sandbox.command(kernel, folder, folder, readonly, sandbox.Caps(), uid, boxed)
    print(step, subprocess.run(command, capture_output=True, text=True).stdout.strip())
"""


@X86_64
@pytest.mark.parametrize("mode", ["box", "own user"])
def test_a_key_one_kernel_adds_to_its_session_keyring_never_reaches_another(shared_tmp, mode):
    """Kernels inherited the grader's session keyring (setpriv and bwrap keep it): student B's
    kernel read the key student A's added. Each now joins a new one (`kernel_start`)."""
    if mode == "box" and not box_runs():
        pytest.skip("bubblewrap cannot run here")
    (shared_tmp / "keys.py").write_text(KEYS)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    grader = [sys.executable, "-c", GRADER, str(shared_tmp), mode.split()[0], str(UID), str(OTHER)]
    out = subprocess.run(grader, capture_output=True, text=True, timeout=120, env=env).stdout
    assert "plant True" in out, out  # the attack ran: A could add its key
    assert "look False" in out, f"student B's kernel read student A's key: {out}"


# --- The kernel's own start-up, in the student's folder ----------------------------------------


@pytest.mark.parametrize("mode", ["box", "own user"])
def test_a_file_in_the_students_folder_never_replaces_the_kernel(shared_tmp, mode):
    """Kernels started as `python -m ipykernel_launcher` in the working folder ran a handed-in
    `ipykernel_launcher.py` (first on sys.path) before the grader's set-up: it could swap in the
    reference solutions. `kernel_start.module_runner` drops that folder from the path first."""
    from lib.notebooks import ThisPython

    if mode == "box" and not box_runs():
        pytest.skip("bubblewrap cannot run here")
    (shared_tmp / "ipykernel_launcher.py").write_text("print('a student launcher ran')")
    argv = ThisPython().get_kernel_spec("python3").argv  # as the grader starts every kernel
    kernel = [arg.replace("{connection_file}", str(shared_tmp / "kernel.json")) for arg in argv]
    readonly, caps, boxed = sandbox.readonly_paths(()), sandbox.Caps(), mode == "box"
    scratch, env = None, None  # boxed: the box's own /tmp
    if not boxed:  # its own TMPDIR, as the grader gives it: the machine's /tmp is fenced off
        scratch = shared_tmp / "scratch"
        scratch.mkdir()
        sandbox.give_to(UID, scratch)
        env = {**os.environ, "TMPDIR": str(scratch)}
    command = sandbox.command(
        [*kernel, "--version"], shared_tmp, shared_tmp, readonly, caps, UID, boxed, scratch
    )
    done = subprocess.run(
        command, cwd=shared_tmp, capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert "launcher ran" not in done.stdout


def test_each_kernel_start_gets_a_fresh_ipython_folder(shared_tmp):
    """An IPython startup file the notebook's first run wrote in its IPYTHONDIR would run first
    in the graded kernel: each start gets a new, empty folder instead."""
    (shared_tmp / "where.py").write_text("import os; print(os.environ['IPYTHONDIR'])")
    kernel = sandbox.kernel_start.module_runner([sys.executable, "-m", "where"])
    env = {**os.environ, "IPYTHONDIR": str(shared_tmp), "TMPDIR": str(shared_tmp)}
    env["PYTHONPATH"] = str(shared_tmp)  # as the course's folders are: found, but not first
    runs = [subprocess.run(kernel, capture_output=True, text=True, env=env) for _ in range(2)]
    folders = [run.stdout.strip() for run in runs]
    assert len(set(folders)) == 2 and str(shared_tmp) not in folders, folders
    assert all(os.listdir(folder) == [] for folder in folders)


# --- What user_reset misses: left for the next kernel of the same user ------------------------

MQUEUE = r"""
import ctypes, os, sys
rt = ctypes.CDLL("librt.so.1", use_errno=True)
name = sys.argv[1].encode()
if sys.argv[2] == "plant":
    queue = rt.mq_open(name, os.O_CREAT | os.O_RDWR, 0o600, None)
    print(queue >= 0 and rt.mq_send(queue, b"student A's answers", 19, 0) == 0)
else:
    queue, found = rt.mq_open(name, os.O_RDONLY, 0, None), ctypes.create_string_buffer(8192)
    print(queue >= 0 and rt.mq_receive(queue, found, 8192, None) > 0 and found.value.decode())
"""


def test_reap_leaves_no_posix_message_queue_for_the_next_student():
    """Own user: a POSIX message queue outlived reap where /dev/mqueue is not mounted (user_reset
    lists queues there only) and the next kernel of that uid read the message. The caps now
    refuse every queue (`prlimit --msgqueue=0`)."""
    name = f"/red-team-2-{os.getpid()}"
    try:
        planted = as_user(UID, MQUEUE, name, "plant", caps=True)
        if "True" not in planted:  # the caps refuse queues: nothing can be left
            return
        sandbox.reap(UID)
        assert as_user(UID, MQUEUE, name, "look").strip() == "False"
    finally:
        ctypes.CDLL("librt.so.1").mq_unlink(name.encode())


LOCKED = r"""
import os, sys
for folder in sys.argv[1:]:
    os.mkdir(folder)
    with open(os.path.join(folder, "answers"), "w") as file:
        file.write("student A's answers")
    os.chmod(folder, 0)  # user_reset runs as this user: it can no longer list or empty it
"""


def test_reap_removes_folders_the_user_made_unreadable_to_itself():
    """Own user: a folder made mode 000 in /tmp or /dev/shm outlived reap (rmtree could not open
    it), and as /tmp/course-grader-user-N.lock took user N from every later grader. user_reset's
    `remove_tree` gives its owner's folders back their rights first."""
    squatted = kernel_users.FIRST_UID + kernel_users.USERS - 1  # the last any grader claims
    lock = f"{tempfile.gettempdir()}/course-grader-user-{squatted}.lock"
    folders = [lock, f"/dev/shm/red-team-2-{os.getpid()}"]
    if any(os.path.lexists(f) for f in folders):
        pytest.skip("a file of that name already exists")
    try:
        as_user(UID, LOCKED, *folders)
        assert all(os.path.isdir(f) for f in folders)  # the attack ran
        sandbox.reap(UID)
        assert [f for f in folders if os.path.lexists(f)] == []
    finally:
        for folder in folders:
            if os.path.isdir(folder) and not os.path.islink(folder):
                shutil.rmtree(folder)


def world_writable(folder: str) -> bool:
    return os.path.isdir(folder) and bool(os.stat(folder).st_mode & stat.S_IWOTH)


@pytest.mark.skipif(not world_writable("/run/lock"), reason="no world-writable /run/lock here")
def test_reap_removes_what_the_user_left_in_every_world_writable_folder():
    """Own user: user_reset cleaned four folders by name; a file in /run/lock outlived reap. It
    now also cleans every world-writable folder in /, /run, /var and /dev."""
    planted = Path(f"/run/lock/red-team-2-{os.getpid()}")
    try:
        as_user(UID, f"open({str(planted)!r}, 'w').write('student A')")
        assert planted.exists()  # the attack ran
        sandbox.reap(UID)
        assert not planted.exists()
    finally:
        planted.unlink(missing_ok=True)


# Runs as the sandbox user: a daemon that changes its pid every few microseconds (fork, the parent
# exits) and kills every other process of its user each time, user_reset first.
HOPPER = r"""
import ctypes, os, time
libc = ctypes.CDLL(None)
end = time.monotonic() + 30
if os.fork() == 0:
    os.setsid()
    os.closerange(0, 9)
    for n in range(10**9):
        libc.kill(-1, 9)
        if libc.fork() != 0:
            libc._exit(0)
        if n % 1000 == 0 and time.monotonic() > end:
            libc._exit(0)
"""


def test_reap_catches_a_daemon_that_hops_pids_and_kills_user_reset():
    """Own user (held: ~2 s of reap's 10): root's own kill loop catches it. Guards that loop
    against a refactor that trusts user_reset or kills from one look at /proc."""
    as_user(UID, HOPPER)
    try:
        time.sleep(0.3)
        assert sandbox.processes_of(UID), "the attack ran"
        sandbox.reap(UID)
        time.sleep(0.2)
        assert sandbox.processes_of(UID) == []
    finally:
        sandbox.reap(UID, seconds=30)


# Runs as the sandbox user: children that leave at once, each orphaning a child of its own that
# exits a moment later. Whose zombies those become depends on who adopts them.
ORPHANS = r"""
import os, sys, time
for _ in range(int(sys.argv[1])):
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(0.2)
        os._exit(0)
    os.wait()
"""


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_orphans_of_a_sandbox_user_come_back_to_the_grader_whatever_pid_1_does():
    """CI failed once with 492 zombies of the hopper above left after reap: its orphans went to
    pid 1, which on that machine (as in many containers, Gradescope's among them) never waited
    for them, and each counts against the user's process limit. The grader is now their
    subreaper: every orphan of a sandbox user is its own child, and reap waits for it."""
    as_user(UID, ORPHANS, "20")
    try:
        time.sleep(0.6)
        left = sandbox.processes_of(UID)
        assert len(left) == 20, "the orphans went elsewhere"
        assert {parent_of(pid) for pid in left} == {os.getpid()}
        assert sandbox.reap(UID)
        assert sandbox.processes_of(UID) == []
    finally:
        sandbox.reap(UID, seconds=30)


# --- Zombies handed to the grader -------------------------------------------------------------

# clone(CLONE_PARENT | SIGCHLD): each child is the child of our parent, which is the grader itself
# without a box (the kernel command execs sh, prlimit and setpriv: no process in between). Each
# exits at once; the grader never waits for a pid it did not start, so each stays a zombie of
# this uid until the grader exits, and counts against the uid's process limit.
ZOMBIES = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None)
for _ in range(int(sys.argv[1])):
    pid = libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)  # CLONE_PARENT | SIGCHLD
    if pid == 0:
        os._exit(0)
    print(pid, flush=True)
"""
THREADS = r"""
import threading, time
threads = [threading.Thread(target=time.sleep, args=(0.3,)) for _ in range(8)]
for thread in threads:  # all alive at once, as a kernel's are
    thread.start()
print("started 8 threads")
"""


@X86_64
def test_zombies_a_kernel_hands_to_the_grader_leave_the_next_student_its_processes():
    """Own user: a kernel's clone(CLONE_PARENT) children became the grader's zombies of the
    sandbox uid; reap could not kill them, spent its whole time-out on them, and they kept
    counting against the uid's 256 processes. Reap now waits for those (only zombies, only
    the grader's own), and user_reset no longer counts them as still running."""
    caps = sandbox.Caps()
    out = as_user(UID, ZOMBIES, str(caps.processes - 4))
    zombies = [int(line) for line in out.split() if line.isdigit()]
    try:
        assert len(zombies) > caps.processes - 10, out  # the attack ran
        started = time.monotonic()
        sandbox.reap(UID, seconds=1)
        took = time.monotonic() - started
        assert "started 8 threads" in as_user(UID, THREADS, caps=True)
        assert sandbox.processes_of(UID) == [] and took < 1
    finally:
        for pid in zombies:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


# --- A grader killed mid-run: what its kernels left ----------------------------------------------


def test_a_grader_claiming_a_user_first_kills_what_a_dead_grader_left_running(monkeypatch):
    """Own user: a grader killed mid-run (SIGKILL, OOM) never reaps, and its lock goes with it:
    the next grader claimed the user and ran the next student's kernel beside the first one's
    daemon, the same uid (it may read and rewrite the new working copy)."""
    left = (
        "import os, time\nif os.fork() == 0:\n    os.setsid(); os.closerange(0, 9); time.sleep(60)"
    )
    as_user(UID, left)  # its parent exits at once: the daemon is nobody's child, as it would be
    monkeypatch.setattr(kernel_users, "FIRST_UID", UID)
    monkeypatch.setattr(kernel_users, "USERS", 1)
    user = None
    try:
        time.sleep(0.2)
        user = kernel_users.OwnUser()
        assert user.uid == UID
        assert sandbox.processes_of(UID) == [], "the dead grader's daemon runs beside the kernel"
    finally:
        if user is not None:
            user.release()
        sandbox.reap(UID)


# --- What the grader does with a working copy: sizes and depths nothing bounds ------------------


def memory_folder() -> str | None:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def remove_deep(top: Path) -> None:
    """Remove `top`, however deep: shutil.rmtree, its recursion allowed."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 2000)
    try:
        shutil.rmtree(top, ignore_errors=True)
    finally:
        sys.setrecursionlimit(limit)


def test_removing_a_working_copy_of_deeply_nested_folders_leaves_nothing():
    """No tmpfs: 1,100 nested folders made scratch_disk.remove raise RecursionError (rmtree
    recurses) and the record a grader error; `remove_tree` holds at most 64 folders open."""
    # In memory: on this machine's ext4, 1,100 nested folders take seconds to remove.
    copy = Path(tempfile.mkdtemp(prefix="course-grade-deep-", dir=memory_folder()))
    fd = os.open(copy, os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("d", dir_fd=fd)
        fd, previous = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(previous)
    os.close(fd)
    try:
        scratch_disk.remove(copy)
    except RecursionError:  # the hole; a short failure, not a 1,000-frame traceback
        pass
    finally:
        survived = copy.exists()
        remove_deep(copy)
    assert not survived


def test_a_sparse_file_in_a_submission_costs_the_copy_little(tmp_path, monkeypatch):
    """No tmpfs: a 1 TB sparse file (no disk in the student's folder) was copied in full, in a
    thread no deadline stops. Files larger than a kernel may write are now left out, named."""
    folder = tmp_path / "ada"
    folder.mkdir()
    (folder / "03_training_bpe.ipynb").write_text("{}")
    with open(folder / "data.bin", "wb") as sparse:
        sparse.truncate(2**40)  # 1 TB, none of it on disk
    # The copy's share of the disk, at most: a file no kernel could write (`Caps.file_mb`).
    budget, copied = sandbox.Caps().file_mb * 2**20, [0]

    def counted(source, target, length=0):  # reads as the copy does, writes nothing
        chunk = bytearray(2**24)
        while read := source.readinto(chunk):
            copied[0] += read
            if copied[0] > budget:
                raise AssertionError(f"copied more than {budget // 2**20} MB of it")

    monkeypatch.setattr(prepare.shutil, "copyfileobj", counted)
    submission = Submission(folder / "03_training_bpe.ipynb", "ada", "", folder)
    left_out: list[str] = []
    try:
        prepare.working_copy(submission, tmp_path / "copy", left_out)
    except prepare.TooManyFiles:
        pass  # refused: as good as left out
    assert copied[0] <= budget
    assert left_out == ["data.bin"]


def test_a_copy_stops_at_the_bytes_its_own_disk_holds(tmp_path, monkeypatch):
    """Many files each under the per-file cap add up: past `MAX_COPY_BYTES` the copy is refused
    (`TooManyFiles`) before it writes more than that."""
    folder = tmp_path / "ada"
    folder.mkdir()
    (folder / "03_training_bpe.ipynb").write_text("{}")
    for n in range(4):
        (folder / f"part{n}.bin").write_bytes(b"x" * 1000)
    monkeypatch.setattr(prepare, "MAX_COPY_BYTES", 2500)
    submission = Submission(folder / "03_training_bpe.ipynb", "ada", "", folder)
    with pytest.raises(prepare.TooManyFiles, match="MB"):
        prepare.working_copy(submission, tmp_path / "copy")
    copied = sum(f.stat().st_size for f in (tmp_path / "copy").rglob("*") if f.is_file())
    assert copied <= 2500


def test_a_daemon_of_the_first_run_is_gone_before_the_graded_kernel_starts(monkeypatch):
    """Own user: reap ran only after the notebook, so a daemon its first run left (`setsid`)
    ran beside the graded kernel, the same uid. Every kernel start of a user reaps it first."""
    from jupyter_client.manager import AsyncKernelManager

    from lib.grading.kernel_manager import boxed_manager

    async def started(self, **kw):  # what jupyter_client does next: not needed here
        return [], kw

    monkeypatch.setattr(AsyncKernelManager, "_async_pre_start_kernel", started)
    as_user(
        UID,
        "import os, time\nif os.fork() == 0:\n    os.setsid(); os.closerange(0, 9); time.sleep(60)",
    )
    try:
        time.sleep(0.2)
        assert sandbox.processes_of(UID), "the attack ran"
        manager = boxed_manager(Path(tempfile.gettempdir()), lambda command: command, UID)
        asyncio.run(manager._async_pre_start_kernel())
        assert sandbox.processes_of(UID) == []
    finally:
        sandbox.reap(UID)
