"""Each working copy on a filesystem of its own, limited in size and files (`scratch_disk`): a
notebook making 60,000 empty files, or one big one, runs out of room in its own copy, its other
work is still graded, and nothing of it is left mounted, even by a grader killed mid-run. Needs
root (to mount); about 30 s.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from lib.grading import scratch_disk
from lib.grading.grading_job import Limits
from lib.grading.notebook import load_catalog
from lib.grading.one_submission import Settings, grade_one
from lib.grading.submissions import find_submissions

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to mount a tmpfs"),
]
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "grading_fixtures"
MANY_FILES = "import os\nfor i in range(60_000):\n    open(f'empty{i}', 'w').close()"
BIG_FILE = "with open('big', 'wb') as f:\n    for _ in range(40):\n        f.write(bytes(2**20))"


def _mounted(pid: int | None = None) -> list[str]:
    """The working copies' mounts that grader `pid` made (this one by default)."""
    mounts = Path("/proc/mounts").read_text().splitlines()
    return [line for line in mounts if line.startswith(f"course-grade-{pid or os.getpid()}-")]


def toy_settings(**changes) -> Settings:
    return Settings(
        registry="toy_exercises",
        import_paths=(str(ROOT), str(FIXTURES)),
        catalog=load_catalog("toy_exercises"),
        **changes,
    )


def test_a_notebook_runs_out_of_files_and_room_in_its_own_copy_and_is_still_graded(
    tmp_path, monkeypatch
):
    sys.path.insert(0, str(FIXTURES))
    from toy_class import SOLVED, toy

    nbformat.write(toy(**SOLVED, before=[MANY_FILES, BIG_FILE]), tmp_path / "filler.ipynb")
    (submission,) = find_submissions([tmp_path / "filler.ipynb"])
    # The limit is the working copy's own, with or without the box.
    settings = toy_settings(limits=Limits(cell=60, notebook=120), sandboxed=False)
    before = _mounted()
    monkeypatch.setattr(scratch_disk, "SIZE_MB", 32)  # a 32 MB disk: the 40 MB file overflows it
    record = asyncio.run(grade_one(submission, settings))
    full = [e for e in record["events"] if "No space left on device" in e]
    assert len(full) == 2, record["events"]  # the 60,000 files, then the 40 MB file
    assert [e["score"] for e in record["exercises"]] == [2.0, 1.0], record
    assert _mounted() == before


# A grader (the same code a class run uses) busy with a notebook that sleeps: killed meanwhile.
SLOW_GRADER = f"""
import asyncio, sys
sys.path[:0] = [{str(ROOT)!r}, {str(FIXTURES)!r}]
from tests.test_scratch_disk import toy_settings
from lib.grading.one_submission import grade_one
from lib.grading.submissions import find_submissions
(submission,) = find_submissions([sys.argv[1]])
asyncio.run(grade_one(submission, toy_settings(sandboxed=False)))
"""


def test_a_grader_killed_mid_run_leaves_no_mount_once_another_grades(tmp_path):
    """Killed (SIGKILL: the OOM killer, a closed terminal), a grader cannot unmount its working
    copy's tmpfs, and each held up to 1 GB of the machine's memory until a reboot. The next
    grader, at its first working copy, unmounts the mounts of graders that are gone, and no one
    else's (this one's stays mounted until removed)."""
    sys.path.insert(0, str(FIXTURES))
    from toy_class import SOLVED, toy

    nbformat.write(toy(**SOLVED, before=["import time\ntime.sleep(300)"]), tmp_path / "slow.ipynb")
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # its copies, and its kernel's, in tmp_path
    grader = subprocess.Popen(
        [sys.executable, "-c", SLOW_GRADER, str(tmp_path / "slow.ipynb")], env=env
    )
    try:
        for _ in range(1200):
            if _mounts_in(tmp_path) or grader.poll() is not None:
                break
            time.sleep(0.05)
        assert _mounts_in(tmp_path), "the grader never mounted its working copy"
    finally:
        grader.send_signal(signal.SIGKILL)
        grader.wait()
        _kill_processes_in(tmp_path)  # its kernel, still sleeping in the copy
    stale = _mounts_in(tmp_path)
    assert stale  # a dead grader's mount, as a killed one left it
    copies = [tmp_path / "next", tmp_path / "after"]  # another grader's, each mount sweeping
    for copy in copies:
        copy.mkdir()
        assert scratch_disk.mount(copy)
    try:
        assert _mounts_in(tmp_path) == copies, "the killed grader's tmpfs is still mounted"
        assert not any(folder.exists() for folder in stale)
    finally:
        for copy in copies:
            scratch_disk.remove(copy)


def _mounts_in(folder: Path) -> list[Path]:
    """The mount points in `folder`."""
    mounts = [Path(line.split()[1]) for line in Path("/proc/mounts").read_text().splitlines()]
    return [point for point in mounts if point.is_relative_to(folder)]


def _kill_processes_in(folder: Path) -> None:
    """Kill every process whose working folder lies in `folder`."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass
