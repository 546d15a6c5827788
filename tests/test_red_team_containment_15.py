"""Red team, round 17 (helper red28k): what changed in the last session and was not attacked:
the /dev/shm guard's new checks (`shm_guard`, `shm_holders`: statvfs's inodes and the files
without a name a walk finds, both against the file cap; a deleted program's `exe`; a walk's answer
standing `WALK_EVERY`; a check that raises stops the kernel), the fenced kernel's filter against
shared memory (`kernel_start.refuse_network`: memfd_create, memfd_secret, and mmap's
MAP_SHARED|MAP_ANONYMOUS by bits) and Landlock's `DEVICES`. Tricks not in rounds 1 to 16.
Marked `xfail(strict=True)` while the hole is open (the reason says what the attack got,
measured; "Fix:" what would close it by design); plain tests are attacks the design holds
against.

Holes (measured on this 2-core machine, Linux 6.18, under the other helpers' load):

1. **Extended attributes fill /dev/shm's inodes and the machine's memory, charged to no one.**
   tmpfs keeps a file's user.* attributes in kernel memory and charges them to the
   filesystem's inode space (1 kB an inode), not to any file's blocks. One named, empty file:
   the listing sees 1 file of 0 bytes; statvfs's inodes in use jump, the walk finds no file
   without a name, so the guard charges nobody. A fenced kernel put 63 MB of attribute values
   on one file in a /dev/shm of 65,536 inodes, took its last inode (a neighbour's
   `multiprocessing.Lock()`: ENOSPC, as lesson 8's pool would get) and was never stopped (its
   share: 16 MB). 64 MB of values cost 131 MB of unreclaimable kernel memory (SUnreclaim; a
   value of 64 kB takes a 128 kB allocation). A tmpfs mounted without nr_inodes (as Docker
   mounts its 64 MB /dev/shm, and as this machine's is) gets half the machine's pages as
   inodes whatever its size: 3,085,457 for a 64 MB tmpfs here, so ~3 GB of values (~6 GB of
   memory, extrapolated) on one file, outside the kernel's own caps. The working copy's tmpfs
   (`scratch_disk`, 50,000 inodes) takes 50 MB more the same way.
2. **A pipe holds whole huge pages.** vmsplice puts a page of the kernel's memory into a pipe
   without copying; if that page is part of a transparent huge page (THP is `madvise` here:
   MADV_HUGEPAGE on a 2 MB-aligned area), the pipe keeps the whole 2 MB after the area is
   unmapped, and then the memory is in no mapping, so RLIMIT_DATA does not count it. A fenced
   kernel with 16 MB left under its RLIMIT_DATA put 128 MB in 4 pipes (8 descriptors; MemAvailable
   fell by 124-136 MB): 32 MB a pipe of 16 buffers, so round 16's bound for pipes ("what bounds
   it is descriptors") is 512 times looser: ~750 pipes (1,500 descriptors) would hold this
   machine's 24 GB (not tried). Counting a user's unix socket memory (round 16's fix for its
   hole 1) does not see pipes.
3. **A daemon is unguarded from its kernel's end.** The guard checks once more when the kernel
   ends and returns; a daemon the kernel left (`setsid`) runs on, unguarded, until the grader's
   reset (read in the code: nbclient sees a dead kernel within a second, `_async_poll_kernel_alive`,
   then the grader resets the user). A daemon that waited for its guard to end then held a
   48 MB file in /dev/shm (three times its share) for 0.5 s, the guard having returned 0; in
   that window it may fill the machine's /dev/shm (64 MB under Docker) as fast as memory takes
   it, and a neighbour's pool lock fails.
4. **A fenced kernel may set the limits of its guard's walker.** `shm_holders.as_user` forks the
   guard and takes the kernel's uid, and prlimit64 on another process asks only that the ids be
   equal (not that it be dumpable or traceable; the fence's filter allows it; the reader's
   refuses it). A fenced kernel set RLIMIT_NOFILE 0 on such a walker: its listing of /proc
   failed, `as_user` said None, and `unnamed_held` reads None from `_stopped` as "no process"
   (`(None or "").split()`): nothing without a name is charged, failing open (round 16 read
   this in the code; here is a way to reach it). Live, the window (from the walker's setresuid
   to its kill(-1), a few microseconds) was not won by a Python racer spraying prlimit on the
   next pids in 10 runs of 3 s, each ended by the guard's stop, nor in 4 more whose racers
   forked anew every 2 ms (to be near the end of the task list kill(-1) walks); the test hands
   the walker's pid to the attacker instead.

Closed since (issue 28), each test now plain: the fence's filter refuses the calls of extended
attributes and vmsplice (`kernel_start.UNCOUNTED`) and prlimit64 but on the caller
(`kernel_start.PRLIMIT`), and the guard kills its user's processes when its kernel ends
(`shm_guard.guard`).

Each fix was sketched in a scratch copy of `lib` (not committed) and turned its test into a
pass: setxattr, lsetxattr, fsetxattr, setxattrat and vmsplice added to the fence's refused calls
(holes 1 and 2; a kernel needs none, and shutil's copies ignore EPERM for attributes), prlimit64
allowed only on pid 0 as the reader's filter does (hole 4), and the guard killing its user's
processes (`signal_all(SIGKILL)` as the user, `KILL_ROUNDS` times) when its kernel ends (hole 3:
one kernel per user at a time, so nothing of the user may outlive it). `unnamed_held` should
also charge all when `as_user` says None for `_stopped`. Honest notebooks under these sketches
were not graded (no selftest run): each fix needs one before it is done.

Held (plain tests): MAP_SHARED_VALIDATE|MAP_ANONYMOUS (it has MAP_SHARED's bit: EPERM); a shared
mapping of each device the fence lets a kernel write (/dev/null, /dev/full, /dev/ptmx: no mmap,
ENODEV); i386's mmap2 of shared anonymous memory by int 0x80 from a 64-bit process (EPERM: the
filter refuses another ABI whole).

Tried and not kept as tests:
- the walk reads every mapping (measured): `BUDGET` counts descriptors, not the lines of
  /proc/PID/maps, and a process may have 65,530 mappings (vm.max_map_count), none writable so
  none in RLIMIT_DATA (PROT_NONE and PROT_READ pages, alternated by mprotect). `_mappings` read
  65,531 lines in 0.25 s as root; beside a neighbour's pool lock (one page without a name) a
  kernel holding exactly its share by name had its guard walk it each second, and 4 such
  processes cost the guard 1.1 s of CPU in 6 s (2 processes: 0.4 s in 3.7 s). At 256 processes
  (`Caps.processes`) that is ~64 s of root's CPU a walk (extrapolated), outside the kernel's
  CPU share, one walk after another; and the 16.8 million mappings would take ~3.5 GB of
  kernel memory (measured: 262,000 mappings, 55 MB of SUnreclaim). Not kept: its test costs
  ~10 s (Python makes the mappings), and the memory is round 16's class again. Fix: count the
  lines of maps in the walk's budget as descriptors are (past it: cannot say, charge all).
- read in the code: the guard's other children of the kernel's uid (`stop`, `_continued`) are
  open to prlimit as the walker is (hole 4), in the same microseconds' window: a `stop` child
  whose RLIMIT_NOFILE is 0 kills the user (kill needs no descriptor) but removes none of its
  files (its listing fails), which then stay until the grader's reset. The same fix closes it.
- epoll (measured): 600,000 watches (300 epoll instances on 2,000 descriptors of one pipe) took
  115 MB of unreclaimable kernel memory in 3 s outside RLIMIT_DATA; fs.epoll.max_user_watches
  (5,491,489 here) bounds it near 1 GB a user. The class of round 16's hole 1, which a count of
  socket memory does not see either: where no memory group can be made, only a design that
  counts the user's kernel memory (or refuses the calls) closes the class.
- the other devices (measured): /dev/random and /dev/fuse (0666 here) open for reading only and
  neither maps (ENODEV); /dev/kmsg does not open. /dev/tty is ENXIO in these tests (no
  terminal); read in the code: jupyter_client starts every kernel in a session of its own
  (`start_new_session`), so a fenced kernel has no controlling terminal even when the grader
  runs in one. Were a kernel ever started in the grader's session, TIOCSTI would type into the
  instructor's shell (dev.tty.legacy_tiocsti is 1 here; Landlock's IOCTL_DEV is not handled):
  the box says `--new-session`, the unboxed command relies on jupyter_client alone.
- not tried: splice of a readable file's pages into pipes (the page cache's large folios, pinned
  as hole 2 pins huge pages); inotify watches (fs.inotify.max_user_watches: 192,536 a user here).
- read in the code, not measured: a single kernel gains nothing from the walk's answer standing
  a second (`Walked.bound`) by turning a walked named file into one without a name, nor from
  hard links (each link is an entry of its own count as much as it lowers the space and inodes
  without a name: the sum is unchanged); two colluding slots can, by the bound the guard's
  docstring states. A hoarder swinging the space or inodes without a name gets its neighbours
  walked at most about twice a second: a walk records the level it saw, and only growth past
  the neighbour's headroom since then walks again before `WALK_EVERY`.

Every guarded kernel runs fenced behind its guard in a private mount namespace whose /dev/shm is a
tmpfs of 64 MB of its own (round 14's `_guarded`): the machine's /dev/shm is never written. The
tests take about 8 s on a loaded machine (load 8-9), 24 s with pytest's start.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import platform
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lib.grading import kernel_start, sandbox, user_freeze
from tests.red_team_support import as_fenced_kernel, become_user, shared_folder
from tests.test_red_team_containment_12 import _guarded
from tests.test_red_team_containment_12 import pytestmark as round_14_marks

# Root, sandbox users, Landlock: the main run only (round 14's marks, and `machine`, which
# tests/test_other_pythons.py looks for in a module that runs code as a sandbox user).
pytestmark = [pytest.mark.machine, *round_14_marks]
UID = sandbox.FIRST_UID + 1060  # 1060-1079 are this round's
NEIGHBOUR = sandbox.FIRST_UID + 1061  # another slot's user, graded at the same time
X86_64 = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64's numbers")
STOPPED = 125  # `shm_guard.STOPPED`
SHM_INODES = 65536  # the private /dev/shm's inodes: 64 MB of "inode space" (1 kB each)


@pytest.fixture
def work() -> Iterator[Path]:
    """The fenced kernels' own folder (working copy, connection files, scratch)."""
    yield from shared_folder("red-team-17-", 0o777)


