"""The box each student's kernel runs in: bubblewrap (`bwrap`), resource limits, a clean env.

Inside the box a kernel sees the system's programs and libraries, the Python environment, the
course and its data, all read-only; one writable folder (its copy of the submission) and a private
`/tmp`. It has no network, its own process tree (whatever it starts dies with it) and an
environment built from an allow-list, so the instructor's tokens and keys stay outside. `--out`,
the other submissions and the instructor's home are simply not there. Limits on memory, processes
and file size come from `prlimit`; when the grader runs as root the kernel also drops to a user of
its own (`setpriv`), because Linux does not count root's processes against any limit.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from lib.grading import memory_group

NAMESPACES = ("ipc", "pid", "net", "uts", "cgroup-try")  # all but the user namespace
FIRST_UID, USERS = 61_000, 1000  # unprivileged users for kernels when grading as root
PASSED_THROUGH = ("LANG", "LC_ALL", "TZ", "COURSE_DATA_MIRROR", "TIKTOKEN_CACHE_DIR")
SYSTEM = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/opt")
INSTALL_HINT = (
    "The grader runs every notebook in a bubblewrap sandbox, and `bwrap` cannot run here "
    "({why}). On Debian or Ubuntu: `sudo apt-get install bubblewrap`; on Fedora: `sudo dnf "
    "install bubblewrap` (Linux only: on macOS or Windows grade in a Linux container or VM). "
    "To grade without a sandbox anyway, add --no-sandbox: every student's code then runs with "
    "your permissions."
)


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot create namespaces here; the message says what to do."""


SHM_MB = 64  # the box's /dev/shm: room for locks and small shared buffers
TMP_MB = 1024  # the box's /tmp (lesson 8 writes a few MB there)


@dataclass(frozen=True)
class Caps:
    """Resource limits for one kernel: writable memory (RLIMIT_DATA: what a kernel really uses,
    not the address space its threads reserve), processes (threads count), file size."""

    memory_mb: int = 4096
    processes: int = 256
    file_mb: int = 256
    box_mb: int = 4096  # all of a box's processes together, where a cgroup can be made


_GROUPS: dict[int, Path] = {}  # sandbox user -> the memory cgroup its kernels run in


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


def choose(own_user_fallback: bool = False) -> bool:
    """True when bubblewrap can box kernels here. Where it cannot create namespaces (most Docker
    containers, Gradescope), `own_user_fallback` accepts the next best thing when we are root:
    each kernel as an unprivileged user of its own, with the same limits, in a private copy,
    every process of that user killed after each notebook (False is returned). Otherwise
    `SandboxUnavailable` says what to do."""
    try:
        check_available()
        return True
    except SandboxUnavailable:
        tools = shutil.which("setpriv") and shutil.which("prlimit")
        if own_user_fallback and os.geteuid() == 0 and tools:
            return False
        raise


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


def readonly_paths(import_paths: tuple[str, ...]) -> list[str]:
    """What a kernel may read besides the system: Python (the environment and the interpreter it
    was made from), what can be imported from the import folders (their packages and modules,
    not the folders themselves: the course's repository may hold submissions and grades), the
    course's `datasets` and the course data."""
    data = [os.environ.get(var, "") for var in ("COURSE_DATA_MIRROR", "TIKTOKEN_CACHE_DIR")]
    data.append(os.environ.get("COURSE_DATA_CACHE", ""))
    code = [str(p) for folder in import_paths for p in _importable(Path(folder))]
    paths = [sys.prefix, sys.base_prefix, *code, *filter(None, data)]
    return sorted({str(Path(p).resolve()) for p in paths if p and Path(p).exists()})


def _importable(folder: Path) -> list[Path]:
    """The modules and packages directly in `folder`, and its `datasets` (the course's data)."""
    if not folder.is_dir():
        return []
    return [
        entry
        for entry in folder.iterdir()
        if entry.name == "datasets"
        or (entry.suffix == ".py" and entry.is_file())
        or (entry / "__init__.py").is_file()
    ]


def exposed(paths: list[Path], readonly: list[str]) -> list[Path]:
    """Those of `paths` (submissions, --out) that a kernel could read: inside a bound folder."""
    bound = [Path(p) for p in readonly]
    return [p for p in paths if any(p.resolve().is_relative_to(b) for b in bound)]


def environment(import_paths: tuple[str, ...], scratch: str = "/tmp") -> dict[str, str]:
    """The kernel's whole environment: an allow-list, never the instructor's own variables.
    `scratch` is its own writable folder for temporary files, home and IPython's settings (the
    box's private /tmp, or a folder of its own where there is no box)."""
    env = {name: os.environ[name] for name in PASSED_THROUGH if os.environ.get(name)}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        HOME=f"{scratch}/home",
        TMPDIR=scratch,
        IPYTHONDIR=f"{scratch}/ipython",
        PYTHONPATH=os.pathsep.join(import_paths),
        PYTHONHASHSEED="0",
        PYTHONNOUSERSITE="1",
        MPLBACKEND="Agg",
        PIP_NO_INDEX="1",  # `!pip install` fails fast instead of waiting for a network
    )
    if os.environ.get("COURSE_DATA_CACHE"):
        env["COURSE_DATA_CACHE"] = os.environ["COURSE_DATA_CACHE"]
    return env


