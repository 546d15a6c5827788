"""What the red-team containment tests (`tests/test_red_team_containment*.py`) share: running
code as a sandbox user or in a forked child, a folder such users can reach, and whether bubblewrap
runs here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from lib.grading import kernel_users, sandbox


def as_user(uid: int, code: str, *args: str, caps: bool = False) -> str:
    """Run `code` with this Python as sandbox user `uid` (under the kernels' `prlimit` caps if
    `caps`) and return what it printed."""
    command = [*kernel_users.become(uid), sys.executable, "-I", "-c", code, *args]
    if caps:
        limits = sandbox.command([], Path("/"), Path("/"), [], sandbox.Caps(), None, boxed=False)
        command = [*limits, *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def in_child(attempt: Callable[[], object]) -> object:
    """What `attempt()` returns (JSON-ready; or the error it raised, as text) in a forked child
    of this process: for rights a process gives up for good."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery past this point, only os._exit
        try:
            found = attempt()
        except BaseException as error:  # noqa: BLE001 - said to the parent, as text
            found = f"{type(error).__name__}: {error}"
        os.write(write, json.dumps(found).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        found = json.loads(answer.read() or "null")
    os.waitpid(pid, 0)
    return found


def shared_folder(prefix: str, mode: int) -> Iterator[Path]:
    """A temporary folder of `mode` the sandbox users can reach (pytest's tmp_path is private to
    root), removed afterwards: the body of each file's `shared_tmp` fixture."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(mode)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def box_runs() -> bool:
    """Can bubblewrap box a kernel on this machine?"""
    try:
        sandbox.check_available()
        return True
    except sandbox.SandboxUnavailable:
        return False
