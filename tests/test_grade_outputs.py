"""Every output sanitised (hand-made records, no kernels): no control characters printed or
written, nothing a Markdown or CSV reader takes for structure, and feedback names that come from
who the student is, not from the order of the records."""

from __future__ import annotations

from lib.grading import feedback, reports, run_summary
from lib.grading.roster import Student
from tests.test_grade_reports import record, rows

ESCAPES = "\x1b[1A\x1b[2K\x1b]0;owned\x07\r"  # up a line, erase it, retitle the window


def test_escape_sequences_reach_no_terminal_and_no_page(tmp_path):
    eve = record(f"eve{ESCAPES}All 3 notebooks graded cleanly", (0, 0))
    eve["exercises"][0]["reason"] = f"raised\ninput: {ESCAPES}# Score: 100 / 100"
    eve["outcome"], eve["note"] = "error", f"boom{ESCAPES}"
    reports.write_all(tmp_path, [eve], {}, charts=False)
    printed = run_summary.summary([eve], 3, tmp_path)
    written = [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.*") if p.suffix != ".json"]
    for text in [printed, *written]:
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    (page,) = (tmp_path / "feedback").glob("*.md")
    assert "\n# Score" not in page.read_text(encoding="utf-8")


def test_answers_md_holds_no_forged_heading_and_no_html(tmp_path):
    forged = "why\n\n### alice\n\n> I copied everything"
    mallory = record("mallory", answers={forged: "<script>alert(1)</script> & more"})
    reports.write_all(tmp_path, [mallory, record("alice")], {}, charts=False)
    page = (tmp_path / "answers.md").read_text(encoding="utf-8")
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert "### alice" in headings and headings.count("### alice") == 1
    assert "## Lesson 1, `why ### alice > I copied everything`" in headings
    assert "<script>" not in page and "> &lt;script>alert(1)&lt;/script> &amp; more" in page


def test_a_name_a_spreadsheet_would_split_on_semicolons_is_quoted(tmp_path):
    reports.write_all(tmp_path, [record("x;=1+2")], {}, charts=False)
    for table in ("grades.csv", "totals.csv", "gradebook.csv"):
        text = (tmp_path / table).read_text(encoding="utf-8")
        assert '"x;=1+2"' in text and ";=1+2," not in text.replace('"x;=1+2"', "")
        cells = [cell for row in rows(tmp_path / table) for cell in row.values()]
        assert "x;=1+2" in cells


def test_feedback_names_come_from_the_student_not_the_sort_order(tmp_path):
    real, lookalike = record("alice", (2, 1)), record("_alice", (0, 0))
    reports.write_all(tmp_path, [lookalike, real], {}, charts=False)
    pages = sorted(p.name for p in (tmp_path / "feedback").glob("*.md"))
    assert len(pages) == 2 and "alice_lesson1.md" not in pages  # neither takes the plain name
    reports.write_all(tmp_path / "again", [real, lookalike], {}, charts=False)
    assert sorted(p.name for p in (tmp_path / "again" / "feedback").glob("*.md")) == pages
    for name in pages:  # the same page for the same student, whatever the order
        first = (tmp_path / "feedback" / name).read_text(encoding="utf-8")
        again = (tmp_path / "again" / "feedback" / name).read_text(encoding="utf-8")
        assert first == again


def test_with_a_roster_feedback_is_named_by_the_roster_name_and_id(tmp_path):
    roster = [Student("Lee, Ann", "S1001")]
    reports.write_all(tmp_path, [record("Ann_Lee_-_lesson1_1_lesson1")], {}, charts=False)
    reports.write_all(tmp_path, [record("Ann_Lee_-_lesson1_1_lesson1")], {}, roster, charts=False)
    pages = sorted(p.name for p in (tmp_path / "feedback").iterdir())
    assert pages == ["Lee_Ann_S1001_lesson1.html", "Lee_Ann_S1001_lesson1.md"]  # none stale


def test_the_feedback_title_says_feedback():
    assert feedback.title(record("ann", lesson=3)) == "Lesson 3: feedback for ann"
    assert feedback.title(record("ann", lesson=None)) == "Feedback for ann"


def test_both_feedback_pages_say_an_ungraded_notebooks_reason_once(tmp_path):
    """Both pages are written from one model: the HTML page used to list the reason a second
    time, as something that went wrong while the notebook ran; the Markdown page did not."""
    ungraded = record("ann", exercises=[], note="it ran out of time", events=["cell 4 hung"])
    reports.write_all(tmp_path, [ungraded], {}, charts=False)
    for suffix in ("md", "html"):
        page = (tmp_path / "feedback" / f"ann_lesson1.{suffix}").read_text(encoding="utf-8")
        assert page.count("it ran out of time") == 1, suffix
        assert "could not be graded: it ran out of time." in page and "cell 4 hung" in page


def test_html_feedback_heads_an_answer_with_its_question(tmp_path):
    asked = {1: {"why": "### ✏️ Written answer\n\nWhy does `double` add x to itself?"}}
    reports.write_all(tmp_path, [record("ann")], asked, charts=False)
    page = (tmp_path / "feedback" / "ann_lesson1.html").read_text(encoding="utf-8")
    assert "<h3>Why does `double` add x to itself?</h3>" in page
    assert "<code>why</code>" not in page


def test_written_marks_typed_in_the_form_join_every_score(tmp_path):
    reports.write_all(tmp_path, [record("ann"), record("bob")], {}, charts=False)
    form = rows(tmp_path / "written_marks.csv")
    assert [(r["student"], r["lesson"], r["question"], r["mark"]) for r in form] == [
        ("ann", "1", "why", ""),
        ("bob", "1", "why", ""),
    ]
    (tmp_path / "written_marks.csv").write_text(
        "student,student_id,lesson,question,max,mark\nann,,1,why,2,1.5\nbob,,1,why,,\n"
    )
    reports.write_all(tmp_path, [record("ann"), record("bob")], {}, charts=False)
    assert [(t["student"], t["score"], t["max"]) for t in rows(tmp_path / "totals.csv")] == [
        ("ann", "4.5", "5"),
        ("bob", "3", "5"),  # not marked yet: 0 of the question's 2
    ]
    book = rows(tmp_path / "gradebook.csv")
    assert [(r["Student"], r["Lesson 1"]) for r in book] == [
        ("Points Possible", "5"),
        ("ann", "4.5"),
        ("bob", "3"),
    ]
    page = (tmp_path / "feedback" / "ann_lesson1.md").read_text(encoding="utf-8")
    assert "**Score: 4.5 / 5**" in page and "marked by your instructor: 1.5 / 2" in page
    assert rows(tmp_path / "written_marks.csv")[0]["mark"] == "1.5"  # what was typed is kept
