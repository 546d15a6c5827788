"""A hostile class, graded as an instructor would: honest students, one attacker per known way of
cheating or breaking the grader, and a canary graded after them. What must hold: honest and canary
scores exactly right, no attacker earns anything it did not earn honestly, nothing outside `--out`
changes (lib included), no process survives, resume and --retry-failed agree with a fresh run,
and every broken input has its row.

SLOW-ISH (about a minute on 2 cores): one kernel per submission, each in a bubblewrap sandbox.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell
from processes import still_running

from lib.grade import Limits, grade_submissions
from lib.grading import sandbox

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

pytestmark = pytest.mark.end_to_end  # a class graded: see pyproject's markers

SECRET = "s3cret-token-of-the-instructor"
TOY = {"registry": "toy_exercises", "import_paths": (str(ROOT), str(FIXTURES)), "progress": False}
LIMITS = Limits(cell=4, notebook=40, probe=2)


def attackers(out: Path, private: Path) -> dict[str, nbformat.NotebookNode]:
    """One notebook per attack; none should earn more than its honest part (shout, 1 point)."""
    shout = {"shout": SOLVED["shout"]}
    marker = (
        "k = get_ipython().kernel\n"
        "parent = k.get_parent('shell') or {}\n"
        "from IPython.display import publish_display_data\n"
        "fake = {'marker': 'x', 'exercise': 'double', 'outcomes': [{'returned': 7}] * 4}\n"
        "publish_display_data({'application/vnd.tokenization-course.grade+json': fake})"
    )
    # A cell no graded function reaches swaps `double` (read as wrong) for a right one, from a
    # string or in place: the grader runs only the `double` it read, in a kernel of its own.
    wrong = "def double(x):\n    return [x, x]"
    swaps = {
        "cprofile_swap": "import cProfile\ncProfile.run('double = lambda x: 2 * x')",
        "pdb_swap": "import io, pdb\n"
        "pdb.Pdb(stdin=io.StringIO('c\\n'), stdout=io.StringIO()).run('double = lambda x: x * 2')",
        "function_type_swap": "import sys, types\nsys.modules['__main__'].__dict__['double'] = "
        "types.FunctionType((lambda x: 2 * x).__code__, {})",
        "code_swap": "import sys\n"
        "sys.modules['__main__'].double.__code__ = (lambda x: 2 * x).__code__",
    }
    return {
        **{name: toy(wrong, **shout, after=[swap]) for name, swap in swaps.items()},
        "eq_true": toy(
            "class Yes:\n    def __eq__(self, o):\n        return True\n"
            "def double(x):\n    return Yes()",
            **shout,
        ),
        "int_subclass": toy(
            "class Int(int):\n    def __eq__(self, o):\n        return True\n"
            "    __hash__ = int.__hash__\ndef double(x):\n    return Int(0)",
            **shout,
        ),
        "marker_thief": toy(before=[marker], **shout),
        "lib_editor": toy(
            before=[
                f"open({str(ROOT / 'lib/exercises/core.py')!r}, 'a').write('\\nBROKEN = 1\\n')"
            ],
            **shout,
        ),
        "record_forger": toy(
            before=[
                f"open({str(out / 'records.jsonl')!r}, 'a').write('{{\"student\": \"x\"}}\\n')"
            ],
            **shout,
        ),
        "survivor": toy(
            before=[
                "import subprocess\nsubprocess.Popen(['setsid', 'sh', '-c', "
                f"'sleep 60; echo HACKED > {out}/totals.csv'])"
            ],
            **shout,
        ),
        "wrapper": toy("def double(x):\n    from lib import bpe\n    return 2 * x", **shout),
        "pip": toy(before=["!pip install tqdm==4.66.1"], **shout),
        "env_thief": toy(
            "import os\ndef double(x):\n    return os.environ.get('SECRET_TOKEN', 'none')",
            **shout,
        ),
        "reader": toy(
            f"def double(x):\n    return open({str(private)!r}).read()",
            **shout,
        ),
        "memory_hog": toy(before=["hog = bytearray(8 * 2**30)"], **shout),
        "fork_bomb": toy(
            before=[
                "import os, time\nfor _ in range(5000):\n    if os.fork() == 0:\n"
                "        time.sleep(30)\n        os._exit(0)"
            ],
            **shout,
        ),
    }


def write_class(folder: Path, out: Path, private: Path) -> None:
    folder.mkdir()
    nbformat.write(toy(**SOLVED, answer="Because."), folder / "alice.ipynb")
    for name, notebook in attackers(out, private).items():
        nbformat.write(notebook, folder / f"{name}.ipynb")
    mislabelled = toy(**SOLVED, lesson=7)
    mislabelled.cells.append(new_markdown_cell("**Your answer:** and one more thought"))
    nbformat.write(mislabelled, folder / "mislabelled.ipynb")
    surrogate = json.dumps(nbformat.v4.new_notebook(cells=toy(**SOLVED).cells))
    surrogate = surrogate.replace("**Your answer:** ", "**Your answer:** \\ud800 broken")
    (folder / "surrogate.ipynb").write_text(surrogate)
    nbformat.write(toy(**SOLVED), os.fsdecode(bytes(folder) + b"/jos\xe9.ipynb"))
    (folder / "broken.ipynb").write_text("{not json")
    (folder / "huge.ipynb").write_bytes(b" " * (65 * 2**20))
    (folder / "link_to_alice.ipynb").symlink_to(folder / "alice.ipynb")
    (folder / "link_to_secret.ipynb").symlink_to(private)
    nbformat.write(toy(**SOLVED), folder / "zz_canary.ipynb")  # graded after the attackers


def tree(folder: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded once, two at a time: attackers run side by side, and each of the two
    slots' sandbox users grades one notebook after another, so every kernel but the first two
    (the canary's included) runs as a user an attacker used just before it."""
    base = tmp_path_factory.mktemp("hostile")
    out, private = base / "out", base / "private.txt"
    private.write_text(SECRET)
    write_class(base / "class", out, private)
    lib_before = tree(ROOT / "lib")
    tqdm_before = importlib.metadata.version("tqdm")
    os.environ["SECRET_TOKEN"] = SECRET
    try:
        records = grade_submissions([base / "class"], out, limits=LIMITS, jobs=2, **TOY)
    finally:
        del os.environ["SECRET_TOKEN"]
    return base, out, {r["student"]: r for r in records}, lib_before, tqdm_before


