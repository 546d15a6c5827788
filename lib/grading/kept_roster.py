"""The roster an output folder was graded with, kept in it (`roster.json`) for the next run.

A rerun into the same `--out` without `--roster` used to write a gradebook with every id gone
and leave the old roster report beside it. Now the folder remembers its roster: a run given one
keeps it there, a run given none reuses the kept one and says so. Delete `roster.json` to grade
without a roster again.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from lib.grading.roster import Student
from lib.grading.tables import write_text

FILE = "roster.json"


def keep(out_dir: Path, roster: list[Student]) -> None:
    """Remember `roster` in `out_dir` for the runs after this one."""
    students = [dataclasses.asdict(s) for s in roster]
    write_text(Path(out_dir) / FILE, json.dumps(students, ensure_ascii=False, indent=1))


def roster_for(out_dir: Path, given: list[Student] | None) -> tuple[list[Student] | None, str]:
    """(The roster to grade with, a note for the instructor or ""): `given` (then kept), else
    the one kept in `out_dir`, else None."""
    path = Path(out_dir) / FILE
    if given is not None:
        keep(out_dir, given)
        return given, ""
    if not path.is_file():
        return None, ""
    try:
        kept = [Student(**fields) for fields in json.loads(path.read_text(encoding="utf-8"))]
    except (ValueError, TypeError) as error:
        return None, f"Not using {path}: it is not a roster this grader wrote ({error})."
    note = f"Using the roster of an earlier run, kept in {path} (--roster replaces it)."
    return kept, note
