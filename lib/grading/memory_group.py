"""A memory cgroup per sandbox user: the cap on a box's memory as a whole.

`prlimit` caps each process, and a notebook can start many (a red-team notebook reached 6-8 GB
through several). Where the machine lets the grader make a cgroup (v1's memory hierarchy where it
is writable, or a v2 tree delegated to us with the memory controller), each sandbox user's kernels
run in a group of its own, made under the grader's own group so that any limit above still holds.
Where no group can be made, `make` returns None and only the per-process caps hold (the grader
says so).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

V1 = Path("/sys/fs/cgroup/memory")
V2 = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
JOIN = 'echo $$ > "$0/cgroup.procs" && exec "$@"'  # the shell joins the group, then is the box


def own_path(hierarchy: str) -> str:
    """Our own group's path in `hierarchy` ("memory" for v1, "" for v2), from /proc/self/cgroup."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == hierarchy or hierarchy in controllers.split(","):
            return path.lstrip("/")
    return ""


def _settings(limit_mb: int) -> list[tuple[Path, Path]]:
    """Candidate (group folder, file to write the limit in), v1 first."""
    name = "course-grader-{}"
    candidates = [(V1 / own_path("memory") / name, Path("memory.limit_in_bytes"))]
    candidates += [(root / own_path("") / name, Path("memory.max")) for root in V2]
    return candidates


def make(key: str, limit_mb: int) -> Path | None:
    """A fresh memory group named after `key`, capped at `limit_mb` (swap included where the
    machine counts it); None where none can be made here."""
    with contextlib.suppress(OSError):
        for folder, limit in _settings(limit_mb):
            group = Path(str(folder).format(key))
            with contextlib.suppress(OSError):
                group.mkdir()
                if not (group / limit).exists():  # v2 without the memory controller delegated
                    group.rmdir()
                    continue
                (group / limit).write_text(str(limit_mb * 2**20))
                for swap in ("memory.memsw.limit_in_bytes", "memory.swap.max"):
                    with contextlib.suppress(OSError):
                        (group / swap).write_text(str(limit_mb * 2**20) if "memsw" in swap else "0")
                return group
    return None


def joining(group: Path | None) -> list[str]:
    """The command prefix that puts a command in `group` (nothing without a group)."""
    return [] if group is None else ["sh", "-c", JOIN, str(group)]


def remove(group: Path | None) -> None:
    """Remove the group (its processes have been reaped)."""
    if group is not None:
        with contextlib.suppress(OSError):
            group.rmdir()


def available() -> bool:
    """Can a memory group be made here? (One is made and removed again.)"""
    group = make(f"probe-{os.getpid()}", 64)
    remove(group)
    return group is not None
