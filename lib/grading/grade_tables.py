"""The rows of grades.csv (one per student and exercise) and totals.csv (one per submission).

grades.csv says each exercise's score, status and first failing case (hidden ones in full: it is
the instructor's), whether the student opened its solution and whether their code is the
published solution's; totals.csv each submission's score and what went wrong while it ran.
"""

from __future__ import annotations

from lib.grading import similarity
from lib.grading.versions import total

GRADE_COLUMNS = ["student", "lesson", "exercise", "score", "max", "status", "reason", "submission"]
GRADE_COLUMNS += ["solution_opened", "matches_solution", "counts", "sandboxed"]
TOTAL_COLUMNS = ["student", "lesson", "score", "max", "percent", "outcome", "notes", "submission"]
TOTAL_COLUMNS += ["student_id", "counts", "graded_at", "sandboxed"]


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def one_line(text: str) -> str:
    """A multi-line reason (summary, then the first failing case) as one CSV-friendly line."""
    return "; ".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def grade_rows(
    record: dict, counts: bool = True, references: dict[str, similarity.Reference] | None = None
) -> list[dict]:
    """grades.csv's rows for one submission: one per exercise, or one saying why there are none.
    `counts`: whether this is the version of the lesson that counts (`counting_records`);
    `references`: the exercises' published solutions, for `matches_solution`."""
    base = {
        "student": record["student"],
        "lesson": record["lesson"],
        "submission": record["submission"],
        "counts": yes_no(counts),
        "sandboxed": yes_no(record.get("sandboxed", True)),
    }
    if not record["exercises"]:
        return [
            {**base, "score": 0, "max": 0, "status": record["outcome"], "reason": record["note"]}
        ]
    opened = set(record.get("solutions") or [])
    return [
        {
            **base,
            "exercise": e["name"],
            "score": e["score"],
            "max": e["max_score"],
            "status": e["status"],
            "reason": one_line(e["reason"] + (f"\n{e['detail']}" if e.get("detail") else "")),
            "solution_opened": yes_no(e["name"] in opened),
            "matches_solution": _matches(record, e["name"], references or {}),
        }
        for e in record["exercises"]
    ]


def _matches(record: dict, exercise: str, references: dict[str, similarity.Reference]) -> str:
    """grades.csv's `matches_solution`: yes, no, or empty when there is no code to compare."""
    code = (record.get("code") or {}).get(exercise)
    if code is None or exercise not in references or exercise in (record.get("unparsable") or []):
        return ""
    return yes_no(similarity.matches_solution(code, references[exercise]))


def total_row(record: dict, counts: bool = True) -> dict:
    """totals.csv's row for one submission: the lesson's score and what went wrong, if anything."""
    score, most = total(record)
    notes = [note for note in [record["note"], *record["events"]] if note]
    return {
        "student": record["student"],
        "lesson": record["lesson"],
        "score": score,
        "max": most,
        "percent": 100 * score / most if most else 0,
        "outcome": record["outcome"],
        "notes": "; ".join(notes),
        "submission": record["submission"],
        "student_id": record.get("student_id"),
        "counts": yes_no(counts),
        "graded_at": record.get("graded_at"),
        "sandboxed": yes_no(record.get("sandboxed", True)),
    }
