"""Red team, round 12: the designs of the last hour for issue 28: the fenced kernel's network
and signal scopes (`kernel_start.fence`, `landlock.restrict`), the reader's new rights
(`reader_rights`) and the /dev/shm guard in front of a fenced kernel (`shm_guard`). Tricks not
in rounds 1 to 11. Marked `xfail(strict=True)` while the hole is open (the reason says what the
attack got, measured; "Fix:" what would close it by design); plain tests are attacks the design
holds against, kept as guards.

Each attack runs in a forked child that takes the rights a fenced kernel or a reader has (the
fence as root, then the slot's user, as `sandbox.command` orders them; `give_up_rights` as a
reader does), so the file takes about 10 s. Nothing here writes to the machine's /dev/shm: the
guard's attacks run in a private mount namespace with a tmpfs of 64 MB of their own.

Tried and not kept as tests (held, or no worse than a test here shows): a fenced kernel's
hard link or rename between /dev/shm and its own folder (another filesystem: EXDEV); a folder
in /dev/shm (refused: the guard test checks it); a burst of fallocate past the cap between two
listings (stopped at 71 MB for a 64 MB cap); a reader reading the venv's pyvenv.cfg through
site-packages/../../.. (refused: Landlock resolves the path first; nothing of the course lies
beneath Python's library folders here). Not tried: racing the guard's `stop` child, which
becomes the user a few microseconds before it kills; and, for the machine's sake, opening
/dev/ptmx (which the fence's write right beneath /dev allows) until the machine's ptys run out.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import platform
import resource
import select
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lib.grading import kernel_start, landlock, reader_rights, sandbox, seccomp, user_reset
from tests.red_team_support import (
    as_fenced_kernel,
    become_user,
    in_child,
    shared_folder,
    uring_one,
)

pytestmark = [
    pytest.mark.machine,  # runs code as sandbox users: the main run only (pyproject)
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
    pytest.mark.skipif(not sandbox.fence_works(), reason="needs Landlock (the kernel's fence)"),
]
UID = sandbox.FIRST_UID + 931  # far from the users a grader beside us claims, and rounds 1-11's
NEIGHBOUR = sandbox.FIRST_UID + 932  # another slot's user, graded at the same time
NET = pytest.mark.skipif(sandbox.fence_abi() < 4, reason="needs Landlock's TCP rights (ABI 4)")
MPTCP = 262  # IPPROTO_MPTCP: a TCP socket of its own protocol number


@pytest.fixture
def listener():
    """A TCP server on the loopback, played by anything of the machine's a kernel must not reach
    (a database, a cloud's metadata service, the grader's own ports)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    yield server
    server.close()


def _received(server: socket.socket) -> bytes:
    """What the first client sent `server` (nothing if none came within its 5 s)."""
    try:
        connection, _ = server.accept()
    except TimeoutError:
        return b""
    with connection:
        connection.settimeout(5)
        return connection.recv(100)


# --- the fence's TCP: what Landlock hooks is bind and connect, not every way to a connection ---


@NET
def test_a_fenced_kernel_cannot_connect_over_tcp(listener):
    """Two walls: the fence's filter refuses the socket itself (EPERM), and Landlock's
    CONNECT_TCP a socket the kernel holds from before its fence (EACCES)."""
    port = listener.getsockname()[1]
    found = as_fenced_kernel(UID, lambda: socket.create_connection(("127.0.0.1", port), 2) and "in")
    assert "Operation not permitted" in str(found)
    with socket.socket() as held:
        found = as_fenced_kernel(UID, lambda: held.connect(("127.0.0.1", port)) or "in")
    assert "Permission denied" in str(found)


@NET
@pytest.mark.skipif(
    not int(Path("/proc/sys/net/ipv4/tcp_fastopen").read_text()) & 1,
    reason="the machine's TCP Fast Open is off for clients",
)
def test_a_fenced_kernel_cannot_connect_over_tcp_by_fast_open(listener):
    port = listener.getsockname()[1]

    def attack() -> object:
        with socket.socket() as client:
            client.sendto(b"exfil:1", socket.MSG_FASTOPEN, ("127.0.0.1", port))
            time.sleep(0.2)
        return "sent"

    as_fenced_kernel(UID, attack)
    assert _received(listener) != b"exfil:1"


