"""A reading helper with faults, for `test_grade_reading_apart.py`: run as the grader's helper
(`python -m tests.reading_faults FD`), it reads like `reading_server`, except a notebook whose
file name says so: `slow` sleeps past any deadline, `hog` fills memory, `crash` segfaults."""

from __future__ import annotations

import ctypes
import socket
import sys
import time
from pathlib import Path

from lib.grading import reading, reading_server

_read = reading.read


def _faulty(path: Path, *rules) -> dict:
    if "slow" in path.name:
        time.sleep(3600)
    if "hog" in path.name:
        return {"hoard": [0] * 2**28}  # 2 GB of pointers: past the cap, asked for at once
    if "crash" in path.name:
        ctypes.string_at(0)  # reads address 0: SIGSEGV
    return _read(path, *rules)


if __name__ == "__main__":
    reading.read = _faulty
    reading_server.serve(socket.socket(fileno=int(sys.argv[1])))
