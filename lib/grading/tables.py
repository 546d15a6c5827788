"""Writing the files an instructor opens: CSV cells a spreadsheet will not run, whole-file writes.

A spreadsheet reads a cell that begins with `=`, `+`, `-` or `@` as a formula (and a leading tab
or carriage return can hide one), so a student named `=HYPERLINK("http://evil","click")` would
put a live link, or worse, into the instructor's gradebook. Every CSV this grader writes goes
through `csv_text`, which prefixes such text cells with a single quote (OWASP's advice: the
spreadsheet then shows the text as typed). Numbers are passed as numbers and formatted here, so a
score never gets a quote.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def number(value: float) -> str:
    """A score for people: 2, 1.5, 1.33 (two decimals at most, no trailing zeros)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def safe_cell(value: object) -> str:
    """One CSV cell: numbers (int, float, not bool) as `number` writes them, None as empty, any
    other value as text, with a quote in front if a spreadsheet would take it for a formula."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(columns: list[str], rows: Iterable[Mapping[str, object]]) -> str:
    """A CSV table (header, then one line per row, missing cells empty), every cell `safe_cell`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([safe_cell(c) for c in columns])
    writer.writerows([safe_cell(row.get(c)) for c in columns] for row in rows)
    return buffer.getvalue()


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
