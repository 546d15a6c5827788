"""The class list: who should hand in, and which submission is whose (`--roster roster.csv`).

A roster is a CSV with a header row naming at least a name column (`name` or `student`) and an
id column (`id`, `student_id` or `sis_user_id`), in any case and order; `login` (or `email`)
and `section` are optional and go to the gradebook. A Canvas "People" or gradebook export renamed
to these headers works.

Submissions are named after their student by file or folder name, as typed by the student or the
LMS ("Lee, Ann", "ann_lee_12345.ipynb", "Anne-Marie Müller"), so names are compared normalised:
case folded, accents removed, anything that is not a letter or a digit a word break. A submission
belongs to a roster student when, in this order of precedence:

1. the student's **id** is one of its words (ids shorter than 3 characters are not looked for:
   "7" would match "lesson 7");
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
    "name": ("name", "student"),
    "id": ("id", "student_id", "sis_user_id"),
    "login": ("login", "email", "sis_login_id"),
    "section": ("section",),
}
SHORTEST_ID = 3


@dataclass(frozen=True)
class Student:
    """One line of the roster."""

    name: str
    id: str
    login: str = ""
    section: str = ""


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


def _column(header: list[str], role: str) -> int | None:
    wanted = HEADERS[role]
    found = [i for i, name in enumerate(header) if name.strip().casefold() in wanted]
    return found[0] if found else None


def load_roster(path: str | Path) -> list[Student]:
    """Read a roster CSV (UTF-8, a byte-order mark is fine). Raises ValueError saying which file
    and what is wrong: missing columns, no students, a student without a name or an id."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as file:
            table = list(csv.reader(file))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"roster {path}: cannot read it as UTF-8 text ({error})") from None
    header = table[0] if table else []
    where = {role: _column(header, role) for role in HEADERS}
    for role in ("name", "id"):
        if where[role] is None:
            raise ValueError(
                f"roster {path}: no {role} column; its header row needs one of "
                f"{', '.join(HEADERS[role])} (found: {', '.join(header) or 'nothing'})"
            )
    students = []
    for line, row in enumerate(table[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cell = {
            role: row[i].strip() if i is not None and i < len(row) else ""
            for role, i in where.items()
        }
        if not cell["name"] or not cell["id"]:
            raise ValueError(f"roster {path}, line {line}: a student needs both a name and an id")
        students.append(Student(cell["name"], cell["id"], cell["login"], cell["section"]))
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
        lambda s: len(s.id) >= SHORTEST_ID and _has_words(name, normalise(s.id)),
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
