"""Red team, round 13: the fenced kernel's internet filter (fix28y: `kernel_start.refuse_internet`
refuses AF_INET and AF_INET6 sockets and io_uring) and the reader's wider blocklist
(`reader_rights`), attacked with what neither names. Tricks not in rounds 1 to 12. Marked
`xfail(strict=True)` while the hole is open (the reason says what the attack got, measured;
"Fix:" what would close it by design); plain tests are attacks the design holds against, kept
as guards.

Each attack runs in a forked child that takes the rights a fenced kernel or a reader has (the
fence as root, then the slot's user, as `sandbox.command` orders them; `give_up_rights` as a
reader does), and the /dev/shm guard's test in a private tmpfs of its own (`_guarded`, round 12's).
About 10 s in all on a loaded machine.

Fix28aa closed the vsock, System V and message-queue holes (plain tests now, their docstrings
say what was measured before); the named unix socket stays open on this machine's Landlock.

Tried: AF_NETLINK (a fenced kernel made a NETLINK_SOCK_DIAG socket; what it lists, /proc/net
shows every user already, and nothing changes without CAP_NET_ADMIN; refused since fix28aa's
allow-list, kept as a test with vsock). Tried and not kept as tests: AF_PACKET and AF_XDP
(EPERM for a sandbox user: no CAP_NET_RAW); a fenced kernel opening another sandbox user's lock
file (/tmp/course-grader-user-N.lock, mode 0644) read-only and flock-ing it (measured: `_claim`
of that user then says another grader holds it, until the kernel is killed; no harm found: a
grader claiming meanwhile takes a user whose file nobody made yet, and a fenced kernel can make
none). Not tried: a seccomp filter of the kernel's own
stacked on the fence's (Linux lets the fence's EPERM outrank any later filter's answer); and,
for the machine's sake, a vsock connection to the hypervisor (CID 2: this machine's host),
which the first test's socket could make, and ptys opened until the machine's run out.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import mmap
import os
import platform
import resource
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lib.grading import landlock, python_reach, reader_rights, sandbox, user_python
from tests.red_team_support import as_fenced_kernel, in_child, shared_folder

pytestmark = [
    pytest.mark.machine,  # runs code as sandbox users: the main run only (pyproject)
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
    pytest.mark.skipif(not sandbox.fence_works(), reason="needs Landlock (the kernel's fence)"),
]
UID = sandbox.FIRST_UID + 941  # far from the users a grader beside us claims, and rounds 1-12's
NEIGHBOUR = sandbox.FIRST_UID + 942  # another slot's user, graded at the same time
X86_64 = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64's system calls")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may pass through, as /run is."""
    yield from shared_folder("red-team-13-", 0o755)


# --- the fence's filter names two families: the others still leave the machine's kernel -------


def _family_runs(family: int) -> bool:
    try:
        socket.socket(family, socket.SOCK_STREAM).close()
        return True
    except OSError:
        return False


NETLINK_SOCK_DIAG = 4


@pytest.mark.parametrize(
    ("family", "kind", "protocol"),
    [
        pytest.param(
            socket.AF_VSOCK,
            socket.SOCK_STREAM,
            0,
            id="vsock",
            marks=pytest.mark.skipif(
                not _family_runs(socket.AF_VSOCK), reason="the machine has no AF_VSOCK"
            ),
        ),
        pytest.param(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG, id="netlink"),
    ],
)
def test_a_fenced_kernel_makes_no_socket_but_a_unix_one(family, kind, protocol):
    """Closed (fix28aa: `kernel_start.refuse_network`, an allow-list): before, a fenced kernel
        made an AF_VSOCK stream socket (the filter refused AF_INET and AF_INET6 only, Landlock's
        network rights are TCP's): on a virtual machine with a vsock device (Firecracker, as here;
        Kata, QEMU, Nitro) it could connect to the hypervisor's own services (CID 2; not tried
        here), past the fence's 'no internet'; and a NETLINK_SOCK_DIAG socket (harmless as far as
        round 13 saw; refused all the same: no lesson needs one; NETLINK_ROUTE alone is left, which
    ZeroMQ's TCP binds need, read-only for a user). Docker's default
        seccomp profile refuses AF_VSOCK; a microVM or a container without that profile did not.
        Now socket(2) and socketpair(2) of every family but AF_UNIX (and NETLINK_ROUTE) are refused
        (EPERM); lessons 5 and 8 graded fenced at full marks (lesson 8's pool: unix socketpairs)."""

    def attack() -> str:
        socket.socket(family, kind, protocol).close()  # no connection: see above
        return "made"

    assert in_child(attack) == "made"  # unfenced, the family runs here
    assert as_fenced_kernel(UID, attack) != "made"


