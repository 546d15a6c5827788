"""How a sandboxed kernel starts: cut off what it would otherwise share with the grader, or with
an earlier run of the same notebook in the same folder, before anything of the student's runs.

- **A session keyring of its own.** Every process inherits its parent's session keyring, and
  neither setpriv nor bubblewrap replaces it: without a new one, a student's kernel could leave a
  key there for the next (another uid) and reach the instructor's own session keys. This file,
  run as `python -I -c <its text>` in front of the box and the change of user, joins a new,
  anonymous one and then becomes the rest of the command (as root: exec always works, where
  the kernel's user may not search the folders above the interpreter).
- **Not the working folder first on `sys.path`.** `python -m ipykernel_launcher` puts the
  working folder (the student's) first, so an `ipykernel_launcher.py` handed in, or written by
  the notebook's first run, would run as the kernel. `module_runner` starts the module with `-c`
  by lines that drop that entry before importing anything (`-P` does it on Python 3.11 and later
  only; `-I` would also drop `PYTHONPATH`, which is how the kernel finds `lib`).
- **A fresh IPython folder.** The same lines point `IPYTHONDIR` at a new folder in the kernel's
  `TMPDIR`: startup files an earlier run wrote there never run.

Only the standard library, nothing of the course: it runs isolated, outside the course's path.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

KEYCTL = {"x86_64": 250, "aarch64": 219}  # the keyctl system call's number on each machine
KEYCTL_JOIN_SESSION_KEYRING = 1  # with no name: a new anonymous keyring, this process's alone
# `python -c` puts "" (the working folder) first on sys.path: dropped before the first import.
_RUN_MODULE = """\
import sys
if sys.path[:1] == [""]:
    del sys.path[0]
import os, runpy, tempfile
os.environ["IPYTHONDIR"] = tempfile.mkdtemp(prefix="ipython-")
runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)"""


def module_runner(command: list[str]) -> list[str]:
    """`python -m module args` as `python -c <runner> module args`: the same module, without the
    working folder on its path, with an IPython folder of its own. Anything else as it is."""
    if len(command) >= 3 and command[1] == "-m":
        return [command[0], "-c", _RUN_MODULE, *command[2:]]
    return command


def join_fresh_session_keyring() -> None:
    """Leave the inherited session keyring for a new, empty one. Where keyctl is refused (Docker's
    seccomp profile) no keyring is reachable at all, which is as good."""
    number = KEYCTL.get(platform.machine())
    if number is not None:
        ctypes.CDLL(None, use_errno=True).syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None)


if __name__ == "__main__":
    join_fresh_session_keyring()
    os.execvp(sys.argv[1], sys.argv[1:])
