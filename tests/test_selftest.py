"""`python -m lib.grade selftest`: what it grades, what it says, and that the Gradescope image runs
it. The whole self-test takes minutes (it runs every lesson), so its run waits for
COURSE_SELFTEST=1; the verdict is tested on records as the grader makes them.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from lib.grade import main
from lib.grading import gradescope_bundle, selftest
from lib.grading.notebook import identify_lesson, load_catalog
from lib.grading.submissions import read_notebook


def record(lesson: int, scores: list[tuple[float, float]], events=(), outcome="graded") -> dict:
    exercises = [
        {"name": f"ex{i}", "score": s, "max_score": m, "status": "passed" if s == m else "failed",
         "reason": "" if s == m else "expected 3, got 2\ninput: f(1)"}
        for i, (s, m) in enumerate(scores)
    ]  # fmt: skip
    return {
        "lesson": lesson, "submission": f"lesson{lesson}_solved.ipynb", "outcome": outcome,
        "note": "", "exercises": exercises, "events": list(events), "seconds": 12.3,
    }  # fmt: skip


def test_a_machine_that_grades_every_solution_in_full_is_ready(tmp_path):
    records = [record(2, [(1, 1), (2, 2)]), record(1, [(3, 3)])]
    text, ready = selftest.report(records, tmp_path, 75, sandboxed=True)
    lines = text.splitlines()
    assert ready
    assert lines[:2] == ["Lesson 1: 3 of 3 points, 12 s  ok", "Lesson 2: 3 of 3 points, 12 s  ok"]
    assert lines[2].startswith("Protections in force: bubblewrap sandbox")
    assert lines[3].startswith("READY (1 min 15 s)")


def test_anything_short_of_full_marks_is_not_ready_and_says_what_to_fix(tmp_path):
    missing = "cell 3 (`import regex`) raised ModuleNotFoundError: No module named 'regex'"
    records = [record(3, [(1, 1), (0.5, 2)], events=[missing])]
    text, ready = selftest.report(records, tmp_path, 10, sandboxed=True)
    assert not ready
    assert "Lesson 3: 1.5 of 3 points, 12 s  FALLS SHORT" in text
    assert "    ex1: failed, expected 3, got 2" in text  # the first line of the reason
    assert f"    while it ran: {missing}" in text
    assert "To fix: install the course's packages: `python -m pip install -r requirements.txt`" in (
        text
    )


def test_nothing_graded_is_not_ready(tmp_path):
    text, ready = selftest.report([], tmp_path, 1, sandboxed=True)
    assert not ready and "no lesson notebook to grade" in text


def test_without_the_chart_png_it_is_not_ready(tmp_path):
    (tmp_path / "summary.html").write_text("<html></html>")  # the chart, but no PNG
    text, ready = selftest.report([record(1, [(1, 1)])], tmp_path, 10, sandboxed=True)
    assert not ready
    assert "No summary.png" in text and "apt-get install chromium" in text


def test_without_the_sandbox_the_protections_line_says_so(tmp_path):
    # Only with --sandbox-if-available (Gradescope without namespaces): not a failure, but said.
    text, ready = selftest.report([record(1, [(1, 1)])], tmp_path, 10, sandboxed=False)
    assert ready
    assert "Protections in force: NONE of the sandbox's" in text


def test_the_solved_lessons_are_every_lesson_recognised_by_content(tmp_path):
    selftest._write_solved_lessons(tmp_path / "submissions")
    catalog = load_catalog()
    found = {}
    for path in sorted((tmp_path / "submissions").glob("*.ipynb")):
        lesson, note = identify_lesson(read_notebook(path), catalog)
        found[path.name] = (lesson, note)
    assert found == {f"lesson{n}_solved.ipynb": (n, "") for n in catalog}
    selftest._write_solved_lessons(tmp_path / "two", {3, 5})
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == [
        "lesson3_solved.ipynb",
        "lesson5_solved.ipynb",
    ]


@pytest.mark.parametrize("lesson", [None, 3])
def test_the_gradescope_image_runs_the_selftest_last_for_its_lessons(tmp_path, lesson):
    gradescope_bundle.build_bundle(tmp_path / "bundle.zip", lesson)
    with zipfile.ZipFile(tmp_path / "bundle.zip") as bundle:
        setup = bundle.read("setup.sh").decode()
    commands = [line for line in setup.splitlines() if line and line[0] != "#"]
    only = " --lesson 3" if lesson else ""
    assert commands[-1].endswith(
        f"-m lib.grade selftest --sandbox-if-available --no-progress{only}"
    )


def test_the_instructors_key_is_not_touched(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_GRADER_KEY_FILE", str(tmp_path / "mine"))
    with selftest._throwaway_key(tmp_path / "box"):
        assert os.environ["COURSE_GRADER_KEY_FILE"] == str(tmp_path / "box" / "selftest-key")
    assert os.environ["COURSE_GRADER_KEY_FILE"] == str(tmp_path / "mine")


@pytest.mark.end_to_end
@pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap (`bwrap`) on PATH")
@pytest.mark.skipif(
    not os.environ.get("COURSE_SELFTEST"),
    reason="grades every lesson whole (8 minutes on a busy 2-core VM): set COURSE_SELFTEST=1",
)
def test_the_selftest_passes_on_this_machine(capsys):
    status = main(["selftest", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.count("  ok") == len(load_catalog()) and "READY" in out


def test_the_command_line_says_what_to_install_without_bubblewrap(monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(Path("/nonexistent")))
    assert main(["selftest", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT READY") and "apt-get install bubblewrap" in out
