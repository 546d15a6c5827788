"""The reading helper: a small process that forks one reader per notebook (`read_apart`'s side).

Run as `python -m lib.grading.reading_server FD` by the grader, it imports the reading code once
(a second and a half), then waits on the socket `FD` for requests. Each request brings a socket
of its own and the student's file, open (SCM_RIGHTS), and the helper forks twice for it:

- the *watcher* reads the request (the file's name, the rules: `reading.read`'s other
  arguments, the user to become and the deadline, pickled by the grader), forks the reader, and
  waits for it until its deadline and a second more: a reader still running then is killed
  (SIGKILL; a reader taken over by a student's text may ignore its alarm, and as `LONE_UID`
  nothing would sweep it after). It then adds the reader's wait status, 4 bytes: how it ended
  (an exit, or the signal that killed it: SIGALRM past its deadline, said so too when the
  watcher killed it, SIGKILL, SIGSEGV...);
- the *reader* caps its address space (RLIMIT_AS) and CPU time, arms an alarm whose default
  action kills it at its deadline (also inside a regular expression or the parser: no handler
  needs to run), gives up its rights (`reader_rights`), reads the notebook from the descriptor
  the grader opened and sent with the socket, and answers `WHAT` as 8 bytes of length, then
  JSON.

The helper itself is single-threaded, so forking it is safe (forking the grader, async and
threaded, would not be), and it never reads a student's file. It exits when the grader closes
its end of `FD`.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import pickle
import resource
import select
import signal
import socket
import struct
import sys
import warnings

import nbformat

from lib.grading import reader_rights, reading
from lib.grading.submissions import Handed

LENGTH = struct.Struct("!Q")  # the reader's answer: its length, then JSON
STATUS = struct.Struct("!i")  # the watcher's: the reader's wait status
LATER_IMPORTS = (
    "encodings.ascii",
    "encodings.latin_1",
    "encodings.unicode_escape",
    "encodings.utf_8",
    "IPython.core.magics",
    "ipykernel.zmqshell",
    "timeit",
)


def _receive(conn: socket.socket) -> dict:
    """The request on `conn`: length, then the pickled arguments (the grader's own data)."""
    size = LENGTH.unpack(conn.recv(LENGTH.size, socket.MSG_WAITALL))[0]
    data = b""
    while len(data) < size and (chunk := conn.recv(min(size - len(data), 2**20))):
        data += chunk
    return pickle.loads(data)


def _reader(conn: socket.socket, file: int, request: dict) -> None:
    """Read the notebook open on `file` under the request's limits, with no rights beyond that
    (`reader_rights`), and answer; never returns."""
    status = 1
    try:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(max(1, math.ceil(request["seconds"])))
        reader_rights.cpu_limit(request["seconds"])
        memory = request["memory_mb"] * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        reader_rights.give_up_rights(request["uid"])  # before a byte of the student's is read
        try:
            handed = Handed(request["name"], file)
            answer = json.dumps(reading.read(handed, *request["rules"])).encode()
        except (MemoryError, RecursionError) as error:  # said as such; anything else crashes
            answer = json.dumps({"failed": type(error).__name__}).encode()
        conn.sendall(LENGTH.pack(len(answer)) + answer)
        status = 0
    finally:
        os._exit(status)


def _watcher(conn: socket.socket, file: int) -> None:
    """Read the request, fork the reader, wait for it until its deadline and a second (then
    kill it: a reader taken over may ignore its alarm), then add how it ended; never returns."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the helper's SIG_IGN would reap it for us
    try:
        request = _receive(conn)
    except (OSError, EOFError, pickle.UnpicklingError, struct.error):  # the grader gave up
        os._exit(0)
    pid = os.fork()
    if pid == 0:
        _reader(conn, file, request)
    os.close(file)
    try:
        reader = os.pidfd_open(pid)
        if not select.select([reader], [], [], math.ceil(request["seconds"]) + 1)[0]:
            os.kill(pid, signal.SIGKILL)  # as root, or the same user: always allowed
            os.waitpid(pid, 0)
            wait_status = signal.SIGALRM  # said as its alarm would: past its deadline
        else:
            wait_status = os.waitpid(pid, 0)[1]  # the reader's answer is all written by now
        conn.sendall(STATUS.pack(wait_status))
    finally:
        os._exit(0)


def _load_schemas() -> None:
    """Read a notebook of every format version once, valid and not, so that nbformat's
    validators are built and kept: nbformat reads a version's JSON schema from its package
    folder on first use (and another validator's, to word an error), and a reader may open no
    file (`reader_rights`: Landlock)."""
    empty = {"metadata": {}, "cells": []}
    heading = {"cell_type": "heading", "source": "", "metadata": {}}  # an error to word
    old = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for minor in range(nbformat.v4.nbformat_minor + 2):  # and one from the future
            for cells in ([], [heading]):
                version = {"nbformat": 4, "nbformat_minor": minor, "cells": cells}
                nbformat.reads(json.dumps(empty | version), as_version=4)
        nbformat.reads(json.dumps(old), as_version=4)


def serve(control: socket.socket) -> None:
    """Fork a watcher (and its reader) for each request's socket sent on `control`, until the
    grader closes it."""
    # Modules the reading imports on first use (found by reading every lesson and broken
    # notebooks): imported now, as a reader's user may not reach the interpreter's folder (a
    # Python under /root, as pyenv installs it for root).
    for module in LATER_IMPORTS:
        importlib.import_module(module)
    _load_schemas()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the watchers are reaped by the kernel
    while True:
        _, fds, _, _ = socket.recv_fds(control, 16, 2)
        if not fds:
            return
        if len(fds) != 2:  # not a request of `read_apart`'s: nothing to answer on
            for fd in fds:
                os.close(fd)
            continue
        conn, file = socket.socket(fileno=fds[0]), fds[1]
        if os.fork() == 0:
            control.close()
            _watcher(conn, file)
        conn.close()
        os.close(file)


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
