"""Every lesson, solved, graded as Gradescope grades it on its default hardware (0.5 CPU, 768 MB).

Run by `python tests/benchmark.py --only gradescope` (a few minutes: each lesson is a container of
its own, two at a time). Each solved lesson goes through the bundle's own `run_autograder`, in a
container emulated as in `test_gradescope_container`: /autograder laid out by bubblewrap, a
`bwrap` first on PATH that fails as Docker's does (so kernels run as an unprivileged user of their
own), and the whole run in a v1 cgroup pair standing for Gradescope's one cgroup per run: a CPU
quota of 50,000 us per 100,000 us and a 768 MB memory limit. For each lesson: wall time, time
held back by the CPU quota, peak memory of the whole run (the cgroup's high-water mark), times it
hit the memory limit, the score against the lesson's points and what each lost point's test said.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "grading_fixtures")]
os.environ["GRADER_FULL_NOTEBOOKS"] = "1"  # whole lessons, as students hand them in

from lesson_variants import variant  # noqa: E402

from lib.exercises import for_lesson  # noqa: E402
from lib.grading import memory_group  # noqa: E402
from lib.grading.submissions import read_notebook  # noqa: E402
from tests.test_gradescope import as_autograder, check_schema, unpacked_bundle  # noqa: E402
from tests.test_gradescope_container import DOCKER_BWRAP  # noqa: E402

CPU_V1 = Path("/sys/fs/cgroup/cpu")
QUOTA_US, PERIOD_US, MEMORY_MB = 50_000, 100_000, 768  # Gradescope's default: 0.5 CPU, 768 MB
JOIN = 'echo $$ > "$0/cgroup.procs" && echo $$ > "$1/cgroup.procs" && shift && exec "$@"'


def container_groups(name: str) -> tuple[Path, Path]:
    """A CPU group with Gradescope's quota and a memory group with its limit (v1, writable here)."""
    cpu = CPU_V1 / f"course-gradescope-{name}"
    cpu.mkdir()
    (cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
    (cpu / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
    memory = memory_group.make(f"gradescope-{name}", MEMORY_MB)
    if memory is None:
        cpu.rmdir()
        raise SystemExit("no memory cgroup can be made here: the Gradescope row needs one")
    return cpu, memory


def _remove(group: Path, seconds: float = 30) -> None:
    """Remove a cgroup once the last of its processes has gone (exiting ones keep it busy)."""
    end = time.monotonic() + seconds
    while True:
        try:
            group.rmdir()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


def one_lesson(path: Path, source: Path, env: dict[str, str], tmp: Path) -> dict:
    """Grade `path` solved in an emulated Gradescope container; its row."""
    notebook = read_notebook(path)
    lesson = notebook.metadata["course"]["lesson"]
    exercises = for_lesson(lesson)
    root = tmp / f"lesson{lesson}" / "autograder"
    shutil.copytree(source, root / "source")
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    (root / "results").mkdir()
    (root / "submission").mkdir()
    nbformat.write(variant(notebook, {e.name for e in exercises}), root / "submission" / path.name)
    command = as_autograder(root)
    command[0] = shutil.which("bwrap")  # the real one; the run itself finds the failing one
    cpu, memory = container_groups(f"{lesson}-{os.getpid()}")
    started = time.perf_counter()
    try:
        done = subprocess.run(
            ["sh", "-c", JOIN, str(cpu), str(memory), *command],
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        seconds = time.perf_counter() - started
        peak_mb = int((memory / "memory.max_usage_in_bytes").read_text()) / 2**20
        hits = int((memory / "memory.failcnt").read_text())
        throttled = dict(line.split() for line in (cpu / "cpu.stat").read_text().splitlines())
    finally:
        for group in (memory, cpu):
            _remove(group)
    if done.returncode != 0:
        log = (done.stdout + done.stderr)[-3000:]
        raise SystemExit(f"lesson {lesson}: run_autograder failed:\n{log}")
    results = json.loads((root / "results" / "results.json").read_text())
    check_schema(results)
    return {
        "lesson": lesson,
        "seconds": seconds,
        "peak_mb": peak_mb,
        "limit_hits": hits,
        "throttled_s": int(throttled.get("throttled_time", 0)) / 1e9,
        "score": results["score"],
        "points": float(sum(e.points for e in exercises)),
        "lost": [f"{t['name']}: {t['output'][:300]}" for t in results["tests"] if _lost(t)],
    }


def _lost(test: dict) -> bool:
    return "score" in test and test["score"] < test["max_score"]


def report() -> bool:
    """Print a row per lesson; False when a solved lesson did not earn full marks."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        source, env = unpacked_bundle(tmp)
        fake = tmp / "docker-bin"
        fake.mkdir()
        (fake / "bwrap").write_text(DOCKER_BWRAP)
        (fake / "bwrap").chmod(0o755)
        env["PATH"] = f"{fake}:{env['PATH']}"
        lessons = sorted((ROOT / "notebooks").glob("0[1-9]*.ipynb"))
        print(f"Gradescope default hardware: {QUOTA_US / PERIOD_US:g} CPU, {MEMORY_MB} MB per run")
        with ThreadPoolExecutor(2) as pool:
            rows = pool.map(lambda p: one_lesson(p, source, env, tmp), lessons)
            ok = all([_printed(row) for row in rows])  # every row printed, even after a failure
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return ok


def _printed(row: dict) -> bool:
    """Print a lesson's row as soon as it is known; False when it did not earn full marks or
    hit the memory limit."""
    full = row["score"] == row["points"]
    print(
        f"{'gradescope lesson ' + str(row['lesson']) + ' solved':46} {row['seconds']:6.0f} s "
        f"peak {row['peak_mb']:4.0f} MB  limit hits {row['limit_hits']}  throttled "
        f"{row['throttled_s']:5.1f} s  score {row['score']:g}/{row['points']:g}  "
        f"[{'ok' if full else 'FAILED'}]",
        flush=True,
    )
    for line in row["lost"]:
        print(f"    {line}", flush=True)
    return full and row["limit_hits"] == 0


if __name__ == "__main__":
    sys.exit(0 if report() else 1)
