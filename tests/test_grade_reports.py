"""The grader's reports from hand-made records (no kernels, fast): CSVs a spreadsheet cannot turn
into formulas, the version that counts, the roster, the Canvas gradebook, the class summary and
its chart, and the HTML feedback a student's text cannot script."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import time
import uuid
from pathlib import Path

import pytest
from processes import still_running

from lib.grading import grade_tables, reports, run_summary, summary_chart
from lib.grading.roster import Student, load_roster, match, normalise
from lib.grading.tables import safe_cell
from lib.grading.versions import counting_records

EXERCISES = (("double", 2.0), ("shout", 1.0))


def record(student: str, scores=(2, 1), lesson=1, **fields) -> dict:
    """A graded submission of the toy lesson: `scores` for double (of 2) and shout (of 1)."""
    statuses = fields.pop("statuses", None) or [
        "passed" if s == most else ("partial" if s else "failed")
        for s, (_, most) in zip(scores, EXERCISES, strict=True)
    ]
    return {
        "student": student,
        "submission": f"/class/{fields.pop('file', student)}.ipynb",
        "sha256": "0" * 64,
        "lesson": lesson,
        "outcome": "graded",
        "note": "",
        "exercises": [
            {"name": name, "score": s, "max_score": most, "status": st, "reason": "all passed"}
            for (name, most), s, st in zip(EXERCISES, scores, statuses, strict=True)
        ],
        "events": [],
        "answers": {"why": "Adding x to itself."},
        "seconds": 1.0,
        "graded_at": "2025-03-01T10:00:00Z",
        "solutions": [],
        "sandboxed": True,
        **fields,
    }


def rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


ROSTER = [
    Student("Ann Lee", "S1001", "alee", "A"),
    Student("José Núñez", "S1002", "jnunez", "B"),
    Student("Sam Park", "S2001"),
    Student("Sam Park", "S2002"),
    Student("Zoe Quinn", "S3000"),
]


def test_formula_like_cells_get_a_quote_and_our_numbers_do_not(tmp_path):
    evil = '=HYPERLINK("http://x.example","click")'
    bad = record(evil, scores=(0, 1))
    bad["exercises"][0]["reason"] = "-1 is not 2\ninput: double(-1)"
    bad["note"] = "@SUM(A1)"
    reports.write_all(tmp_path, [bad], {}, charts=False)
    (grade, _) = rows(tmp_path / "grades.csv")
    assert grade["student"] == "'" + evil
    assert grade["reason"] == "'-1 is not 2; input: double(-1)"
    assert (grade["score"], grade["max"], grade["lesson"]) == ("0", "2", "1")
    (total,) = rows(tmp_path / "totals.csv")
    assert (total["student"], total["notes"], total["percent"]) == (
        "'" + evil,
        "'@SUM(A1)",
        "33.33",
    )
    assert rows(tmp_path / "gradebook.csv")[1]["Student"] == "'" + evil
    assert [safe_cell(v) for v in (-1.5, "-1.5", "\tx", "\rx", "+1", "a=b", None, 2.0)] == [
        "-1.5",
        "'-1.5",
        "'\tx",
        "\nx",  # a carriage return is a line break (printable), and a break is no formula
        "'+1",
        "a=b",
        "",
        "2",
    ]


def test_the_highest_score_counts_then_the_latest_graded():
    early_best = record("ann", (2, 0), file="a1", graded_at="2025-03-01T09:00:00Z")
    late_worse = record("ann", (1, 0), file="a2", graded_at="2025-03-02T09:00:00Z")
    tie_early = record("bob", (2, 1), file="b1", graded_at="2025-03-01T09:00:00Z")
    tie_late = record("bob", (2, 1), file="b2", graded_at="2025-03-01T11:00:00Z")
    other_lesson = record("bob", (0, 0), lesson=2, file="b3")
    unreadable = {**record("bob", file="b4"), "lesson": None, "exercises": []}
    everything = [early_best, late_worse, tie_early, tie_late, other_lesson, unreadable]
    for order in (everything, everything[::-1]):
        chosen = counting_records(order)
        assert sorted(r["submission"] for r in chosen) == [
            "/class/a1.ipynb",
            "/class/b2.ipynb",
            "/class/b3.ipynb",
        ]


def test_every_version_keeps_its_rows_and_says_whether_it_counts(tmp_path):
    best, worse = record("ann", (2, 1), file="ann_v1"), record("ann", (1, 0), file="ann_v2")
    reports.write_all(tmp_path, [worse, best, record("bob")], {}, charts=False)
    totals = rows(tmp_path / "totals.csv")
    assert [(t["submission"], t["counts"]) for t in totals] == [
        ("/class/ann_v1.ipynb", "yes"),
        ("/class/ann_v2.ipynb", "no"),
        ("/class/bob.ipynb", "yes"),
    ]
    assert [g["counts"] for g in rows(tmp_path / "grades.csv")] == ["yes"] * 2 + ["no"] * 2 + [
        "yes"
    ] * 2
    (second_page,) = (tmp_path / "feedback").glob("ann_lesson1_*.md")  # named by its file
    second = second_page.read_text(encoding="utf-8")
    assert "**Note:** This is not the version of lesson 1 that counts: ann_v1.ipynb does" in second
    assert "not the version" not in (tmp_path / "feedback" / "ann_lesson1.md").read_text()
    assert rows(tmp_path / "gradebook.csv")[1] == {
        "Student": "ann",
        "ID": "",
        "SIS User ID": "",
        "SIS Login ID": "",
        "Section": "",
        "Lesson 1": "3",
        "Total": "3",
    }


def test_roster_names_match_normalised_and_ambiguity_matches_no_one():
    assert normalise("  Núñez, JOSÉ-María_2 ") == "nunez jose maria 2"
    assert match("lee_ann", ROSTER).student.id == "S1001"  # all the name's words
    assert match("JOSE NUNEZ lesson3", ROSTER).student.id == "S1002"  # whole name, accents
    assert match("submission_s1002_late", ROSTER).student.id == "S1002"  # the id wins
    assert match("ann", ROSTER) == match("annlee", ROSTER) == match("S100", ROSTER)
    assert match("ann", ROSTER).student is None
    sam = match("sam-park", ROSTER)
    assert (sam.student, [s.id for s in sam.candidates]) == (None, ["S2001", "S2002"])
    assert match("sam park S2002", ROSTER).student.id == "S2002"


def test_load_roster_reads_any_header_case_and_says_what_is_missing(tmp_path):
    good = tmp_path / "roster.csv"
    good.write_text(
        "\ufeffStudent,SIS_User_ID,Email,SECTION\nAnn Lee,S1001,alee@x.org,A\n,,,\n"
        "José Núñez,S1002,,B\n",
        encoding="utf-8",
    )
    assert load_roster(good) == [
        Student("Ann Lee", "S1001", "alee@x.org", "A"),
        Student("José Núñez", "S1002", "", "B"),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("name,email\nAnn Lee,alee@x.org\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"roster .*bad\.csv: no id column.*Student ID"):
        load_roster(bad)
    bad.write_text("name,id\nAnn Lee,\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"bad\.csv, line 2: a student needs both a name and an id"
    ):
        load_roster(bad)
    with pytest.raises(ValueError, match="cannot read it"):
        load_roster(tmp_path / "missing.csv")


def test_gradebook_is_canvas_shaped_with_every_roster_student(tmp_path):
    records = [
        record("Lee, Ann", (2, 0.5)),
        record("jose_nunez", (1, 1), lesson=3),
        record("ann lee", (1, 0), lesson=3),
        record("sam park", (2, 1)),  # two Sam Parks on the roster: matches no one
    ]
    reports.write_all(tmp_path, records, {}, ROSTER, charts=False)
    assert (tmp_path / "gradebook.csv").read_text(encoding="utf-8") == (
        "Student,ID,SIS User ID,SIS Login ID,Section,Lesson 1,Lesson 3,Total\n"
        "Points Possible,,,,,3,3,6\n"
        "Ann Lee,,S1001,alee,A,2.5,1,3.5\n"
        "José Núñez,,S1002,jnunez,B,,2,2\n"
        "Sam Park,,S2001,,,,,\n"
        "Sam Park,,S2002,,,,,\n"
        "Zoe Quinn,,S3000,,,,,\n"
        "sam park,,,,,3,,3\n"
    )
    report = (tmp_path / "roster_report.md").read_text(encoding="utf-8")
    assert "- `sam park`: matches several: Sam Park (S2001), Sam Park (S2002)\n" in report
    assert "## Lesson 1: no submission from 4 of 5\n\n- José Núñez (S1002)\n" in report
    assert "## Lesson 3: no submission from 3 of 5\n\n- Sam Park (S2001)\n" in report
    ids = [t["student_id"] for t in rows(tmp_path / "totals.csv")]
    assert ids == ["S1001", "S1002", "S1001", ""]  # ann lee, jose_nunez, "Lee, Ann", sam park


def test_class_summary_counts_attempted_passed_and_the_mean(tmp_path):
    records = [
        record("ann", (2, 1)),
        record("bob", (0, 0), statuses=["not attempted", "missing"]),
        record("cat", (1, 0), statuses=["partial", "error"]),
        record("cat", (0, 0), file="cat_old"),  # not the version that counts
    ]
    reports.write_all(tmp_path, records, {}, charts=False)
    assert (tmp_path / "class_summary.csv").read_text(encoding="utf-8") == (
        "lesson,exercise,max,submissions,attempted,passed,mean_score\n"
        "1,double,2,3,2,1,1\n"
        "1,shout,1,3,2,1,0.33\n"
    )
    assert "| `shout` | 1 | 3 | 2 | 1 | 0.33 |" in (tmp_path / "summary.md").read_text()
    assert not (tmp_path / "summary.html").exists()  # charts=False: no browser started


@pytest.mark.machine  # draws with Chromium: see pyproject's markers
@pytest.mark.draws_chart
def test_the_chart_is_written_offline_as_html_and_as_png(tmp_path):
    rows_ = [dict(lesson=1, exercise="double", max=2, submissions=4, attempted=3, passed=2)]
    summary_chart.write_chart(tmp_path, [{**rows_[0], "mean_score": 1.0}])
    page = (tmp_path / "summary.html").read_text(encoding="utf-8")
    # Nothing loaded from outside: plotly.js is one file beside the page, not 4.8 MB inside it.
    assert re.findall(r"<script[^>]*\bsrc=\"([^\"]*)\"", page) == ["plotly.min.js"]
    assert len(page) < 100_000 and (tmp_path / "plotly.min.js").stat().st_size > 1_000_000
    assert "Submissions (%)" in page and "who attempted and who passed" in page
    if not (os.environ.get("BROWSER_PATH") or shutil.which("chromium")):
        pytest.skip("no Chromium to draw the PNG with")
    assert (tmp_path / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert summary_chart.png_note(tmp_path) == ""


@pytest.mark.draws_chart
def test_no_browser_means_no_png_and_one_line_saying_so(tmp_path, monkeypatch):
    (tmp_path / "summary.png").write_bytes(b"stale")
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-chrome"))
    row = dict(lesson=1, exercise="double", max=2, submissions=1, attempted=1, passed=1)
    summary_chart.write_chart(tmp_path, [{**row, "mean_score": 2.0}])
    assert (tmp_path / "summary.html").exists() and not (tmp_path / "summary.png").exists()
    printed = run_summary.summary([record("ann")], 5, tmp_path)
    assert "No summary.png: kaleido could not start Chrome or Chromium" in printed


@pytest.mark.draws_chart
def test_a_drawing_that_hangs_costs_the_png_and_is_killed_with_its_browser(tmp_path, monkeypatch):
    # A marker no other run can share (a pid's digits can begin another pid's), so pgrep sees only
    # this test's browser even when another copy of the suite runs beside it.
    marker = f"course-test-stuck-browser-{uuid.uuid4().hex}"
    browser = (
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)', '{marker}'])"
    )
    stuck = f"import subprocess, sys, time\n{browser}\ntime.sleep(3600)"
    monkeypatch.setattr(summary_chart, "_DRAW", stuck)  # a kaleido whose browser never answers
    monkeypatch.setattr(summary_chart, "PNG_SECONDS", 3)
    (tmp_path / "summary.png").write_bytes(b"stale")
    row = dict(lesson=1, exercise="double", max=2, submissions=1, attempted=1, passed=1)
    started = time.monotonic()
    summary_chart.write_chart(tmp_path, [{**row, "mean_score": 2.0}])
    assert 3 <= time.monotonic() - started < 20
    assert (tmp_path / "summary.html").exists() and not (tmp_path / "summary.png").exists()
    assert not still_running(marker, seconds=10), "the stuck browser is still running"


def test_html_feedback_escapes_what_the_student_wrote(tmp_path):
    hostile = record("<b>eve</b>", (0, 1), answers={"why": "<script>alert(1)</script>"})
    hostile["exercises"][0]["reason"] = "got <script>steal()</script>\ninput: <img src=x>"
    reports.write_all(tmp_path, [hostile], {}, charts=False)
    page = (tmp_path / "feedback" / "b_eve_b_lesson1.html").read_text(encoding="utf-8")
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "got &lt;script&gt;steal()&lt;/script&gt;" in page
    assert "<pre>input: &lt;img src=x&gt;</pre>" in page
    assert "<blockquote>&lt;script&gt;alert(1)&lt;/script&gt;</blockquote>" in page
    assert "@media (prefers-color-scheme: dark)" in page
    assert "http" not in page  # nothing loaded from outside


def test_opened_solutions_and_no_sandbox_show_in_every_report(tmp_path):
    ann = record("ann", (2, 1), solutions=["shout"], sandboxed=False)
    reports.write_all(tmp_path, [ann, record("bob")], {}, charts=False)
    grades = rows(tmp_path / "grades.csv")
    assert [(g["exercise"], g["solution_opened"], g["sandboxed"]) for g in grades] == [
        ("double", "no", "no"),
        ("shout", "yes", "no"),
        ("double", "no", "yes"),
        ("shout", "no", "yes"),
    ]
    md = (tmp_path / "feedback" / "ann_lesson1.md").read_text(encoding="utf-8")
    assert "- ✅ `shout`, 1 / 1 (passed; solution opened)" in md
    assert "**Note:** Graded without the sandbox (--no-sandbox)" in md
    assert "Graded without the sandbox" in (tmp_path / "feedback" / "ann_lesson1.html").read_text()
    assert "sandbox" not in (tmp_path / "feedback" / "bob_lesson1.md").read_text()
    for page in ("summary.md", "answers.md"):
        text = (tmp_path / page).read_text(encoding="utf-8")
        assert "**Warning: 1 of 2 submissions were graded without the sandbox" in text
    assert "WARNING: 1 submissions were graded WITHOUT the sandbox" in run_summary.summary(
        [ann], 1, tmp_path
    )


def test_a_hidden_case_in_full_reaches_only_the_instructors_grades():
    """The row's `detail` (the hidden case's input and answer) is in grades.csv; the student's
    Markdown and HTML feedback and Gradescope's results.json say only that it failed."""
    from lib.grading import feedback, feedback_pages
    from lib.grading.gradescope_results import results_json

    hidden = record("Ann", scores=(1, 1))
    hidden["exercises"][0]["reason"] = "1 of 4 cases failed\na hidden case failed"
    hidden["exercises"][0]["detail"] = "a hidden case failed\ninput: double(34)"
    page = feedback.of_record(hidden)
    student_sees = [feedback_pages.markdown(page), feedback_pages.html(page)]
    student_sees.append(json.dumps(results_json([hidden])))
    assert all("a hidden case failed" in page for page in student_sees)
    assert not any("double(34)" in page for page in student_sees)
    assert "input: double(34)" in grade_tables.grade_rows(hidden)[0]["reason"]


def test_a_record_whose_page_cannot_be_made_costs_its_own_page_only():
    """Round 9 stopped a batch in `feedback_pages.html` on an answer that was no text. A page
    that cannot be made is replaced by one that says so; the other records' pages are made."""
    markdown, html = reports._pages(record("mallory", answers={"why": ["no", "text"]}), [], {})
    assert "could not be made (AttributeError)" in markdown and "could not be made" in html
    markdown, _ = reports._pages(record("bob"), [], {})
    assert "Score: 3 / 3" in markdown and "could not be made" not in markdown
