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
- **No file, no network, no one else's signals** (Landlock, `landlock.restrict`, root or not):
  every file right the machine's Landlock knows is handled and only reading is granted, beneath
  Python's own folders (`LIBRARY`: a module imported late, nbformat's schemas), so the reader
  writes, makes or removes nothing and reads nothing else by a path (not a classmate's notebook
  beside its own, nor an instructor's key when the grader runs without root), while the
  descriptors it holds stay usable; TCP is refused (ABI 4), and abstract sockets and signals
  reach only its own processes (ABI 6: kill, and F_SETOWN's signals too, cannot reach the
  grader or another reader). Where the machine has no Landlock, the reader reads without it.
- **No system call it has no use for** (a seccomp filter, `seccomp.refuse`, root or not:
  `no_new_privs` makes it legal unprivileged): the calls of keys (a key left in a sandbox
  user's keyring would outlive the notebook) and, on x86_64, `REFUSED`: running a program, new
  processes, signals, tracing, new sockets, io_uring (which makes sockets and opens files
  without those calls), mounts, namespaces, BPF, perf and userfaultfd; and fcntl's F_SETOWN,
  F_SETOWN_EX and F_SETSIG and ioctl's FIOSETOWN and SIOCSPGRP (`BY_ARGUMENT`: a signal sent
  when a descriptor is ready; F_SETFL's O_ASYNC is left, a flag the filter cannot single out,
  harmless with no owner to signal); what reaches another process of its user by pid or uid
  (setpriority, the sched_set* calls, ioprio_set, and prlimit64 on anything but itself,
  `UNLESS_ARGUMENT`); and System V IPC and POSIX message queues (`kernel_start.IPC`, as a
  fenced kernel's), objects which outlive it. A blocklist, not an
  allow-list: the calls Python's allocator and parsers make differ between versions, and a
  call refused to an honest reading costs a row; Landlock is the wall that holds by design.
- **No new processes, no file written, no CPU past the deadline:** RLIMIT_NPROC and
  RLIMIT_FSIZE of zero (a write past that kills it with SIGXFSZ), RLIMIT_MSGQUEUE of zero (as
  a kernel's: Landlock refused a reader's mq_open only after the queue was made, and no reset
  finds a queue where /dev/mqueue is not mounted), and RLIMIT_CPU
  (`cpu_limit`) a second past the reading's deadline, behind the watcher's SIGKILL
  (`reading_server`); nothing of the terminal (stdin, stdout and stderr are /dev/null).

The cost: about 2 ms per notebook (median of 31, measured on a loaded 2-core machine).
"""

from __future__ import annotations

import ctypes
import math
import os
import platform
import resource
import sysconfig

from lib.grading import kernel_start, kernel_users, landlock, seccomp

PR_SET_NO_NEW_PRIVS = 38
# x86_64's numbers: execve, execveat, clone, clone3, fork, vfork, kill, tkill, tgkill,
# rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, pidfd_getfd, ptrace, process_vm_readv
# and _writev, socket, socketpair, io_uring_setup, _enter and _register, mount, umount2,
# open_tree, fsopen, unshare, setns, chroot, pivot_root, bpf, perf_event_open, userfaultfd;
# what reaches other processes of its user: setpriority, sched_setaffinity, sched_setscheduler,
# sched_setparam, sched_setattr, ioprio_set. IPC objects: `kernel_start.IPC`.
REFUSED = {
    "x86_64": (59, 322, 56, 435, 57, 58, 62, 200, 234, 129, 297, 424, 438, 101, 310, 311)
    + (41, 53, 425, 426, 427, 165, 166, 428, 430, 272, 308, 161, 155, 321, 298, 323)
    + (141, 203, 144, 142, 314, 251)
}
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902  # ioctl's ways to set the owner F_SETOWN sets
BY_ARGUMENT = {
    "x86_64": tuple((72, 1, command) for command in (F_SETOWN, F_SETSIG, F_SETOWN_EX))
    + tuple((16, 1, command) for command in (FIOSETOWN, SIOCSPGRP))
}
# prlimit64 only on itself (pid 0): setrlimit is prlimit64(0, ...), and give_up_rights sets
# RLIMIT_NPROC and RLIMIT_FSIZE after the filter is in place.
UNLESS_ARGUMENT = {"x86_64": ((302, ((0, 0),)),)}
# What a reader may read by a path: Python's standard library and installed packages (a module
# imported late, nbformat's schemas), never the course's folder, a submission or --out.
LIBRARY = sorted({p for k, p in sysconfig.get_paths().items() if "lib" in k and os.path.isdir(p)})
LONE_UID = kernel_users.FIRST_UID - 1  # a reader's user when its notebook has no sandbox user


def cpu_limit(seconds: float) -> None:
    """Let this process use at most `seconds` of CPU, and a second more: SIGXCPU, then SIGKILL
    (a second wall behind the watcher's deadline, which counts time, not CPU)."""
    soft = max(1, math.ceil(seconds)) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def give_up_rights(uid: int | None) -> None:
    """Drop to `uid` (as root; `LONE_UID` if None) with no capabilities, no way back, no file
    reached by a path, no network, no keys, no processes and no file written. Raises OSError if
    any step fails: a reader that could not give up its rights must not read."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "no_new_privs refused")
    if landlock.version():  # every file right handled; reading granted in Python's own folders
        read = landlock.READ_FILE | landlock.READ_DIR
        landlock.restrict(landlock.file_rights(landlock.version()), [(f, read) for f in LIBRARY])
    machine = platform.machine()
    calls = kernel_start.KEY_CALLS.get(machine, ()) + kernel_start.IPC.get(machine, ())
    calls += REFUSED.get(machine, ())
    refused = seccomp.refuse(calls, BY_ARGUMENT.get(machine, ()), UNLESS_ARGUMENT.get(machine, ()))
    if not refused and machine in seccomp.AUDIT_ARCH:
        raise OSError(ctypes.get_errno(), "the seccomp filter was refused")
    if os.geteuid() == 0:
        uid = LONE_UID if uid is None else uid
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # every uid non-zero: the kernel clears every capability
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
