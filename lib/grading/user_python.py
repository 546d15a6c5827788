"""Without a box, kernels are this very Python run as an unprivileged user: checked before anyone
is graded, so that what that user cannot do never shows up as a class's lost marks.

Two questions, because the answers differ. Can `setpriv` start this Python as the user
(`kernel_users.a_user_can_start`)? If not, every kernel dies at once: refused. Can the user, from
its own process, start it again (`python_reach`)? `setpriv` keeps root's capabilities until its
exec, so under a folder private to root (pyenv's under /root) the kernel starts but cannot start
Python: lesson 8's training subprocess failed with PermissionError, 4 cells short, nothing said.
That too is refused, naming the folder and what to do, unless the instructor says to go on
(`--allow-blocked-python`); then every summary says it loudly (`blocked`).
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

from lib.grading import python_reach
from lib.grading.kernel_users import NOBODY, SandboxUnavailable, a_user_can_start, become

_PROBE = Path(python_reach.__file__).read_text()  # run as `-c`: the user may not read `lib`
_WARNED: set[str] = set()
HOW_TO_FIX = (
    "Let every user pass through that folder (`chmod o+x {folder}`: they may then reach what "
    "it holds by name, not list it), or install the course into a Python every user can run, "
    "e.g. `python3 -m venv /opt/course && /opt/course/bin/pip install -r requirements.txt`, "
    "and grade with /opt/course/bin/python."
)


def check(allow_blocked: bool = False) -> None:
    """Raise `SandboxUnavailable` unless an unprivileged user can start this Python both through
    `setpriv` and from its own process; with `allow_blocked`, the second may fail (`blocked`
    then says so, for the summaries, and a warning is printed now)."""
    if not a_user_can_start(sys.executable):
        raise SandboxUnavailable(
            f"kernels run here as unprivileged users (no bubblewrap), and such a user cannot "
            f"start this Python ({sys.executable}): a folder on its way is private to root, as "
            "/root is. Install the course into a Python every user can run, e.g. `python3 -m "
            "venv /opt/course && /opt/course/bin/pip install -r requirements.txt`, and grade "
            "with /opt/course/bin/python."
        )
    problem = blocked()
    if problem and not allow_blocked:
        raise SandboxUnavailable(
            f"{problem} To grade anyway, knowing those cells will fail, add --allow-blocked-python."
        )
    if problem and problem not in _WARNED:  # once, though the batch checks again
        _WARNED.add(problem)
        print(f"WARNING: {problem}", file=sys.stderr)


def blocked() -> str:
    """Why a kernel, run as an unprivileged user, cannot start this Python from its own process,
    and what to do; "" if it can."""
    return _probe(sys.executable)


@functools.cache
def _probe(python: str) -> str:
    """`blocked` for `python`: one Python start as an unprivileged user (~0.1 s), once."""
    probe = [*become(NOBODY), python, "-I", "-c", _PROBE]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return f"a kernel's user could not start {python} within 60 s."
    if done.returncode == 0:
        return ""
    folder, _, error = done.stdout.partition("\n")
    where = f"{folder} is closed to other users" if folder else "a folder on its way is closed"
    return (
        f"KERNELS CANNOT START PYTHON: they run here as unprivileged users (no bubblewrap), and "
        f"such a user, from its own process, cannot start this Python ({python}): {where} "
        f"({error.strip() or done.stderr.strip()[-200:]}). Every notebook cell that starts one "
        "fails (lesson 8 runs `python -m lib.train` so; a pool that spawns its workers would too). "
        + HOW_TO_FIX.format(folder=folder or "each such folder")
    )