OP_CONNECT = 16  # IORING_OP_CONNECT (5.5)


def _uring_connect(fd: int, port: int) -> int:
    """Connect socket `fd` to the loopback's `port` by one io_uring entry, not by connect(2):
    0, or minus the error number."""
    address = struct.pack("=H", socket.AF_INET) + struct.pack("!H4s8x", port, bytes([127, 0, 0, 1]))
    where = ctypes.create_string_buffer(address, len(address))  # struct sockaddr_in
    # opcode, flags, priority, fd, offset (the address's length), address, length
    return uring_one((OP_CONNECT, 0, 0, fd, len(address), ctypes.addressof(where), 0))


@NET
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64's system calls")
def test_a_fenced_kernel_cannot_connect_over_tcp_through_io_uring(listener):
    """The fence's filter refuses io_uring_setup (EPERM), and without it (Landlock alone) an
    io_uring connect goes through the same check as connect(2): EACCES (unfenced, the same
    entry connects: 0). The socket is one held from before the fence."""
    port = listener.getsockname()[1]

    def landlock_alone() -> int:
        landlock.restrict(landlock.MAKE_REG, [])
        become_user(UID)
        return attack()

    with socket.socket() as client:

        def attack() -> int:
            return _uring_connect(client.fileno(), port)

        assert as_fenced_kernel(UID, attack) == -1  # EPERM: io_uring refused by the fence's filter
        assert in_child(landlock_alone) == -13  # EACCES: Landlock's CONNECT_TCP
    with socket.socket() as client:
        assert in_child(attack) == 0


def _mptcp_runs() -> bool:
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM, MPTCP).close()
        return True
    except OSError:
        return False


@NET
@pytest.mark.skipif(not _mptcp_runs(), reason="the machine has no MPTCP")
def test_a_fenced_kernel_cannot_connect_over_mptcp(listener):
    port = listener.getsockname()[1]

    def attack() -> object:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM, MPTCP) as client:
            client.connect(("127.0.0.1", port))
            client.sendall(b"exfil:2")
        return "sent"

    as_fenced_kernel(UID, attack)
    assert _received(listener) != b"exfil:2"


@NET
def test_a_fenced_kernel_cannot_serve_tcp():
    said, told = os.pipe()
    server = os.fork()
    if server == 0:  # the kernel: a server on whatever port listen(2) gives it
        try:
            kernel_start.fence([])
            become_user(UID)
            with socket.socket() as listening:
                listening.listen(1)
                os.write(told, str(listening.getsockname()[1]).encode())
                listening.settimeout(5)
                connection, _ = listening.accept()
                connection.sendall(b"served")
                connection.close()
        except OSError as error:
            os.write(told, f"refused: {error}".encode())
        finally:
            os._exit(0)
    os.close(told)
    try:
        answer = os.read(said, 100).decode()
        got = b""
        if answer.isdigit():
            with socket.create_connection(("127.0.0.1", int(answer)), 5) as client:
                got = client.recv(100)
    finally:
        os.close(said)
        os.waitpid(server, 0)
    assert got != b"served", f"the fenced kernel served TCP on port {answer}"


def test_two_slots_fenced_kernels_cannot_talk_over_udp():
    said, told = os.pipe()
    receiver = os.fork()
    if receiver == 0:  # the neighbour slot's kernel, waiting for a message
        try:
            kernel_start.fence([])
            become_user(NEIGHBOUR)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as inbox:
                inbox.bind(("127.0.0.1", 0))
                os.write(told, str(inbox.getsockname()[1]).encode().ljust(8))
                inbox.settimeout(5)
                os.write(told, inbox.recv(100))
        except OSError as error:
            os.write(told, f"refused: {error}".encode().ljust(8))
        finally:
            os._exit(0)
    os.close(told)
    try:
        port = os.read(said, 8).decode().strip()

        def send() -> object:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as outbox:
                return outbox.sendto(b"answers: 42", ("127.0.0.1", int(port)))

        sent = as_fenced_kernel(UID, send) if port.isdigit() else port
        ready = select.select([said], [], [], 6)[0]
        got = os.read(said, 100) if ready else b""
    finally:
        os.close(said)
        os.waitpid(receiver, 0)
    assert got != b"answers: 42", f"sent {sent} bytes"


