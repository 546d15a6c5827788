"""What a user's unix sockets hold that no limit of a process counts, as `shm_guard` measures it
in front of a fenced kernel: their buffers, and how many there are.

What one end of a unix stream sends and the other does not read stays in the machine's memory,
charged to the sending socket (its `wmem_alloc`, as `ss -xme` shows it in skmem's t) and to no
mapping of any process: RLIMIT_DATA never sees it, and a memory group does not count a unix
socket's buffers either. A kernel's own sockets are made by its user and carry its uid, so one
dump of the machine's unix sockets by sock_diag (netlink, no privilege needed) sums what each
user holds: ~0.3 ms for 40 sockets. Sockets in flight (sent over another socket, held by no
process) are listed too. Two kinds of queue are charged to no listed socket, and so to the
socket that holds them (red team, round 18):

- **A closed sender's bytes.** A socket leaves the dump when it is closed, but what it sent
  waits in its peer's queue until read. A socket whose peer is not listed is charged with its
  own queue (`UNIX_DIAG_RQLEN`: every byte a stream or seqpacket holds), at most `BYTE_COST`
  a byte (one byte sent alone takes a buffer of 768 bytes here) and at most what a sender's
  buffer holds (`sender_most`): 13 such queues held 102 MB under a 32 MB cap. While the peer is
  listed its `wmem_alloc` counts them, once.
- **Connections never accepted.** Each is a socket no dump lists, its client's bytes in its
  queue; a listener names each pending connection's client (`UNIX_DIAG_ICONS`), 0 once closed.
  One whose client is not listed is charged to the listener at `sender_most` (its queue is not
  shown): 13 held 102 MB on one descriptor.

The same dump counts each user's sockets: every guard dumps every socket of the machine at each
check, so one user's idle thousands would slow them all (`shm_guard.MAX_SOCKETS`).

Pipes are not here: no interface shows a pipe's fill. They are bounded by descriptors instead
(`sandbox.command` caps RLIMIT_NOFILE): past the user's `fs.pipe-user-pages-soft` (64 MB) a new
pipe gets two pages, 4 kB a descriptor.

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

import functools
import socket
import struct
from collections.abc import Iterator

NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY = 4, 20
DUMP = 0x1 | 0x300  # NLM_F_REQUEST | NLM_F_DUMP: every socket of the family
DONE, ERROR = 3, 2  # netlink's own message types: the dump's end, a refusal
# What `unix_diag_req.udiag_show` asks for each socket: its peer, a listener's pending
# connections, its queue's length, its memory, its uid; and the attributes they come back in.
SHOW = 0x04 | 0x08 | 0x10 | 0x20 | 0x40
PEER, ICONS, RQLEN, MEMINFO, UID = 2, 3, 4, 5, 7
RMEM_ALLOC, WMEM_ALLOC = 0, 2  # a socket's received and sent bytes still queued (sk_meminfo)
HEADER, DIAG = 16, 16  # sizes of struct nlmsghdr and struct unix_diag_msg
LISTEN = 10  # a listener's state (TCP_LISTEN)
# What one queued byte may cost at most: sent alone, it takes a buffer of its own (10,923 sends
# of one byte took 8,388,864 bytes here, 768 each); a buffer's head is a small allocation
# (~0.5 kB) and its header ~0.25 kB on any Linux, so 2 kB a byte leaves room.
BYTE_COST = 2048
# Past a sender's buffer (SO_SNDBUF, at most twice `net.core.wmem_max`) the last send may go by
# one skb: at most 32 kB of pages and a head (8,421,120 bytes were queued in 8,388,608 here).
OVERSHOOT = 64 << 10
WMEM_MAX = "/proc/sys/net/core/wmem_max"


@functools.cache
def sender_most() -> int:
    """The most a unix socket's sends may hold queued: its largest buffer and one send more
    (read once: a guard lives for one kernel)."""
    with open(WMEM_MAX) as limit:
        return 2 * int(limit.read()) + OVERSHOOT


def _aligned(size: int) -> int:
    """Netlink's alignment of messages and attributes: four bytes."""
    return (size + 3) & ~3


