"""The box each student's kernel runs in: bubblewrap (`bwrap`), resource limits, a clean env.

Inside the box a kernel sees the system's programs and libraries, the Python environment, the
course and its data, all read-only (`kernel_view`); one writable folder (its copy of the
submission) and a private `/tmp`. It has no network, its own process tree (whatever it starts dies
with it) and an environment built from an allow-list. `--out`, the other submissions and the
instructor's home are simply not there. Limits on memory, processes and file size come from
`prlimit`; when the grader runs as root the kernel also drops to a user of its own
(`kernel_users`), because Linux does not count root's processes against any limit.

This module is the grader's one door to the sandbox: what `kernel_users`, `kernel_view` and
`hand_over` hold is used through it, so that the rest of the grader imports `sandbox` only.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from lib.grading import (
    kernel_start,
    kernel_users,
    memory_group,
    shm_guard,
    user_processes,
    user_python,
)
from lib.grading.hand_over import give_to, write_owned  # noqa: F401  (see above)
from lib.grading.kernel_users import (  # noqa: F401  (the sandbox's public names: see above)
    BOX_MB,
    FIRST_UID,
    OwnUser,
    SandboxUnavailable,
    cpu_shared,
    leftovers,
    memory_capped,
    processes_of,
    reap,
    unreaped,
    unreaped_patiently,
)
from lib.grading.kernel_view import environment, exposed, readonly_paths  # noqa: F401

NAMESPACES = ("ipc", "pid", "net", "uts", "cgroup-try")  # all but the user namespace
SYSTEM = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/opt")
INSTALL_HINT = (
    "The grader runs every notebook in a bubblewrap sandbox, and `bwrap` cannot run here "
    "({why}). On Debian or Ubuntu: `sudo apt-get install bubblewrap`; on Fedora: `sudo dnf "
    "install bubblewrap` (Linux only: on macOS or Windows grade in a Linux container or VM). "
    "To grade without a sandbox anyway, add --no-sandbox: every student's code then runs with "
    "your permissions."
)
_START = kernel_start.command_text()  # run as `-c`: the box need not hold `lib`
_GUARD = shm_guard.command_text()  # as root, in front of a fenced kernel, as `-c`
SHM_MB = 64  # the box's /dev/shm (unboxed: a fenced kernel's share of the machine's, at most)
TMP_MB = 1024  # the box's /tmp (lesson 8 writes a few MB there)
NOFILE = 1024  # descriptors a kernel's process may hold (Linux's usual soft limit)


@dataclass(frozen=True)
class Caps:
    """Resource limits for one kernel: writable memory (RLIMIT_DATA: what a kernel really uses,
    not the address space its threads reserve), processes (threads count), file size."""

    memory_mb: int = 4096
    processes: int = 256
    file_mb: int = 256
    box_mb: int = BOX_MB  # all of a box's processes together, where a cgroup can be made
    shm_mb: int = SHM_MB  # a fenced kernel's plain files in the machine's /dev/shm (`shm_guard`)
    shm_files: int = 256  # and how many: a pool's semaphores come and go one per lock
    kernels: int = 4  # how many run at once (--jobs): each guard allows its share of /dev/shm


def check_available() -> None:
    """Raise `SandboxUnavailable` unless a trial sandbox starts and exits cleanly."""
    if sys.platform != "linux":
        raise SandboxUnavailable(INSTALL_HINT.format(why=f"this is {sys.platform}, not Linux"))
    if shutil.which("bwrap") is None:
        raise SandboxUnavailable(INSTALL_HINT.format(why="it is not installed"))
    trial = ["bwrap", "--unshare-all", "--die-with-parent", *_binds(SYSTEM), "true"]
    done = subprocess.run(trial, capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no error message"])[-1][:200]
        raise SandboxUnavailable(INSTALL_HINT.format(why=f"bwrap says: {why}"))


def choose(own_user_fallback: bool = False, allow_blocked_python: bool = False) -> bool:
    """True when bubblewrap can box kernels here. Where it cannot create namespaces (most Docker
    containers, Gradescope), `own_user_fallback` accepts the next best thing when we are root:
    each kernel as an unprivileged user of its own, with the same limits, in a private copy,
    every process of that user killed after each notebook (False is returned), if that user can
    start this Python (`user_python.check`: `allow_blocked_python` lets it be unable to start
    Python again). Otherwise `SandboxUnavailable` says what to do."""
    try:
        check_available()
        return True
    except SandboxUnavailable:
        tools = shutil.which("setpriv") and shutil.which("prlimit")
        if own_user_fallback and os.geteuid() == 0 and tools:
            user_python.check(allow_blocked_python)
            return False
        raise


@functools.cache
def fence_works() -> bool:
    """Can an unboxed kernel be fenced here (`kernel_start.fence`: Landlock)? Tried once, as a
    kernel starts, so that a machine without Landlock (an older kernel, a seccomp profile that
    refuses it) is known before any kernel starts, and the run's summary says so."""
    trial = [sys.executable, "-I", "-c", _START, kernel_start.WRITABLE, "/", "--", "true"]
    return subprocess.run(trial, capture_output=True, timeout=60).returncode == 0


