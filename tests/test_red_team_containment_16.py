"""Red team, round 18 (helper red28l): the guard's count of unix socket buffers and ptys
(`user_holdings`: one sock_diag dump of the machine's unix sockets at each check, each socket's
queued bytes, received and sent, summed by its uid; /dev/pts listed by owner). Tricks not in
rounds 1 to 17. Marked `xfail(strict=True)` while the hole is open (the reason says what the
attack got, measured; "Fix:" what would close it by design); plain tests are attacks the design
holds against.

Holes (measured on this 2-core machine, Linux 6.18, load 10 from the other helpers; 3, 4 and 6
closed since by fix28e, 1, 2 and 5 by fix28f, their tests plain now):

1. **A closed sender's bytes are counted nowhere.** What a unix socket sends and its peer has
   not read is charged to the sending socket (its `wmem_alloc`), and the receiving one's
   `rmem_alloc` stays 0. Once the sender is closed, sock_diag no longer lists it (it leaves the
   table at close), but its bytes stay in the receiver's queue, to be read, until the receiver
   goes too. A fenced kernel capped at 32 MB filled 13 socket pairs' send buffers (8 MB each,
   SO_SNDBUF's 2 x `net.core.wmem_max`), closed the senders and kept the receivers: 102 MB held
   in 13 descriptors, MemAvailable down by 97 MB, never stopped. `socket_bytes` shows why: for
   one such pair of root's it said 8,421,120 bytes, then 0 once the sender was closed. 1,024
   descriptors a process (`sandbox.NOFILE`) would be 8 GB a process, of 256 (extrapolated).
2. **A listener holds any number of such queues on one descriptor.** A connection not yet
   accepted is a socket of its own (the "embryo") that no dump lists (only its count shows, in
   the listener's `UNIX_DIAG_RQLEN`), and what its client sends waits in its queue, charged to
   the client. A fenced kernel listened on an abstract name, connected 13 times, filled each
   client's 8 MB and closed it: 102 MB held by one descriptor (fds 0-4 open), never stopped.
   The backlog is bounded by `net.core.somaxconn`, 4,096 here: ~32 GB on one descriptor,
   past `sandbox.NOFILE` altogether.
3. **Datagrams from closed senders fill a receiver's queue.** An unbound datagram socket with
   SO_SNDBUF raised sends 4 MB at once (8 MB: ENOBUFS) and may close at once; a bound receiver
   queues 11 such (`net.unix.max_dgram_qlen` 10, plus one) before EAGAIN, charged to senders no
   dump lists. A fenced kernel with three receivers held 132 MB (3 descriptors), never stopped.
   `UNIX_DIAG_RQLEN` of a datagram socket is the length of its first datagram only (4 MB of
   each receiver's 44; seen with `ss -x`), so counting it (hole 1's fix) does not close this one.
4. **Many sockets make every guard's check slow and costly.** sock_diag cannot be asked for one
   uid's sockets: each guard dumps every unix socket of the machine at each check, ~15 us a
   socket (measured as root: 52 ms for 5,000, 283 ms for 19,000). A fenced kernel's 8
   processes held 4,000 socket pairs (8,000 sockets, 500 pairs each: under `sandbox.NOFILE`)
   doing nothing; its guard then used 0.15-0.22 s of CPU a second (5 runs; 0.01 without them,
   0.21-0.34 with 16 processes), as root and outside the kernel's caps and CPU share, and made
   4-4.5 checks a second instead of 19 (its voluntary context switches, which anyone may read
   in /proc/PID/status); every neighbour's guard pays as much for the same dump. At
   `Caps.processes` (256 x ~1,020) that is ~260,000 sockets: ~3.9 s a dump (extrapolated),
   during which that guard lists /dev/shm no more (what a kernel writes between two checks grows
   with it), and ~570 MB of kernel memory no cap counts (measured: 2.2 kB of slab a socket).

5. **A pty whose master is closed is counted nowhere.** Closing a pty's master removes its
   /dev/pts/N entry, but the pty (its number out of the instance's `max`, and of the machine's
   `kernel.pty.max`) stays while its slave is open: the slave got by TIOCGPTPEER on the master
   (after unlockpt), or opened by its path before the master is closed. In a devpts instance of
   32 a fenced kernel took all 32 this way (the next open of /dev/ptmx: ENOSPC) while /dev/pts
   listed only `ptmx`; the guard counted 0 and never stopped it. Measured as root in an
   instance of 4, both ways: `kernel.pty.nr` (the machine's count) rose by one a pty while the
   entries stayed none. A kernel's 1,024 descriptors a process are past the machine's 4,096
   in four processes.

6. **A kernel's own network namespace hides its sockets from the guard.** Nothing in the fence
   refuses unshare (Landlock refuses mounts to a fenced process, not namespaces; the filter
   refuses neither), and this machine allows unprivileged user namespaces, as any machine does
   where the fallback runs only because bwrap is not installed (`sandbox.choose` takes it for
   any reason bwrap cannot run). A fenced kernel made a user and a network namespace of its own
   and ran round 16's attack there, both ends kept: 109 MB in 7 socket pairs under a 32 MB cap,
   never stopped; sock_diag lists the guard's network namespace only. The fixes of holes 1-4
   would not see these either. Under Docker's default seccomp profile (its documentation, not
   tried) unshare and clone's namespace bits are refused without CAP_SYS_ADMIN, so this hole is
   for machines without such a profile. (A tmpfs or a devpts instance of its own in a mount
   namespace: EPERM, Landlock.)

Fixes: count each socket's `UNIX_DIAG_RQLEN` read queue (asked with `UDIAG_SHOW_RQLEN`; for a stream
or seqpacket socket every queued byte, whoever sent it) to its uid, the holder of the queue, in
place of the sender's `wmem_alloc` for those types (hole 1); charge a listener's pending connections
(its RQLEN) at the most a client may queue, twice `net.core.wmem_max`, each (hole 2: an honest
kernel's ZeroMQ listener has at most a few pending, briefly); refuse unix datagram sockets in the
fence's filter (`socket` and `socketpair` with type SOCK_DGRAM: nothing a kernel needs uses them, as
far as we know; ZeroMQ's ipc and multiprocessing are streams) (hole 3); and stop a user past a few
thousand unix sockets, as past `MAX_PTYS` ptys, counted in the same dump (hole 4: the dump then
grows by at most that much a kernel before its guard stops it; an honest kernel holds tens); where
`kernel.pty.nr` exceeds the numbered entries of /dev/pts, walk the user's descriptors for pty slaves
without an entry, as /dev/shm's files without a name are walked (hole 5: `kernel.pty.nr` counts
every devpts instance of the machine, a container's host's too, so it can only say when to walk);
refuse unshare, setns, clone with CLONE_NEW* bits and clone3 in the fence's filter (hole 6, as
Docker's default profile does). Sketched in a scratch copy of `user_holdings` (not committed: RQLEN
added to the meminfo sum, a listener's RQLEN times 8 MB, past 4,096 sockets charged all), holes 1, 2
and 4 turned into XPASS(strict), hole 3 stayed open (5 and 6 were found after), and round 16's
socket, pipe and pty tests still passed; that sketch counts a stream's bytes twice while both ends
are open (the fix should not), and honest notebooks were not graded under it (no selftest).
As built (fix28f): RQLEN alone counts bytes, not their buffers: 10,923 sends of one byte showed
an RQLEN of 10,923 while their sender held 8,388,864 bytes. So a queue is charged to its holder
only while its peer is not in the dump (a listed peer's `wmem_alloc` already counts it: nothing
twice), at up to 2 kB a byte and at most `user_holdings.sender_most` (twice `wmem_max`, and one
send more: 8,454,144 bytes here); a listener names each pending connection's client
(UNIX_DIAG_ICONS, 0 once closed), and each whose client is not listed is charged at
`sender_most`. Hole 5: /dev/pts listed and `kernel.pty.nr` read at every check, the user's
processes looked into (not held still) only while the ptys without an entry could put it past
`MAX_PTYS`; slaves are found by their descriptors' device (a pty slave's major, shown deleted).

Held (plain tests): sockets in flight (the senders themselves passed over SCM_RIGHTS into one
queue, every descriptor but that queue's closed) are still listed, their uid the kernel's, and
stopped it at 32 MB; a pty made by the devpts instance's own multiplexer (/dev/pts/ptmx) has its
opener's entry as /dev/ptmx's do, and the guard stopped the kernel at 32.

Tried and not kept as tests:
- forged "other guards' command lines" (`shm_holders._watched`: root's processes running the
  guard's own `-c` text, the uid after it subtracted as a neighbour's): a process made
  undumpable by its user (PR_SET_DUMPABLE 0) owns /proc/PID/cmdline and /proc/PID/fd as root,
  but not /proc/PID itself (measured: 61100 before and after), which is what `_watched` stats;
  and no_new_privs (set by the fence for Landlock) makes setuid programs run as their caller. No
  root process with a kernel's chosen arguments was found. (Had one been, uid 0 would have the
  guard `SIGSTOP` every process of the machine, itself and the grader included, by `kill(-1)`
  as root in `as_user(0, stopped)`, with no one left to continue them: `_watched` should skip
  uids outside the sandbox users' range.) `user_freeze._processes`' docstring says an
  undumpable process's /proc folder is root's; it is not (the `kill(pid, 0)` fallback is
  harmless either way).
- the other direction, bytes sent *to* a kernel's socket by a socket of another uid and left
  unread (charged to the sender, another user): the only such senders a fenced kernel reaches
  are the grader's ZeroMQ clients (small requests), and a system service's listener it connects
  to sends nothing unasked. The embryo of hole 2 is listed by no dump, so its uid (root's until
  accept: `sk_uid` of a socket made without a file) does not matter.
- read in the code, not measured: an honest kernel's multiprocessing Pipe (a socket pair) holds
  at most its send buffers (~208 kB each end) while its reader lags: far under a 4 GB cap, so
  no false positive from honest socket use was found.

Every guarded kernel runs fenced behind its guard in a private mount namespace whose /dev/shm is a
tmpfs of 64 MB of its own (round 14's `_guarded`): the machine's /dev/shm is never written, and
its devpts neither (round 16's `OWN_PTYS`). Each attack holds at most ~140 MB for ~2 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lib.grading import sandbox
from tests.red_team_support import shared_folder
from tests.test_red_team_containment_12 import _guarded
from tests.test_red_team_containment_12 import pytestmark as round_14_marks
from tests.test_red_team_containment_14 import OWN_PTYS, PTYS

# Root, sandbox users, Landlock: the main run only (round 14's marks, and `machine`, which
# tests/test_other_pythons.py looks for in a module that runs code as a sandbox user).
pytestmark = [pytest.mark.machine, *round_14_marks]
UID = sandbox.FIRST_UID + 1100  # 1100-1119 are this round's
CLOSED_UID = sandbox.FIRST_UID + 1120  # 1120-1139: the holes closed since (fix28e)
FIXED_UID = sandbox.FIRST_UID + 1160  # 1160-1169: those closed by fix28f
CAP_MB = 32  # the attacks' memory cap, as `sandbox.Caps.memory_mb` would set it
CAPS = sandbox.Caps(memory_mb=CAP_MB, kernels=3)
STOPPED = 125  # `shm_guard.STOPPED`


@pytest.fixture
def work() -> Iterator[Path]:
    """The fenced kernels' own folder (working copy, connection files, scratch)."""
    yield from shared_folder("red-team-18-", 0o777)


