"""The file names of the feedback pages: one per submission, unique by construction.

A name comes from who the student is, never from the order the records are sorted in: with a
roster, the roster's name and id (`Lee_Ann_S1001_lesson3`); without one, the name from the file
or folder (`ann_lee_lesson3`). Making a name safe for a file system can make two students alike
(`_alice` and `alice` both become `alice`): then each of them gets a short hash of their own
identity (`alice-1f0c2a9e_lesson1`), so a submission named to look like another student's can
never take that student's page. When a student handed in one lesson more than once, each
version that does not count adds a hash of its file's path.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict

from lib.grading.roster import Student


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _safe(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", text).strip("._-")[:60] or "student"


def person(record: dict, student: Student | None) -> str:
    """Who handed the submission in: the roster's name and id, else the name from the file."""
    return f"{student.name} {student.key}" if student else record["student"]


def feedback_stems(records: list[dict], people: list[str], counts: list[bool]) -> list[str]:
    """A file name stem per record (`people[i]` its `person`, `counts[i]` whether it is the
    version that counts): unique, and the same on every run for the same identity."""
    alike: dict[str, set[str]] = defaultdict(set)
    for who in people:
        alike[_safe(who)].add(who)
    versions = Counter((who, r["lesson"]) for r, who in zip(records, people, strict=True))
    stems = []
    for record, who, counted in zip(records, people, counts, strict=True):
        name = _safe(who) if len(alike[_safe(who)]) == 1 else f"{_safe(who)}-{_hash(who)}"
        lesson = f"lesson{record['lesson']}" if record["lesson"] else "unknown_lesson"
        alone = counted or versions[who, record["lesson"]] == 1
        stems.append(f"{name}_{lesson}" + ("" if alone else f"_{_hash(record['submission'])}"))
    return stems
