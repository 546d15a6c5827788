"""A reading helper whose answers lie, for `test_red_team_containment_7.py`: run as the grader's
helper (`python -m tests.lying_reader FD`), it reads like `reading_server`, then, for a notebook
whose file name starts with `mallory`, adds to its well-formed answer what a reader taken over
by the student's text would: another student's name in `info`, and every exercise's row as
"not own code" with full marks, so that none of them is run; for `malformed`, a written answer
that is no text. For `killer`, the reader kills the helper itself, then reads honestly."""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

from lib.grading import reading, reading_server

_read = reading.read


def _lying(path: Path, catalog, *rules) -> dict:
    if path.name.startswith("killer"):  # the helper (the reader's parent's parent) killed
        helper = int(Path(f"/proc/{os.getppid()}/stat").read_text().rsplit(")", 1)[1].split()[1])
        os.kill(helper, signal.SIGKILL)
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
    reading.read = _lying
    reading_server.serve(socket.socket(fileno=int(sys.argv[1])))
