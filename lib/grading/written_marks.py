"""Marks for the written answers: `written_marks.csv`, a form the instructor fills in.

Every run (re)writes the form in the output folder: one row per student, lesson and question
answered, with empty `max` and `mark` cells. Fill in `max` (what the question is worth; any one
row of a question is enough) and `mark`, save it as CSV, and run the grader again (nothing is
re-graded): the marks join the lesson's score in totals.csv, the gradebook and the student's
feedback. Rows the instructor filled are kept as they are, also when their student is gone, so a
mark once typed is never lost.
"""

from __future__ import annotations

import csv
from pathlib import Path

from lib.grading.tables import FORMULA_STARTS, csv_text, write_text
from lib.grading.versions import identity

FILE = "written_marks.csv"
COLUMNS = ["student", "student_id", "lesson", "question", "max", "mark"]


def _plain(cell: str) -> str:
    """A cell as typed: without the quote `tables.safe_cell` put before a formula-like text."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS) else cell


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace(",", "."))  # 1,5 as a European spreadsheet writes it
    except ValueError:
        return None


def _key(row: dict) -> tuple[str, str, str]:
    return (_plain(row["student_id"] or row["student"]), str(row["lesson"]), row["question"])


def _read(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8-sig", newline="") as file:
        return [{c: (row.get(c) or "").strip() for c in COLUMNS} for row in csv.DictReader(file)]


def with_marks(out_dir: Path, records: list[dict]) -> list[dict]:
    """Copies of `records` with `written` (score, max) from the form's marks, where the form
    gives their lesson's questions a max; the form rewritten with a row for every answer."""
    path = Path(out_dir) / FILE
    rows = {_key(row): row for row in _read(path)}
    for record in records:
        for question in record.get("answers") or {} if record["lesson"] else ():
            row = {"student": record["student"], "student_id": record.get("student_id") or ""}
            row |= {"lesson": str(record["lesson"]), "question": question, "max": "", "mark": ""}
            rows.setdefault(_key(row), row)
    ordered = sorted(rows.values(), key=lambda r: (r["lesson"], r["question"], r["student"]))
    write_text(path, csv_text(COLUMNS, [{**r, "student": _plain(r["student"])} for r in ordered]))
    most: dict[tuple[str, str], float] = {}
    for row in ordered:
        points = _number(row["max"])
        if points:
            most[row["lesson"], row["question"]] = max(
                points, most.get((row["lesson"], row["question"]), 0)
            )
    marked = []
    for record in records:
        lesson = str(record["lesson"])
        out_of = sum(p for (n, _), p in most.items() if n == lesson)
        if not out_of:
            marked.append(record)
            continue
        mine = [rows.get((identity(record), lesson, q)) for (n, q) in most if n == lesson]
        score = sum(_number(r["mark"]) or 0 for r in mine if r)
        marked.append({**record, "written": [score, out_of]})
    return marked
