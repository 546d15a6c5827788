"""What a reader (`reading_server`) may still do once it starts parsing a student's file: little.

The reader parses text a student wrote with json, nbformat, re and ast; a bug in any of them
that the text reaches would run as the reader. So before it reads a byte, the reader gives up
everything it does not need (`give_up_rights`); its file was opened by the grader and handed
over as a descriptor, and its answer goes back on a socket it already holds:

- **Another user.** As root's grader, it becomes the notebook's own sandbox user (the slot's,
  whose every process is killed after the notebook: `sandbox.reap`), or `LONE_UID` where the
  notebook has none (`--no-sandbox`), with no groups; with all its uids non-zero the kernel
  clears every capability. As anyone else's grader it stays that user: it can still read
  what the instructor can (no way to change user without root), and all that follows holds.
- **No way back:** `no_new_privs`, so no setuid program or file capability gives rights again.
- **No keys** (a seccomp filter, as for kernels: `kernel_start.refuse_keys`, root only): a key
  left in a sandbox user's keyring would outlive the notebook. On x86_64 the same filter also
  refuses what a reader never needs (`REFUSED`): running a program, signals to another
  process, tracing one, new sockets, mounts and namespaces. Not an allow-list: the calls
  Python's imports, allocator and parsers make are many, and differ between versions.
- **No new processes, no file written:** RLIMIT_NPROC and RLIMIT_FSIZE of zero (a write past
  that kills it with SIGXFSZ); nothing of the terminal (stdin, stdout and stderr are /dev/null).

The cost: about 2 ms per notebook (median of 31, measured on a loaded 2-core machine).
"""

from __future__ import annotations

import ctypes
import os
import platform
import resource

from lib.grading import kernel_start, kernel_users

PR_SET_NO_NEW_PRIVS = 38
# x86_64's numbers: execve, execveat, kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
# pidfd_send_signal, ptrace, process_vm_readv and _writev, socket, socketpair, mount, umount2,
# unshare, setns.
REFUSED = {
    "x86_64": (59, 322, 62, 200, 234, 129, 297, 424, 101, 310, 311, 41, 53, 165, 166, 272, 308)
}
LONE_UID = kernel_users.FIRST_UID - 1  # a reader's user when its notebook has no sandbox user


def give_up_rights(uid: int | None) -> None:
    """Drop to `uid` (as root; `LONE_UID` if None) with no capabilities, no way back,
    no keys, no processes and no file written. Raises OSError if any step fails: a reader that
    could not give up its rights must not read."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "no_new_privs refused")
    more = REFUSED.get(platform.machine(), ())
    if kernel_start.keys_to_refuse() and not kernel_start.refuse_keys(more):
        raise OSError(ctypes.get_errno(), "the seccomp filter on keys refused")
    if os.geteuid() == 0:
        uid = LONE_UID if uid is None else uid
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # every uid non-zero: the kernel clears every capability
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