@pytest.mark.skipif(sandbox.fence_abi() < 6, reason="needs Landlock's scopes (ABI 6)")
def test_a_fenced_kernel_reaches_no_process_of_its_user_beyond_its_own(victim):
    """Another process of the slot's user (its reader, or the guard's child that kills as the
    user) is beyond the fence: no signal by pid or by pidfd, no abstract socket of its."""
    name = f"\0red-team-12-{victim}"
    with socket.socket(socket.AF_UNIX) as abstract:
        abstract.bind(name)
        abstract.listen(1)

        def attack() -> list[str]:
            tries = [lambda: os.kill(victim, signal.SIGKILL)]
            tries += [lambda: signal.pidfd_send_signal(os.pidfd_open(victim), signal.SIGKILL)]
            tries += [lambda: socket.socket(socket.AF_UNIX).connect(name)]
            found = []
            for attempt in tries:
                try:
                    attempt()
                    found.append("reached")
                except OSError as error:
                    found.append(error.strerror)
            return found

        found = as_fenced_kernel(UID, attack)
    assert found == ["Operation not permitted"] * 3
    assert os.waitpid(victim, os.WNOHANG) == (0, 0)


# --- the reader: what its user may still do to its own user's other processes ---------------


@pytest.fixture
def victim():
    """A process of the reader's own user that is not the reader: the grader itself when the
    instructor grades without root (the reader then stays the instructor), or a classmate's
    reader as `LONE_UID`. Its pid is known without /proc: the reader's parent's is getppid()."""
    pid = os.fork()
    if pid == 0:
        try:
            become_user(UID)
            time.sleep(30)
        finally:
            os._exit(0)
    time.sleep(0.1)
    yield pid
    with contextlib.suppress(ChildProcessError):  # a test whose attack ended it reaped it
        if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still ours: its pid is no one else's
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _limit(pid: int, name: str) -> str:
    """A process's soft limit `name` as /proc/PID/limits says it (root's prlimit may be refused
    where the grader's root lacks CAP_SYS_RESOURCE, as here)."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith(name):
            return line[26:].split()[0]
    raise LookupError(name)


def test_a_reader_cannot_signal_another_process_of_its_user(victim):
    found = in_child(lambda: (reader_rights.give_up_rights(UID), os.kill(victim, 0))[1])
    assert "Operation not permitted" in str(found)
    assert os.waitpid(victim, os.WNOHANG) == (0, 0)


def test_a_reader_cannot_set_the_limits_of_another_process_of_its_user(victim):
    def attack() -> object:
        reader_rights.give_up_rights(UID)
        resource.prlimit(victim, resource.RLIMIT_FSIZE, (0, 0))
        resource.prlimit(victim, resource.RLIMIT_CPU, (1, 1))
        return "set"

    found = in_child(attack)
    assert (_limit(victim, "Max file size"), _limit(victim, "Max cpu time")) == (
        "unlimited",
        "unlimited",
    ), found


def test_a_reader_cannot_slow_another_process_of_its_user(victim):
    def attack() -> object:
        reader_rights.give_up_rights(UID)
        os.setpriority(os.PRIO_USER, UID, 19)
        os.sched_setaffinity(victim, {0})
        return "set"

    before = os.getpriority(os.PRIO_PROCESS, victim)  # pytest's own (under `nice`, not 0)
    found = in_child(attack)
    assert os.getpriority(os.PRIO_PROCESS, victim) == before, found


IPC_PRIVATE, IPC_CREAT, SEGMENT_MB = 0, 0o1000, 8


def _segments_of(uid: int) -> list[int]:
    """The sizes (bytes) of the System V shared memory segments `uid` owns on the machine."""
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return [int(f[3]) for f in map(str.split, lines) if int(f[7]) == uid]


FIOSETOWN = 0x8901  # ioctl: the owner a descriptor's SIGIO goes to, as fcntl's F_SETOWN sets


def _sigio_to(victim: int, rights: Callable[[], None]) -> object:
    """With `rights` given up, point a socket's SIGIO at `victim` by ioctl (not fcntl's
    F_SETOWN, which the reader's filter refuses) and make the socket ready: SIGIO ends a
    process that does not handle it."""
    mine, other = socket.socketpair()

    def attack() -> str:
        rights()
        fcntl.ioctl(mine.fileno(), FIOSETOWN, struct.pack("i", victim))
        fcntl.fcntl(mine.fileno(), fcntl.F_SETFL, os.O_ASYNC)
        other.send(b"ready")
        time.sleep(0.3)
        return "sent"

    found = in_child(attack)
    time.sleep(0.1)
    return found, os.waitpid(victim, os.WNOHANG)


@pytest.mark.skipif(sandbox.fence_abi() < 6, reason="needs Landlock's scopes (ABI 6)")
def test_a_readers_sigio_by_ioctl_reaches_no_process_of_its_user(victim):
    """Held by Landlock's scope alone (the reader's filter now also refuses the ioctl, see the
    next test): with only a ruleset and the user, the ioctl passes and no SIGIO arrives."""

    def scope_alone() -> None:
        landlock.restrict(landlock.MAKE_REG, [])
        become_user(UID)

    found, ended = _sigio_to(victim, scope_alone)
    assert (found, ended) == ("sent", (0, 0))
    found, ended = _sigio_to(victim, lambda: reader_rights.give_up_rights(UID))
    assert "Operation not permitted" in str(found) and ended == (0, 0)


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64's system calls")
def test_a_readers_filter_alone_stops_sigio_by_ioctl(victim):
    def rights() -> None:  # what a reader keeps where Landlock cannot scope its signals
        machine = platform.machine()
        refused = reader_rights.REFUSED[machine]
        assert seccomp.refuse(refused, reader_rights.BY_ARGUMENT[machine])
        become_user(UID)

    found, ended = _sigio_to(victim, rights)
    assert ended == (0, 0), f"{found}: the victim ended with status {ended[1]}"


def test_a_reader_leaves_no_shared_memory_behind():
    def attack() -> object:
        status = Path("/proc/self/status").read_text()
        size = int(status.split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + (16 << 20), size + (16 << 20)))
        reader_rights.give_up_rights(UID)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        for _ in range(4):
            segment = libc.shmget(IPC_PRIVATE, SEGMENT_MB << 20, IPC_CREAT | 0o600)
            address = libc.shmat(segment, None, 0)
            if segment < 0 or address in (None, ctypes.c_void_p(-1).value):
                return f"refused: {os.strerror(ctypes.get_errno())}"
            ctypes.memset(address, 1, SEGMENT_MB << 20)  # its pages now exist
            libc.shmdt(ctypes.c_void_p(address))
        return "left"

    try:
        found = in_child(attack)
        left = _segments_of(UID)
    finally:  # as the slot's user, as `reap` does
        in_child(lambda: (become_user(UID), user_reset.remove_system_v_objects()))
    assert not left, f"{found}: {len(left)} segments, {sum(left) >> 20} MB"


# --- the /dev/shm guard: what one listing of /dev/shm does not see ----------------------------
SHM_MB = 64  # the private /dev/shm the guard's attacks get
CAPS = sandbox.Caps(kernels=3)  # a share of 16 MB each (64 MB / 4), as a quarter was before


@pytest.fixture
def work() -> Iterator[Path]:
    """The fenced kernel's own folder (working copy, connection files, scratch)."""
    yield from shared_folder("red-team-12-", 0o777)


