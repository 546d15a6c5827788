"""A CPU share per box: a notebook running many busy processes cannot starve a neighbour, and a
time limit hit while the machine is busy says so. Needs root, bwrap and a writable CPU cgroup
(v1 here); about 20 s, most of it two boxes spinning side by side.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from lib.grading import cpu_share, sandbox
from lib.grading.execute import Limits
from lib.grading.notebook import load_catalog
from lib.grading.one_submission import Settings, grade_one
from lib.grading.submissions import find_submissions

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(
        os.geteuid() != 0 or not shutil.which("bwrap"), reason="needs root and bubblewrap"
    ),
]
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "grading_fixtures"
SECONDS = 5  # how long both boxes spin side by side
# Many busy processes, each in a session of its own (as a daemon would be: Linux's autogroups
# would otherwise weigh the box's one session as one); the parent prints the CPU seconds they
# used together.
CROWD = f"""
import multiprocessing, os, time
def spin():
    os.setsid()
    end = time.monotonic() + {SECONDS}
    while time.monotonic() < end:
        pass
workers = [multiprocessing.Process(target=spin) for _ in range(40)]
for w in workers: w.start()
for w in workers: w.join()
times = os.times()
print(times.children_user + times.children_system)
"""
# One busy process; it prints the CPU seconds it got.
LONER = f"""
import time
end = time.monotonic() + {SECONDS}
while time.monotonic() < end:
    pass
print(time.process_time())
"""


def start_boxed(code: str, tmp: Path, user: sandbox.OwnUser) -> subprocess.Popen:
    """Python `code` started in a box of `user`'s, as a kernel would be."""
    work, runtime = tmp / "work", tmp / "runtime"
    work.mkdir(parents=True)
    runtime.mkdir()
    sandbox.give_to(user.uid, work, runtime)
    readonly = sandbox.readonly_paths((str(ROOT),))
    caps = sandbox.Caps()
    command = sandbox.command([sys.executable, "-c", code], work, runtime, readonly, caps, user.uid)
    env = sandbox.environment((str(ROOT),))
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)


def test_forty_busy_processes_in_one_box_leave_a_neighbour_its_share(tmp_path):
    crowd_user, loner_user = sandbox.OwnUser(), sandbox.OwnUser()
    try:
        if not (crowd_user.cpu_shared and loner_user.cpu_shared):
            pytest.skip("no CPU cgroup can be made here: each process weighs alone")
        crowd = start_boxed(CROWD, tmp_path / "crowd", crowd_user)
        time.sleep(1)  # the crowd is spinning before the loner starts
        loner = start_boxed(LONER, tmp_path / "loner", loner_user)
        crowd_cpu = float(crowd.communicate(timeout=120)[0])
        loner_cpu = float(loner.communicate(timeout=120)[0])
    finally:
        crowd_user.release()
        loner_user.release()
    # Without a group per box each of the 41 sessions weighs the same: the loner gets about
    # 1/40 of the crowd's CPU (0.03 measured with `cpu_share.make` returning None). With one
    # weight per box it gets about as much as the whole crowd (0.5 measured: the crowd's group
    # may use both CPUs). A quarter leaves room for the noise of a shared machine.
    assert loner_cpu > crowd_cpu / 4, (loner_cpu, crowd_cpu)


def _spin_forever() -> None:
    while True:
        pass


def test_a_time_limit_hit_on_a_busy_machine_says_the_machine_was_busy(tmp_path):
    sys.path.insert(0, str(FIXTURES))
    from toy_class import SOLVED, toy

    notebook = toy(**SOLVED, before=["while True:\n    pass"])
    nbformat.write(notebook, tmp_path / "looper.ipynb")
    (submission,) = find_submissions([tmp_path / "looper.ipynb"])
    settings = Settings(
        limits=Limits(cell=3, notebook=60),
        registry="toy_exercises",
        import_paths=(str(ROOT), str(FIXTURES)),
        catalog=load_catalog("toy_exercises"),
    )
    # The machine made busy on purpose: three spinning processes per CPU, for this test only.
    spinners = [multiprocessing.Process(target=_spin_forever) for _ in range(3 * os.cpu_count())]
    for spinner in spinners:
        spinner.start()
    user = sandbox.OwnUser()
    try:
        time.sleep(3)  # long enough for the pressure's 10 s average to pass its mark
        assert cpu_share.contention(), "the spinners did not make the machine busy"
        record = asyncio.run(grade_one(submission, settings, user.uid))
    finally:
        for spinner in spinners:
            spinner.kill()
        user.release()
    (event,) = [e for e in record["events"] if "interrupted" in e]
    assert "while the machine was busy" in event, record["events"]
    assert "a run on a quieter machine may pass" in event