# --- 1. extended attributes: memory and inodes of /dev/shm that no file's size shows ----------

# Linux's tmpfs keeps a file's user.* attributes in kernel memory, charged to the filesystem's
# inodes (1 kB of "inode space" each) and to no file's blocks. One named, empty file.
ATTRIBUTES = """
import os, time
fd = os.open('/dev/shm/notes', os.O_CREAT | os.O_RDWR, 0o600)
held = 0
for size in (65536, 1024, 1):  # big values first, then the last crumbs of inode space
    try:
        while held < 64 << 20:
            os.setxattr(fd, f'user.{held}', b'v' * size)
            held += size
    except OSError:
        pass  # no inode space left for this size
time.sleep(2)  # forty of the guard's checks, and the neighbour's try
print('attributes', held >> 20, os.statvfs('/dev/shm').f_ffree, flush=True)
"""
LOCK = """
import multiprocessing, os, time
for _ in range(1000):  # until the attacker has taken the inode space (20 s at most)
    if os.statvfs('/dev/shm').f_ffree == 0:
        break
    time.sleep(0.02)
try:
    multiprocessing.Lock()
    print('lock made', flush=True)
except OSError as error:
    print('lock', error.strerror, flush=True)
"""


def test_a_kernel_cannot_fill_dev_shm_with_extended_attributes(work):
    done = _guarded(work, (NEIGHBOUR, LOCK), (UID, ATTRIBUTES), inodes=SHM_INODES)
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    held = int(said.get("attributes", "0 0").split()[0])
    assert said.get("lock") == "made" and (done.returncode == STOPPED or held <= 16), said


