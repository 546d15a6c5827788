"""A CPU share per box: a notebook running many busy processes cannot starve a neighbour, a time
limit hit while the machine is busy says so, and the run's summary names the share only where it
held. Needs root, bwrap and a writable CPU cgroup (v1 here; the v2 path is tested against a v2
group laid out in a folder); about 35 s, most of it two boxes spinning side by side.
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

from lib.grading import cpu_share, memory_group, protections, run_summary, sandbox
from lib.grading.grading_job import Limits
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
        # The pressure's 10 s average climbs gradually from a quiet start: wait for it to pass
        # its mark (3 s sufficed under load, not on an idle machine), with a deadline.
        deadline = time.monotonic() + 30
        while not cpu_share.contention() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert cpu_share.contention(), "the spinners did not make the machine busy in 30 s"
        record = asyncio.run(grade_one(submission, settings, user.uid))
    finally:
        for spinner in spinners:
            spinner.kill()
        user.release()
    (event,) = [e for e in record["events"] if "interrupted" in e]
    assert "while the machine was busy" in event, record["events"]
    assert "a run on a quieter machine may pass" in event


def test_the_run_summary_names_the_cpu_share_only_where_it_held(tmp_path, monkeypatch):
    sys.path.insert(0, str(FIXTURES))
    from toy_class import SOLVED, toy

    nbformat.write(toy(**SOLVED), tmp_path / "ann.ipynb")
    (submission,) = find_submissions([tmp_path / "ann.ipynb"])
    settings = Settings(
        registry="toy_exercises",
        import_paths=(str(ROOT), str(FIXTURES)),
        catalog=load_catalog("toy_exercises"),
    )
    shared_user = sandbox.OwnUser()
    monkeypatch.setattr(cpu_share, "make", lambda key, memory=None: None)  # as where none can be
    alone_user = sandbox.OwnUser()
    try:
        if not shared_user.cpu_shared:
            pytest.skip("no CPU cgroup can be made here: each process weighs alone")
        record = asyncio.run(grade_one(submission, settings, shared_user.uid))
        alone = protections.held(True, True, alone_user.uid)
    finally:
        shared_user.release()
        alone_user.release()
    assert [e["score"] for e in record["exercises"]] == [2.0, 1.0]
    assert protections.CPU in record["protections"] and protections.CPU not in alone
    said = "one CPU share per kernel, however many processes it starts"
    assert said in run_summary.summary([record], 1, tmp_path)
    # One notebook without it, and the run no longer claims it: it says what held instead.
    other = {**record, "protections": alone}
    text = run_summary.summary([record, other], 1, tmp_path)
    assert said not in text and "each process weighs alone for the CPU (no CPU cgroup)" in text


def test_in_a_cgroup_v2_tree_a_box_joins_one_group_that_weighs_for_the_cpu_too(
    tmp_path, monkeypatch
):
    """cgroup v2 puts every controller in one group: where the box's memory group holds
    `cpu.weight`, that group is its CPU share too, and no v1 group is made or joined. This
    machine has v1 (a cgroup2 mount here gets no cpu or memory controller: both are bound to v1
    hierarchies other graders use), so the v2 group is a folder laid out as the kernel lays
    one out: what is tested is the grader's side, not the kernel's weighing."""
    v1 = tmp_path / "v1-cpu"
    v1.mkdir()
    monkeypatch.setattr(cpu_share, "V1", v1)  # writable: a v1 group made here would show
    monkeypatch.setattr(memory_group, "make", _v2_memory_group(tmp_path, cpu=True))
    user = sandbox.OwnUser()
    try:
        (group,) = sandbox.kernel_users.groups_of(user.uid)
        assert user.memory_capped and user.cpu_shared and list(v1.iterdir()) == []
        assert protections.CPU in protections.held(True, True, user.uid)
        work = tmp_path / "work"
        work.mkdir()
        command = sandbox.command(
            ["sh", "-c", "echo $$"], work, work, [], sandbox.Caps(), user.uid, boxed=False
        )
        joining = memory_group.joining(group)  # after the /dev/shm guard where a fence runs:
        at = next(i for i in range(len(command)) if command[i : i + 4] == joining)
        guard = command[:at]  # where it runs, the guard's own text and its arguments, then `--`
        assert guard == [] or (
            guard[:4] == [sys.executable, "-I", "-S", "-c"] and guard[-1] == "--"
        )
        assert command.count("sh") == 2
        ran = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True)
        joined = int((group / "cgroup.procs").read_text())  # the shell wrote its pid there,
        assert joined == int(ran.stdout)  # then became the kernel: the same process
    finally:
        user.release()


def test_in_a_cgroup_v2_tree_without_the_cpu_controller_no_share_is_claimed(tmp_path, monkeypatch):
    """A v2 tree may delegate memory and not cpu: the memory group then has no `cpu.weight`,
    and on a v2-only machine there is no v1 CPU hierarchy either."""
    monkeypatch.setattr(cpu_share, "V1", tmp_path / "no-v1-here")
    monkeypatch.setattr(memory_group, "make", _v2_memory_group(tmp_path, cpu=False))
    user = sandbox.OwnUser()
    try:
        assert user.memory_capped and not user.cpu_shared
        assert protections.held(True, True, user.uid) == [
            protections.BOX,
            protections.OWN_USER,
            protections.MEMORY,
        ]
    finally:
        user.release()


def _v2_memory_group(tmp_path: Path, cpu: bool):
    """A stand-in for `memory_group.make` in a v2 tree: the group as a folder holding the files
    the kernel puts in one (`cpu.weight` only where the cpu controller is delegated)."""

    def make(key: str, limit_mb: int) -> Path:
        group = tmp_path / "v2" / f"course-grader-{key}"
        group.mkdir(parents=True)
        files = {"memory.max": str(limit_mb * 2**20), "cgroup.procs": ""}
        for name, value in {**files, **({"cpu.weight": "100"} if cpu else {})}.items():
            (group / name).write_text(value)
        return group

    return make
