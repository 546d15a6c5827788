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
  scratch with TMPDIR and HOME, each removed by root), write to a few devices (`DEVICES`: not
  /dev/zero, whose shared mapping would be memory no guard sees), and in /dev/shm only make,
  write and remove plain files: Python's process pools need their semaphores there (glibc names
  no other place), but no folder can be made, to hide a file in from
  a reset or to slow every reset: the folders `user_reset` walks are then the machine's, none a
  kernel made. Reading is left as it is. Where the machine has no Landlock the grader knows before
  any kernel starts (`sandbox.fence_works`) and says so in the run's summary; a kernel asked to be
  fenced that cannot be never starts. The same ruleset, where the machine's Landlock has them,
  refuses every TCP bind and connect (ABI 4: kernels talk to the grader over ipc sockets, files
  in their own folders), and scopes abstract unix sockets and signals to the kernel's own
  processes (ABI 6): no other slot's kernel, nor anything else of the machine's, is reached so.
  Landlock's TCP rights see bind and connect only (not TCP Fast Open, listen's own bind, MPTCP
  or UDP, nor any other family: vsock reaches a virtual machine's host), so a seccomp filter
  (`refuse_network`) also refuses a fenced kernel every socket but a unix stream or seqpacket
  (an allow-list: kernels talk to the grader, and pools to their workers, over unix streams;
  and netlink's routing one, read-only for a user), namespaces of its own (`NAMESPACES`: out of
  its guard's sight) and io_uring
  (Docker's profile refuses io_uring too): no network at all, as in a box. The same filter
  refuses System V IPC and POSIX message queues, which Landlock does not see and which outlive
  their user's processes: a segment one slot's kernel made was read by another slot's; and
  memory shared without a file in /dev/shm (`MEMFD`, `MMAP`), which no limit of a process counts:
  512 MB of it was held by a kernel capped at 256 MB; and memory no limit counts by calls no
  kernel needs: extended attributes, which tmpfs keeps in kernel memory, and vmsplice, whose
  pipe keeps whole huge pages (`UNCOUNTED`). prlimit64 reaches only the caller (`PRLIMIT`):
  the /dev/shm guard's walker runs as the kernel's uid, and its limits are not the kernel's to
  set. Landlock
  here (ABI 7) cannot fence a named unix socket: a service's socket open to all (a resolver's,
  D-Bus's) is reached; the box binds none of them.
- **A fresh IPython folder.** The same lines point `IPYTHONDIR` at a new folder in the kernel's
  `TMPDIR`: startup files an earlier run wrote there never run.

Only the standard library, `landlock` and `seccomp` (themselves only that): it runs isolated,
outside the course's path, as `command_text` makes it.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from pathlib import Path

from lib.grading import landlock, seccomp

KEY_CALLS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}  # add_key, request_key, keyctl
KEYCTL_JOIN_SESSION_KEYRING = 1  # with no name: a new anonymous keyring, this process's alone
AF_UNIX, AF_NETLINK, NETLINK_ROUTE = 1, 16, 0
# A fenced kernel's unix sockets: streams and seqpackets (socket's and socketpair's type,
# argument 1, with or without SOCK_CLOEXEC and SOCK_NONBLOCK), never datagrams: datagrams from
# senders already closed wait in a receiver's queue where sock_diag shows the first one only
# (red team, round 18: 132 MB in 3 descriptors). ZeroMQ's ipc and multiprocessing use streams.
UNIX_TYPES = tuple(kind | flags for kind in (1, 5) for flags in (0, 0x80000, 0x800, 0x80800))
# A fenced kernel's sockets: socket(2) and socketpair(2), allowed for AF_UNIX and, for socket(2),
# NETLINK_ROUTE (see `refuse_network`); and io_uring_setup, whose rings make sockets without
# socket(2) (IORING_OP_SOCKET) and send on them.
NETWORK = {"x86_64": (41, 53, 425), "aarch64": (198, 199, 425)}
# IPC objects that outlive their maker and that Landlock does not see: every System V IPC call
# (shmget, shmat, shmctl, semget, semop, semctl, shmdt, msgget, msgsnd, msgrcv, msgctl,
# semtimedop) and mq_open (POSIX message queues), refused to fenced kernels and readers.
IPC = {
    "x86_64": (29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220, 240),
    "aarch64": (*range(186, 198), 180),
}
# Memory shared with no file in /dev/shm, where no guard sees it and no limit of a process counts
# it (RLIMIT_DATA leaves shared mappings out): memfd_create and memfd_secret, and mmap with
# MAP_SHARED | MAP_ANONYMOUS (flags, argument 3). Python's process pools, heaps and
# shared_memory all map files in /dev/shm instead (`shm_guard` counts those); System V's shmget
# is in `IPC`; a shared mapping of /dev/zero is kept off by the fence (no write to it).
MEMFD = {"x86_64": (319, 447), "aarch64": (279, 447)}
MMAP = {"x86_64": 9, "aarch64": 222}
MAP_SHARED_ANONYMOUS = 0x01 | 0x20
# Memory no limit of a process counts, by calls a kernel never needs (red team, round 17):
# extended attributes (setxattr, lsetxattr, fsetxattr, setxattrat), which tmpfs keeps in kernel
# memory charged to no file's size (63 MB on one empty file in /dev/shm took its last inode;
# shutil's copies pass over EPERM for attributes), and vmsplice, which leaves whole huge pages
# in a pipe once their mapping is gone (128 MB in 4 pipes past RLIMIT_DATA).
UNCOUNTED = {"x86_64": (188, 189, 190, 463, 278), "aarch64": (5, 6, 7, 463, 75)}
# prlimit64 only on the caller itself (pid 0, as setrlimit and getrlimit make it): the guard's
# walker and stopper are processes of the kernel's uid, whose limits it could otherwise set
# (RLIMIT_NOFILE 0 made the walker's listing of /proc fail). A reader's filter does the same.
PRLIMIT = {"x86_64": 302, "aarch64": 261}
# Namespaces of a kernel's own, where its sockets and processes are out of its guard's sight
# (red team, round 18: 109 MB of socket buffers in a network namespace of its own): unshare and
# setns refused, clone refused with any CLONE_NEW* bit in its flags (argument 0; CLONE_NEWTIME
# is clone3's alone), and clone3, whose flags lie in a struct a filter cannot read, made absent
# (ENOSYS): glibc then makes threads with clone, as on a Linux before 5.3.
NAMESPACES = {"x86_64": (272, 308), "aarch64": (97, 268)}  # unshare, setns
CLONE, CLONE3 = {"x86_64": 56, "aarch64": 220}, 435
CLONE_NEW = (0x10000000, 0x40000000, 0x20000, 0x20000000, 0x8000000, 0x4000000, 0x2000000)
# The devices a fenced kernel may write to (those the machine has): the null ones and a terminal.
DEVICES = ("/dev/null", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts")
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
    if platform.machine() in KEY_CALLS:
        keyctl = KEY_CALLS[platform.machine()][-1]
        ctypes.CDLL(None, use_errno=True).syscall(keyctl, KEYCTL_JOIN_SESSION_KEYRING, None)


def keys_to_refuse() -> bool:
    """Whether `refuse_keys` applies here: a root grader, on a machine whose numbers we know."""
    return os.geteuid() == 0 and platform.machine() in KEY_CALLS


def refuse_keys() -> bool:
    """Refuse the system calls of keys (EPERM) to this process and all it starts, for good, and
    any call of another ABI (a 32-bit call has other numbers). True if the filter is in place."""
    return keys_to_refuse() and seccomp.refuse(KEY_CALLS[platform.machine()])


def fence(own: list[str]) -> None:
    """Let this process and all it starts write only beneath the folders `own`, to devices, and
    plain files in /dev/shm, use no socket but unix ones and no IPC object (`refuse_network`),
    and (where Landlock has them) not reach abstract sockets or signal processes beyond its own
    (see the module's docstring); raise OSError where Landlock or the filter cannot fence it."""
    ll = landlock  # writing, removing and making things; reading and executing left alone
    handled = ll.WRITE | ll.REMOVE_DIR | ll.REMOVE_FILE | ll.MAKE_ALL | ll.REFER | ll.TRUNCATE
    rules = [(folder, handled) for folder in own]
    rules += [(device, ll.WRITE | ll.TRUNCATE) for device in DEVICES if os.path.exists(device)]
    shm = ll.WRITE | ll.REMOVE_FILE | ll.MAKE_REG | ll.TRUNCATE
    landlock.restrict(handled, rules + ([("/dev/shm", shm)] if os.path.isdir("/dev/shm") else []))
    refuse_network()


def refuse_network() -> None:
    """Refuse this process and all it starts every socket but a unix stream or seqpacket
    (internet: TCP, UDP, MPTCP, raw; unix datagrams, vsock, packet, netlink but NETLINK_ROUTE,
    and the rest), namespaces of its own (`NAMESPACES`, `CLONE_NEW`, `CLONE3`), io_uring, IPC
    objects (`IPC`), memory shared or kept where no limit counts it (`MEMFD`, `MMAP`,
    `UNCOUNTED`) and prlimit64 on any process but itself (`PRLIMIT`), by a seccomp filter;
    raise OSError where it cannot be installed.
    Landlock's TCP rights hook bind and connect only, not TCP Fast Open's sendto, listen's own
    bind, another protocol's connect, nor another family; a kernel talks to the grader over ipc
    (unix) sockets and needs none of these. A machine whose numbers we do not know keeps
    Landlock's."""
    machine = platform.machine()
    if machine not in NETWORK:
        return
    socket, pair, uring = NETWORK[machine]
    # glibc's getifaddrs asks NETLINK_ROUTE, and ZeroMQ aborts the kernel when it cannot (its
    # every TCP bind asks, as ipykernel's IOPub pipe does). An unprivileged user reads there
    # what /proc/net shows and changes nothing; no other process may send to it.
    allowed = [(call, ((0, AF_UNIX), (1, kind))) for call in (socket, pair) for kind in UNIX_TYPES]
    allowed += [(socket, ((0, AF_NETLINK), (2, NETLINK_ROUTE))), (PRLIMIT[machine], ((0, 0),))]
    calls = (uring, *IPC[machine], *MEMFD[machine], *UNCOUNTED[machine], *NAMESPACES[machine])
    bits = (
        (MMAP[machine], 3, MAP_SHARED_ANONYMOUS),
        *((CLONE[machine], 0, new) for new in CLONE_NEW),
    )
    if not seccomp.refuse(calls, unless_argument=tuple(allowed), by_bits=bits, absent=(CLONE3,)):
        raise OSError(ctypes.get_errno(), "seccomp refused the network and IPC filter")


def command_text() -> str:
    """This module's text as `python -I -c` runs it (`sandbox`: the box need not hold `lib`),
    with `landlock` and `seccomp` made first from their own texts, under their own names."""
    lines = ["import sys, types", 'for name in ("lib", "lib.grading"):']
    lines.append("    sys.modules[name] = types.ModuleType(name)")
    for module in (landlock, seccomp):
        name, short = module.__name__, module.__name__.rsplit(".", 1)[1]
        lines.append(f'{short} = sys.modules["lib.grading"].{short} = sys.modules[{name!r}] = '
                     f"types.ModuleType({name!r})")  # fmt: skip
        lines.append(f"exec({Path(module.__file__).read_text()!r}, vars({short}))")
    own = Path(sys.modules[__name__].__file__).read_text()
    lines.append(f'exec(compile({own!r}, "kernel_start", "exec"), {{"__name__": "__main__"}})')
    return "\n".join(lines) + "\n"


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
