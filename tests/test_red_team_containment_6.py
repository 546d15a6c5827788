"""Red team, round 8: the clean-up between students as redesigned again (issue 28, commits
36ab766, 5e12860, d5ac22a: `kill_all` kills every process of the user from root through pidfds
before `user_reset` runs; `user_reset` walks every folder others may write, at any depth; a
seccomp filter refuses the system calls of keys to kernels of a root grader). Tricks not in `_1`
to `_5`, each run as a sandbox user runs, against the real `reap` and `sandbox.command`. Marked
`xfail(strict=True)` while the hole is open (the reason says what the attack got; "Fix:" what
would close it); the plain tests are attacks the design holds against, kept as guards.

The two walk attacks (a file hidden in a folder another slot closed; a neighbour's folders that
lengthen every reset) are closed by design: without a box, a kernel writes only in its own
folders (`kernel_start.fence`, Landlock), so no kernel makes a folder in a shared place.

All run without a box (Gradescope's mode, where the machine's /tmp is shared by every slot) and
need root: the sandbox users exist only when the grader runs as root. About 7 s in all.
"""

from __future__ import annotations

import errno
import os
import shutil
import time

import pytest

from lib.grading import sandbox, user_processes
from tests.red_team_support import shared_folder
from tests.test_red_team_containment_5 import X86_64, as_kernel

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
# Far from the users a grader running beside us claims first, and from rounds 3 to 7's.
UID = sandbox.FIRST_UID + 741
NEIGHBOUR = sandbox.FIRST_UID + 742  # another slot's user, graded at the same time


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("red-team-6-", 0o777)


# --- The walk: a file of the user where the reset does not look ----------------------------------

# Closed by design (kernel_start.fence): a kernel without a box writes only beneath its own
# folders, and in /dev/shm only plain files, so no slot's kernel can make a folder in a shared
# place, to hide a file in or to lengthen others' resets. The attacks run as kernels run
# (`as_kernel`: sandbox.command, kernel_start); before the fence they got what their notes say.
FENCED = pytest.mark.skipif(
    not sandbox.fence_works(), reason="no Landlock here: the reset walk's limits hold"
)


@FENCED
def test_a_file_in_a_neighbours_folder_closed_meanwhile_outlives_the_reset(shared_tmp):
    """Student A (UID) writes answers into a neighbour's world-writable folder in /tmp; the
    neighbour's kernel closes the folder to others before A's reset and opens it again after.
    Before the fence: the file survived A's reset (reap said True) and the next student of the
    uid read it by its name. Now the neighbour cannot make the folder, nor A write in /tmp."""
    hideout = f"/tmp/red-team-6-hideout-{os.getpid()}"
    try:
        made = as_kernel(
            NEIGHBOUR, shared_tmp, f"import os; os.mkdir({hideout!r}); os.chmod({hideout!r}, 0o777)"
        )
        assert "PermissionError" in made and not os.path.exists(hideout), made
        as_kernel(
            UID, shared_tmp, f"open({hideout!r} + '/answers', 'w').write(\"student A's answers\")"
        )
        as_kernel(NEIGHBOUR, shared_tmp, f"import os; os.chmod({hideout!r}, 0o711)")
        reaped = sandbox.reap(UID)
        as_kernel(NEIGHBOUR, shared_tmp, f"import os; os.chmod({hideout!r}, 0o777)")
        seen = as_kernel(UID, shared_tmp, f"print(open({hideout!r} + '/answers').read())")
        assert reaped and "student A's answers" not in seen, seen
    finally:
        sandbox.reap(NEIGHBOUR, seconds=30)
        sandbox.reap(UID, seconds=30)
        shutil.rmtree(hideout, ignore_errors=True)


# A neighbour's kernel fills a folder of /dev/shm (tmpfs: fast to fill) with folders others may
# write, 150 by 150.
WIDE_TREE = r"""
import os, sys
top = sys.argv[1]
os.mkdir(top)
os.chmod(top, 0o777)
for i in range(150):
    middle = os.path.join(top, str(i))
    os.mkdir(middle)
    os.chmod(middle, 0o777)
    for j in range(150):
        os.mkdir(os.path.join(middle, str(j)))
        os.chmod(os.path.join(middle, str(j)), 0o777)
"""


