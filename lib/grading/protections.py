"""Which protections a grading run had, in one line: printed at the end of every batch run and by
the self-test, so an instructor reads the same words in both places.

Some protections depend on the machine (bubblewrap's namespaces, a cgroup the grader may make),
so each graded record says which held while its kernel ran (`held`), and the line names only
those that held for every notebook it speaks of.
"""

from __future__ import annotations

import os
import platform

from lib.grading import user_python
from lib.grading.holding_caps import MAX_PTYS, MAX_SOCKETS
from lib.grading.kernel_start import NETWORK
from lib.grading.sandbox import NOFILE, TMP_MB, Caps, cpu_shared, fence_abi, memory_capped
from lib.grading.shm_space import FLOOR, SHM
from lib.grading.user_holdings import sockets_uncounted

BOX, OWN_USER, MEMORY, CPU = "bubblewrap", "own user", "memory group", "cpu share"
FENCE = "write fence"  # unboxed: Landlock lets a kernel write only in its own folders
NO_TCP, SCOPED = "no tcp", "scoped"  # the fence's newer rights: no TCP; sockets, signals its own
NO_INTERNET = "no internet"  # the fence's seccomp filter: unix streams only, no io_uring, no IPC
# (no namespaces, no memory no limit counts, no prlimit64 on another: `kernel_start.refuse_network`)
SHM_CAP = "shm cap"  # a fenced kernel's files in /dev/shm, bounded by `shm_guard`
# Records graded before records said which protections held: sandboxed meant bubblewrap then.
EARLIER = [BOX, OWN_USER] if os.geteuid() == 0 else [BOX]


def held(sandboxed: bool, boxed: bool, uid: int | None) -> list[str]:
    """The protections a kernel of user `uid` had (the record's `protections`): the bubblewrap
    box (`boxed`), a user of its own, the fence of an unboxed kernel (`sandbox.command`) with
    the rights this machine's Landlock has, and the cgroups its user's kernels share."""
    if not sandboxed:
        return []
    fenced = not boxed and uid is not None
    return [
        name
        for name, yes in (
            (BOX, boxed),
            (OWN_USER, uid is not None),
            (FENCE, fenced and fence_abi() >= 1),
            (NO_TCP, fenced and fence_abi() >= 4),
            (NO_INTERNET, fenced and fence_abi() >= 1 and platform.machine() in NETWORK),
            (SCOPED, fenced and fence_abi() >= 6),
            (SHM_CAP, fenced and fence_abi() >= 1),  # `sandbox.command` guards every fenced one
            (MEMORY, memory_capped(uid)),
            (CPU, cpu_shared(uid)),
        )
        if yes
    ]


def in_common(records: list[dict]) -> tuple[set[str], bool]:
    """The protections that held for every one of `records` whose kernel ran, and whether each
    of those says which held (records graded before they did count as `EARLIER`)."""
    ran = [r for r in records if "protections" in r or r.get("outcome") == "graded"]
    held_each = [set(r.get("protections", EARLIER)) for r in ran]
    common = set.intersection(*held_each) if held_each else set(EARLIER)
    return common, bool(ran) and all("protections" in r for r in ran)