def _held(work: Path, attack: str, uid: int = UID) -> tuple[int, str]:
    """Run `attack` (it prints `held MB` once it holds them, then `kept` after forty of the
    guard's checks) as a fenced kernel of `uid` capped at `CAP_MB`: its status and what it
    printed."""
    done = _guarded(work, (uid, attack), caps=CAPS)
    return done.returncode, done.stdout + done.stderr


# Each attack ends the same way: say what it holds, then stay for forty of the guard's checks.
HOLD = """
print('held', held >> 20, flush=True)
time.sleep(2)
print('kept', flush=True)
"""
# A stream socket's send buffer at its largest (SO_SNDBUF: 2 x net.core.wmem_max), filled.
FILL = """
import socket, time
def filled(sender):
    sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
    sender.setblocking(False)
    sent = 0
    try:
        while True:
            sent += sender.send(b"x" * 65536)
    except BlockingIOError:
        return sent
"""


# --- 1. a closed sender's bytes, in its peer's queue ------------------------------------------

CLOSED_SENDERS = (
    FILL
    + f"""
held, receivers = 0, []
while held < 3 * {CAP_MB} << 20:  # thrice its memory cap
    sender, receiver = socket.socketpair()
    held += filled(sender)
    sender.close()  # no dump lists it now; its bytes wait in the receiver's queue
    receivers.append(receiver)
"""
    + HOLD
)


