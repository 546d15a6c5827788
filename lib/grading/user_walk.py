"""Looking into a sandbox user's processes from the root guard (`shm_guard`), for what only their
descriptors can tell: files without a name in /dev/shm (`shm_holders`), ptys whose entry is
gone (`user_ptys`), netlink sockets' queues (`netlink_queues`).

A look for files in /dev/shm holds the user still (`user_freeze`), so that no file hops to a
process born after the list of its processes was made; one for netlink sockets or ptys does
not: a descriptor in flight in a unix socket's message hides from any look (no process holds
it), so holding still would not close what passing one between processes opens, and stopping
an honest kernel once a second (where the machine's other ptys are many) would slow it. A look
reads the processes as root where root may (CAP_SYS_PTRACE), else as the user: a process may
read its own user's dumpable processes (Docker's root may not read another user's). Where it
cannot say, the caller is told why, and charges a bound instead.

A look is costly (the user stopped, its descriptors read): a guard makes one only while what
no cheap count can tell could put the user past a cap, and lets its answer stand up to
`WALK_EVERY` while what appeared since leaves the user under that cap (`Walked`): a hoarder at
its cap must not have every neighbour stopped and looked into at every check.

Only the standard library: `sandbox` runs this file's source after its helpers'.
"""

import json
import time
from collections.abc import Callable

if __name__ != "__main__":  # run as `-c`, `sandbox` puts its helpers' source ahead of ours
    from lib.grading.shm_walk import BUDGET, TooLong
    from lib.grading.user_freeze import as_user, listed, stopped

WALK_EVERY = 1.0  # seconds: how long a walk's answer stands while little appears beside it
# Why a look cannot say exactly what a user holds, as a guard's stop message says it.
WHY_UNREAD = "one of its processes could not be read (it made itself undumpable)"
WHY_TOO_MANY = f"its processes held more than {BUDGET:,} descriptors"
WHY_UNLINKED = "a link of its processes could not be read"
WHY_UNLISTED = "its processes could not be listed"


class Walked:
    """What a guard's last look into its user's processes found: when, what no cheap count
    could place then (anyone's), the user's own of it, and why that is only a bound."""

    def __init__(self, size: int = 2) -> None:
        self.at, self.hidden, self.own, self.why = -WALK_EVERY, (0,) * size, (0,) * size, ""

    def bound(self, hidden: tuple[int, ...]) -> tuple[int, ...]:
        """At most what the user holds of `hidden` now, if it held `own` then: all that
        appeared since may be its (something swapped for a neighbour's freed one is not seen
        until the next look, at most `WALK_EVERY` later)."""
        return tuple(
            own + max(now - then, 0)
            for own, now, then in zip(self.own, hidden, self.hidden, strict=True)
        )

    def held(
        self,
        hidden: tuple[int, ...],
        fits: Callable[[tuple[int, ...]], bool],
        look: Callable[[], tuple[tuple[int, ...], str]],
    ) -> tuple[tuple[int, ...], str]:
        """The user's own of `hidden` and why it is a bound (''): the last look's `bound`
        while it is recent and `fits` the user's caps, else `look()`'s answer, kept."""
        own = self.bound(hidden)
        if not (time.monotonic() - self.at < WALK_EVERY and fits(own)):
            own, self.why = look()
            self.at, self.hidden, self.own = time.monotonic(), hidden, own
        return own, self.why


def _answered(look: Callable[[list[str]], object], pids: list[str]) -> str:
    """`look(pids)`'s answer as JSON text, or why it cannot say (a JSON string)."""
    try:
        return json.dumps(look(pids))
    except PermissionError:
        return json.dumps(WHY_UNREAD)
    except TooLong:
        return json.dumps(WHY_TOO_MANY)
    except OSError:
        return json.dumps(WHY_UNLINKED)


def looked(uid: int, look: Callable[[list[str]], object], still: bool = True) -> object:
    """`look` at the PIDs of every process of `uid`, stopped first if `still` (the caller lets
    them go on: `user_freeze.continued`): as root, else as the user; its answer (anything JSON
    holds but a string), or why it cannot say (one of the `WHY_` strings)."""
    found = as_user(uid, stopped if still else listed)
    if found is None:  # the child that lists them raised or was killed
        return WHY_UNLISTED
    pids = json.loads(found)
    told = _answered(look, pids)
    if json.loads(told) == WHY_UNREAD:
        told = as_user(uid, lambda: _answered(look, pids)) or json.dumps(WHY_UNLISTED)
    return json.loads(told)
