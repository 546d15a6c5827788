"""The roster from an instructor's hands to the LMS and back (hand-made records, no kernels):
one id per student, Canvas's own export read as it is and its ids written back unchanged, the
headers and separators spreadsheets write, and an output folder that remembers its roster."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import pytest

from lib.grading import kept_roster, reports, run_summary
from lib.grading.roster import Student, load_roster
from tests.test_grade_reports import record, rows

# Canvas's gradebook export as it downloads: a "Manual Posting" row, the "Points Possible" row,
# "Last, First" names, an internal ID beside the SIS ids, and the course's Test Student.
CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Lesson 1 (88121),Current Score\n"
    ",,,,,Manual Posting,\n"
    "    Points Possible,,,,,8.00,(read only)\n"
    '"Lee, Ann",40123,S1001,alee@uni.example,TOK 101 A,,\n'
    '"Smith, Alice",40124,,asmith,TOK 101 B,,\n'
    '"Núñez, José",40125,0042,jnunez,"TOK 101 A, TOK 101 B",,\n'
    '"Student, Test",40999,,b8f1c2,TOK 101 A,,\n'
)


def test_two_students_with_one_id_are_refused_naming_both_lines(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,id\nAlice Smith,S1\nBob Ray,S2\nAnn Lee,S1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lines 2 and 4: Alice Smith and Ann Lee have the same"):
        load_roster(roster)


def test_a_shared_canvas_id_is_refused_too(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(CANVAS_EXPORT.replace("40124", "40123"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"lines 4 and 5: Lee, Ann and Smith, Alice .*Canvas ID"):
        load_roster(export)


def test_a_canvas_export_is_a_roster_and_its_ids_go_back_exactly(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(CANVAS_EXPORT, encoding="utf-8")
    roster = load_roster(export)
    assert [s.name for s in roster] == ["Lee, Ann", "Smith, Alice", "Núñez, José"]
    records = [
        record("leeann_40123_777001_lesson1", (2, 1)),  # how Canvas names its downloads
        record("alice smith", (1, 0)),
        record("Jose Nunez", (0, 1)),
    ]
    reports.write_all(tmp_path / "out", records, {}, roster, charts=False)
    written = rows(tmp_path / "out" / "gradebook.csv")[1:]
    with export.open(encoding="utf-8", newline="") as file:
        exported = [r for r in csv.DictReader(file) if r["ID"] and r["ID"] != "40999"]
    ids = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert [[r[c] for c in ids] for r in written] == [[r[c] for c in ids] for r in exported]
    assert [r["Lesson 1"] for r in written] == ["3", "1", "1"]


def test_common_headers_and_semicolons_are_read(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "First Name;Last Name;Student ID;E-mail\nAnn;Lee;S1001;a@x.org\nJosé;Núñez;S1002;\n",
        encoding="utf-8",
    )
    assert load_roster(roster) == [
        Student("Ann Lee", "S1001", "a@x.org"),
        Student("José Núñez", "S1002"),
    ]
    roster.write_text("Full Name\tStudent Number\nAnn Lee\t77\n", encoding="utf-8")
    assert load_roster(roster) == [Student("Ann Lee", "77")]
    roster.write_text('name,id,section\nAnn Lee,S1,"A\nB"\nBob Ray,S2,C\n', encoding="utf-8")
    assert [s.section for s in load_roster(roster)] == ["A\nB", "C"]  # a break inside quotes
    roster.write_text("First Name,Student ID\nAnn,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no name column.*first name and last name"):
        load_roster(roster)


def test_a_rerun_without_the_roster_reuses_the_kept_one(tmp_path):
    out = tmp_path / "out"
    roster = [Student("Ann Lee", "S1001")]
    assert kept_roster.roster_for(out, roster) == (roster, "")
    kept, note = kept_roster.roster_for(out, None)
    assert kept == roster and "Using the roster of an earlier run" in note
    reports.write_all(out, [record("ann_lee")], {}, kept, charts=False)
    assert rows(out / "gradebook.csv")[1]["SIS User ID"] == "S1001"
    assert kept_roster.roster_for(tmp_path / "elsewhere", None) == (None, "")


def test_without_a_roster_no_stale_report_stays_and_the_summary_says_so(tmp_path):
    reports.write_all(tmp_path, [record("ann_lee")], {}, [Student("Ann Lee", "S1")], charts=False)
    assert (tmp_path / "roster_report.md").exists()
    reports.write_all(tmp_path, [record("ann_lee")], {}, None, charts=False)
    assert not (tmp_path / "roster_report.md").exists()
    printed = run_summary.summary([record("ann_lee")], 1, tmp_path)
    assert "No roster (--roster): gradebook.csv has no ids" in printed
    assert "cannot import it" in printed


def test_the_readme_layout_keeps_student_data_out_of_git():
    root = Path(__file__).resolve().parents[1]
    paths = ["grades/totals.csv", "submissions/ann.ipynb", "roster.csv", "grading-out/x.csv"]
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *paths], cwd=root, capture_output=True, text=True
    ).stdout.split()
    assert ignored == paths