def test_a_closed_senders_bytes_count_against_the_receiver(work):
    """Closed (fix28f: `user_holdings._unsent`): before, a fenced kernel capped at 32 MB filled
    13 socket pairs' send buffers (8 MB each), closed the senders and kept the receivers: 102 MB
    held in 13 descriptors, never stopped (the bytes are charged to the closed sender, which
    sock_diag no longer lists). Now a queue whose peer is not listed counts to its holder (its
    RQLEN, at most `BYTE_COST` a byte and `sender_most`): stopped at 46 MB."""
    status, said = _held(work, CLOSED_SENDERS, FIXED_UID)
    assert status == STOPPED and "kept" not in said, said
    assert "MB unix" in said, said


# --- 2. connections never accepted ------------------------------------------------------------

PENDING = (
    FILL
    + f"""
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind("")  # an abstract name of its own, chosen by Linux (autobind)
listener.listen(64)
held = 0
while held < 3 * {CAP_MB} << 20:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(listener.getsockname())  # never accepted: its peer is listed nowhere
    held += filled(client)
    client.close()
"""
    + HOLD
)


def test_connections_never_accepted_count_against_the_listener(work):
    """Closed (fix28f: `user_holdings._unsent`): before, a fenced kernel capped at 32 MB
    connected 13 times to its own listener, filled and closed each client (8 MB each): 102 MB
    held by the listener's one descriptor, never stopped. Now each pending connection whose
    client is not listed (the listener's UNIX_DIAG_ICONS) counts to the listener at
    `sender_most` (8 MB here): stopped at 46 MB."""
    status, said = _held(work, PENDING, FIXED_UID + 1)
    assert status == STOPPED and "kept" not in said, said
    assert "MB unix" in said, said


