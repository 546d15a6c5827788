"""Which of a student's submissions counts, when they handed in one lesson more than once.

Every version keeps its rows in grades.csv and totals.csv (marked `counts` yes or no); only the
version that counts goes into the gradebook, the class summary and the roster report.
"""

from __future__ import annotations


def total(record: dict) -> tuple[float, float]:
    """(score, most it could score) of one submission: the sum over its exercises, plus the
    instructor's marks for its written answers when there are any (`written_marks`)."""
    exercises = record.get("exercises") or []
    written, out_of = record.get("written") or (0, 0)
    return (
        sum(e["score"] for e in exercises) + written,
        sum(e["max_score"] for e in exercises) + out_of,
    )


def identity(record: dict) -> str:
    """Who handed it in: the roster's id when there is one, else the name from the file."""
    return record.get("student_id") or record["student"]


def _rank(record: dict) -> tuple[float, str, str]:
    return (total(record)[0], record.get("graded_at") or "", record["submission"])


def counting_records(records: list[dict]) -> list[dict]:
    """The submissions that count: one per student and lesson.

    The rule: of one student's submissions for one lesson (same roster id, or same name when
    there is no roster), the one with the **highest score** counts; between equal scores, the one
    **graded last** (latest `graded_at`); between those, the last file path in sort order, so the
    choice never depends on the order the records come in. A submission whose lesson is unknown
    (unreadable, another course) counts for no lesson and is never returned.
    """
    best: dict[tuple[str, int], dict] = {}
    for record in records:
        if record.get("lesson") is None:
            continue
        slot = (identity(record), record["lesson"])
        if slot not in best or _rank(record) > _rank(best[slot]):
            best[slot] = record
    return list(best.values())
