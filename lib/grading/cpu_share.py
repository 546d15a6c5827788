"""A CPU share per box, and telling whether the machine was busy when a time limit was hit.

Without a group of its own, every process counts alone for the CPU: a notebook running 200 busy
processes takes 200 shares and pushes a neighbour's cell past its time limit. Where the machine
lets the grader make a cgroup, each box's processes share one CPU weight, the same for every box,
so a box gets its fair part of the CPU however many processes it starts. In cgroup v1 the CPU
controller is a hierarchy of its own (a group beside the memory group); in a delegated v2 tree
the memory group holds the CPU controller too, and every group there weighs the same by default.

When a time limit is hit while the machine is contended, the grader says so (`contention`): a
run later, on a quieter machine, may pass.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from lib.grading.memory_group import own_path

V1 = Path("/sys/fs/cgroup/cpu")
SHARES = 1024  # every box the same: v1's default weight, that of one ordinary process
PRESSURE = Path("/proc/pressure/cpu")
BUSY_PERCENT = 50  # of the last 10 s, some runnable task waited for a CPU


def make(key: str, memory: Path | None = None) -> Path | None:
    """A CPU group of its own for a box named after `key` (v1), to join beside its memory group.
    None when there is nothing to join: v1's CPU hierarchy is not writable here, or `memory`
    (the box's v2 group) already holds the CPU controller."""
    if memory is not None and (memory / "cpu.weight").exists():
        return None  # v2: the box's one group weighs as much as any other
    group = V1 / own_path("cpu") / f"course-grader-{key}"
    with contextlib.suppress(OSError):
        group.mkdir()
        (group / "cpu.shares").write_text(str(SHARES))
        return group
    with contextlib.suppress(OSError):
        group.rmdir()
    return None


def shared(memory: Path | None, cpu: Path | None) -> bool:
    """Do a box's processes share one CPU weight (a v1 group, or v2's memory group)?"""
    return cpu is not None or (memory is not None and (memory / "cpu.weight").exists())


def contention() -> str:
    """Why the machine was busy just now, in words ("" when it was not): the share of the last
    10 s in which a runnable task waited for a CPU (Linux's pressure stall information), or else
    the load average against the CPUs we may use."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0]
    waited = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = dict(f.split("=") for f in PRESSURE.read_text().splitlines()[0].split()[1:])
        waited = float(fields["avg10"])
    busy = waited >= BUSY_PERCENT if waited is not None else load > (cores or 1)
    if not busy:
        return ""
    stalled = f"tasks waited for a CPU {waited:.0f}% of the last 10 s, " if waited else ""
    return f"the machine was busy ({stalled}load {load:.1f} on {cores} cores)"
