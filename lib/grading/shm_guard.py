"""Run as root in front of a fenced kernel (no box): bound what its user keeps in /dev/shm.

Unboxed, a kernel writes plain files in the machine's /dev/shm (Python's process pools put their
semaphores there, and glibc names no other place), and that space is shared with every other
kernel and the machine: Docker's default is 64 MB, elsewhere half the memory, and no limit of a
process counts it. Without a memory group nothing caps it, and a grader without namespaces has
no mount rights either, so no private tmpfs (nor a tmpfs quota) can be had.

What holds without them: the fence (`kernel_start.fence`) lets a kernel make only plain files in
/dev/shm, in no folder, so one listing of /dev/shm finds everything its user keeps there. This
file, started by `sandbox.command` in front of the kernel, starts the kernel as its child (in its
process group: the grader's kill of the group reaches both) and lists /dev/shm every `PERIOD`
seconds (and once more when the kernel ends). Past `max_bytes` (at most a quarter of /dev/shm's
size) or `max_files` files of the kernel's user, it kills every process of that user (`kill(-1)` as
the user: each call reaches all of them, daemons included), removes the user's files there, says so
on stderr and exits with `STOPPED`. Between two listings a kernel can write more, as fast as memory
takes it; what a kernel unlinks but keeps open is invisible to a listing and is bounded only by a
memory group, as any shared memory is.

Only the standard library: it runs as `python -I -S -c <this file>`, nothing of the course.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

SHM = "/dev/shm"
PERIOD = 0.05  # seconds between two listings: ~30 us each for an all but empty /dev/shm
STOPPED = 125  # the exit status of a kernel stopped here
# kill(-1) rounds, 10 ms apart: a process forking as the first comes either meets it or is made
# after it, and meets the next (the grader's reset after the notebook makes sure: `reap`).
KILL_ROUNDS = 3


def usage(uid: int, folder: str = SHM) -> tuple[int, int]:
    """The bytes (as allocated) and the number of the entries `uid` owns in `folder`."""
    used = count = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                status = entry.stat(follow_symlinks=False)
            except OSError:  # removed meanwhile
                continue
            if status.st_uid == uid:
                used, count = used + status.st_blocks * 512, count + 1
    return used, count


def stop(uid: int, folder: str = SHM) -> None:
    """Kill every process of `uid` and remove its entries in `folder`, as `uid` itself, in a child
    of ours: `kill(-1)` then reaches every process the user owns and nothing else, and the
    removal can follow no one's link but the user's own."""
    child = os.fork()
    if child == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for _ in range(KILL_ROUNDS):
                os.kill(-1, signal.SIGKILL)  # all but ourselves: Linux spares the caller
                time.sleep(0.01)
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        os.unlink(entry.path)
        finally:
            os._exit(0)
    os.waitpid(child, 0)


def guard(uid: int, max_bytes: int, max_files: int, command: list[str]) -> int:
    """Run `command` (the kernel) as our child, watching its user's /dev/shm use; return its
    exit status, or `STOPPED` if it went past the caps."""
    if not os.path.isdir(SHM):  # nothing to guard (the fence then allows no file there)
        os.execvp(command[0], command)
    shm = os.statvfs(SHM)
    max_bytes = min(max_bytes, shm.f_blocks * shm.f_frsize // 4)
    kernel = os.fork()
    if kernel == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    ended = os.pidfd_open(kernel)
    while True:
        done = select.select([ended], [], [], PERIOD)[0]
        used, count = usage(uid)
        if used > max_bytes or count > max_files:
            stop(uid)
            print(
                f"course grader: stopped the kernel: its user kept {used // 2**20} MB in "
                f"{count} files in {SHM} (at most {max_bytes // 2**20} MB and {max_files} files)",
                file=sys.stderr,
            )
            os.waitpid(kernel, 0)
            return STOPPED
        if done:  # its status as a shell would say it: 128 + the signal that ended it
            status = os.waitstatus_to_exitcode(os.waitpid(kernel, 0)[1])
            return status if status >= 0 else 128 - status


if __name__ == "__main__":  # uid max_bytes max_files -- command...
    uid, max_bytes, max_files = map(int, sys.argv[1:4])
    sys.exit(guard(uid, max_bytes, max_files, sys.argv[5:]))