@FENCED
def test_an_honest_users_reset_does_not_depend_on_a_neighbours_folders(shared_tmp):
    """Before the fence the tree was made (1.1 s) and took an honest user's reset from 0.3 s to
    3.6 s; about 60,000 such folders passed reap's 10 s and retired every user meanwhile. Now
    the neighbour's kernel cannot make a folder in /dev/shm (nor in /tmp or /var/tmp)."""
    hideout = f"/dev/shm/red-team-6-wide-{os.getpid()}"
    try:
        for place in (hideout, f"/tmp/red-team-6-wide-{os.getpid()}"):
            made = as_kernel(NEIGHBOUR, shared_tmp, WIDE_TREE, place)
            assert "PermissionError" in made and not os.path.exists(place), made
        started = time.monotonic()
        assert sandbox.reap(UID, seconds=0.5)
        assert time.monotonic() - started < 0.5
    finally:
        shutil.rmtree(hideout, ignore_errors=True)  # as root: the neighbour's reset is far slower
        sandbox.reap(NEIGHBOUR, seconds=30)
        sandbox.reap(UID, seconds=30)


# --- kill_all: processes made hard to find or to catch ------------------------------------------

# A daemon that leaves the kernel's session and forks as fast as it can, every child forking
# too, up to the kernels' process cap (256): the fork bomb races kill_all's loop.
FORK_BOMB = r"""
import os, sys
if os.fork():
    sys.exit(0)
os.setsid()
null = os.open("/dev/null", os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
while True:
    try:
        os.fork()
    except OSError:
        pass
"""


def test_a_fork_bomb_left_behind_is_killed_whole_and_quickly(shared_tmp):
    """238 processes on the test machine, all gone in about 1.1 s of reap."""
    try:
        as_kernel(UID, shared_tmp, FORK_BOMB)
        # A loaded machine may take seconds before the daemon's forks get going (CI once saw one
        # process after a fixed 0.5 s): wait for the bomb to grow rather than for the clock.
        grown = time.monotonic() + 10
        while len(user_processes.processes_of(UID)) <= 10 and time.monotonic() < grown:
            time.sleep(0.05)
        assert len(user_processes.processes_of(UID)) > 10
        started = time.monotonic()
        assert sandbox.reap(UID)
        assert time.monotonic() - started < 8
        assert user_processes.processes_of(UID) == []
    finally:
        sandbox.reap(UID, seconds=30)


# A daemon that makes itself non-dumpable (its /proc files then belong to root) and sleeps.
HIDDEN = r"""
import ctypes, os, sys, time
if os.fork():
    sys.exit(0)
os.setsid()
null = os.open("/dev/null", os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
time.sleep(60)
"""


def test_a_non_dumpable_daemon_is_still_seen_and_killed(shared_tmp):
    """/proc/<pid> itself keeps the process's owner (only the files in it turn root's)."""
    try:
        as_kernel(UID, shared_tmp, HIDDEN)
        time.sleep(0.3)
        assert user_processes.processes_of(UID)
        assert sandbox.reap(UID)
        assert user_processes.processes_of(UID) == []
    finally:
        sandbox.reap(UID, seconds=30)


# --- The seccomp filter and the caps: other doors to state the uid keeps -------------------------

# keyctl(KEYCTL_GET_KEYRING_ID, user keyring) by x32's number (with and without x32's own
# offset), by one with bit 32 set (the filter reads only the low 32 bits), and by the plain number
# after an exec of another Python (the filter must survive execve).
OTHER_NUMBERS = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for number in (0x40000000 | 250, 0x40000000 | 0x200 | 250, (1 << 32) | 250):
    print(hex(number), libc.syscall(ctypes.c_long(number), 0, -4, 1), ctypes.get_errno())
if len(sys.argv) == 1:
    sys.stdout.flush()
    os.execv("/usr/bin/python3", ["python3", "-I", sys.argv[0], "again"])
print("after exec", libc.syscall(250, 0, -4, 1), ctypes.get_errno())
"""


@X86_64
def test_the_key_filter_refuses_other_numbers_and_survives_exec(shared_tmp):
    try:
        seen = as_kernel(UID, shared_tmp, OTHER_NUMBERS)
        assert seen.count(" -1 1\n") == 7 and "after exec -1 1" in seen, seen
    finally:
        sandbox.reap(UID, seconds=30)


# A POSIX message queue outlives every process of its user (and /dev/mqueue, where it would be
# seen, is not mounted here): the kernel tries to leave one with a message in it.
MESSAGE_QUEUE = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
queue = libc.mq_open(b"/red-team-6", os.O_CREAT | os.O_RDWR, 0o666, None)
print("mq_open", queue, ctypes.get_errno())
"""


def test_a_kernel_cannot_leave_a_posix_message_queue(shared_tmp):
    """The kernels' caps give no room for one (`prlimit --msgqueue=0`: EMFILE), and a fenced
    kernel may not even ask (fix28aa: mq_open refused by its seccomp filter, EPERM)."""
    try:
        seen = as_kernel(UID, shared_tmp, MESSAGE_QUEUE)
        refused = errno.EPERM if sandbox.fence_works() else errno.EMFILE
        assert f"mq_open -1 {refused}" in seen, seen
    finally:
        sandbox.reap(UID, seconds=30)