def line(sandboxed: bool, records: list[dict] = (), caps: Caps | None = None) -> str:
    """`Protections in force: ...` for a run with or without the sandbox: of the protections that
    depend on the machine, those that held for every one of `records` whose kernel ran."""
    if not sandboxed:
        return (
            "Protections in force: NONE of the sandbox's (--no-sandbox, or bubblewrap cannot run "
            "here): student code runs with the grader's permissions; expected answers are still "
            "judged outside the kernel."
        )
    caps = caps or Caps()
    common, known = in_common(records)
    if BOX in common:
        parts = [
            "bubblewrap sandbox (no network, course and Python read-only, own process tree, "
            f"clean environment, /tmp of {TMP_MB} MB)"
            + (", each kernel a user of its own" if OWN_USER in common else "")
        ]
    else:
        parts = [
            "no bubblewrap (this machine refuses its namespaces): each kernel a user of its own "
            "in a private copy, every process of that user killed after each notebook"
        ]
        if OWN_USER in common and user_python.blocked():  # graded on with --allow-blocked-python
            parts.insert(0, user_python.blocked())
        if FENCE in common:
            why = sockets_uncounted()
            uncounted = f" (neither these nor unix buffers counted here: {why})" if why else ""
            parts.append(
                "each kernel writes only in its own folders and plain files in /dev/shm "
                "(Landlock: nothing in the machine's /tmp and /var/tmp, no folder in /dev/shm)"
            )
            parts.append(
                f"at most {caps.shm_mb} MB (and its share: the size over --jobs + 1, at least "
                f"{FLOOR >> 20} MB) and {caps.shm_files} files in the shared /dev/shm per kernel, "
                "files without a name counted (its processes held still meanwhile), checked "
                "every 0.05 s: past them all its user's processes are killed and its files "
                "removed (what it writes between two checks, or a file only a unix socket's "
                "message holds, only a memory group counts); likewise past its memory cap in "
                f"unix and netlink socket buffers, past {MAX_SOCKETS} unix sockets{uncounted} "
                f"or past {MAX_PTYS} ptys (a pty or netlink socket only a message holds is not "
                "counted)"
                if SHM_CAP in common
                else "the space of /dev/shm shared by every kernel and not bounded per kernel"
            )
            parts.append(
                "no network (unix streams and seqpackets only, and netlink's routing one: no "
                "TCP, UDP, MPTCP, vsock or unix datagrams; no io_uring), no namespace of a "
                "kernel's own, no System V IPC or message queue between kernels, and no memory "
                "shared outside /dev/shm (memfd, shared anonymous, /dev/zero) nor kept where no "
                "limit counts it (extended attributes, vmsplice)"
                if NO_INTERNET in common
                else "no TCP (neither bind nor connect; UDP is not refused)"
                if NO_TCP in common
                else "TCP open to the machine and beyond (Landlock here is older than ABI 4)"
            )
            parts.append(
                "a unix socket file a machine's service opens to all (a resolver's, D-Bus's) "
                "is reached (Landlock here cannot fence connecting to one)"
            )
            parts.append(
                "abstract unix sockets and signals reach only a kernel's own processes"
                if SCOPED in common
                else "abstract unix sockets and signals reach other kernels (Landlock here is "
                "older than ABI 6)"
            )
        elif known and OWN_USER in common:
            parts.append(
                "the machine's /tmp, /var/tmp and /dev/shm shared by every kernel (no Landlock "
                "here: a kernel's files there are found by a walk other kernels can shape)"
            )
            parts.append(  # the network filter is the fence's: no fence, no filter
                "the network open to every kernel (TCP, UDP, System V IPC: without Landlock "
                "no kernel is fenced or filtered)"
            )
    parts.append(
        f"at most {caps.memory_mb} MB of memory per process, {caps.processes} processes, "
        f"{NOFILE} descriptors per process, {caps.file_mb} MB per file"
    )
    if MEMORY in common:
        parts.append(f"at most {caps.box_mb} MB for all of a kernel's processes together")
    elif known and OWN_USER in common:  # only a kernel's own user gets cgroups
        parts.append("memory capped per process only (no memory cgroup)")
    if CPU in common:
        parts.append("one CPU share per kernel, however many processes it starts")
    elif known and OWN_USER in common:
        parts.append("each process weighs alone for the CPU (no CPU cgroup)")
    return f"Protections in force: {'; '.join(parts)}; expected answers judged outside the kernel."


def shm_crowded(kernels: int) -> str:
    """A note when `kernels` guarded kernels at once would each get less than `FLOOR` of
    /dev/shm (each then gets `FLOOR`, so together they can fill it), else ''."""
    if not os.path.isdir(SHM):
        return ""
    space = os.statvfs(SHM)
    size = space.f_blocks * space.f_frsize
    if size // (kernels + 1) >= FLOOR:
        return ""
    return (
        f"Note: /dev/shm holds {size >> 20} MB: with --jobs {kernels}, each kernel may keep "
        f"{FLOOR >> 20} MB there, so together they can fill it and a neighbour's process pool "
        f"fails; grade with --jobs {max(size // FLOOR - 1, 1)} or fewer."
    )
