"""A reader gives up its rights before it reads a student's file (`reader_rights`): checked in
a forked process, as the reading helper forks its readers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import tempfile
from pathlib import Path

import pytest

from lib.grading import reader_rights, sandbox

UID = sandbox.FIRST_UID + 952  # far from the users a grader beside us claims
TRIES = {  # what a reader taken over by a student's text might try
    "fork": lambda: os.fork() == 0 and os._exit(0),
    "signal itself": lambda: os.kill(os.getpid(), 0),  # its own process: only the filter says no
    "socket": lambda: socket.socket().close(),
    "write a file": lambda: Path(os.environ["PROBE"]).write_bytes(b"x"),  # one it may open
    "run a program": lambda: os.execv("/bin/true", ["true"]),
}


def _rights_after_giving_up(uid: int | None) -> dict:
    """What a process can still do after `give_up_rights(uid)`, as its child reports it."""
    folder = Path(tempfile.mkdtemp(prefix="reader-rights-"))
    probe = folder / "probe"
    probe.touch()
    probe.chmod(0o666)  # it may open it: only the cap on file size stops the write
    folder.chmod(0o755)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery past this point, only os._exit
        found = {}
        try:
            os.environ["PROBE"] = str(probe)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap: EFBIG, not death
            reader_rights.give_up_rights(uid)
            status = dict(
                line.split(":", 1) for line in open("/proc/self/status").read().splitlines()
            )
            found = {k: status[k].split()[0] for k in ("Uid", "CapEff", "NoNewPrivs", "Seccomp")}
            found["Groups"] = status["Groups"].strip()
            for name, attempt in TRIES.items():
                try:
                    attempt()
                    found[name] = "allowed"
                except OSError:
                    found[name] = "refused"
        finally:
            os.write(write, json.dumps(found).encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        found = json.loads(answer.read())
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