@pytest.mark.xfail(
    strict=True,
    reason="measured: a fenced kernel connected to a unix socket of a service of the machine "
    "(root's, mode 0666, as systemd-resolved's /run/systemd/resolve/io.systemd.Resolve, nscd's, "
    "D-Bus's system bus, a CI runner's docker.sock are) and the service received its "
    "'exfil:unix': Landlock's file rights up to this machine's ABI 7 do not cover connecting to "
    "a named socket and the filter must let AF_UNIX through (kernels talk to the grader so). A "
    "resolver looks up any name the kernel makes up, so its questions would reach the student's "
    "own DNS server: hidden inputs leave in the names. The box binds no /run and holds. Open "
    "here, and said: the protections line of a fenced run names it (next test), as do README "
    "and GRADING.md. Fix, where the machine's Landlock has it: LANDLOCK_ACCESS_FS_RESOLVE_UNIX "
    "(reported for ABI 9, Linux 7.1; not added: no machine here to verify its number and "
    "meaning on, and a wrong bit would make every fence fail to start)",
)
def test_a_fenced_kernel_reaches_no_unix_socket_of_a_machines_service(shared):
    path = str(shared / "resolver.sock")
    with socket.socket(socket.AF_UNIX) as service:
        service.bind(path)
        os.chmod(path, 0o666)
        service.listen(1)
        service.settimeout(5)

        def attack() -> str:
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(path)
                client.sendall(b"exfil:unix")
            return "sent"

        sent = as_fenced_kernel(UID, attack)
        try:
            connection, _ = service.accept()
            with connection:
                connection.settimeout(5)
                got = connection.recv(100)
        except TimeoutError:
            got = b""
    assert got != b"exfil:unix", sent


def test_the_protections_line_of_a_fenced_run_names_the_machines_unix_sockets(monkeypatch):
    """While the hole above is open, a fenced run's summary says so, never silently."""
    from lib.grading import protections

    monkeypatch.setattr(protections, "fence_abi", lambda: landlock.version())
    record = {"outcome": "graded", "protections": protections.held(True, False, UID)}
    assert "a unix socket file a machine's service opens to all" in protections.line(True, [record])


# --- another ABI's numbers: the filter knows x86_64's only ----------------------------------

# int 0x80 from a 64-bit process: Linux takes it as an i386 system call (AUDIT_ARCH_I386, its
# own numbers: socket is 359 there), which a filter matching x86_64's 41 would miss.
# push rbx; mov eax, edi; mov ebx, esi; mov ecx, edx; xor edx, edx; int 0x80; pop rbx; ret
INT_80 = bytes.fromhex("53 89f8 89f3 89d1 31d2 cd80 5b c3")
I386_SOCKET, X32_SOCKET = 359, 0x40000000 | 41


def _i386_call(number: int, first: int, second: int) -> int:
    """An i386 system call with two arguments (a third of 0) by int 0x80: its result, or minus
    the error number."""
    flags, prot = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, mmap.PROT_READ | mmap.PROT_WRITE
    code = mmap.mmap(-1, mmap.PAGESIZE, flags=flags, prot=prot | mmap.PROT_EXEC)  # not shared
    code.write(INT_80)
    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
    call = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int)(address)
    return call(number, first, second)


