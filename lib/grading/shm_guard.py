"""Run as root in front of a fenced kernel (no box): bound what its user keeps in /dev/shm, in
socket buffers and in ptys (`holding_caps`: memory and ptys no limit of a process counts).

Unboxed, a kernel writes plain files in the machine's /dev/shm (Python's process pools put their
semaphores there, and glibc names no other place), and that space is shared with every other
kernel and the machine: Docker's default is 64 MB, elsewhere half the memory, and no limit of a
process counts it. Without a memory group nothing caps it, and a grader without namespaces has
no mount rights either, so no private tmpfs (nor a tmpfs quota) can be had.

What holds without them: the fence (`kernel_start.fence`) lets a kernel make only plain files in
/dev/shm, in no folder, so one listing of /dev/shm finds every file its user keeps there by name
(`shm_space`). Files without a name (unlinked but kept open or mapped, or made with O_TMPFILE)
take space no listing sees, but statvfs does: the space used beyond what the listing accounts
for. Only when that space could put the user past its cap are its processes looked into
(`shm_holders`: held still meanwhile; where they cannot all be read, a bound is charged and its
reason said), so a check costs one listing and one statvfs while no one hides anything. This
file, started by `sandbox.command` in front of the kernel, starts the kernel as its child (in
its process group: the grader's kill of the group reaches both) and checks every `PERIOD`
seconds (and once more when the kernel ends, after which it kills every process of the user: one
kernel per user at a time, so a daemon the kernel left is never unguarded until the grader's
reset, which removes the files). Each kernel's cap is its `share` of /dev/shm (its
size over the grader's `--jobs` + 1: kernels under their caps always leave a neighbour room) and
at most `max_bytes`, and `max_files` files, files without a name counted too (an empty one takes
an inode, and inodes run out before space). A walk's answer stands up to `WALK_EVERY` while what
appeared since leaves the user under its caps (`user_walk.Walked`: a hoarder at its cap would
otherwise have every neighbour held still at every check). Past either cap, or if a check
fails, it kills every process of the user (`kill(-1)` as the user: each call reaches all of
them, daemons included), removes the user's files there, says so on stderr and exits with
`STOPPED`; likewise past its memory cap in unix and netlink socket buffers, past `MAX_SOCKETS`
unix sockets, or past `MAX_PTYS` ptys (`holding_caps`: each check asks sock_diag, reads
/proc/net/netlink, lists /dev/pts and reads `kernel.pty.nr`). Not bounded: what a kernel writes
between two checks (as fast as memory takes it; a file swapped for a neighbour's freed one,
between two walks), and a file, a netlink socket or a pty that only a descriptor in flight in a
unix socket holds (no process holds it: see the red team's round 12).

Only the standard library: it runs as `python -I -S -c <its helpers' source and this file's>`.
"""

import os
import select
import signal
import sys
import time

if __name__ != "__main__":  # run as `-c`, `sandbox` puts its helpers' source ahead of ours
    from lib.grading.holding_caps import Watch, ptys_past, sockets_past
    from lib.grading.shm_holders import unnamed_held
    from lib.grading.shm_space import SHM, nameless, share, usage
    from lib.grading.user_freeze import as_user, signal_all
    from lib.grading.user_holdings import sockets_uncounted
    from lib.grading.user_walk import Walked

PERIOD = 0.05  # seconds between two checks: ~30 us each for an all but empty /dev/shm
STOPPED = 125  # the exit status of a kernel stopped here
# The modules whose source `command_text` puts ahead of ours, each after those it imports
# (user_freeze, first, holds the one `from __future__`).
HELPERS = (
    "user_freeze",
    "shm_walk",
    "user_walk",
    "shm_holders",
    "shm_space",
    "user_holdings",
    "netlink_queues",
    "user_ptys",
    "holding_caps",
)
# kill(-1) rounds, 10 ms apart: a process forking as the first comes either meets it or is made
# after it, and meets the next (the grader's reset after the notebook makes sure: `reap`).
KILL_ROUNDS = 3


