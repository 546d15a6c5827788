"""Gradescope's results.json for one submission, from the grader's records.

A test per exercise (score, max_score, output), the written answers as tests without points (the
instructor marks them by hand), and the total. Of several notebooks of one lesson, the best-scoring
one counts; with a lesson given, notebooks of other lessons are listed, not scored.
"""

from __future__ import annotations

from pathlib import Path

from lib.grading.safe_text import printable

ANSWER_LIMIT = 5_000  # characters of a written answer shown back to the student


def _test(name: str, output: str, points: tuple[float, float] | None = None) -> dict:
    """One entry of results.json's `tests`: with `points` (score, max_score) a graded test,
    without them a message shown in the list, worth nothing."""
    test = {"name": name, "output": output, "visibility": "visible"}
    if points is not None:
        score, most = points
        status = "passed" if score >= most > 0 else "failed"
        test.update(score=score, max_score=most, status=status)
    return test


def nothing(output: str) -> dict:
    return {"score": 0.0, "output": output, "tests": []}


def _score(record: dict) -> float:
    return sum(float(e.get("score") or 0) for e in record.get("exercises") or [])


def _record_tests(record: dict) -> list[dict]:
    """A test per exercise, then the written answers as tests without points (the instructor
    marks them by hand), each cut to ANSWER_LIMIT characters."""
    lesson, tests = record.get("lesson"), []
    for e in record["exercises"]:
        output = f"{e.get('status', '')}: {e.get('reason', '')}".strip(": ")
        points = (float(e.get("score") or 0), float(e.get("max_score") or 0))
        tests.append(_test(f"Lesson {lesson}: {e.get('name', '?')}", output, points))
    for answer_id, text in (record.get("answers") or {}).items():
        shown = text if len(text) <= ANSWER_LIMIT else text[:ANSWER_LIMIT] + "\n[… cut here]"
        output = f"Marked by hand by your instructor. Your answer:\n\n{shown or '(empty)'}"
        tests.append(_test(f"Lesson {lesson}: written answer `{answer_id}`", output))
    return tests


def results_json(records: list[dict], lesson: int | None = None) -> dict:
    """Gradescope's results.json for one submission's records: a test per exercise (score,
    max_score, output, visibility), the written answers as tests without points, and the total.
    Of several notebooks of one lesson, the best-scoring one counts (the others are listed).
    With `lesson`, notebooks of other lessons are listed, not scored."""
    if not records:
        return nothing(
            "No notebook (.ipynb) found in your submission: upload your lesson's .ipynb file "
            "(on Colab: File → Download → Download .ipynb)."
        )
    elsewhere = [r for r in records if lesson and r.get("lesson") not in (None, lesson)]
    records = [r for r in records if r not in elsewhere]
    best: dict[object, dict] = {}
    for record in sorted(records, key=lambda r: (-_score(r), r.get("submission", ""))):
        if record.get("exercises"):
            best.setdefault(record.get("lesson"), record)
    tests, lines = [], []
    if lesson and not best:
        lines.append(f"No notebook of lesson {lesson} was found in your submission.")
    lines += [
        f"{Path(r.get('submission', '?')).name} is lesson {r['lesson']}: not scored here "
        f"(this assignment grades lesson {lesson}; upload it to lesson {r['lesson']}'s)."
        for r in elsewhere
    ]
    for record in records:
        name, lesson = Path(record.get("submission", "?")).name, record.get("lesson")
        if not record.get("exercises"):
            why = f"{record.get('outcome', 'not graded')}: {record.get('note', '')}".strip(": ")
            lines.append(f"{name} could not be graded ({why}); it scores 0.")
            tests.append(_test(f"{name}: not graded", why, (0.0, 0.0)))
        elif best[lesson] is not record:
            kept = Path(best[lesson].get("submission", "?")).name
            lines.append(f"{name} is lesson {lesson} again: {kept} counts.")
        else:
            lines.append(f"{name}: lesson {lesson}, {_score(record):g} points.")
            tests += _record_tests(record)
            lines += [f"  while it ran: {printable(event)}" for event in record.get("events") or []]
            if record.get("solutions"):
                lines.append(f"  solution shown for: {', '.join(map(str, record['solutions']))}")
            if record.get("sandboxed") is False:
                lines.append("  graded without the sandbox (the instructor turned it off)")
    score = sum(t.get("score", 0.0) for t in tests)
    return {"score": score, "output": "\n".join(lines), "tests": tests}
