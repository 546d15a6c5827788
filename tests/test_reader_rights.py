"""A reader gives up its rights before it reads a student's file (`reader_rights`): checked in
a forked process, as the reading helper forks its readers."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import platform
import resource
import shutil
import signal
import socket
import tempfile
import time
from pathlib import Path

import pytest

from lib.grading import landlock, reader_rights, sandbox, seccomp
from tests.red_team_support import in_child

UID = sandbox.FIRST_UID + 952  # far from the users a grader beside us claims
TRIES = {  # what a reader taken over by a student's text might try
    "fork": lambda: os.fork() == 0 and os._exit(0),
    "signal itself": lambda: os.kill(os.getpid(), 0),  # its own process: only the filter says no
    "socket": lambda: socket.socket().close(),
    "write a file": lambda: Path(os.environ["PROBE"]).write_bytes(b"x"),  # one it may open
    "run a program": lambda: os.execv("/bin/true", ["true"]),
}


def _status(pid: int) -> dict:
    """What /proc says of `pid`: its user, capabilities, no_new_privs, seccomp and groups (read
    by us: the reader itself may open no file)."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    status = dict(line.split(":", 1) for line in lines)
    found = {k: status[k].split()[0] for k in ("Uid", "CapEff", "NoNewPrivs", "Seccomp")}
    return found | {"Groups": status["Groups"].strip()}


def _rights_after_giving_up(uid: int | None) -> dict:
    """What a process can still do after `give_up_rights(uid)`, as its child reports it."""
    folder = Path(tempfile.mkdtemp(prefix="reader-rights-"))
    probe = folder / "probe"
    probe.touch()
    probe.chmod(0o666)  # its user may open it: Landlock, then the cap on file size, stop the write
    folder.chmod(0o755)
    read, write = os.pipe()
    go, wait = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery past this point, only os._exit
        found = {}
        try:
            os.environ["PROBE"] = str(probe)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap: EFBIG, not death
            reader_rights.give_up_rights(uid)
            for name, attempt in TRIES.items():
                try:
                    attempt()
                    found[name] = "allowed"
                except OSError:
                    found[name] = "refused"
        finally:
            os.write(write, json.dumps(found).encode() + b"\n")
            os.read(go, 1)  # until its status is read
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        found = json.loads(answer.readline())
        found |= _status(pid)
    os.write(wait, b"x")
    os.waitpid(pid, 0)
    assert probe.stat().st_size == 0
    shutil.rmtree(folder)
    return found


@pytest.mark.skipif(os.geteuid() != 0, reason="root's grader: its reader changes user")
def test_a_reader_of_roots_grader_has_no_rights_left():
    rights = _rights_after_giving_up(UID)
    assert rights == {
        "Uid": str(UID),
        "CapEff": "0000000000000000",
        "NoNewPrivs": "1",
        "Seccomp": "2",  # the filter refusing keys
        "Groups": "",
        **dict.fromkeys(TRIES, "refused"),
    }


def test_a_reader_without_a_sandbox_user_is_not_roots_either():
    rights = _rights_after_giving_up(None)
    expected = reader_rights.LONE_UID if os.geteuid() == 0 else os.geteuid()
    assert (rights["Uid"], rights["NoNewPrivs"], rights["fork"]) == (str(expected), "1", "refused")


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64's system calls")
def test_the_filter_refuses_io_uring_and_signals_by_descriptor_alone():
    """The seccomp filter by itself (no Landlock): io_uring_setup and fcntl's F_SETOWN,
    F_SETOWN_EX and F_SETSIG are refused, other fcntl commands are not."""
    machine = platform.machine()

    def attempt() -> list:
        assert seccomp.refuse(reader_rights.REFUSED[machine], reader_rights.BY_ARGUMENT[machine])
        libc = ctypes.CDLL(None, use_errno=True)
        said = [libc.syscall(425, 4, ctypes.create_string_buffer(120)), ctypes.get_errno()]
        read, _ = os.pipe()
        for command in (fcntl.F_GETFL, fcntl.F_SETOWN, reader_rights.F_SETSIG, 15):
            said.append(libc.fcntl(read, command, 0) == -1 and ctypes.get_errno())
        return said

    assert in_child(attempt) == [-1, errno.EPERM, False, errno.EPERM, errno.EPERM, errno.EPERM]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64's system calls")
def test_the_filter_lets_a_reader_set_its_own_limits_only():
    """prlimit64 is refused unless its pid is 0 (`UNLESS_ARGUMENT`): setrlimit, which
    `give_up_rights` calls after the filter, still works; the same call by pid does not, not
    even on itself (a reader names no pid)."""
    machine = platform.machine()

    def attempt() -> list:
        assert seccomp.refuse((), (), reader_rights.UNLESS_ARGUMENT[machine])
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        try:
            resource.prlimit(os.getppid(), resource.RLIMIT_FSIZE)
        except PermissionError:
            return ["set its own", "refused by pid"]
        return ["set its own", "read its parent's"]

    assert in_child(attempt) == ["set its own", "refused by pid"]


@pytest.mark.skipif(landlock.version() < landlock.SCOPE_ABI, reason="Landlock ABI 6")
def test_landlock_alone_leaves_no_file_no_tcp_and_no_signal_out():
    """The reader's Landlock ruleset by itself (no filter, no change of user): no file opened by
    a path, a descriptor held still read, no TCP connect, no signal to its parent."""
    parent = os.getpid()
    held = os.open(__file__, os.O_RDONLY)
    listener = socket.create_server(("127.0.0.1", 0))

    def attempt() -> list:
        landlock.restrict(landlock.file_rights(landlock.version()), [])
        said = [len(os.read(held, 10))]
        for step in (
            lambda: open(__file__).close(),
            lambda: socket.create_connection(listener.getsockname(), timeout=2).close(),
            lambda: os.kill(parent, 0),
        ):
            try:
                step()
                said.append("allowed")
            except OSError as error:
                said.append(errno.errorcode[error.errno])
        return said

    with listener:
        said = in_child(attempt)
    os.close(held)
    assert said == [10, "EACCES", "EACCES", "EPERM"], said


def test_a_reader_that_spins_past_its_cpu_limit_is_killed():
    """RLIMIT_CPU (`cpu_limit`), the wall behind the watcher's deadline: a process that spins
    with SIGXCPU ignored is killed a second of CPU later (SIGKILL at the hard limit)."""
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        reader_rights.cpu_limit(0.5)  # 2 s of CPU, then 3 s: killed
        while True:
            pass
    started = time.monotonic()
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert time.monotonic() - started < 30
