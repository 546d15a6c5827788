"""A reading helper for `test_red_team_containment_9.py` whose reader, once it has given up its
rights (`reader_rights`), does what a reader taken over by a student's text could still do.
Run as the grader's helper (`python -m tests.lying_reader_9 FD`), it reads every notebook
honestly, except, by the start of the file's name:

- `thief`: it finds its own submission's folder (the link of the descriptor it was handed),
  opens a classmate's notebook there (`bob.ipynb`) and answers it as its `label_note`;
- `immortal`: it ignores its deadline's alarm (SIGALRM), then sleeps far past the deadline,
  as a reader whose parser was taken over could, before answering honestly.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from pathlib import Path

from lib.grading import reading, reading_server

_read = reading.read


def _lying(handed, catalog, *rules) -> dict:
    if handed.name.startswith("immortal"):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(600)
    folder = Path(os.readlink(f"/proc/self/fd/{handed.fd}")).parent  # before it is read, closed
    found = _read(handed, catalog, *rules)
    if handed.name.startswith("thief") and found.get("lesson") is not None:
        found["label_note"] = (folder / "bob.ipynb").read_text()
    return found


if __name__ == "__main__":
    reading.read = _lying
    reading_server.serve(socket.socket(fileno=int(sys.argv[1])))