def _other_abis() -> tuple[int, int]:
    """socket(AF_INET, SOCK_STREAM) by the i386 ABI and by x32's number: each a descriptor, or
    minus the error number."""
    libc = ctypes.CDLL(None, use_errno=True)
    x32 = libc.syscall(X32_SOCKET, socket.AF_INET, socket.SOCK_STREAM, 0)
    return _i386_call(I386_SOCKET, socket.AF_INET, socket.SOCK_STREAM), (
        x32 if x32 >= 0 else -ctypes.get_errno()
    )


@X86_64
def test_a_fenced_kernel_makes_no_internet_socket_by_another_abi():
    """The filter refuses every call whose ABI is not the machine's own (i386's int 0x80) and
    every x32 number: EPERM. Unfenced, the same int 0x80 makes a TCP socket here (where Linux
    runs i386 code at all; x32 is usually built out: ENOSYS)."""
    unfenced = in_child(_other_abis)
    if unfenced[0] < 0:
        pytest.skip(f"this Linux runs no i386 system call ({os.strerror(-unfenced[0])})")
    assert as_fenced_kernel(UID, _other_abis) == [-1, -1]  # -EPERM, both


# --- what the fence leaves shared between two slots ------------------------------------------

SHM_KEY, SEGMENT = 0x13ED28, 4096


def _segment(key: int, make: bool) -> int:
    """The id of System V segment `key`, made world-readable and writable if `make`."""
    flags = 0o1666 if make else 0  # IPC_CREAT, rw for everyone
    return ctypes.CDLL(None, use_errno=True).shmget(key, SEGMENT if make else 0, flags)


@X86_64
def test_two_slots_fenced_kernels_cannot_talk_over_system_v_memory():
    """Closed (fix28aa: `kernel_start.IPC` in the fence's filter): before, a fenced kernel made
    a System V segment of mode 0666 and wrote in it, and another slot's fenced kernel (another
    user) read 'answers: 42' there: Landlock scopes abstract sockets and signals, not System V
    IPC. Now every System V call is refused (EPERM) to fenced kernels, as to readers; Python's
    process pools use POSIX semaphores in /dev/shm (lesson 8 graded fenced at full marks)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p

    def plant() -> int:
        segment = _segment(SHM_KEY, make=True)
        if segment < 0:
            return -ctypes.get_errno()
        address = libc.shmat(segment, None, 0)
        ctypes.memmove(address, b"answers: 42", 11)
        return segment

    def look() -> str:
        segment = _segment(SHM_KEY, make=False)
        if segment < 0:
            return os.strerror(ctypes.get_errno())
        address = libc.shmat(segment, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            return os.strerror(ctypes.get_errno())
        return ctypes.string_at(address, 11).decode()

    try:
        planted = as_fenced_kernel(UID, plant)
        found = as_fenced_kernel(NEIGHBOUR, look)
        assert planted == -errno.EPERM
    finally:
        segment = _segment(SHM_KEY, make=False)
        if segment >= 0:
            libc.shmctl(segment, 0, None)  # IPC_RMID
    assert found != "answers: 42", f"planted as segment {planted}"


# --- the reader: what Landlock refuses only after it was made ---------------------------------

O_CREAT_RDWR = os.O_CREAT | os.O_RDWR


@X86_64
def test_a_reader_leaves_no_posix_message_queue_behind():
    """Closed (fix28aa): before, a reader's mq_open(O_CREAT) failed with EACCES (Landlock
    refuses the opening) yet the queue was made first, and it outlived the slot's reset
    (`reap`: user_reset finds queues only in a mounted /dev/mqueue, none here); under the
    grader's RLIMIT_MSGQUEUE (819,200 bytes here) 20 one-byte queues took 4 KB, so readers
    could take the machine's 256 queues (fs.mqueue.queues_max). Now the reader's filter refuses
    mq_open (`kernel_start.IPC`, EPERM) and `give_up_rights` sets RLIMIT_MSGQUEUE to 0, as the
    kernels' caps do (`prlimit --msgqueue=0`)."""
    name = f"/red-team-13-{os.getpid()}".encode()
    libc = ctypes.CDLL(None, use_errno=True)

    def attack() -> list:
        reader_rights.give_up_rights(UID)
        queue = libc.mq_open(name, O_CREAT_RDWR, 0o600, None)
        said = "opened" if queue >= 0 else os.strerror(ctypes.get_errno())
        return [said, list(resource.getrlimit(resource.RLIMIT_MSGQUEUE))]

    try:
        said = in_child(attack)
        sandbox.reap(UID)
        left = libc.mq_open(name, os.O_RDONLY, 0, None)
        if left >= 0:
            os.close(left)
    finally:
        with contextlib.suppress(OSError):
            libc.mq_unlink(name)
    assert left < 0, f"the reader's mq_open said {said!r}; the queue outlived reap"
    # refused by the filter, before Landlock's look; and no queue could be charged anyway
    assert said == [os.strerror(errno.EPERM), [0, 0]]