# --- 2. a pipe holding whole huge pages -------------------------------------------------------

HUGE, SLOTS = 2 << 20, 16  # a huge page; a pipe's buffers by default


class _Vector(ctypes.Structure):
    """struct iovec: where a piece of memory starts, and its length."""

    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def _huge_kB() -> int:
    """This process's anonymous memory in huge pages (kB)."""
    with open("/proc/self/smaps_rollup") as rollup:
        return next(int(line.split()[1]) for line in rollup if line.startswith("AnonHugePages"))


def _pinned_by_pipes(pipes: int = 4) -> dict[str, int]:
    """Megabytes of huge pages left in `pipes` pipes by vmsplice of one page of each, under
    RLIMIT_DATA of what the process uses plus 16 MB; and that headroom."""
    with open("/proc/self/status") as status:
        data = next(int(line.split()[1]) for line in status if line.startswith("VmData")) << 10
    resource.setrlimit(resource.RLIMIT_DATA, (data + (16 << 20),) * 2)
    libc = ctypes.CDLL(None, use_errno=True)
    pinned, ends = 0, []
    for _ in range(pipes):
        ends += os.pipe()
        for _ in range(SLOTS):
            area = mmap.mmap(-1, 2 * HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            start = ctypes.addressof(ctypes.c_char.from_buffer(area))
            offset = -start % HUGE  # the huge page boundary within the area
            area.madvise(mmap.MADV_HUGEPAGE, offset, HUGE)
            before = _huge_kB()
            area[offset : offset + HUGE] = b"\1" * HUGE
            page = _Vector(start + offset, 4096)
            if libc.vmsplice(ends[-1], ctypes.byref(page), 1, 0) != 4096:
                return {"error": ctypes.get_errno()}
            pinned += _huge_kB() - before
            area.close()  # unmapped: counted in no limit of the process from now on
    return {"pinned": pinned >> 10, "headroom": 16}


def _huge_pages_on_request() -> bool:
    """Does this machine give transparent huge pages to an area that asks (MADV_HUGEPAGE)?"""
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as enabled:
        return "[never]" not in enabled.read()


@X86_64
@pytest.mark.skipif(not _huge_pages_on_request(), reason="no transparent huge pages here")
def test_a_pipe_cannot_hold_whole_huge_pages_past_the_cap():
    found = as_fenced_kernel(UID, _pinned_by_pipes)
    assert isinstance(found, dict) and found.get("pinned", 0) <= found.get("headroom", 0), found


# --- 3. a daemon after its kernel ends -------------------------------------------------------

DAEMON = """
import os, time
guard = os.getppid()
if os.fork() == 0:
    os.setsid()
    for _ in range(500):  # until its kernel, then its guard, have ended (10 s at most)
        try:
            with open(f'/proc/{guard}/stat') as stat:
                if stat.read().rsplit(')', 1)[1].split()[0] in 'ZX':
                    break
        except FileNotFoundError:
            break
        time.sleep(0.02)
    with open('/dev/shm/after', 'wb') as after:
        after.write(b'x' * (48 << 20))  # three times its 16 MB share
    time.sleep(0.5)  # ten of the guard's checks, had it still been there
    print('daemon held', os.stat('/dev/shm/after').st_blocks * 512 >> 20, flush=True)
    os.remove('/dev/shm/after')
    os._exit(0)
"""


def test_a_daemon_is_guarded_after_its_kernel_ends(work):
    done = _guarded(work, (UID, DAEMON))
    assert "daemon held" not in done.stdout, (done.returncode, done.stdout)


# --- 4. the guard's walker, a process of the kernel's own user ------------------------------


def _limit_the_walker(told: int, heard: int) -> None:
    """A fenced kernel's process: set RLIMIT_NOFILE 0 on the walker whose pid it is told (the
    walker then opens nothing more), say it has, stay a second (a process of the user for the
    walker to find: it will stop us), and end."""
    try:
        kernel_start.fence([])
        become_user(UID)
        walker = int(os.read(told, 16))
        none = (ctypes.c_ulong * 2)(0, 0)
        ctypes.CDLL(None).prlimit(walker, resource.RLIMIT_NOFILE, none, None)
        os.write(heard, b"done")
        time.sleep(1)
    finally:
        os._exit(0)


def test_a_fenced_kernel_cannot_change_the_limits_of_its_guards_walker():
    """`user_freeze.as_user` forks the guard (root) and takes the kernel's uid: prlimit64 asks
    only for equal ids (neither dumpable nor traceable), so the fence's filter allows it on the
    caller only (pid 0)."""
    told, heard = os.pipe(), os.pipe()
    attacker = os.fork()  # first: nothing of the walker's (its pipe) may reach the attacker
    if attacker == 0:
        _limit_the_walker(told[0], heard[1])

    def walk() -> str:  # what `unnamed_held` has the walker do first, once we have its pid
        os.write(told[1], str(os.getpid()).encode())
        os.read(heard[0], 16)  # until the attacker has had its try
        return user_freeze.stopped()

    try:
        found = user_freeze.as_user(UID, walk)
    finally:
        user_freeze.as_user(UID, user_freeze.continued)
        os.kill(attacker, 9)
        os.waitpid(attacker, 0)
        for end in (*told, *heard):
            os.close(end)
    # None: the walker failed (its listing of /proc), and the walk could not say
    assert found, found


# --- held: other ways to shared memory --------------------------------------------------------

MAP_SHARED, MAP_SHARED_VALIDATE, MAP_ANONYMOUS = 0x01, 0x03, 0x20
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]  # fmt: skip


