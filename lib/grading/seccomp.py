"""Seccomp filters: a process refuses itself, and all it starts, some system calls for good
(EPERM), by a small BPF program Linux runs at every call. Used by a kernel's start
(`kernel_start`: the calls of keys; a fenced kernel's sockets and IPC) and by a reader
(`reader_rights`), through `refuse`.

A filter matches call numbers, which differ between machines (`AUDIT_ARCH`: the ones whose
numbers the course knows) and between a machine's ABIs: a 64-bit process may still make i386
calls (int 0x80) or x32 ones, each with its own numbers, so every filter refuses any call of
another ABI and every x32 number. Only the standard library, nothing of the course:
`kernel_start` runs its text as `python -I -c`, with this module's text before its own.
"""

import ctypes
import platform

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}  # the machines whose numbers we know
X32 = 0x40000000  # x86_64's x32 calls: the same numbers with this bit, refused whole
PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_SET_NO_NEW_PRIVS = 22, 2, 38
ALLOW, REFUSE = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EPERM
ABSENT = 0x00050000 | 38  # SECCOMP_RET_ERRNO with ENOSYS: "this Linux has no such call"
LOAD, EQUAL, AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, ..JGE, RET
AND = 0x54  # BPF_ALU|BPF_AND|BPF_K: keep only some bits of the value loaded


class _Rule(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]  # fmt: skip


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Rule))]


def refuse(
    calls: tuple[int, ...],
    by_argument: tuple[tuple[int, int, int], ...] = (),
    unless_argument: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = (),
    by_bits: tuple[tuple[int, int, int], ...] = (),
    absent: tuple[int, ...] = (),
) -> bool:
    """Refuse (EPERM) to this process and all it starts, for good: the calls numbered `calls`,
    each call `(number, argument, value)` of `by_argument` whose argument (0-5, its low 32
    bits) is that value, each call `(number, argument, bits)` of `by_bits` whose argument has
    all those bits set (flags: mmap's shared and anonymous at once), each call named in
    `unless_argument` unless one of its entries
    `(number, ((argument, value), ...))` has every argument at its value (an allow-list by
    argument: socket only of some families), and any call of another ABI; the calls numbered
    `absent` fail with ENOSYS instead, as on a Linux without them (a caller may then fall back
    to an older call it has: glibc from clone3 to clone). Needs no privilege
    (it sets `no_new_privs` first). True if the filter is in place; False on an unknown
    machine."""
    if platform.machine() not in AUDIT_ARCH:
        return False
    arch = AUDIT_ARCH[platform.machine()]
    refused, allowed, missing = -1, -2, -3  # jumps to the last three rules; resolved below
    rules = [
        (LOAD, 0, 0, 4),  # seccomp_data.arch
        (EQUAL, 1, 0, arch),
        (RETURN, 0, 0, REFUSE),
        (LOAD, 0, 0, 0),  # seccomp_data.nr
        (AT_LEAST, refused, 0, X32),
        *((EQUAL, refused, 0, call) for call in calls),
        *((EQUAL, missing, 0, call) for call in absent),
    ]
    for call, argument, value in by_argument:  # not this call: past the next three rules
        rules += [(EQUAL, 0, 3, call), (LOAD, 0, 0, 16 + 8 * argument)]  # seccomp_data.args
        rules += [(EQUAL, refused, 0, value), (LOAD, 0, 0, 0)]  # else the number again
    for call, argument, bits in by_bits:  # likewise, the argument's other bits dropped first
        rules += [(EQUAL, 0, 4, call), (LOAD, 0, 0, 16 + 8 * argument), (AND, 0, 0, bits)]
        rules += [(EQUAL, refused, 0, bits), (LOAD, 0, 0, 0)]
    for call in dict.fromkeys(call for call, _ in unless_argument):  # last: each ends the filter
        body = []
        for entry in (wanted for number, wanted in unless_argument if number == call):
            for n, (argument, value) in enumerate(entry):  # a miss: on to the next entry
                last = n == len(entry) - 1
                body += [(LOAD, 0, 0, 16 + 8 * argument)]
                body += [(EQUAL, allowed if last else 0, 2 * (len(entry) - n - 1), value)]
        body += [(EQUAL, refused, refused, 0)]  # no entry matched: refused either way
        rules += [(EQUAL, 0, len(body), call), *body]  # not this call: past its body
    rules += [(RETURN, 0, 0, ALLOW), (RETURN, 0, 0, REFUSE), (RETURN, 0, 0, ABSENT)]
    last = len(rules) - 1  # what falls through the rules above is allowed
    target = {missing: last, refused: last - 1, allowed: last - 2}
    rules = [
        (op, target[t] - i - 1 if t in target else t, target[f] - i - 1 if f in target else f, k)
        for i, (op, t, f, k) in enumerate(rules)
    ]
    if any(max(t, f) > 255 for _, t, f, _ in rules):  # a jump is one byte
        raise ValueError(f"a seccomp filter of {len(rules)} rules jumps too far")
    return _install(rules)


def _install(rules: list[tuple[int, int, int, int]]) -> bool:
    table = (_Rule * len(rules))(*(_Rule(*rule) for rule in rules))
    program = _Program(len(rules), table)
    libc = ctypes.CDLL(None, use_errno=True)
    # A process without CAP_SYS_ADMIN (a container's root, or any user) may install a filter only
    # under no_new_privs; root's bwrap needs no set-uid bit, so nothing is lost by it.
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) == 0
