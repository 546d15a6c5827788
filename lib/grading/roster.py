"""The class list: who should hand in, and which submission is whose (`--roster roster.csv`).

A roster is a CSV (comma-, semicolon- or tab-separated: the header row decides) whose header names
the student and an id. Headers are compared without case, spaces, underscores or hyphens, so
`Student ID`, `student_id` and `STUDENTID` are one header:

- the name: `name`, `student`, `student name` or `full name`, or `first name` plus `last name`
  (joined "First Last");
- the id: `sis user id`, `student id`, `student number` or `id`;
- optional: `sis login id`, `login` or `email`, and `section`.

Canvas's own gradebook export works as it is: its `ID` (Canvas's internal number) and
`SIS User ID` are kept apart, its `Points Possible` row and Canvas's "Test Student" are skipped,
and gradebook.csv writes `ID`, `SIS User ID`, `SIS Login ID` and `Section` back exactly as read.

Every student needs a name and an id, and no two may share an id: a repeated id would give one
student the other's grades, so the roster is refused, naming both lines.

Submissions are named after their student by file or folder name, as typed by the student or the
LMS ("Lee, Ann", "ann_lee_12345.ipynb", "Anne-Marie Müller"), so names are compared normalised:
case folded, accents removed, anything that is not a letter or a digit a word break. A submission
belongs to a roster student when, in this order of precedence:

1. one of the student's **ids** is one of its words (Canvas names its downloads
   `leeann_12345_678_lesson1.ipynb` with its internal id; ids shorter than 3 characters are not
   looked for: "7" would match "lesson 7");
2. the student's **whole name** appears in it, word for word ("ann lee" in "ann lee lesson3");
3. **all the words** of the name appear in it, in any order ("lee ann").

The first rule that finds anyone decides; if it finds two or more students, the submission is
ambiguous and matches no one (the roster report lists it with the candidates).
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

HEADERS = {
    "name": ("name", "student", "studentname", "fullname"),
    "first": ("firstname", "givenname"),
    "last": ("lastname", "surname", "familyname"),
    "canvas_id": ("id",),
    "id": ("sisuserid", "studentid", "studentnumber", "id"),
    "login": ("sisloginid", "login", "email"),
    "section": ("section",),
}
SHORTEST_ID = 3
NOT_STUDENTS = {"points possible", "student test", "test student"}  # Canvas's own rows


@dataclass(frozen=True)
class Student:
    """One line of the roster. `id` is the school's (a Canvas export's `SIS User ID`),
    `canvas_id` Canvas's internal `ID` (a Canvas export only)."""

    name: str
    id: str
    login: str = ""
    section: str = ""
    canvas_id: str = ""

    @property
    def key(self) -> str:
        """What tells this student from every other: the id, else Canvas's id."""
        return self.id or self.canvas_id


@dataclass(frozen=True)
class Match:
    """What a submission's name matched: one student, or none (with the candidates if several)."""

    student: Student | None
    candidates: tuple[Student, ...] = ()


def normalise(text: str) -> str:
    """ "Lee, Ann-Marié" -> "lee ann marie": casefolded, accents dropped, words single-spaced."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.split(r"[\W_]+", plain)).strip()


def _columns(header: list[str]) -> dict[str, int | None]:
    """Which column holds each role. `ID` is Canvas's internal id only beside another id
    column (a Canvas export); alone it is the roster's id."""
    squashed = [normalise(name).replace(" ", "") for name in header]
    where: dict[str, int | None] = {}
    for role, names in HEADERS.items():
        found = [squashed.index(n) for n in names if n in squashed]
        where[role] = found[0] if found else None
    if where["id"] == where["canvas_id"]:
        where["canvas_id"] = None
    return where


def _read_table(path: Path) -> list[list[str]]:
    """The file's rows, split on whichever of , ; or tab its header row uses most (a European
    spreadsheet saves "CSV" with semicolons)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"roster {path}: cannot read it as UTF-8 text ({error})") from None
    header = text.split("\n", 1)[0]
    separator = max(",;\t", key=header.count)
    # keepends: a quoted cell may hold a line break (an address, a note)
    return list(csv.reader(text.splitlines(keepends=True), delimiter=separator))


def load_roster(path: str | Path) -> list[Student]:
    """Read a roster (UTF-8, a byte-order mark is fine). Raises ValueError saying which file and
    what is wrong: missing columns, no students, a student without a name or an id, two students
    with one id."""
    path = Path(path)
    table = _read_table(path)
    header = table[0] if table else []
    where = _columns(header)
    has_name = where["name"] is not None or None not in (where["first"], where["last"])
    if not has_name or where["id"] is None:
        role, names = (
            ("name", "name, student, or first name and last name")
            if not has_name
            else ("id", "SIS User ID, Student ID, student number or id")
        )
        raise ValueError(
            f"roster {path}: no {role} column; its header row needs one of {names} "
            f"(found: {', '.join(header) or 'nothing'})"
        )
    students: list[Student] = []
    seen: dict[tuple[str, str], tuple[int, str]] = {}  # (kind, id) -> (line, name)
    for line, row in enumerate(table[1:], start=2):
        cell = {
            r: row[i].strip() if i is not None and i < len(row) else "" for r, i in where.items()
        }
        name = cell["name"] or " ".join(filter(None, [cell["first"], cell["last"]]))
        if normalise(name) in NOT_STUDENTS or not any(c.strip() for c in row):
            continue
        if not name and not cell["id"] and not cell["canvas_id"]:
            continue  # e.g. Canvas's "Manual Posting" row: labels, no student
        student = Student(name, cell["id"], cell["login"], cell["section"], cell["canvas_id"])
        if not name or not student.key:
            raise ValueError(f"roster {path}, line {line}: a student needs both a name and an id")
        for kind, value in (("id", student.id), ("Canvas ID", student.canvas_id)):
            if value and (kind, value) in seen:
                first, other = seen[kind, value]
                raise ValueError(
                    f"roster {path}, lines {first} and {line}: {other} and {name} have the same "
                    f"{kind}, {value}; each student needs their own, so correct one of them"
                )
            seen[kind, value] = (line, name)
        students.append(student)
    if not students:
        raise ValueError(f"roster {path}: no students after the header row")
    return students


def _has_words(haystack: str, needle: str) -> bool:
    return bool(needle) and f" {needle} " in f" {haystack} "


def match(submission_name: str, roster: list[Student]) -> Match:
    """Whose is the submission named `submission_name`? See the module's docstring for the rules."""
    name = normalise(submission_name)
    words = set(name.split())
    rules = [
        lambda s: any(
            len(i) >= SHORTEST_ID and _has_words(name, normalise(i)) for i in (s.id, s.canvas_id)
        ),
        lambda s: _has_words(name, normalise(s.name)),
        lambda s: bool(normalise(s.name)) and set(normalise(s.name).split()) <= words,
    ]
    for rule in rules:
        found = tuple(s for s in roster if rule(s))
        if len(found) == 1:
            return Match(found[0])
        if found:
            return Match(None, found)
    return Match(None)
