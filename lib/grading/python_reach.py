"""Can this process start its own Python (`sys.executable`), as a process pool or
`subprocess.run([sys.executable, ...])` in a notebook would? If not, which folder stops it?

Run by `user_python` as a sandbox user, its text on the command line (that user may not read the
course's folder), so only the standard library. Why a probe of its own: `setpriv`, which drops
root to the kernel's user, keeps root's capabilities until its `exec`, so it starts a Python
under a folder private to root (pyenv's under /root) where the user, from its own process, then
cannot: the kernel starts, and lesson 8's training subprocess fails with PermissionError.
"""

from __future__ import annotations

import os
import subprocess
import sys

MAX_LINKS = 40  # as the kernel's own limit on links followed in one path (ELOOP)


def blocking_folder(path: str) -> str | None:
    """The first folder on the way to `path` that this process may not pass through (search, the
    x of a folder's mode), following links as `exec` does; None if every one lets it pass."""
    here, pending, links = "/", [p for p in reversed(os.path.abspath(path).split("/")) if p], 0
    while pending:
        if os.path.isdir(here) and not os.access(here, os.X_OK):
            return here
        name = pending.pop()
        step = os.path.dirname(here) if name == ".." else os.path.join(here, name)
        if name != ".." and os.path.islink(step):
            links += 1
            if links > MAX_LINKS:
                return None
            target = os.readlink(step)
            here = "/" if target.startswith("/") else here
            pending += [p for p in reversed(target.split("/")) if p and p != "."]
        elif name != ".":
            here = step
    return None


def main() -> int:
    """Start `sys.executable -I -c pass`; 0 if it ran, else 1 with two lines on stdout: the
    folder that stops it (empty if none is found) and the error."""
    try:
        subprocess.run([sys.executable, "-I", "-c", "pass"], check=True, capture_output=True)
    except (OSError, subprocess.SubprocessError) as error:
        print(blocking_folder(sys.executable) or "", str(error).replace("\n", " "), sep="\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