def _guarded(
    work: Path, *kernels: tuple[int, str], caps: sandbox.Caps = CAPS
) -> subprocess.CompletedProcess:
    """Run each `(uid, code)` at once as a fenced kernel of `uid` behind its /dev/shm guard,
    exactly as `sandbox.command` starts one without a box (each another slot's), in a private
    mount namespace whose /dev/shm is a tmpfs of `SHM_MB` (the machine's is never touched).
    The exit status is the last kernel's."""
    commands = []
    for uid, code in kernels:
        kernel = [sys.executable, "-c", code]
        commands += [shlex.join(sandbox.command(kernel, work, work, [], caps, uid, False, work))]
    script = f"mount -t tmpfs -o size={SHM_MB}m,mode=1777 red-team-12 /dev/shm || exit 9\n"
    script += "".join(f"{line} &\n" for line in commands[:-1]) + commands[-1] + "\n"
    script += "status=$?\nwait\nexit $status\n"
    (work / "kernels.sh").write_text(script)  # a file: as one argument, five exceed 128 KB
    private = ["unshare", "--mount", "--propagation", "private", "sh", str(work / "kernels.sh")]
    return subprocess.run(private, capture_output=True, text=True, timeout=30)


# Was open (round 12, hole 9): a fenced kernel held 48 MB of a 64 MB /dev/shm, three times its
# 16 MB cap, in two files it unlinked and one made with O_TMPFILE (no name at all), for as long
# as it liked: the guard's listing did not see them (status 0, not 125), and every neighbour's
# process pool had 16 MB left. Closed: the guard compares statvfs's used space with its listing
# and, when the space without a name could put the user past its cap, counts the files without
# a name its processes hold open or mapped (`shm_guard.unnamed_held`).
@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="needs O_TMPFILE")
def test_a_fenced_kernel_cannot_hold_shm_past_its_cap_without_names(work):
    code = (
        "import os, time\n"
        "held = []\n"
        "for name in ('a', 'b'):\n"
        "    held.append(os.open('/dev/shm/' + name, os.O_CREAT | os.O_RDWR, 0o600))\n"
        "    os.unlink('/dev/shm/' + name)\n"
        "held.append(os.open('/dev/shm', os.O_TMPFILE | os.O_RDWR, 0o600))\n"
        "for fd in held:\n"
        "    os.posix_fallocate(fd, 0, 16 << 20)\n"
        "time.sleep(0.5)  # ten of the guard's listings\n"
        "shm = os.statvfs('/dev/shm')\n"
        "print((shm.f_blocks - shm.f_bfree) * shm.f_frsize >> 20)\n"
    )
    done = _guarded(work, (UID, code))
    assert done.returncode == 125, f"status {done.returncode}, {done.stdout.strip()} MB held"