def scores(record: dict) -> list[float]:
    return [e["score"] for e in record["exercises"]]


def test_honest_students_and_the_canary_get_exactly_their_marks(graded):
    records = graded[2]
    assert scores(records["alice"]) == scores(records["zz_canary"]) == [2.0, 1.0]
    assert scores(records["jos�"]) == scores(records["surrogate"]) == [2.0, 1.0]


@pytest.mark.parametrize("attacker", sorted(attackers(Path("/x"), Path("/y"))))
def test_no_attacker_earns_what_it_did_not_earn_honestly(graded, attacker):
    record = graded[2][attacker]
    assert scores(record) == [0.0, 1.0], record  # only the honest shout


def test_reasons_say_what_was_found(graded):
    records = graded[2]
    assert "not plain data" in records["eq_true"]["exercises"][0]["reason"]
    assert records["wrapper"]["exercises"][0]["status"] == "not own code"
    assert "MemoryError" in records["memory_hog"]["events"][0]
    assert "lib" in records["wrapper"]["exercises"][0]["reason"]


def test_nothing_outside_out_changed_and_nothing_survived(graded):
    base, out, _, lib_before, tqdm_before = graded
    assert tree(ROOT / "lib") == lib_before
    assert importlib.metadata.version("tqdm") == tqdm_before
    # The setsid one sleeps a minute before it writes: alive now, it outlived its box. (It
    # slept 6 s behind a 7 s wait here before, so that it was gone, caught or not.)
    assert not still_running(str(out), seconds=10)
    assert sandbox.leftovers() == []
    for report in out.rglob("*"):
        if report.is_file() and report.suffix in {".csv", ".md", ".html", ".jsonl"}:
            assert SECRET not in report.read_text(encoding="utf-8"), report


