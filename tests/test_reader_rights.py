"""A reader gives up its rights before it reads a student's file (`reader_rights`): checked in
a forked process, as the reading helper forks its readers."""

from __future__ import annotations

import json
import os

import pytest

from lib.grading import reader_rights, sandbox

UID = sandbox.FIRST_UID + 952  # far from the users a grader beside us claims


def _rights_after_giving_up(uid: int | None) -> dict:
    """What a process can still do after `give_up_rights(uid)`, as its child reports it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery past this point, only os._exit
        found = {}
        try:
            reader_rights.give_up_rights(uid)
            status = dict(
                line.split(":", 1) for line in open("/proc/self/status").read().splitlines()
            )
            found = {k: status[k].split()[0] for k in ("Uid", "CapEff", "NoNewPrivs", "Seccomp")}
            found["Groups"] = status["Groups"].strip()
            try:
                os._exit(0) if os.fork() == 0 else None
                found["fork"] = "allowed"
            except OSError:
                found["fork"] = "refused"
        finally:
            os.write(write, json.dumps(found).encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        found = json.loads(answer.read())
    os.waitpid(pid, 0)
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
        "fork": "refused",
    }


def test_a_reader_without_a_sandbox_user_is_not_roots_either():
    rights = _rights_after_giving_up(None)
    expected = reader_rights.LONE_UID if os.geteuid() == 0 else os.geteuid()
    assert (rights["Uid"], rights["NoNewPrivs"], rights["fork"]) == (str(expected), "1", "refused")
