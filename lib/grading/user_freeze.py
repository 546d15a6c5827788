"""Acting as a sandbox user from the root guard (`shm_guard`): run work as the user, and hold all
its processes still (SIGSTOP by `kill(-1)` as the user, which reaches its processes only) while
`shm_holders` looks into them, then let them go on.

Only the standard library: `sandbox` runs this file's source first in the guard's `-c` text.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Callable

STILL = "tTZX"  # /proc states of a process that runs no more code (stopped, traced, ended)


ANSWER_SECONDS = 2.0  # a child's work takes milliseconds; past this it is stopped or stuck


def as_user(uid: int, work: Callable[[], object]) -> str | None:
    """Run `work` in a child of ours that takes `uid` (and no group of ours); its answer as
    text, or None if it raised or was killed (or answered nothing), or gave no answer within
    `ANSWER_SECONDS` (then it is killed). `kill(-1)` in it reaches the user's processes only;
    and below Landlock 6 those may signal it too (SIGSTOP), so we never wait on it unbounded."""
    said, told = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(said)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.write(told, str(work()).encode())
        finally:
            os._exit(0)
    os.close(told)
    text, end = b"", time.monotonic() + ANSWER_SECONDS
    with os.fdopen(said, "rb", buffering=0) as answer:
        while select.select([answer], [], [], max(end - time.monotonic(), 0))[0]:
            part = answer.read(65536)
            if not part:  # the child is done
                break
            text += part
        else:  # no answer in time: the child is stopped or stuck, and says nothing
            os.kill(child, signal.SIGKILL)
            text = b""
    os.waitpid(child, 0)
    return text.decode() if text else None


def signal_all(sent: signal.Signals) -> None:
    """Send `sent` to every process of our user but ourselves (none there: nothing to do)."""
    try:
        os.kill(-1, sent)
    except ProcessLookupError:
        pass


def _processes() -> list[str]:
    """As the user: the PIDs of every process of ours but ourselves, by their /proc folder's
    owner, or where that is root's (an undumpable process's) by whether we may signal it."""
    found, uid, walker = [], os.getuid(), str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid or os.kill(int(pid), 0) is None:
                found.append(pid)
        except (FileNotFoundError, ProcessLookupError, PermissionError):  # ended, or not ours
            continue
    return [pid for pid in found if pid != walker]


def state(process: str) -> str:
    """The state letter of `process`, a /proc folder (X once it has ended)."""
    try:
        with open(f"{process}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return "X"


def listed() -> str:
    """As the user: the PIDs of all its processes, as a JSON list (`[]` where it has none)."""
    return json.dumps(_processes())


def stopped() -> str:
    """As the user: stop all its processes (each as it next leaves the kernel: wait up to ~50 ms
    for all to show it; none can fork meanwhile, a fork under way is stopped too); their PIDs,
    as a JSON list: `[]` where it has none, so that `as_user`'s None means a failure."""
    signal_all(signal.SIGSTOP)
    for _ in range(50):
        found = _processes()
        if all(state(f"/proc/{pid}") in STILL for pid in found):
            break
        time.sleep(0.001)
    return json.dumps(found)


def continued() -> int:
    """As the user: let all its processes go on."""
    signal_all(signal.SIGCONT)
    return 0
