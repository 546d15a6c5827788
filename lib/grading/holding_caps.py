"""The guard's caps on what a user holds outside /dev/shm that no limit of a process counts:
bytes queued in its sockets (unix: `user_holdings`; netlink: `netlink_queues`), its unix
sockets, its ptys (`user_ptys`). Each check is one sock_diag dump, one read of
/proc/net/netlink, one listing of /dev/pts and one read of `kernel.pty.nr`; the user's
processes are looked into only while what those cannot place could put it past a cap, and a
look's answer stands up to `WALK_EVERY` meanwhile (`user_walk.Walked`).

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

if __name__ != "__main__":  # run as `-c`, `sandbox` puts its helpers' source ahead of ours
    from lib.grading.netlink_queues import netlink_held, netlink_queued
    from lib.grading.user_holdings import unix_sockets
    from lib.grading.user_ptys import orphaned_ptys, pty_entries, ptys_unlisted
    from lib.grading.user_walk import Walked

MAX_PTYS = 8  # ptys a user may hold: IPython's `!command` takes one while the command runs
# Unix sockets a user may hold: every guard's check dumps every unix socket of the machine, so
# one kernel's idle thousands slow every guard (red team, round 18: 8,000 made a guard check 4
# times a second instead of 19). A guard's CPU a second, one kernel holding N idle sockets, at
# load 9: 0.01 s for none, 0.03 for 250, 0.04 for 500, 0.08 for 1,000. The honest lessons'
# kernels held at most 21 each (lesson 8's process pool included).
MAX_SOCKETS = 256


class Watch:
    """What a guard knows from one check to the next: whether unix sockets can be counted here
    (sock_diag: `user_holdings.sockets_uncounted`), and its last looks into its user's
    processes, one for each thing only they can tell: files without a name in /dev/shm (space
    and inodes), netlink queues, ptys without an entry."""

    def __init__(self, unix: bool = True) -> None:
        self.unix = unix
        self.shm, self.netlink, self.ptys = Walked(2), Walked(1), Walked(1)


def sockets_past(uid: int, max_socket: int, watch: Watch) -> str:
    """What `uid` holds past its caps in sockets (`max_socket` bytes queued, unix ones only
    where they can be counted; `MAX_SOCKETS` unix sockets), said for the stop message; '' if
    nothing."""
    sockets, queued = unix_sockets().get(uid, (0, 0)) if watch.unix else (0, 0)
    everyone = sum(netlink_queued().values())
    netlink, why = 0, ""
    if queued + everyone > max_socket:  # else not even all of netlink's puts it past its cap
        (netlink,), why = watch.netlink.held(
            (everyone,),
            lambda own: queued + own[0] <= max_socket,
            lambda: netlink_held(uid, everyone),
        )
    if queued + netlink > max_socket:
        return (
            f"its user held {(queued + netlink) // 2**20} MB in socket buffers, sent and not read "
            f"({queued // 2**20} MB unix, {netlink // 2**20} MB netlink; at most "
            f"{max_socket // 2**20} MB, its memory cap)" + (f", {why}" if why else "")
        )
    if sockets > MAX_SOCKETS:
        return f"its user held {sockets} unix sockets (at most {MAX_SOCKETS})"
    return ""


def ptys_past(uid: int, watch: Watch) -> str:
    """What `uid` holds past `MAX_PTYS` ptys (its entries in /dev/pts and, while the machine's
    ptys without an entry could put it past, its slaves without one), said; '' if nothing."""
    own, listed = pty_entries(uid)
    unlisted = ptys_unlisted(listed)
    orphans, why = 0, ""
    if own + unlisted > MAX_PTYS:
        (orphans,), why = watch.ptys.held(
            (unlisted,),
            lambda hidden: own + hidden[0] <= MAX_PTYS,
            lambda: orphaned_ptys(uid, unlisted),
        )
    if own + orphans > MAX_PTYS:
        return f"its user held {own + orphans} ptys (at most {MAX_PTYS})" + (
            f", {why}" if why else ""
        )
    return ""
