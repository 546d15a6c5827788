"""How a sandboxed kernel starts: cut off what it would otherwise share with the grader, or with
an earlier run of the same notebook in the same folder, before anything of the student's runs.

- **A session keyring of its own.** Every process inherits its parent's session keyring, and
  neither setpriv nor bubblewrap replaces it: without a new one, a student's kernel could leave a
  key there for the next (another uid) and reach the instructor's own session keys. This file,
  run as `python -I -c <its text>` in front of the box and the change of user, joins a new,
  anonymous one and then becomes the rest of the command (as root: exec always works, where
  the kernel's user may not search the folders above the interpreter).
- **No keys at all, as root's grader.** Keyrings a user owns outlive its processes, and the
  user's own keyring outlives everything but a restart: its owner may make it read-only, and then
  nobody, root included, can clear it for the next student of the uid. A kernel needs no keys, so
  after joining that new session keyring, the system calls of keys (`add_key`, `request_key`,
  `keyctl`) are refused to it and all it starts, by a seccomp filter (as Docker's default
  profile does). Only as root: only root's grader hands a uid from one student to the next (and
  a setuid `bwrap`, an unprivileged grader's, would not survive `no_new_privs`). `no_new_privs`
  is set first: root without CAP_SYS_ADMIN (a container's default capabilities) may install a
  filter only so, and root loses nothing by it (its own `bwrap` sets it anyway). Where the
  filter still cannot be installed, the kernel is not started: never silently without it.
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
# Each machine's AUDIT_ARCH and its numbers of add_key, request_key and keyctl.
KEY_CALLS = {"x86_64": (0xC000003E, 248, 249, 250), "aarch64": (0xC00000B7, 217, 218, 219)}
X32 = 0x40000000  # x86_64's x32 calls: the same numbers with this bit, refused whole
PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_SET_NO_NEW_PRIVS = 22, 2, 38
ALLOW, REFUSE = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EPERM
LOAD, EQUAL, AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, ..JGE, RET
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


class _Rule(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]  # fmt: skip


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Rule))]


def keys_to_refuse() -> bool:
    """Whether `refuse_keys` applies here: a root grader, on a machine whose numbers we know."""
    return os.geteuid() == 0 and platform.machine() in KEY_CALLS


def refuse_keys(more: tuple[int, ...] = ()) -> bool:
    """Refuse the system calls of keys (EPERM) to this process and all it starts, for good, and
    the calls numbered `more` (a reader's: `reader_rights`); any call of another ABI too (a
    32-bit call has other numbers). True if the filter is in place."""
    if not keys_to_refuse():
        return False
    arch, *calls = KEY_CALLS[platform.machine()]
    calls += more
    rules = [
        (LOAD, 0, 0, 4),  # seccomp_data.arch
        (EQUAL, 1, 0, arch),
        (RETURN, 0, 0, REFUSE),
        (LOAD, 0, 0, 0),  # seccomp_data.nr
        (AT_LEAST, len(calls) + 1, 0, X32),  # to the last rule: refused
        *((EQUAL, len(calls) - i, 0, call) for i, call in enumerate(calls)),
        (RETURN, 0, 0, ALLOW),
        (RETURN, 0, 0, REFUSE),
    ]
    table = (_Rule * len(rules))(*(_Rule(*rule) for rule in rules))
    program = _Program(len(rules), table)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:  # without it, CAP_SYS_ADMIN is needed
        return False
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) == 0


if __name__ == "__main__":
    join_fresh_session_keyring()
    if not refuse_keys() and keys_to_refuse():
        sys.exit(
            "kernel_start: could not refuse the kernel the system calls of keys (seccomp), so it "
            "was not started: a key could reach the next student of its user. Grade on a "
            "machine that allows seccomp filters (docker: its default profile does)."
        )
    os.execvp(sys.argv[1], sys.argv[1:])
