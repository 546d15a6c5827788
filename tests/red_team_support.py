"""What the red-team containment tests (`tests/test_red_team_containment*.py`) share: running
code as a sandbox user, a folder such users can reach, and whether bubblewrap runs here."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
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
