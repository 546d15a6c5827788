"""Which files without a name on /dev/shm's device a user's processes hold: the walk through
/proc that `shm_guard` makes when space without a name could put a user past its cap.

It holds the user still while it looks (`user_freeze`), so that no file hops to a process born
after the walk's list and no thread ends midway, and reads its processes (`shm_walk`) as root
where root may (CAP_SYS_PTRACE and, for a mapping whose descriptor is closed, CAP_SYS_ADMIN),
else as the user: a process may read its own user's dumpable processes.

Where the walk cannot say, the answer is a bound, with why: all the space without a name,
anyone's, where a process cannot be read (undumpable), holds past the budget or cannot be
listed. A mapping whose descriptor is closed (as every multiprocessing lock is: glibc unlinks
the semaphore's file and closes it) only a root with CAP_SYS_ADMIN may size, which Docker's
lacks: there the user is charged with that space less what the users other guards watch hold
by their own walks (each held still too, as itself), since a neighbour's hoard must not stop an
honest kernel with one lock. (Two guards may walk one user at once, and the first to end lets
it go on: what it frees then is still subtracted, once, and a file may hop past the other's
list; either is seen at that guard's next walk, at most `WALK_EVERY` later.)

Only the standard library: `sandbox` runs this file's source after its helpers'.
"""

import os
from collections.abc import Callable

if __name__ != "__main__":  # run as `-c`, `sandbox` puts its helpers' source ahead of ours
    from lib.grading.shm_walk import walk
    from lib.grading.user_freeze import as_user, continued
    from lib.grading.user_walk import WHY_UNLISTED, looked

# Why a walk cannot say exactly what a user holds, as the guard's stop message says it: where
# `looked` cannot say, all the space without a name; where only mappings cannot be sized, less
# what the users other guards watch hold.
ALL = "counting all space without a name: "
UNLISTED = ALL + WHY_UNLISTED
UNSIZED = (
    "counting the space without a name that no other kernel's processes hold: its processes map "
    "files without a name (a multiprocessing lock is one) that only a root with CAP_SYS_ADMIN "
    "may size, which this one lacks (as Docker's does)"
)


def _walked(uid: int, device: int) -> tuple[dict[int, int], list[int]] | str:
    """Stop every process of `uid` (the caller lets them go on) and walk them (`looked`): the
    files without a name on `device` they hold and those they map unsized, or why it cannot
    say."""
    answer = looked(uid, lambda pids: _as_pairs(*walk(pids, device)))
    if isinstance(answer, str):
        return ALL + answer
    return dict(answer[0]), answer[1]


def _as_pairs(held: dict[int, int], unsized: list[int]) -> list:
    """`walk`'s answer as JSON keeps it (its keys numbers): `held`'s pairs, then `unsized`."""
    return [list(held.items()), unsized]


def _watched() -> set[int]:
    """The users other guards watch: root's processes running our command line (the guard's
    `-c` text) for another uid, its next argument. No kernel can make a root process."""
    with open("/proc/self/cmdline", "rb") as line:
        ours = line.read().split(b"\0")
    users = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid != 0:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as line:
                theirs = line.read().split(b"\0")
        except (FileNotFoundError, ProcessLookupError):
            continue
        if len(theirs) > 5 and theirs[:5] == ours[:5] and theirs[5].isdigit():
            users.add(int(theirs[5]))
    return users


def unnamed_held(
    uid: int, device: int, everyone: Callable[[], tuple[int, int]]
) -> tuple[int, int, str]:
    """The bytes (as allocated) and the number of the files without a name on `device` that
    processes of `uid` hold open, mapped or run, each file once, looked at while they are
    stopped, and ''. Where they cannot all be sized, a bound and why: `everyone()` (all that
    space and its inodes, anyone's, asked while they are still stopped), less what the users
    other guards watch hold (`_watched`), where its only want is sizes of mapped files."""
    frozen = [uid]
    try:
        walked = _walked(uid, device)
        if isinstance(walked, str):
            return (*everyone(), walked)
        held, unsized = walked
        if not unsized:
            return sum(held.values()), len(held), ""
        theirs: dict[int, int] = {}
        for other in _watched() - {uid}:
            frozen.append(other)
            found = _walked(other, device)
            theirs |= {} if isinstance(found, str) else found[0]
        elsewhere = [size for inode, size in theirs.items() if inode not in {*held, *unsized}]
        space, files = everyone()
        return max(space - sum(elsewhere), 0), max(files - len(elsewhere), 0), UNSIZED
    finally:
        for user in frozen:
            as_user(user, continued)
