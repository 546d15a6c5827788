"""A reading helper whose answers lie, for `test_red_team_containment_7.py`: run as the grader's
helper (`python -m tests.lying_reader FD`), it reads like `reading_server`, then, for a notebook
whose file name starts with `mallory`, adds to its well-formed answer what a reader taken over
by the student's text would: another student's name in `info`, and every exercise's row as
"not own code" with full marks, so that none of them is run; for `malformed`, a written answer
that is no text. For `killer`, the helper is killed (by its reader before it gives up its
rights), then the notebook is read honestly; for
`whoami`, it answers with its own rights (uid, capabilities, no_new_privs, seccomp)."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path

from lib.grading import reading, reading_server

_read, _received = reading.read, reading_server._receive


def _receive(conn):
    """The request; for `killer`, the helper (the reader's parent's parent) is killed first, while
    the reader still has the helper's rights: as the OOM killer could (the reader itself,
    once it has given up its rights, cannot: `reader_rights`)."""
    request, memory_mb = _received(conn)
    if request["name"].startswith("killer"):
        helper = int(Path(f"/proc/{os.getppid()}/stat").read_text().rsplit(")", 1)[1].split()[1])
        os.kill(helper, signal.SIGKILL)
    return request, memory_mb


def _lying(path: Path, catalog, *rules) -> dict:
    if path.name.startswith("whoami"):  # what a reader taken over could do: its rights
        status = dict(
            line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines()
        )
        rights = {key: status[key].strip() for key in ("Uid", "CapEff", "NoNewPrivs", "Seccomp")}
        return {"unreadable": json.dumps(rights)}
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