def test_broken_inputs_get_one_row_each(graded):
    records = graded[2]
    assert records["broken"]["outcome"] == "unreadable"
    assert records["huge"]["outcome"] == "unreadable" and "64 MB" in records["huge"]["note"]
    for link in ("link_to_alice", "link_to_secret"):
        assert records[link]["outcome"] == "refused" and records[link]["exercises"] == []
    assert "\ufffd broken" in records["surrogate"]["answers"]["why"]


def test_content_decides_the_lesson_and_added_answers_are_kept(graded):
    record = graded[2]["mislabelled"]
    assert (record["lesson"], scores(record)) == (1, [2.0, 1.0])
    assert "metadata says lesson 7" in record["note"]
    assert record["answers"]["why"].endswith("and one more thought")


def test_resume_ignores_forged_lines_and_agrees_with_the_fresh_run(graded):
    base, out, records, *_ = graded
    with (out / "records.jsonl").open("a") as file:
        file.write(json.dumps({"record": json.dumps({"student": "alice"}), "hmac": "0" * 64}))
    again = grade_submissions([base / "class"], out, limits=LIMITS, **TOY)
    assert {r["student"]: scores(r) for r in again} == {s: scores(r) for s, r in records.items()}


def test_retry_failed_regrades_time_outs_and_other_folders_add_rows(tmp_path):
    slow = toy(
        "import time\ndef double(x):\n    time.sleep(0.4)\n    return 2 * x", SOLVED["shout"]
    )
    (tmp_path / "a").mkdir()
    nbformat.write(slow, tmp_path / "a" / "slow.ipynb")
    fast = {"limits": Limits(cell=1, notebook=30, probe=2), **TOY}
    (first,) = grade_submissions([tmp_path / "a"], tmp_path / "out", **fast)
    assert first["exercises"][0]["status"] in {"timeout", "failed", "error"}
    (kept,) = grade_submissions([tmp_path / "a"], tmp_path / "out", limits=LIMITS, **TOY)
    assert kept == first  # resumed: not graded again
    (retried,) = grade_submissions(
        [tmp_path / "a"], tmp_path / "out", limits=LIMITS, retry_failed=True, **TOY
    )
    assert scores(retried) == [2.0, 1.0]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "other.ipynb").write_text("{not json")  # a row, with no kernel to start
    (other,) = grade_submissions([tmp_path / "b"], tmp_path / "out", limits=LIMITS, **TOY)
    assert other["outcome"] == "unreadable"
    totals = (tmp_path / "out" / "totals.csv").read_text()
    assert "slow" in totals and "other" in totals


def test_process_pools_run_in_the_box_and_its_memory_folders_are_small(tmp_path, monkeypatch):
    """Lesson 8 trains with two worker processes: their locks need a writable /dev/shm (bwrap's
    own is root's and read-only to the kernel's user). The box's /dev/shm and /tmp live in the
    machine's memory: each is the box's own and capped (here at 8 MB, to test it quickly)."""
    monkeypatch.setattr(sandbox, "SHM_MB", 8)
    monkeypatch.setattr(sandbox, "TMP_MB", 8)
    code = (
        "import multiprocessing, os\n"
        "with multiprocessing.Pool(2) as pool:\n"
        "    print(pool.map(abs, [-1, -2, 3]))\n"
        "for folder in ('/dev/shm', '/tmp'):\n"
        "    try:\n"
        "        with open(folder + '/big', 'wb') as f:\n"
        "            f.write(bytes(16 * 2**20))\n"
        "    except OSError as error:\n"
        "        print(folder, 'full:', error.strerror)\n"
    )
    work, runtime = tmp_path / "work", tmp_path / "runtime"
    work.mkdir()
    runtime.mkdir()
    user = sandbox.OwnUser()
    try:
        sandbox.give_to(user.uid, work, runtime)
        readonly = sandbox.readonly_paths((str(ROOT),))
        boxed = sandbox.command(
            [sys.executable, "-c", code], work, runtime, readonly, sandbox.Caps(), user.uid
        )
        done = subprocess.run(boxed, capture_output=True, text=True, timeout=60)
    finally:
        user.release()
    assert done.stdout.splitlines() == [
        "[1, 2, 3]",
        "/dev/shm full: No space left on device",
        "/tmp full: No space left on device",
    ], done.stderr