def _attributes(message: bytes, start: int, end: int) -> dict[int, bytes]:
    """The attributes (type: payload) of one unix_diag message between `start` and `end`."""
    found = {}
    while start + 4 <= end:
        length, kind = struct.unpack_from("HH", message, start)
        found[kind] = message[start + 4 : start + length]
        start += ((length + 3) & ~3) or 4  # aligned (`_aligned`), never 0
    return found


def _dumped() -> Iterator[tuple[int, int, dict[int, bytes]]]:
    """Every unix socket of our network namespace, asked of sock_diag: its inode, its state and
    its attributes (`SHOW`)."""
    request = struct.pack("BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, SHOW, 0xFFFFFFFF,
                          0xFFFFFFFF)  # fmt: skip
    header = struct.pack("IHHII", HEADER + len(request), SOCK_DIAG_BY_FAMILY, DUMP, 1, 0)
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG) as diag:
        diag.send(header + request)
        while True:
            message, start = diag.recv(1 << 16), 0
            while start + HEADER <= len(message):
                length, kind = struct.unpack_from("IH", message, start)
                if kind == DONE:
                    return
                if kind == ERROR:
                    raise OSError(-struct.unpack_from("i", message, start + HEADER)[0], "sock_diag")
                state, inode = struct.unpack_from("xxBxI", message, start + HEADER)
                yield inode, state, _attributes(message, start + HEADER + DIAG, start + length)
                start += _aligned(length)


def _unsent(state: int, found: dict[int, bytes], listed: set[int], most: int) -> int:
    """What a socket's queue holds that no listed socket's `wmem_alloc` counts: a listener's
    pending connections whose client is gone, at `most` each; a queue whose peer is gone."""
    if state == LISTEN and ICONS in found:
        clients = struct.unpack(f"{len(found[ICONS]) // 4}I", found[ICONS])
        return most * sum(client not in listed for client in clients)
    peer = struct.unpack("I", found[PEER])[0] if PEER in found else 0
    queued = struct.unpack_from("I", found[RQLEN])[0] if RQLEN in found else 0
    return 0 if peer in listed else min(queued * BYTE_COST, most)


def charged() -> dict[int, tuple[int, int]]:
    """Each unix socket of our network namespace by inode, asked of sock_diag: its uid and the
    bytes it is charged with (what it sent and is not read yet, and the queues no listed
    sender counts, `_unsent`)."""
    most = sender_most()
    sockets = [(inode, state, found) for inode, state, found in _dumped() if UID in found]
    listed = {inode for inode, _, _ in sockets}
    charges = {}
    for inode, state, found in sockets:
        memory = struct.unpack_from("3I", found[MEMINFO]) if MEMINFO in found else (0, 0, 0)
        queued = memory[RMEM_ALLOC] + memory[WMEM_ALLOC] + _unsent(state, found, listed, most)
        charges[inode] = struct.unpack_from("I", found[UID])[0], queued
    return charges


def unix_sockets() -> dict[int, tuple[int, int]]:
    """Each uid's unix sockets: how many, and the bytes they are charged with (`charged`)."""
    held: dict[int, tuple[int, int]] = {}
    for uid, queued in charged().values():
        count, before = held.get(uid, (0, 0))
        held[uid] = count + 1, before + queued
    return held


def sockets_uncounted() -> str:
    """Why unix socket buffers cannot be counted here ('' where they can): sock_diag needs the
    machine's `unix_diag` module, which a container cannot load, and the most a sender holds
    is read from `net.core.wmem_max`. A guard that cannot count them then leaves them out (and
    the run's summary says so) rather than stop every kernel."""
    try:
        sender_most()
    except OSError as error:
        return f"{WMEM_MAX} cannot be read here ({error.strerror or error})"
    try:
        unix_sockets()
    except OSError as error:
        return f"sock_diag lists no unix socket here ({error.strerror or error})"
    return ""
