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
when the kernel ends). Each kernel's cap is its `share` of /dev/shm (its size over the grader's
`--jobs` + 1: kernels under their caps always leave a neighbour room) and at most `max_bytes`,
and `max_files` files. Past either, it kills every process of the user (`kill(-1)` as the user:
each call reaches all of them, daemons included), removes the user's files there, says so on
stderr and exits with `STOPPED`. Not bounded: what a kernel writes between two checks (as fast
as memory takes it), and a file that only a descriptor in flight in a unix socket holds (no
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


def usage(uid: int, folder: str = SHM) -> tuple[int, int, int]:
    """The bytes (as allocated) and the number of the entries `uid` owns in `folder`, and the
    bytes of all its entries, anyone's."""
    used = count = everyone = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                status = entry.stat(follow_symlinks=False)
            except OSError:  # removed meanwhile
                continue
            everyone += status.st_blocks * 512
            if status.st_uid == uid:
                used, count = used + status.st_blocks * 512, count + 1
    return used, count, everyone


def nameless(everyone: int, folder: str = SHM) -> int:
    """The bytes `folder`'s filesystem holds in files without a name (statvfs's used space
    beyond `everyone`, the listing's sum): unlinked but open or mapped, or made by O_TMPFILE."""
    space = os.statvfs(folder)
    return max((space.f_blocks - space.f_bfree) * space.f_frsize - everyone, 0)


def kept(uid: int, max_bytes: int) -> tuple[int, int, bool]:
    """The bytes and the files `uid` keeps in /dev/shm: its named files, and its files without
    a name once they could put it past `max_bytes`; all of those, anyone's, where its processes
    cannot all be looked into (then True)."""
    used, count, everyone = usage(uid)
    hidden = nameless(everyone)
    if used + hidden > max_bytes:  # it might hold them: look whether it does
        own = unnamed_held(uid, os.stat(SHM).st_dev)
        if own is not None:
            return used + own, count, False
        return used + hidden, count, True
    return used + hidden, count, False


def _stop_all(folder: str) -> int:
    """As the user: kill all its processes and remove its entries in `folder`."""
    for _ in range(KILL_ROUNDS):
        signal_all(signal.SIGKILL)  # all but ourselves: Linux spares the caller
        time.sleep(0.01)
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
    ended = os.pidfd_open(kernel)
    while True:
        done = select.select([ended], [], [], PERIOD)[0]
        used, count, unread = kept(uid, max_bytes)
        if used > max_bytes or count > max_files:
            stop(uid)
            print(
                f"course grader: stopped the kernel: its user kept {used // 2**20} MB in "
                f"{count} files in {SHM} (at most {max_bytes // 2**20} MB and {max_files} files)"
                + (UNREAD if unread else ""),
                file=sys.stderr,
            )
            os.waitpid(kernel, 0)
            return STOPPED
        if done:  # its status as a shell would say it: 128 + the signal that ended it
            status = os.waitstatus_to_exitcode(os.waitpid(kernel, 0)[1])
            return status if status >= 0 else 128 - status


if __name__ == "__main__":  # uid max_bytes max_files kernels -- command...
    uid, max_bytes, max_files, kernels = map(int, sys.argv[1:5])
    sys.exit(guard(uid, max_bytes, max_files, kernels, sys.argv[6:]))