# --- the /dev/shm guard: whose files does it count? -------------------------------------------


@pytest.fixture
def work() -> Iterator[Path]:
    """The fenced kernels' own folder (working copy, connection files, scratch)."""
    yield from shared_folder("red-team-13-", 0o777)


# The victim: an honest process pool's worth of /dev/shm, one file of 1 MB (mode 0644, as
# Python's umask leaves it), then it waits for the attacker to have tried.
VICTIM = """\
import os, time
with open('/dev/shm/pool', 'wb') as pool:
    os.posix_fallocate(pool.fileno(), 0, 1 << 20)
for _ in range(100):
    if os.path.exists('/dev/shm/tried'):
        break
    time.sleep(0.1)
time.sleep(0.3)  # six of its guard's listings
"""
# The attacker: 300 hard links to the victim's file, each an entry of the victim's uid (the
# link shares its inode): past the victim's 256 files, and 300 MB by its guard's count.
LINKER = """\
import os, time
for _ in range(100):
    if os.path.exists('/dev/shm/pool'):
        break
    time.sleep(0.1)
made = 0
try:
    for n in range(300):
        os.link('/dev/shm/pool', f'/dev/shm/link-{n}')
        made += 1
except OSError as error:
    print(made, error.strerror)
open('/dev/shm/tried', 'wb').close()
"""


@pytest.mark.skipif(
    Path("/proc/sys/fs/protected_hardlinks").read_text().strip() != "1",
    reason="the machine lets anyone link to files of others (fs.protected_hardlinks=0)",
)
def test_a_fenced_kernel_cannot_make_the_guard_stop_a_neighbour_by_hard_links(work):
    """Held by the machine's fs.protected_hardlinks alone (Linux refuses a link to another
    user's file one may not both read and write): the fence lets a kernel make plain files in
    /dev/shm, and a link in the same folder needs no other Landlock right. Were it 0, the
    neighbour's guard would count each link as one of its own files, and stop it."""
    from tests.test_red_team_containment_10 import _guarded  # the guard's private /dev/shm

    done = _guarded(work, (UID, LINKER), (NEIGHBOUR, VICTIM))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "0 Operation not permitted", done.stdout


# --- fix28x's probe: does its answer hold for a kernel as the grader starts one? --------------


def test_the_python_probe_answers_for_a_fenced_kernel_under_its_caps(work):
    """The probe (`user_python.blocked`) runs as `nobody`, unfenced and uncapped, once, before
    any kernel (so no kernel can reach it or change its answer). Its answer must hold for a
    kernel as `sandbox.command` starts one: the guard, the caps, the fence, the slot's user.
    Run so, the same probe starts Python again exactly when the grader's probe said it could."""
    probe = [sys.executable, "-I", "-c", Path(python_reach.__file__).read_text()]
    command = sandbox.command(probe, work, work, [], sandbox.Caps(), UID, False, work)
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (done.returncode == 0) == (user_python.blocked() == ""), done.stdout + done.stderr