def test_a_fenced_kernel_cannot_hold_shm_past_its_cap_by_a_mapping_alone(work):
    """A file without a name that no descriptor holds, only one page of a mapping of it: its
    size is seen through /proc/PID/map_files, not through the mapping. By libc's mmap: Python's
    `mmap.mmap` keeps a descriptor of its own."""
    code = (
        "import ctypes, mmap, os, time\n"
        "fd = os.open('/dev/shm/m', os.O_CREAT | os.O_RDWR, 0o600)\n"
        "os.unlink('/dev/shm/m')\n"
        "os.posix_fallocate(fd, 0, 24 << 20)\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.mmap.restype = ctypes.c_void_p\n"
        "shared = mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED\n"
        "page = libc.mmap(None, mmap.PAGESIZE, *shared, fd, ctypes.c_long(0))\n"
        "assert page not in (None, ctypes.c_void_p(-1).value)\n"
        "os.close(fd)\n"
        "time.sleep(0.5)  # ten of the guard's checks\n"
        "shm = os.statvfs('/dev/shm')\n"
        "print((shm.f_blocks - shm.f_bfree) * shm.f_frsize >> 20)\n"
    )
    done = _guarded(work, (UID, code))
    assert done.returncode == 125, f"status {done.returncode}, {done.stdout.strip()} MB held"


SENT = (  # a file without a name, held by a descriptor in flight in a unix socket only
    "import os, socket, time\n"
    "fd = os.open('/dev/shm', os.O_TMPFILE | os.O_RDWR, 0o600)\n"
    "os.posix_fallocate(fd, 0, 24 << 20)\n"
    "mine, other = socket.socketpair()\n"
    "socket.send_fds(mine, [b'x'], [fd])\n"
    "os.close(fd)\n"
    "mine.close()  # `other` holds the message, unread, with the descriptor in it\n"
    "time.sleep(0.5)  # ten of the guard's checks\n"
    "shm = os.statvfs('/dev/shm')\n"
    "print((shm.f_blocks - shm.f_bfree) * shm.f_frsize >> 20)\n"
)


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="needs O_TMPFILE")
@pytest.mark.xfail(
    strict=True,
    reason="a file no process holds is counted by no one: a fenced kernel held 24 MB of a 64 MB "
    "/dev/shm (its cap 16 MB) in a file made with O_TMPFILE whose only descriptor it sent "
    "into a unix socket and never read back (the guard sees the 24 MB without a name in "
    "statvfs, but no descriptor or mapping of any process leads to it); status 0, not 125. "
    "Fix: charge /dev/shm's space that no process holds to the kernels (which one sent it "
    "is not in /proc), or refuse descriptors in unix sockets' messages (seccomp cannot read "
    "sendmsg's control data; an LSM could), or a memory group",
)
def test_a_fenced_kernel_cannot_hold_shm_past_its_cap_in_a_sockets_message(work):
    # Three tries: a check that falls between the fallocate and the close sees the file held by
    # its descriptor and rightly stops the kernel (7 of 30 runs at load 10), which is luck, not
    # the hole closed; the attacker needs one try to pass.
    for _ in range(3):
        done = _guarded(work, (UID, SENT))
        assert done.returncode == 125, f"status {done.returncode}, {done.stdout.strip()} MB held"


