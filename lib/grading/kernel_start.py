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
  profile does). Only as root (only root's grader hands a uid from one student to the next),
  with `no_new_privs` set first: a root without CAP_SYS_ADMIN (a container's) may install a
  filter only so, and root's `bwrap` needs no set-uid bit (a user's would not survive it).
  Where the filter still cannot be installed, the kernel is not started: never silently.
- **Not the working folder first on `sys.path`.** `python -m ipykernel_launcher` puts the
  working folder (the student's) first, so an `ipykernel_launcher.py` handed in, or written by
  the notebook's first run, would run as the kernel. `module_runner` starts the module with `-c`
  by lines that drop that entry before importing anything (`-P` does it on Python 3.11 and later
  only; `-I` would also drop `PYTHONPATH`, which is how the kernel finds `lib`).
- **Writes only in its own folders, without a box** (`fence`). Unboxed, the machine's /tmp,
  /var/tmp and /dev/shm are shared by every slot's kernel: a file left there outlived its user's
  reset when another slot's kernel closed the folder it lay in, and a neighbour's 22,500 folders
  made every other user's reset walk them (3.6 s). Walking smarter cannot fix either: what others
  may write, others shape; finding a uid's files by owner is a walk too, and taking the shared
  folders from the sandbox users by mode or ACL would change the machine's folders (to be put back
  even after the grader is killed) and take /dev/shm from process pools. So a Landlock ruleset
  (Linux 5.13+, unprivileged, inherited by all the kernel starts, kept across the change of user,
  nothing on the machine changed and nothing to undo if the grader is killed) lets the kernel
  create, remove or write files only beneath its own folders (working copy, connection folder,
  scratch with TMPDIR and HOME, each removed by root), write to devices (/dev/null, a terminal),
  and in /dev/shm only make, write and remove plain files: Python's process pools need their
  semaphores there (glibc names no other place), but no folder can be made, to hide a file in from
  a reset or to slow every reset: the folders `user_reset` walks are then the machine's, none a
  kernel made. Reading is left as it is. Where the machine has no Landlock the grader knows before
  any kernel starts (`sandbox.fence_works`) and says so in the run's summary; a kernel asked to be
  fenced that cannot be never starts. The same ruleset, where the machine's Landlock has them,
  refuses every TCP bind and connect (ABI 4: kernels talk to the grader over ipc sockets, files
  in their own folders), and scopes abstract unix sockets and signals to the kernel's own
  processes (ABI 6): no other slot's kernel, nor anything else of the machine's, is reached so.
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
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
ALLOW, REFUSE = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EPERM
LOAD, EQUAL, AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, ..JGE, RET
KEYCTL_JOIN_SESSION_KEYRING = 1  # with no name: a new anonymous keyring, this process's alone
# Landlock's system calls (the same numbers on every machine) and its file rights, by ABI version:
# writing, removing and making things (reading and executing are left alone); 2 adds linking or
# moving across folders (REFER), 3 truncating.
CREATE_RULESET, ADD_RULE, RESTRICT_SELF, ASK_VERSION, PATH_BENEATH = 444, 445, 446, 1, 1
WRITE, REMOVE_DIR, REMOVE_FILE, MAKE_REG, MAKE_ALL = 1 << 1, 1 << 4, 1 << 5, 1 << 8, 0x1FC0
REFER, TRUNCATE = 1 << 13, 1 << 14
# ABI 4: TCP's bind and connect, refused whole (no port is allowed); ABI 6: abstract unix sockets
# and signals, only among the kernel's own processes.
NET_ABI, BIND_TCP, CONNECT_TCP, SCOPE_ABI, SCOPE_SOCKETS, SCOPE_SIGNALS = 4, 1, 2, 6, 1, 2
PR_SET_NO_NEW_PRIVS = 38
WRITABLE = "--writable"  # kernel_start's own arguments: `--writable FOLDER... -- command...`
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
    # A root without CAP_SYS_ADMIN (a container's default capabilities) may install a filter only
    # under no_new_privs; root's bwrap needs no set-uid bit, so nothing is lost by it.
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) == 0


class _Beneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is packed
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_version() -> int:
    """The ABI version of this machine's Landlock (0: none, or refused, as by a seccomp profile)."""
    libc = ctypes.CDLL(None, use_errno=True)  # its errno says why, where it is 0
    return max(libc.syscall(CREATE_RULESET, None, 0, ASK_VERSION), 0)


def fence(own: list[str]) -> None:
    """Let this process and all it starts write only beneath the folders `own`, to devices, and
    plain files in /dev/shm, and (where Landlock has them) not use TCP nor reach abstract
    sockets or signal processes beyond its own (see the module's docstring); raise OSError
    where Landlock cannot fence it."""
    libc = ctypes.CDLL(None, use_errno=True)
    version = landlock_version()
    if version < 1:
        raise OSError(ctypes.get_errno(), "Landlock is not available")
    handled = WRITE | REMOVE_DIR | REMOVE_FILE | MAKE_ALL
    handled |= (REFER if version >= 2 else 0) | (TRUNCATE if version >= 3 else 0)
    shm = (WRITE | REMOVE_FILE | MAKE_REG | TRUNCATE) & handled
    rules = [(folder, handled) for folder in own] + [("/dev", (WRITE | TRUNCATE) & handled)]
    rules += [("/dev/shm", shm)] if os.path.isdir("/dev/shm") else []
    # struct landlock_ruleset_attr grew with the ABI: files, then network, then scopes.
    attr = [handled, BIND_TCP | CONNECT_TCP, SCOPE_SOCKETS | SCOPE_SIGNALS]
    size = 3 if version >= SCOPE_ABI else 2 if version >= NET_ABI else 1
    ruleset = libc.syscall(CREATE_RULESET, (ctypes.c_uint64 * size)(*attr[:size]), 8 * size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "Landlock refused a ruleset")
    for folder, allowed in rules:
        parent = os.open(folder, os.O_PATH | os.O_CLOEXEC)
        rule = _Beneath(allowed, parent)
        added = libc.syscall(ADD_RULE, ruleset, PATH_BENEATH, ctypes.byref(rule), 0)
        os.close(parent)
        if added != 0:
            raise OSError(ctypes.get_errno(), f"Landlock refused a rule for {folder}")
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # what a process without CAP_SYS_ADMIN needs
    if libc.syscall(RESTRICT_SELF, ruleset, 0) != 0:
        raise OSError(ctypes.get_errno(), "Landlock would not restrict the kernel")
    os.close(ruleset)


if __name__ == "__main__":
    command = sys.argv[1:]
    if command[:1] == [WRITABLE]:  # never start a kernel that should be fenced unfenced
        own, command = command[1 : command.index("--")], command[command.index("--") + 1 :]
        fence(own)
    join_fresh_session_keyring()
    if not refuse_keys() and keys_to_refuse():  # never silently without it
        sys.exit(
            "kernel_start: could not refuse the kernel the system calls of keys (seccomp), so it "
            "was not started: a key could reach the next student of its user. Grade on a "
            "machine that allows seccomp filters (docker: its default profile does)."
        )
    os.execvp(command[0], command)