def fence_abi() -> int:
    """The Landlock ABI a fenced kernel gets here (0: no fence): 4 and later also refuse it TCP,
    6 and later keep its abstract unix sockets and signals among its own processes."""
    return kernel_start.landlock.version() if fence_works() else 0


def _binds(paths: tuple[str, ...] | list[str], option: str = "--ro-bind") -> list[str]:
    """bwrap arguments binding each existing path at the same place. Folders bwrap has to make
    on the way are made world-readable first (it would make them private to root)."""
    args: list[str] = []
    for path in paths:
        if os.path.exists(path):
            for parent in reversed(Path(path).parents[:-1]):  # /a, /a/b, ... (not / itself)
                args += ["--perms", "0755", "--dir", str(parent)]
            args += [option, path, path]
    return args


def command(
    kernel: list[str],
    work: Path,
    runtime: Path,
    readonly: list[str],
    caps: Caps,
    uid: int | None,
    boxed: bool = True,
    scratch: Path | None = None,
) -> list[str]:
    """The command line that runs `kernel` boxed: `work` (its working folder) and `runtime` (the
    connection file and sockets) are the only writable places it shares with us; `uid` is the
    unprivileged user to become (needed when we are root). `boxed=False` (bubblewrap cannot run
    here, see `choose`) keeps the user and the limits, and where the machine has Landlock, fences
    the kernel's writes to `work`, `runtime` and its `scratch` folder (its TMPDIR and HOME):
    it then makes nothing in the machine's /tmp and /var/tmp and only plain files in /dev/shm,
    whose space it shares with other kernels: past `caps.shm_mb` (or its share among
    `caps.kernels`) or `caps.shm_files` there, past `caps.memory_mb` in unix socket buffers
    or past a few ptys, it is stopped (`shm_guard`, in front of it as root).
    The kernel starts as `kernel_start` says (its own session keyring and IPython folder, not
    the working folder on its path); an empty `kernel` gives the prefix alone."""
    limits = [
        "prlimit",
        f"--data={caps.memory_mb * 2**20}",  # writable memory; address space counts reservations
        f"--nproc={caps.processes}",
        f"--fsize={caps.file_mb * 2**20}",
        "--msgqueue=0",  # no POSIX message queue: unboxed, one would outlive reap
        # Descriptors bound what pipes hold beyond a process's memory (`user_holdings`): 4 kB
        # each past the user's first 64 MB (the machine's 20,000 made 102 MB of a 64 MB cap).
        f"--nofile={NOFILE}",
        "--",
    ]
    # As root, no user namespace: it would map only root, and the kernel must become `uid`.
    unshare = ["--unshare-all"] if uid is None else [f"--unshare-{n}" for n in NAMESPACES]
    box = ["bwrap", *unshare, "--die-with-parent", "--new-session"]
    # /tmp lives in the machine's memory: its size is capped too.
    box += _binds(SYSTEM) + ["--proc", "/proc", "--dev", "/dev"]
    box += ["--size", str(TMP_MB * 2**20), "--tmpfs", "/tmp"]
    # Python's process pools need a writable /dev/shm for their locks (lesson 8 trains with two
    # workers); the box has its own, small, so that it cannot fill the machine's memory.
    box += ["--perms", "1777", "--size", str(SHM_MB * 2**20), "--tmpfs", "/dev/shm"]
    box += ["--perms", "1777", "--dir", "/tmp/home", *_binds(readonly)]  # a venv in /tmp shows
    box += _binds([str(work), str(runtime)], "--bind")
    # The kernel would watch for its parent by pid, which means nothing in its own pid namespace;
    # --die-with-parent does that job.
    box += ["--chdir", str(work), "--unsetenv", "JPY_PARENT_PID"]
    become = []
    if uid is not None:
        become = kernel_users.become(uid)
        box += ["--chmod", "1777", "/tmp"]
    group = [arg for g in kernel_users.groups_of(uid) for arg in memory_group.joining(g)]
    if kernel:  # its own session keyring first, then the box and the user
        kernel = kernel_start.module_runner(kernel)
        limits += [sys.executable, "-I", "-c", _START]
        if not boxed and fence_works():  # a box's /tmp and /dev/shm are its own
            own = [str(work), str(runtime), *([str(scratch)] if scratch else [])]
            limits += [kernel_start.WRITABLE, *own, "--"]
    if not boxed:  # no namespaces here: only the user and the limits hold (see `choose`)
        guard = []
        if uid is not None:  # no box's pid 1 to take its orphans: they come back to us
            user_processes.adopt_orphans()
            if kernel and fence_works():  # only fenced is /dev/shm flat: one listing sees all
                guard = [sys.executable, "-I", "-S", "-c", _GUARD, str(uid)]
                guard += [str(caps.shm_mb * 2**20), str(caps.shm_files)]
                guard += [str(caps.memory_mb * 2**20), str(caps.kernels), "--"]
        return [*guard, *group, *limits, *become, *kernel]
    return [*group, *limits, *box, *become, *kernel]
