"""Writing the files an instructor opens: CSV cells a spreadsheet will not run, whole-file writes.

A spreadsheet reads a cell that begins with `=`, `+`, `-` or `@` as a formula (and a leading tab
or carriage return can hide one), so a student named `=HYPERLINK("http://evil","click")` would
put a live link, or worse, into the instructor's gradebook. Every CSV this grader writes goes
through `csv_text`, which prefixes such text cells with a single quote (OWASP's advice: the
spreadsheet then shows the text as typed). Numbers are passed as numbers and formatted here, so a
score never gets a quote. A spreadsheet set to split on `;` or tabs (the default in much of
Europe) would cut a student named `x;=1+2` into a cell `=1+2`, so every text cell holding a
separator is written between double quotes, which every spreadsheet honours. Control characters
are dropped (`safe_text.printable`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from lib.grading.safe_text import printable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NEEDS_QUOTES = (",", ";", "\t", '"', "\n", "|")


def number(value: float) -> str:
    """A score for people: 2, 1.5, 1.33 (two decimals at most, no trailing zeros)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def safe_cell(value: object) -> str:
    """One CSV cell: numbers (int, float, not bool) as `number` writes them, None as empty, any
    other value as text, with a quote in front if a spreadsheet would take it for a formula."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    text = "" if value is None else printable(str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _field(cell: str) -> str:
    """A cell as CSV writes it (RFC 4180), quoted whenever it holds any separator."""
    if any(mark in cell for mark in NEEDS_QUOTES) or cell != cell.strip():
        return '"' + cell.replace('"', '""') + '"'
    return cell


def csv_text(columns: list[str], rows: Iterable[Mapping[str, object]]) -> str:
    r"""A CSV table (header, then one line per row, missing cells empty), every cell `safe_cell`.

    >>> csv_text(["student", "score"], [{"student": "x;=1+2", "score": 1.5}])
    'student,score\n"x;=1+2",1.5\n'
    """
    lines = [
        [safe_cell(c) for c in columns],
        *([safe_cell(r.get(c)) for c in columns] for r in rows),
    ]
    return "".join(",".join(map(_field, line)) + "\n" for line in lines)


def write_text(path: Path, text: str) -> None:
    """Write `path` whole, through a temporary file and a rename: an interrupted run never
    leaves half a file for the instructor to open."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """`write_text` for bytes (a PNG)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)
