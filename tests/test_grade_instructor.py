"""An instructor's run around the grading itself: what stops a run before it blames the
students for the instructor's machine."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from lib import data
from lib.grade import main
from lib.grading import reports, run_summary, store
from lib.grading.store import RecordStore
from lib.grading.submissions import Submission
from tests.test_grade_reports import record, rows

LESSON_1 = Path(__file__).resolve().parents[1] / "notebooks" / "01_unicode_and_utf8.ipynb"


def test_no_course_data_stops_the_run_before_any_student_is_graded(tmp_path, monkeypatch, capsys):
    def offline() -> None:
        raise data.DataUnavailableError(
            f"Could not get FLORES: it is not in the cache ({tmp_path})"
        )

    monkeypatch.setattr(data, "fetch_all", offline)
    shutil.copy(LESSON_1, tmp_path / "ann.ipynb")
    with pytest.raises(SystemExit):
        main([str(tmp_path / "ann.ipynb"), "--out", str(tmp_path / "out"), "--no-progress"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "the course data is not available (Could not get FLORES" in error
    assert "Nothing was graded" in error and "COURSE_DATA_MIRROR" in error
    assert not (tmp_path / "out" / "feedback").exists()


def test_a_resumed_run_counts_what_it_kept_apart_from_what_it_graded(tmp_path):
    earlier = record("ann", graded_at="2025-03-01T10:00:00+00:00")
    now = record("bob", graded_at="2025-03-02T10:00:05+00:00")
    printed = run_summary.summary([earlier, now], 5, tmp_path, since="2025-03-02T10:00:00+00:00")
    assert printed.startswith("2 submissions: 1 graded, 1 kept from an earlier run (unchanged), 0")


def test_an_empty_folder_writes_no_tables(tmp_path):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    assert not (tmp_path / "out").exists()


def test_the_grade_command_grades_a_folder_named_like_another_command(tmp_path, capsys):
    """`grade` names the command, so a class folder called `gradescope` is graded, not taken for
    the bundle builder; without the word, `python -m lib.grade FOLDER` grades as it always did."""
    (tmp_path / "gradescope").mkdir()
    out = str(tmp_path / "out")
    assert main(["grade", str(tmp_path / "gradescope"), "--out", out, "--no-progress"]) == 1
    assert "No notebooks (.ipynb) found in" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:
        main([])  # no command: argparse lists them and exits 2
    assert stopped.value.code == 2 and "COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize(
    "option, said",
    [
        (["--jobs", "-1"], "a whole number of notebooks, 1 or more"),
        (["--jobs", "0"], "a whole number of notebooks, 1 or more"),
        (["--cell-timeout", "-3"], "a number of seconds above 0"),
        (["--notebook-timeout", "nan"], "a number of seconds above 0"),
    ],
)
def test_a_count_or_a_limit_out_of_range_is_refused_before_grading(tmp_path, capsys, option, said):
    """`--jobs -1` divided /dev/shm's size by zero in every kernel's guard (red team round 15);
    a limit of 0 or less would stop every notebook, nan none."""
    (tmp_path / "class").mkdir()
    with pytest.raises(SystemExit) as stopped:
        main(["grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), *option])
    assert stopped.value.code == 2 and said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_same_file_copied_elsewhere_is_the_same_submission(tmp_path):
    store = RecordStore(tmp_path / "out", key=b"k" * 32)
    graded = record("ann", submission=str(tmp_path / "class" / "ann.ipynb"), sha256="1" * 64)
    store.add(graded)
    copied = Submission(tmp_path / "copy" / "ann.ipynb", "ann", "1" * 64)
    assert store.get(copied) == graded
    assert store.get(Submission(tmp_path / "copy" / "ann.ipynb", "bob", "1" * 64)) is None


def test_a_dropped_submission_leaves_the_tables_for_good(tmp_path):
    out, key = tmp_path / "out", b"k" * 32
    store = RecordStore(out, key=key)
    for name in ("ann", "bob"):
        store.add(record(name, submission=str(tmp_path / "class" / f"{name}.ipynb")))
    assert [r["student"] for r in store.drop(tmp_path / "class" / "bob.ipynb")] == ["bob"]
    again = RecordStore(out, key=key)  # the next run
    assert [r["student"] for r in again.all()] == ["ann"] and again.rejected == 0
    reports.write_all(out, again.all(), {}, charts=False)
    assert [t["student"] for t in rows(out / "totals.csv")] == ["ann"]


def test_graders_starting_at_once_share_one_whole_key(tmp_path, monkeypatch):
    """Two graders started together both found no key: one's O_EXCL create failed (the run
    stopped) or it read the other's file before a byte was written (an empty key)."""
    for attempt in range(20):
        monkeypatch.setenv(store.KEY_VAR, str(tmp_path / f"key-{attempt}"))
        keys, errors = _signing_keys_of_graders_starting_at_once(8)
        assert errors == [] and len(set(keys)) == 1 and len(keys[0]) == 32, (errors, keys)


def _signing_keys_of_graders_starting_at_once(count: int) -> tuple[list[bytes], list[OSError]]:
    start, keys, errors = threading.Barrier(count), [], []

    def grader() -> None:
        start.wait()
        try:
            keys.append(store.signing_key())
        except OSError as error:
            errors.append(error)

    threads = [threading.Thread(target=grader) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return keys, errors