def command(
    kernel: list[str],
    work: Path,
    runtime: Path,
    readonly: list[str],
    caps: Caps,
    uid: int | None,
    boxed: bool = True,
) -> list[str]:
    """The command line that runs `kernel` boxed: `work` (its working folder) and `runtime` (the
    connection file and sockets) are the only writable places it shares with us; `uid` is the
    unprivileged user to become (needed when we are root). `boxed=False` (bubblewrap cannot run
    here, see `choose`) keeps the user and the limits only."""
    limits = [
        "prlimit",
        f"--data={caps.memory_mb * 2**20}",  # writable memory; address space counts reservations
        f"--nproc={caps.processes}",
        f"--fsize={caps.file_mb * 2**20}",
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
        become = _become(uid)
        box += ["--chmod", "1777", "/tmp"]
    group = memory_group.joining(_GROUPS.get(uid) if uid is not None else None)
    if not boxed:  # no namespaces here: only the user and the limits hold (see `choose`)
        return [*group, *limits, *become, *kernel]
    return [*group, *limits, *box, *become, *kernel]


def _become(uid: int) -> list[str]:
    """The command prefix that drops root to `uid`, with no capabilities and no way back."""
    become = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return become + ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


class OwnUser:
    """An unprivileged user for one kernel at a time, when the grader runs as root (Linux does not
    count root's processes against any limit). Claimed with a lock file, so two graders running
    at once never share a user: each cleans up (`reap`) only its own kernels' processes.
    `uid` is None when we are not root: kernels then run as we do. Where the machine allows,
    the user's kernels share a memory cgroup capped at `box_mb` (`memory_capped`)."""

    def __init__(self, box_mb: int = Caps.box_mb) -> None:
        self.uid, self._lock = None, None
        if os.geteuid() != 0:
            return
        for uid in range(FIRST_UID, FIRST_UID + USERS):
            lock = _claim(uid)
            if lock is not None:
                self.uid, self._lock = uid, lock
                group = memory_group.make(f"{uid}-{os.getpid()}", box_mb)
                if group is not None:
                    _GROUPS[uid] = group
                return
        raise SandboxUnavailable(f"all {USERS} sandbox users are in use by other graders")

    @property
    def memory_capped(self) -> bool:
        """Do this user's kernels share a capped memory cgroup?"""
        return self.uid in _GROUPS

    def release(self) -> None:
        """Kill what is left of this user's processes and let another grader have the user."""
        reap(self.uid)
        memory_group.remove(_GROUPS.pop(self.uid, None))
        if self._lock is not None:
            self._lock.close()
            self.uid, self._lock = None, None


def _claim(uid: int) -> IO[str] | None:
    """The lock file of sandbox user `uid`, locked for us; None if another grader holds it.
    Opened without following links or truncating: a kernel may write in /tmp too, and must not
    turn our lock into a write of its choosing."""
    path = f"{tempfile.gettempdir()}/course-grader-user-{uid}.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError:
        return None
    lock = os.fdopen(fd, "w")
    try:
        if os.fstat(fd).st_uid != os.geteuid():  # planted by someone else: not ours to use
            raise PermissionError(path)
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    return lock


def leftovers(users: int = 8) -> list[int]:
    """Processes of the first `users` sandbox users that no grader holds at the moment: after a
    batch they should be none (a grader still running elsewhere keeps its users' processes)."""
    found = []
    for uid in range(FIRST_UID, FIRST_UID + users):
        lock = _claim(uid)
        if lock is not None:
            found += processes_of(uid)
            lock.close()
    return found


def give_to(uid: int | None, *folders: Path) -> None:
    """Let the kernel's user write in `folders` (and everything in them)."""
    if uid is None:
        return
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                os.lchown(name, uid, uid)


def reap(uid: int | None, seconds: float = 10) -> int:
    """Leave nothing of `uid` (a kernel's own user) for the next student: run `user_reset` as
    that user (its processes, keyrings and scratch files), then kill from here whatever is still
    running as `uid` and wait until it is gone. Returns how many processes were still there for
    us to kill (normally 0)."""
    if uid is None:
        return 0
    reset = [sys.executable, "-I", str(Path(__file__).with_name("user_reset.py"))]
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run([*_become(uid), *reset], timeout=seconds, check=False, capture_output=True)
    killed, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = processes_of(uid)
        if not left:
            break
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        time.sleep(0.05)
    return killed


def processes_of(uid: int) -> list[int]:
    """The ids of the processes running as `uid`."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    pids.append(int(entry.name))
    return pids