def kept(uid: int, max_bytes: int, max_files: int, walked: Walked) -> tuple[int, int, str]:
    """The bytes and the files `uid` keeps in /dev/shm: its named files, and its files without
    a name once they could put it past a cap, and '' (all of those, anyone's, while that cannot
    matter); where its processes cannot all be looked into, a bound and why (`unnamed_held`).
    Its processes are walked at most every `WALK_EVERY` seconds while what appeared since the
    last walk keeps it under its caps (`walked.held`): a hoarder at its cap must not have every
    neighbour stopped and walked at every check."""
    used, count, everyone, names = usage(uid)
    hidden = nameless(everyone, names)
    if used + hidden[0] <= max_bytes and count + hidden[1] <= max_files:
        return used + hidden[0], count + hidden[1], ""

    def walk() -> tuple[tuple[int, int], str]:
        space, files, why = unnamed_held(
            uid, os.stat(SHM).st_dev, lambda: nameless(*usage(uid)[2:])
        )
        return (space, files), why

    own, why = walked.held(
        hidden, lambda own: used + own[0] <= max_bytes and count + own[1] <= max_files, walk
    )
    return used + own[0], count + own[1], why


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


def past_caps(uid: int, caps: tuple[int, int, int], watch: Watch) -> str:
    """What `uid` holds past its caps (`max_bytes` and `max_files` in /dev/shm, `max_socket`
    bytes in socket buffers, `MAX_SOCKETS` unix sockets, `MAX_PTYS` ptys: `holding_caps`), said
    for the stop message; '' if nothing."""
    max_bytes, max_files, max_socket = caps
    used, count, why = kept(uid, max_bytes, max_files, watch.shm)
    if used > max_bytes or count > max_files:
        said = (
            f"its user kept {used // 2**20} MB in {count} files in {SHM} (at most "
            f"{max_bytes // 2**20} MB and {max_files} files)"
        )
        return said + (f", {why}" if why else "")
    return sockets_past(uid, max_socket, watch) or ptys_past(uid, watch)


def guard(uid: int, caps: tuple[int, int, int | None], kernels: int, command: list[str]) -> int:
    """Run `command` (the kernel) as our child, watching what its user holds (`past_caps`: in
    /dev/shm its `share` with `kernels` guarded at once, at most `caps`' bytes); return its exit
    status, or `STOPPED` if it went past a cap."""
    if not os.path.isdir(SHM):  # nothing to guard (the fence then allows no file there)
        os.execvp(command[0], command)
    shm = os.statvfs(SHM)
    caps = (min(caps[0], share(shm.f_blocks * shm.f_frsize, kernels)), caps[1], caps[2])
    watch = Watch(unix=not sockets_uncounted())  # else said in the run's summary (`protections`)
    kernel = os.fork()
    if kernel == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    ended = os.pidfd_open(kernel)
    while True:
        done = select.select([ended], [], [], PERIOD)[0]
        try:
            said = past_caps(uid, caps, watch)
        except Exception as error:  # noqa: BLE001 - a guard that cannot check stops its kernel
            said = f"what its user holds could not be checked ({type(error).__name__}: {error})"
        if said:
            stop(uid)
            print(f"course grader: stopped the kernel: {said}", file=sys.stderr)
            os.waitpid(kernel, 0)
            return STOPPED
        if done:  # its status as a shell would say it: 128 + the signal that ended it
            status = os.waitstatus_to_exitcode(os.waitpid(kernel, 0)[1])
            as_user(uid, _killed)  # one kernel per user at a time: nothing of it outlives us
            return status if status >= 0 else 128 - status


def command_text() -> str:
    """This file's text as `sandbox` runs it, `python -I -S -c`: its `HELPERS`' first (the guard
    runs outside the course's path, and the standard library is all they use)."""
    texts = []
    for name in (*HELPERS, "shm_guard"):
        with open(os.path.join(os.path.dirname(__file__), f"{name}.py")) as source:
            texts.append(source.read())
    return "".join(texts)


if __name__ == "__main__":  # uid max_bytes max_files max_socket_bytes kernels -- command...
    uid, max_bytes, max_files, max_socket, kernels = map(int, sys.argv[1:6])
    sys.exit(guard(uid, (max_bytes, max_files, max_socket), kernels, sys.argv[7:]))
