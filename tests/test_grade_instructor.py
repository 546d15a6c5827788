"""An instructor's run around the grading itself: what stops a run before it blames the
students for the instructor's machine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lib import data
from lib.grade import main
from lib.grading import reports
from tests.test_grade_reports import record

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
    printed = reports.summary([earlier, now], 5, tmp_path, since="2025-03-02T10:00:00+00:00")
    assert printed.startswith("2 submissions: 1 graded, 1 kept from an earlier run (unchanged), 0")


def test_an_empty_folder_writes_no_tables(tmp_path):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    assert not (tmp_path / "out").exists()
