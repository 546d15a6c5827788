"""How many ptys a user holds, as `shm_guard` counts them in front of a fenced kernel.

/dev/ptmx opened (for reading is enough: the fence guards writes only) makes a pty pair out of
the machine's `kernel.pty.max`, shared by every user and container; each pty's /dev/pts/N
belongs to its opener, so one listing counts a user's (`pty_entries`). But closing a pty's
master removes its entry while the pty stays as long as its slave is open (got by TIOCGPTPEER,
or opened by its path first): a fenced kernel took all 32 ptys of a devpts instance so, with
none listed (red team, round 18). `kernel.pty.nr` counts every pty of the machine, entry or
not, in every devpts instance (a container's host's too), so it cannot say whose the others
are, only how many there may be: while that many could put the user past its cap, the guard
looks into its processes (`user_walk.looked`) for slaves without an entry (a descriptor shown
as deleted, of a pty slave's device).

Not counted: a slave only a descriptor in flight in a unix socket's message holds (no process
does), as for /dev/shm's files.

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

import os
import stat

if __name__ != "__main__":  # run as `-c`, `sandbox` puts its helpers' source ahead of ours
    from lib.grading.shm_walk import deleted, held_links
    from lib.grading.user_walk import looked

PTS = "/dev/pts"
PTY_NR = "/proc/sys/kernel/pty/nr"  # every pty of the machine
SLAVE_MAJORS = range(136, 144)  # the devices of pty slaves (UNIX98_PTY_SLAVE_MAJOR and on)
PTYS_ALL = "counting every pty without an entry: "  # why the user is charged all of them


def pty_entries(uid: int, folder: str = PTS) -> tuple[int, int]:
    """The ptys of `folder` (/dev/pts) `uid` holds by its entries, and all ptys with an entry
    there, anyone's (0, 0 where there is no such folder)."""
    if not os.path.isdir(folder):
        return 0, 0
    own = listed = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                if entry.name.isdigit():
                    own += entry.stat(follow_symlinks=False).st_uid == uid
                    listed += 1
            except FileNotFoundError:  # closed meanwhile
                continue
    return own, listed


def ptys_unlisted(listed: int, folder: str = PTS) -> int:
    """How many ptys of the machine have no entry among the `listed` ones: in another devpts
    instance, or a slave's whose master is closed (0 where `folder` is not there: no devpts,
    whose ptys come with `kernel.pty.nr`)."""
    if not os.path.isdir(folder):
        return 0
    with open(PTY_NR) as count:
        return max(int(count.read()) - listed, 0)


def _orphans(pids: list[str]) -> int:
    """How many pty slaves without an entry processes `pids` hold, each once."""
    slaves = set()
    for link in held_links(pids, deleted):
        try:
            status = os.stat(link)
        except (FileNotFoundError, ProcessLookupError):
            continue
        if stat.S_ISCHR(status.st_mode) and os.major(status.st_rdev) in SLAVE_MAJORS:
            slaves.add((status.st_dev, status.st_rdev))
    return len(slaves)


def orphaned_ptys(uid: int, unlisted: int) -> tuple[tuple[int], str]:
    """As root: how many pty slaves without an entry `uid`'s processes hold (`looked` into, not
    held still) and ''; where they cannot all be read, `unlisted` (every pty without an entry
    here) and why."""
    answer = looked(uid, _orphans, still=False)
    return ((unlisted,), PTYS_ALL + answer) if isinstance(answer, str) else ((answer,), "")