# --- 3. datagrams from closed senders ---------------------------------------------------------

DATAGRAMS = (
    """
import socket, time
held, receivers = 0, []
for _ in range(3):
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind("")  # an abstract name chosen by Linux, as the listener's
    receivers.append(receiver)
    while True:
        sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
        sender.setblocking(False)
        try:
            held += sender.sendto(bytes(4 << 20), receiver.getsockname())
        except BlockingIOError:  # the receiver's queue is full (max_dgram_qlen)
            break
        finally:
            sender.close()
"""
    + HOLD
)


def test_no_unix_datagram_sockets_to_fill_a_receiver(work):
    """Closed (fix28e: `kernel_start.UNIX_TYPES`): before, a fenced kernel capped at 32 MB sent
    11 datagrams of 4 MB to each of 3 receivers of its own from senders closed at once: 132 MB
    held in 3 descriptors, never stopped (a datagram socket's RQLEN is its first datagram only).
    Now the fence's filter refuses unix datagram sockets: the first receiver is not made."""
    status, said = _held(work, DATAGRAMS, CLOSED_UID)
    assert status != 0 and "PermissionError" in said and "held" not in said, said


# --- 4. thousands of sockets in every guard's dump --------------------------------------------

MANY_SOCKETS = """
import os, socket, time
guard = os.getppid()
def cpu():  # the guard's CPU seconds so far (utime + stime): anyone may read them
    with open(f"/proc/{guard}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
children = []
for _ in range(8):
    child = os.fork()
    if child == 0:
        pairs = [socket.socketpair() for _ in range(500)]  # 1,000 descriptors, under NOFILE
        time.sleep(3.5)
        os._exit(0)
    children.append(child)
time.sleep(1)  # until all are made
start, used = time.monotonic(), cpu()
time.sleep(2)
print("guard", round((cpu() - used) / (time.monotonic() - start), 2), flush=True)
for child in children:
    os.waitpid(child, 0)
"""


