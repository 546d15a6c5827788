"""Each working copy on a filesystem of its own, limited in size and files (`scratch_disk`): a
notebook making 60,000 empty files, or one big one, runs out of room in its own copy, its other
work is still graded, and nothing of it is left mounted. Needs root (to mount); about 20 s.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import nbformat
import pytest

from lib.grading import scratch_disk
from lib.grading.execute import Limits
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


def _mounted() -> list[str]:
    mounts = Path("/proc/mounts").read_text().splitlines()
    return [line for line in mounts if line.startswith("course-grade ")]


def test_a_notebook_runs_out_of_files_and_room_in_its_own_copy_and_is_still_graded(
    tmp_path, monkeypatch
):
    sys.path.insert(0, str(FIXTURES))
    from toy_class import SOLVED, toy

    nbformat.write(toy(**SOLVED, before=[MANY_FILES, BIG_FILE]), tmp_path / "filler.ipynb")
    (submission,) = find_submissions([tmp_path / "filler.ipynb"])
    settings = Settings(
        limits=Limits(cell=60, notebook=120),
        registry="toy_exercises",
        import_paths=(str(ROOT), str(FIXTURES)),
        catalog=load_catalog("toy_exercises"),
        sandboxed=False,  # the limit is the working copy's own, with or without the box
    )
    before = _mounted()
    monkeypatch.setattr(scratch_disk, "SIZE_MB", 32)  # a 32 MB disk: the 40 MB file overflows it
    record = asyncio.run(grade_one(submission, settings))
    full = [e for e in record["events"] if "No space left on device" in e]
    assert len(full) == 2, record["events"]  # the 60,000 files, then the 40 MB file
    assert [e["score"] for e in record["exercises"]] == [2.0, 1.0], record
    assert _mounted() == before
