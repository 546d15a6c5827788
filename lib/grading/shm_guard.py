"""Run as root in front of a fenced kernel (no box): bound what its user keeps in /dev/shm.

Unboxed, a kernel writes plain files in the machine's /dev/shm (Python's process pools put their
semaphores there, and glibc names no other place), and that space is shared with every other
kernel and the machine: Docker's default is 64 MB, elsewhere half the memory, and no limit of a
process counts it. Without a memory group nothing caps it, and a grader without namespaces has
no mount rights either, so no private tmpfs (nor a tmpfs quota) can be had.

What holds without them: the fence (`kernel_start.fence`) lets a kernel make only plain files in
/dev/shm, in no folder, so one listing of /dev/shm finds every file its user keeps there by
name. Files without a name (unlinked but kept open or mapped, or made with O_TMPFILE) take space
no listing sees, but statvfs does: the space used beyond what the listing accounts for. Only
when that space could put the user past its cap are its processes looked into (`shm_holders`: as
the user, held still meanwhile; all of that space is charged where they cannot all be read), so
a check costs one listing and one statvfs while no one hides anything. This file, started by
`sandbox.command` in front of the kernel, starts the kernel as its child (in its process group:
the grader's kill of the group reaches both) and checks every `PERIOD` seconds (and once more
when the kernel ends, after which it kills every process of the user, as below: one kernel per
user at a time, so a daemon the kernel left is never unguarded until the grader's reset, which
removes the files). Each kernel's cap is its `share` of /dev/shm (its size over the grader's
`--jobs` + 1: kernels under their caps always leave a neighbour room) and at most `max_bytes`,
and `max_files` files, files without a name counted too (an empty one takes an inode, and
inodes run out before space). A walk's answer stands up to `WALK_EVERY` while what appeared
since leaves the user under its caps (a hoarder at its cap would otherwise have every neighbour
held still at every check). Past either cap, or if a check fails, it kills every process of the
user (`kill(-1)` as the user: each call reaches all of them, daemons included), removes the
user's files there, says so on stderr and exits with `STOPPED`. Not bounded: what a kernel
writes between two checks (as fast as memory takes it; a file swapped for a neighbour's freed
one, between two walks), and a file that only a descriptor in flight in a unix socket holds (no
process holds it: see the red team's round 12).

Only the standard library: it runs as `python -I -S -c <shm_holders' source and this file's>`.
"""

import os
import select
import signal
import sys
import time

if __name__ != "__main__":  # run as `-c`, `sandbox` puts shm_holders' source ahead of ours
    from lib.grading.shm_holders import as_user, signal_all, unnamed_held

SHM = "/dev/shm"
PERIOD = 0.05  # seconds between two checks: ~30 us each for an all but empty /dev/shm
WALK_EVERY = 1.0  # seconds: how long a walk's answer stands while little appears beside it
STOPPED = 125  # the exit status of a kernel stopped here
# kill(-1) rounds, 10 ms apart: a process forking as the first comes either meets it or is made
# after it, and meets the next (the grader's reset after the notebook makes sure: `reap`).
KILL_ROUNDS = 3
# A kernel's share never goes below this, however many --jobs: a process pool's semaphores take
# a page each. Past size / FLOOR - 1 kernels the shares can fill /dev/shm (the grader says so).
FLOOR = 4 * 2**20
UNREAD = (  # why a user was charged with all the space without a name
    ", counting all space without a name: its processes could not all be read (one made "
    "itself undumpable, or they held too many descriptors)"
)


def share(size: int, kernels: int) -> int:
    """What each of `kernels` kernels guarded at once may keep in a /dev/shm of `size` bytes: an
    equal part, one part left over for the machine (and a neighbour's pool), at least `FLOOR`."""
    return max(size // (kernels + 1), FLOOR)


def usage(uid: int, folder: str = SHM) -> tuple[int, int, int, int]:
    """The bytes (as allocated) and the number of the entries `uid` owns in `folder`, and the
    bytes and the number of all its entries, anyone's."""
    used = count = everyone = names = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                status = entry.stat(follow_symlinks=False)
            except OSError:  # removed meanwhile
                continue
            everyone, names = everyone + status.st_blocks * 512, names + 1
            if status.st_uid == uid:
                used, count = used + status.st_blocks * 512, count + 1
    return used, count, everyone, names


def nameless(everyone: int, names: int, folder: str = SHM) -> tuple[int, int]:
    """The bytes and the inodes `folder`'s filesystem holds in files without a name (unlinked
    but open, mapped or run, or made by O_TMPFILE): statvfs's used space beyond `everyone`, the
    listing's sum, and its inodes in use beyond the listing's `names` and the folder itself.
    A file of no byte takes an inode all the same, and inodes run out before space can."""
    space = os.statvfs(folder)
    used = (space.f_blocks - space.f_bfree) * space.f_frsize
    return max(used - everyone, 0), max(space.f_files - space.f_ffree - names - 1, 0)


class Walked:
    """What the guard's last walk of its user's processes found: when, the space and inodes
    without a name then (anyone's), and the user's own of them."""

    def __init__(self) -> None:
        self.at, self.hidden, self.own = -WALK_EVERY, (0, 0), (0, 0)

    def bound(self, hidden: tuple[int, int]) -> tuple[int, int]:
        """At most what the user holds without a name now, if it held `own` then: all that
        appeared since may be its (a file swapped for a neighbour's freed one is not seen
        until the next walk, at most `WALK_EVERY` later)."""
        return tuple(
            own + max(now - then, 0)
            for own, now, then in zip(self.own, hidden, self.hidden, strict=True)
        )


def kept(uid: int, max_bytes: int, max_files: int, walked: Walked) -> tuple[int, int, bool]:
    """The bytes and the files `uid` keeps in /dev/shm: its named files, and its files without
    a name once they could put it past a cap; all of those, anyone's, where its processes
    cannot all be looked into (then True). Its processes are walked (`unnamed_held`) at most
    every `WALK_EVERY` seconds while what appeared since the last walk keeps it under its caps:
    a hoarder at its cap must not have every neighbour stopped and walked at every check."""
    used, count, everyone, names = usage(uid)
    hidden = nameless(everyone, names)
    if used + hidden[0] <= max_bytes and count + hidden[1] <= max_files:
        return used + hidden[0], count + hidden[1], False
    own = walked.bound(hidden)
    recent = time.monotonic() - walked.at < WALK_EVERY
    if not (recent and used + own[0] <= max_bytes and count + own[1] <= max_files):
        own = unnamed_held(uid, os.stat(SHM).st_dev)
        if own is None:
            return used + hidden[0], count + hidden[1], True
        walked.at, walked.hidden, walked.own = time.monotonic(), hidden, own
    return used + own[0], count + own[1], False


def _killed() -> int:
    """As the user: kill all its processes, `KILL_ROUNDS` times."""
    for _ in range(KILL_ROUNDS):
        signal_all(signal.SIGKILL)  # all but ourselves: Linux spares the caller
        time.sleep(0.01)
    return 0


def _stop_all(folder: str) -> int:
    """As the user: kill all its processes and remove its entries in `folder`."""
    _killed()
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.stat(follow_symlinks=False).st_uid == os.getuid():
                os.unlink(entry.path)
    return 0


def stop(uid: int, folder: str = SHM) -> None:
    """Kill every process of `uid` and remove its entries in `folder`, as `uid` itself (`as_user`):
    `kill(-1)` then reaches every process the user owns and nothing else, and the removal can
    follow no one's link but the user's own."""
    as_user(uid, lambda: _stop_all(folder))


def guard(uid: int, max_bytes: int, max_files: int, kernels: int, command: list[str]) -> int:
    """Run `command` (the kernel) as our child, watching its user's /dev/shm use (its `share`
    with `kernels` guarded at once, at most `max_bytes`); return its exit status, or `STOPPED`
    if it went past the caps."""
    if not os.path.isdir(SHM):  # nothing to guard (the fence then allows no file there)
        os.execvp(command[0], command)
    shm = os.statvfs(SHM)
    max_bytes = min(max_bytes, share(shm.f_blocks * shm.f_frsize, kernels))
    kernel = os.fork()
    if kernel == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    ended, walked = os.pidfd_open(kernel), Walked()
    while True:
        done = select.select([ended], [], [], PERIOD)[0]
        try:
            used, count, unread = kept(uid, max_bytes, max_files, walked)
            said = ""
            if used > max_bytes or count > max_files:
                said = (
                    f"its user kept {used // 2**20} MB in {count} files in {SHM} (at most "
                    f"{max_bytes // 2**20} MB and {max_files} files)" + (UNREAD if unread else "")
                )
        except Exception as error:  # noqa: BLE001 - a guard that cannot check stops its kernel
            said = f"its use of {SHM} could not be checked ({type(error).__name__}: {error})"
        if said:
            stop(uid)
            print(f"course grader: stopped the kernel: {said}", file=sys.stderr)
            os.waitpid(kernel, 0)
            return STOPPED
        if done:  # its status as a shell would say it: 128 + the signal that ended it
            status = os.waitstatus_to_exitcode(os.waitpid(kernel, 0)[1])
            as_user(uid, _killed)  # one kernel per user at a time: nothing of it outlives us
            return status if status >= 0 else 128 - status


if __name__ == "__main__":  # uid max_bytes max_files kernels -- command...
    uid, max_bytes, max_files, kernels = map(int, sys.argv[1:5])
    sys.exit(guard(uid, max_bytes, max_files, kernels, sys.argv[6:]))