def test_thousands_of_sockets_do_not_make_the_guard_busy(work):
    """Closed (fix28e: `shm_guard.MAX_SOCKETS`): before, a fenced kernel's 8 processes held
    8,000 unix sockets doing nothing: its guard used 0.15-0.22 s of CPU a second as root (0.01
    without them) and checked 4-4.5 times a second instead of 19, as did every neighbour's guard
    (~15 us a socket at each check's dump). Now its guard stops it past `MAX_SOCKETS`, counted
    in the same dump."""
    status, said = _held(work, MANY_SOCKETS, CLOSED_UID + 3)
    assert status == STOPPED and "guard " not in said, said
    assert "unix sockets (at most" in said, said


# --- 5. ptys whose master is closed -----------------------------------------------------------

ORPHANED_PTYS = f"""
import fcntl, os, struct, time
TIOCGPTPEER, TIOCSPTLCK = 0x5441, 0x40045431
slaves = []
try:
    while len(slaves) < 2 * {PTYS}:
        master = os.open("/dev/ptmx", os.O_RDONLY | os.O_NOCTTY)  # reading is allowed
        fcntl.ioctl(master, TIOCSPTLCK, struct.pack("i", 0))  # unlockpt
        slaves.append(fcntl.ioctl(master, TIOCGPTPEER, os.O_RDONLY | os.O_NOCTTY))
        os.close(master)  # its /dev/pts entry goes; the pty stays, held by its slave
except OSError as error:
    print(len(slaves), error.strerror, len(os.listdir("/dev/pts")), flush=True)
time.sleep(1)  # twenty of the guard's checks
print("kept", len(slaves), flush=True)
"""


def test_a_pty_whose_master_is_closed_still_counts(work):
    """Closed (fix28f: `user_ptys.orphaned_ptys`): before, a fenced kernel took all 32 ptys of
    a devpts instance of 32 and kept them with /dev/pts listing only ptmx, never stopped. Now,
    while `kernel.pty.nr` says the ptys without an entry could put its user past `MAX_PTYS`,
    its guard looks into its processes for slaves without an entry: stopped."""
    done = _guarded(work, (FIXED_UID + 2, ORPHANED_PTYS), prefix=OWN_PTYS)
    assert done.returncode == STOPPED and "kept" not in done.stdout, done.stdout
    assert "ptys (at most 8)" in done.stderr, done.stderr


# --- 6. sockets in a network namespace of the kernel's own ------------------------------------

OWN_NETWORK = (
    FILL
    + f"""
import ctypes
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
    print("unshare refused", ctypes.get_errno(), flush=True)
held, pairs = 0, []
while held < 3 * {CAP_MB} << 20:  # round 16's attack, both ends kept: here the dump sees it
    pair = socket.socketpair()
    held += filled(pair[0]) + filled(pair[1])
    pairs.append(pair)
"""
    + HOLD
)


