"""What a user's processes hold outside /dev/shm that no limit of a process counts, as
`shm_guard` measures it in front of a fenced kernel: its unix sockets' buffers and its ptys.

- **Unix socket buffers.** What one end of a unix socket sends and the other does not read stays
  in the machine's memory, charged to the sending socket (its `wmem_alloc`, as `ss -xme` shows it
  in skmem's t) and to no mapping of any process: RLIMIT_DATA never sees it, and a memory group
  does not count a unix socket's buffers either. A kernel's own sockets are made by its user and
  carry its uid, so one dump of the machine's unix sockets by sock_diag (netlink, no privilege
  needed; `UDIAG_SHOW_UID | UDIAG_SHOW_MEMINFO`) sums what each user holds: ~0.3 ms for 40
  sockets. Sockets in flight (sent over another socket, held by no process) are listed too.
  The same dump counts each user's sockets: every guard dumps every socket of the machine at
  each check, so one user's idle thousands would slow them all (`shm_guard.MAX_SOCKETS`).
- **Ptys.** /dev/ptmx opened (for reading is enough: the fence guards writes only) makes a pty
  pair out of the machine's `kernel.pty.max`, shared by every user and container; each pty's
  /dev/pts/N belongs to its opener, so one listing counts a user's.

Pipes are not here: no interface shows a pipe's fill. They are bounded by descriptors instead
(`sandbox.command` caps RLIMIT_NOFILE): past the user's `fs.pipe-user-pages-soft` (64 MB) a new
pipe gets two pages, 4 kB a descriptor.

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

import os
import socket
import struct

NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY = 4, 20
DUMP = 0x1 | 0x300  # NLM_F_REQUEST | NLM_F_DUMP: every socket of the family
DONE, ERROR = 3, 2  # netlink's own message types: the dump's end, a refusal
SHOW_MEMINFO, SHOW_UID = 0x20, 0x40  # what `unix_diag_req.udiag_show` asks for each socket
MEMINFO, UID = 5, 7  # and the attributes they come back in
RMEM_ALLOC, WMEM_ALLOC = 0, 2  # a socket's received and sent bytes still queued (sk_meminfo)
HEADER, DIAG = 16, 16  # sizes of struct nlmsghdr and struct unix_diag_msg
PTS = "/dev/pts"


def _aligned(size: int) -> int:
    """Netlink's alignment of messages and attributes: four bytes."""
    return (size + 3) & ~3


def _attributes(message: bytes, start: int, end: int) -> dict[int, bytes]:
    """The attributes (type: payload) of one unix_diag message between `start` and `end`."""
    found = {}
    while start + 4 <= end:
        length, kind = struct.unpack_from("HH", message, start)
        found[kind] = message[start + 4 : start + length]
        start += _aligned(max(length, 4))
    return found


def unix_sockets() -> dict[int, tuple[int, int]]:
    """Each uid's unix sockets, over every one of our network namespace, asked of sock_diag:
    how many, and the bytes they hold queued (received and sent, not yet read)."""
    request = struct.pack("BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, SHOW_MEMINFO | SHOW_UID,
                          0xFFFFFFFF, 0xFFFFFFFF)  # fmt: skip
    header = struct.pack("IHHII", HEADER + len(request), SOCK_DIAG_BY_FAMILY, DUMP, 1, 0)
    held: dict[int, tuple[int, int]] = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG) as diag:
        diag.send(header + request)
        while True:
            message, start = diag.recv(1 << 16), 0
            while start + HEADER <= len(message):
                length, kind = struct.unpack_from("IH", message, start)
                if kind == DONE:
                    return held
                if kind == ERROR:
                    raise OSError(-struct.unpack_from("i", message, start + HEADER)[0], "sock_diag")
                found = _attributes(message, start + HEADER + DIAG, start + length)
                if UID in found and MEMINFO in found:
                    uid = struct.unpack("I", found[UID][:4])[0]
                    memory = struct.unpack_from("3I", found[MEMINFO])
                    sockets, queued = held.get(uid, (0, 0))
                    held[uid] = sockets + 1, queued + memory[RMEM_ALLOC] + memory[WMEM_ALLOC]
                start += _aligned(length)


def sockets_uncounted() -> str:
    """Why unix socket buffers cannot be counted here ('' where they can): sock_diag needs the
    machine's `unix_diag` module, which a container cannot load. A guard that cannot count them
    then leaves them out (and the run's summary says so) rather than stop every kernel."""
    try:
        unix_sockets()
    except OSError as error:
        return f"sock_diag lists no unix socket here ({error.strerror or error})"
    return ""


def ptys(uid: int, folder: str = PTS) -> int:
    """How many ptys `uid` holds: the entries of /dev/pts it owns (0 where there is none)."""
    if not os.path.isdir(folder):
        return 0
    held = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                held += entry.name.isdigit() and entry.stat(follow_symlinks=False).st_uid == uid
            except FileNotFoundError:  # closed meanwhile
                continue
    return held
