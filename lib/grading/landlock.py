"""Landlock (Linux 5.13+), the kernel's own sandbox for unprivileged processes: a process
restricts itself and all it starts, for good, to the file rights its rules grant beneath some
folders, and (where the machine's Landlock has them) to no TCP and to its own processes'
abstract sockets and signals. Used by a kernel's fence (`kernel_start.fence`) and by a reader
(`reader_rights`), through `restrict`.

Each right is a bit, and each bit exists from an ABI version on (`version`): a ruleset handles
only the rights the machine knows (`file_rights`), and a right handled and granted by no rule
is refused. Only the standard library, nothing of the course: `kernel_start` runs its text as
`python -I -c`, with this module's text before its own (`sandbox`).
"""

import ctypes
import os

CREATE_RULESET, ADD_RULE, RESTRICT_SELF, ASK_VERSION, PATH_BENEATH = 444, 445, 446, 1, 1
PR_SET_NO_NEW_PRIVS = 38
# File rights: ABI 1 has the first thirteen (executing, writing, reading a file, reading a
# folder, removing and making each kind of thing); 2 adds linking or moving across folders
# (REFER), 3 truncating, 5 a device's ioctl.
EXECUTE, WRITE, READ_FILE, READ_DIR, REMOVE_DIR, REMOVE_FILE = (1 << n for n in range(6))
MAKE_REG, MAKE_ALL, REFER, TRUNCATE, IOCTL_DEV = 1 << 8, 0x1FC0, 1 << 13, 1 << 14, 1 << 15
FILE_ABI = {1: (1 << 13) - 1, 2: REFER, 3: TRUNCATE, 5: IOCTL_DEV}  # the rights each ABI adds
# ABI 4: TCP's bind and connect (handled, with no rule: refused whole); ABI 6: abstract unix
# sockets and signals, only among the process's own (its domain's).
NET_ABI, BIND_TCP, CONNECT_TCP, SCOPE_ABI, SCOPE_SOCKETS, SCOPE_SIGNALS = 4, 1, 2, 6, 1, 2


class _Beneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is packed
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def version() -> int:
    """The ABI version of this machine's Landlock (0: none, or refused, as by a seccomp profile)."""
    libc = ctypes.CDLL(None, use_errno=True)
    return max(libc.syscall(CREATE_RULESET, None, 0, ASK_VERSION), 0)


def file_rights(abi: int) -> int:
    """Every file right Landlock of ABI version `abi` knows."""
    return sum(bits for since, bits in FILE_ABI.items() if abi >= since)


def restrict(handled: int, rules: list[tuple[str, int]], network: bool = True) -> None:
    """Restrict this process and all it starts, for good: of the file rights `handled`, only
    those each rule `(folder, rights)` grants beneath its folder; and where the machine's
    Landlock has them, with `network`, no TCP bind or connect and signals and abstract sockets
    only among its own processes. Raises OSError where Landlock cannot (none, or refused)."""
    abi = version()
    if abi < 1:
        raise OSError(ctypes.get_errno(), "Landlock is not available")
    libc = ctypes.CDLL(None, use_errno=True)
    # struct landlock_ruleset_attr grew with the ABI: files, then network, then scopes.
    attr = [handled & file_rights(abi), BIND_TCP | CONNECT_TCP, SCOPE_SOCKETS | SCOPE_SIGNALS]
    size = 1 if not network else 3 if abi >= SCOPE_ABI else 2 if abi >= NET_ABI else 1
    ruleset = libc.syscall(CREATE_RULESET, (ctypes.c_uint64 * size)(*attr[:size]), 8 * size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "Landlock refused a ruleset")
    try:
        for folder, allowed in rules:
            parent = os.open(folder, os.O_PATH | os.O_CLOEXEC)
            rule = _Beneath(allowed & attr[0], parent)
            added = libc.syscall(ADD_RULE, ruleset, PATH_BENEATH, ctypes.byref(rule), 0)
            os.close(parent)
            if added != 0:
                raise OSError(ctypes.get_errno(), f"Landlock refused a rule for {folder}")
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # what a process without CAP_SYS_ADMIN needs
        if libc.syscall(RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "Landlock would not restrict this process")
    finally:
        os.close(ruleset)
