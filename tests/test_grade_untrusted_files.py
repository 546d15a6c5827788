"""What the grader does with a student's files before any kernel, where no sandbox limit holds:
it must be bounded work, done off the event loop. A named pipe called `lesson1.ipynb`, a
notebook of 20 million empty lists, 40,000 lines of `x: int` and a folder of too many files each
cost their own row, quickly, and never stall the class.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from lib.grade import Limits, grade_submissions
from lib.grading import prepare
from lib.grading.notebook import identify_lesson, load_catalog
from lib.grading.prepare import TooManyFiles, working_copy
from lib.grading.submissions import UnreadableNotebook, find_submissions, read_notebook

FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def grade_toy_class(folder: Path, out: Path) -> list[dict]:
    """Grade `folder` of toy-lesson notebooks as an instructor would, with short limits."""
    return grade_submissions(
        [folder],
        out,
        limits=Limits(cell=4, notebook=40, probe=2),
        registry="toy_exercises",
        import_paths=(str(ROOT), str(FIXTURES)),
        progress=False,
    )


def within(seconds: float, work, *args):
    """`work(*args)`, failing the test (instead of hanging it) past `seconds`."""
    done: list = []

    def run() -> None:
        try:
            done.append((work(*args), None))
        except Exception as error:
            done.append((None, error))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"{work.__name__} still running after {seconds} s"
    result, error = done[0]
    if error is not None:
        raise error
    return result


def test_a_named_pipe_is_refused_without_being_opened_for_a_writer(tmp_path):
    (tmp_path / "ann").mkdir()
    os.mkfifo(tmp_path / "ann" / "lesson1.ipynb")
    os.mkfifo(tmp_path / "bob.ipynb")
    found = within(10, find_submissions, [tmp_path])
    assert sorted(s.student for s in found) == ["ann", "bob"]
    assert all("not a regular file" in s.refused for s in found)
    with pytest.raises(UnreadableNotebook, match="not a regular file"):
        within(10, read_notebook, tmp_path / "bob.ipynb")


def test_a_student_folder_is_copied_without_pipes_and_within_a_file_count(tmp_path, monkeypatch):
    folder = tmp_path / "ann"
    folder.mkdir()
    nbformat.write(toy(**SOLVED), folder / "lesson.ipynb")
    os.mkfifo(folder / "pipe")
    [submission] = find_submissions([tmp_path])
    work = within(10, working_copy, submission, tmp_path / "copy")
    assert sorted(p.name for p in work.iterdir()) == ["lesson.ipynb"]
    for i in range(20):
        (folder / f"empty{i}").touch()
    monkeypatch.setattr(prepare, "MAX_FILES", 10)
    with pytest.raises(TooManyFiles, match="more than 10 files"):
        working_copy(submission, tmp_path / "again")
    # Folders within folders: each level of the copy holds a descriptor open.
    deep = folder / "d"
    for _ in range(40):
        deep.mkdir()
        deep = deep / "d"
    monkeypatch.setattr(prepare, "MAX_FILES", 10_000)
    with pytest.raises(TooManyFiles, match="more than 32 folders deep"):
        working_copy(submission, tmp_path / "deep")


def test_twenty_million_empty_lists_are_refused_by_count_not_decoded(tmp_path):
    path = tmp_path / "lists.ipynb"
    path.write_bytes(b'{"cells": [' + b"[]," * 20_000_000 + b'[]], "metadata": {}}')
    started = time.monotonic()
    with pytest.raises(UnreadableNotebook, match="more than 1,000,000 lists"):
        read_notebook(path)
    assert time.monotonic() - started < 5


def test_lesson_detection_is_linear_in_the_code():
    notebook = toy(**SOLVED)
    notebook.cells.append(new_code_cell("x: int\n" * 40_000))
    catalog = load_catalog("toy_exercises")
    started = time.monotonic()
    lesson, _ = identify_lesson(notebook, catalog)
    assert lesson == 1 and time.monotonic() - started < 2


def test_refused_files_cost_their_row_only(tmp_path):
    (tmp_path / "class").mkdir()
    os.mkfifo(tmp_path / "class" / "pipe.ipynb")
    nbformat.write(toy(**SOLVED), tmp_path / "class" / "ann.ipynb")
    records = grade_toy_class(tmp_path / "class", tmp_path / "out")
    by_student = {r["student"]: r for r in records}
    assert by_student["pipe"]["outcome"] == "refused"
    assert [e["score"] for e in by_student["ann"]["exercises"]] == [2.0, 1.0]