def _mapped(flags: int, fd: int = -1) -> int:
    """0 if a MB was mapped read-write with `flags` (from `fd`), else the error's number."""
    address = _libc.mmap(None, 1 << 20, mmap.PROT_READ | mmap.PROT_WRITE, flags, fd, 0)
    return ctypes.get_errno() if address in (None, 2**64 - 1) else 0


def _shared_elsewhere() -> dict[str, int]:
    """The error of each other way to a shared mapping: MAP_SHARED_VALIDATE, and each device
    the fence lets a kernel open for writing."""
    found = {"validate": _mapped(MAP_SHARED_VALIDATE | MAP_ANONYMOUS)}
    for device in ("/dev/null", "/dev/full", "/dev/ptmx"):
        fd = os.open(device, os.O_RDWR | os.O_NOCTTY)
        found[device] = _mapped(MAP_SHARED, fd)
        os.close(fd)
    return found


def test_no_other_flag_nor_writable_device_maps_shared_memory():
    """MAP_SHARED_VALIDATE has MAP_SHARED's bit (refused); the null devices and ptmx have no
    mmap (ENODEV)."""
    found = as_fenced_kernel(UID, _shared_elsewhere)
    assert found == {"validate": 1, "/dev/null": 19, "/dev/full": 19, "/dev/ptmx": 19}, found


# i386's mmap2 (192) of a shared anonymous MB, by int 0x80 from a 64-bit process: its result.
MMAP2_INT80 = bytes.fromhex(
    "53 55 b8c0000000 31db b900001000 ba03000000 be21000000 bfffffffff 31ed cd80 5d 5b c3"
)


def _mmap2_by_int80() -> int:
    """Run `MMAP2_INT80` from a page of our own: mmap2's result (an address, or minus errno)."""
    private = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    code = mmap.mmap(-1, 4096, private, mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(MMAP2_INT80)
    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
    return ctypes.CFUNCTYPE(ctypes.c_int)(address)()


@X86_64
def test_a_32_bit_call_maps_no_shared_memory():
    """The filter refuses every call of another ABI: i386's mmap2 by int 0x80 is EPERM."""
    assert as_fenced_kernel(UID, _mmap2_by_int80) == -1
