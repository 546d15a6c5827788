"""What a user's netlink sockets hold queued, as `shm_guard` counts it in front of a fenced kernel.

The fence lets a kernel make netlink's routing socket (glibc's getifaddrs asks it, and ZeroMQ
aborts without): every request it sends is answered into its own receive queue, up to its
SO_RCVBUF (at most twice `net.core.rmem_max`), and what it never reads stays in the machine's
memory, charged to that socket and to no limit of a process (red team, round 20: 103 MB in 13
sockets under a 32 MB cap). /proc/net/netlink shows each netlink socket's queues (Rmem, Wmem)
and inode, but not its user: a guard sums the table (cheap: one read), and only while that
sum could put its user past its cap looks into the user's processes (`user_walk.looked`) for
the descriptors of those sockets (`socket:[inode]`, not holding it still: `user_walk`), charging
their queues to it.

Not counted: a socket only a descriptor in flight in a unix socket's message holds (no process
does), as for /dev/shm's files.

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

if __name__ != "__main__":  # run as `-c`, `sandbox` puts its helpers' source ahead of ours
    from lib.grading.shm_walk import held_links
    from lib.grading.user_walk import looked

NETLINK_TABLE = "/proc/net/netlink"
# The table's columns: sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode.
NETLINK_RMEM, NETLINK_WMEM, NETLINK_INODE = 4, 5, 9
NETLINK_ALL = "counting every netlink socket's queue: "  # why the user is charged all of them


def netlink_queued() -> dict[int, int]:
    """The bytes each netlink socket of our network namespace holds queued (received and sent),
    by inode, for those that hold any."""
    with open(NETLINK_TABLE) as table:
        rows = [line.split() for line in table.read().splitlines()[1:]]
    queued = {
        int(row[NETLINK_INODE]): int(row[NETLINK_RMEM]) + int(row[NETLINK_WMEM]) for row in rows
    }
    return {inode: size for inode, size in queued.items() if size}


def _netlink_held(pids: list[str], queued: dict[int, int]) -> list[int]:
    """The inodes of the sockets of `queued` that processes `pids` hold descriptors of."""
    wanted = {f"socket:[{inode}]": inode for inode in queued}
    return sorted({wanted[target] for target in held_links(pids, wanted.__contains__).values()})


def netlink_held(uid: int, everyone: int) -> tuple[tuple[int], str]:
    """As root: the bytes queued in the netlink sockets `uid`'s processes hold (`looked` into,
    not held still) and ''; where they cannot all be read, `everyone` (what every netlink socket
    holds) and why."""
    queued = netlink_queued()
    answer = looked(uid, lambda pids: _netlink_held(pids, queued), still=False)
    if isinstance(answer, str):
        return (everyone,), NETLINK_ALL + answer
    return (sum(queued.get(inode, 0) for inode in answer),), ""