@pytest.mark.skipif(
    not Path("/proc/self/ns/user").exists(), reason="no user namespaces on this machine"
)
def test_sockets_in_a_network_namespace_of_its_own_still_count(work):
    """Closed (fix28e: `kernel_start.NAMESPACES`, `CLONE_NEW`): before, a fenced kernel capped
    at 32 MB made a user and network namespace of its own (unshare) and held 109 MB in 7 socket
    pairs there, never stopped: the guard's sock_diag dumps its own network namespace only. Now
    the fence's filter refuses unshare (EPERM), so the sockets are in the guard's sight."""
    status, said = _held(work, OWN_NETWORK, CLOSED_UID + 1)
    assert "unshare refused 1" in said, said
    assert status == STOPPED and "kept" not in said, said


NAMESPACE_CALLS = """
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
clone, unshare, setns = (56, 272, 308) if os.uname().machine == "x86_64" else (220, 97, 268)
CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x10000000, 0x40000000, 17
def tried(number, *arguments):
    answer = libc.syscall(number, *arguments)
    if answer == 0 and number == clone:  # made: the child, in namespaces of its own, ends
        os._exit(0)
    return answer if answer <= 0 else "made", ctypes.get_errno()
print("clone", tried(clone, CLONE_NEWUSER | CLONE_NEWNET | SIGCHLD, None, None, None, None))
print("unshare", tried(unshare, CLONE_NEWUSER))
print("setns", tried(setns, os.open("/proc/self/ns/net", os.O_RDONLY), 0))
print("clone3", tried(435, None, 0))
thread = threading.Thread(target=print, args=("a thread",))
thread.start()
thread.join()
child = os.fork()
if child == 0:
    os._exit(3)
print("a child", os.waitpid(child, 0)[1] >> 8, flush=True)
"""


def test_no_namespace_of_its_own_and_threads_and_children_still(work):
    """clone with CLONE_NEW* bits, unshare and setns are refused (EPERM), clone3 is absent
    (ENOSYS), and glibc's threads (clone3 first, then clone) and fork still work."""
    status, said = _held(work, NAMESPACE_CALLS, CLOSED_UID + 2)
    assert status == 0, said
    for refused in ("clone (-1, 1)", "unshare (-1, 1)", "setns (-1, 1)", "clone3 (-1, 38)"):
        assert refused in said, said
    assert "a thread" in said and "a child 3" in said, said


# --- held: sockets in flight, a pty of the devpts instance's own multiplexer ------------------

IN_FLIGHT = (
    FILL
    + f"""
carrier = socket.socketpair()
held = 0
while held < 3 * {CAP_MB} << 20:
    sender, receiver = socket.socketpair()
    held += filled(sender)
    socket.send_fds(carrier[0], [b"x"], [sender.fileno(), receiver.fileno()])
    sender.close()  # both now only in flight, in carrier[1]'s queue
    receiver.close()
carrier[0].close()  # one descriptor left: carrier[1]
"""
    + HOLD
)


def test_sockets_in_flight_still_count(work):
    """A socket passed over SCM_RIGHTS and closed is still in the dump, its uid the kernel's."""
    status, said = _held(work, IN_FLIGHT)
    assert status == STOPPED and "kept" not in said, said
    assert "MB in socket buffers" in said and "MB unix" in said, said


DEVPTS_PTMX = f"""
import os, time
masters = []
try:
    while len(masters) < 2 * {PTYS}:
        masters.append(os.open("/dev/pts/ptmx", os.O_RDONLY | os.O_NOCTTY))
except OSError as error:
    print(len(masters), error.strerror, flush=True)
time.sleep(1)  # twenty of the guard's checks
print("kept", len(masters), flush=True)
"""


def test_a_pty_of_the_devpts_multiplexer_counts_too(work):
    """/dev/pts/ptmx makes a pty in the same instance as /dev/ptmx, its entry its opener's."""
    done = _guarded(work, (UID, DEVPTS_PTMX), prefix=OWN_PTYS)
    assert done.returncode == STOPPED and "kept" not in done.stdout, done.stdout
    assert f"{PTYS} ptys (at most" in done.stderr, done.stderr
