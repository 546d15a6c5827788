"""A reading helper whose answers lie, for `test_red_team_containment_7.py`: run as the grader's
helper (`python -m tests.lying_reader FD`), it reads like `reading_server`, then, for a notebook
whose file name starts with `mallory`, adds to its well-formed answer what a reader taken over
by the student's text would: another student's name in `info`, and every exercise's row as
"not own code" with full marks, so that none of them is run; for `malformed`, a written answer
that is no text. For `killer`, the helper is killed (by its reader before it gives up its
rights), then the notebook is read honestly; for
`whoami`, it answers with its own rights (uid, capabilities, no_new_privs, seccomp)."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import sys
from pathlib import Path

from lib.grading import reading, reading_server

_read, _received = reading.read, reading_server._receive


def _receive(conn):
    """The request; for `killer`, the helper (the watcher's parent) is killed first, from the
    watcher, which reads the request: as the OOM killer could (the reader, once it has given up
    its rights, cannot: `reader_rights`)."""
    request = _received(conn)
    if request["name"].startswith("killer"):
        os.kill(os.getppid(), signal.SIGKILL)
    return request


def _rights() -> dict:
    """This process's rights as /proc/self/status words them (a reader may open no file, so
    asked of the kernel): its uids, effective capabilities, no_new_privs and seccomp mode."""
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # capget, v3
    libc.capget(header, data)
    return {
        "Uid": " ".join(map(str, os.getresuid())),
        "CapEff": f"{data[0] | data[3] << 32:016x}",
        "NoNewPrivs": str(libc.prctl(39, 0, 0, 0, 0)),  # PR_GET_NO_NEW_PRIVS
        "Seccomp": str(libc.prctl(21, 0, 0, 0, 0)),  # PR_GET_SECCOMP
    }


def _lying(path: Path, catalog, *rules) -> dict:
    if path.name.startswith("whoami"):  # what a reader taken over could do: its rights
        return {"unreadable": json.dumps(_rights())}
    found = _read(path, catalog, *rules)
    if path.name.startswith("malformed") and found.get("lesson") is not None:
        found["info"]["answers"] = {"why": ["an answer", "that is no text"]}
    elif path.name.startswith("mallory") and found.get("lesson") is not None:
        found["info"]["student"] = "alice"
        found["not_own"] = {
            e.name: {"name": e.name, "score": 99.0, "max_score": 99.0, "status": "passed",
                     "reason": "the reader says so"}
            for e in catalog[found["lesson"]]
        }  # fmt: skip
    return found


if __name__ == "__main__":
    reading.read, reading_server._receive = _lying, _receive
    reading_server.serve(socket.socket(fileno=int(sys.argv[1])))