def test_the_guard_stops_a_kernel_past_its_cap_and_its_setsid_daemon(work):
    code = (
        "import os, time\n"
        "try:\n"
        "    os.mkdir('/dev/shm/hide')  # a folder to hide in: the fence refuses it\n"
        "    print('made', flush=True)\n"
        "except PermissionError:\n"
        "    print('refused', flush=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        print(os.getpid(), flush=True)\n"
        "        time.sleep(30)\n"
        "    os._exit(0)\n"
        "time.sleep(0.2)\n"
        "with open('/dev/shm/big', 'wb') as big:\n"
        "    os.posix_fallocate(big.fileno(), 0, 20 << 20)  # past the 16 MB cap\n"
        "time.sleep(5)\n"
        "print('not stopped', flush=True)\n"
    )
    done = _guarded(work, (UID, code))
    said = done.stdout.split()
    assert (done.returncode, said[:1]) == (125, ["refused"]), done.stdout + done.stderr
    daemon = int(said[1])
    state = Path(f"/proc/{daemon}/stat")
    # An orphan comes back to us (the grader's subreaper): dead, it waits as a zombie.
    assert not state.exists() or state.read_text().split(")")[1].split()[0] == "Z"
    if state.exists():
        os.waitpid(daemon, 0)


# Was open (round 12, hole 10): each guard allowed its kernel a quarter of /dev/shm whatever
# the other slots held: four slots' kernels, each under its cap (15.5 MB of a 64 MB /dev/shm,
# Docker's default size), filled it, and a fifth slot's kernel could not write 4 MB there
# (ENOSPC). Closed: each kernel's share is /dev/shm's size over the slots (--jobs) + 1
# (`shm_guard.share`): here 64 MB / 6, so the four are stopped past 10.7 MB each.
def test_slots_under_their_caps_leave_a_neighbour_room_in_shm(work):
    hold = (
        "import os, time\n"
        "with open('/dev/shm/hold-%d' % os.getuid(), 'wb') as hold:\n"
        "    os.posix_fallocate(hold.fileno(), 0, 31 << 19)  # 15.5 MB: under the 16 MB cap\n"
        "for _ in range(100):  # until the neighbour has tried\n"
        "    if os.path.exists('/dev/shm/tried'):\n"
        "        break\n"
        "    time.sleep(0.1)\n"
    )
    neighbour = (
        "import os, time\n"
        "for _ in range(100):  # until the four hold their share\n"
        "    if len(os.listdir('/dev/shm')) == 4:\n"
        "        break\n"
        "    time.sleep(0.1)\n"
        "time.sleep(0.2)  # their space allocated\n"
        "try:\n"
        "    with open('/dev/shm/pool', 'wb') as pool:\n"
        "        os.posix_fallocate(pool.fileno(), 0, 4 << 20)\n"
        "    print('room')\n"
        "except OSError as error:\n"
        "    print(error.strerror)\n"
        "open('/dev/shm/tried', 'wb').close()\n"
    )
    hoarders = [(UID + 2 + n, hold) for n in range(4)]
    done = _guarded(work, *hoarders, (NEIGHBOUR, neighbour), caps=sandbox.Caps(kernels=5))
    assert done.stdout.strip() == "room", done.stdout + done.stderr
