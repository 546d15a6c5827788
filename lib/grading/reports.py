"""What the instructor and the students read: the CSV tables, feedback pages, written answers.

Every file is rewritten whole from the records after each graded submission (a class is small),
through a temporary file and a rename, so an interrupted run never leaves half a CSV.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

GRADE_COLUMNS = ["student", "lesson", "exercise", "score", "max", "status", "reason", "submission"]
TOTAL_COLUMNS = ["student", "lesson", "score", "max", "percent", "outcome", "notes", "submission"]


def number(value: float) -> str:
    """A score for people: 2, 1.5, 1.33 (two decimals at most, no trailing zeros)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def one_line(text: str) -> str:
    """A multi-line reason (summary, then the first failing case) as one CSV-friendly line."""
    return "; ".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _csv(columns: list[str], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _in_order(records: list[dict]) -> list[dict]:
    return sorted(
        records, key=lambda r: (r["student"].casefold(), r["lesson"] or 0, r["submission"])
    )


def _total(record: dict) -> tuple[float, float]:
    exercises = record["exercises"]
    return sum(e["score"] for e in exercises), sum(e["max_score"] for e in exercises)


def _notes(record: dict) -> list[str]:
    return [note for note in [record["note"], *record["events"]] if note]


def grade_rows(record: dict) -> list[dict]:
    """grades.csv's rows for one submission: one per exercise, or one saying why there are none."""
    base = {
        "student": record["student"],
        "lesson": record["lesson"] or "",
        "submission": record["submission"],
    }
    if not record["exercises"]:
        return [
            {
                **base,
                "exercise": "",
                "score": "0",
                "max": "0",
                "status": record["outcome"],
                "reason": record["note"],
            }
        ]
    return [
        {
            **base,
            "exercise": e["name"],
            "score": number(e["score"]),
            "max": number(e["max_score"]),
            "status": e["status"],
            "reason": one_line(e["reason"]),
        }
        for e in record["exercises"]
    ]


def total_row(record: dict) -> dict:
    """totals.csv's row for one submission: the lesson's score and what went wrong, if anything."""
    score, most = _total(record)
    return {
        "student": record["student"],
        "lesson": record["lesson"] or "",
        "score": number(score),
        "max": number(most),
        "percent": number(100 * score / most) if most else "0",
        "outcome": record["outcome"],
        "notes": "; ".join(_notes(record)),
        "submission": record["submission"],
    }


def feedback_name(record: dict) -> str:
    """`<student>_lesson<N>.md`, with anything odd in the student's name made safe."""
    student = re.sub(r"[^\w.-]+", "_", record["student"]).strip("._") or "student"
    lesson = f"lesson{record['lesson']}" if record["lesson"] else "unknown_lesson"
    return f"{student}_{lesson}.md"


def feedback(record: dict) -> str:
    """The page a student reads: the score, each exercise passed or not (with the first failing
    case, as the notebook's check shows it), and what went wrong while their notebook ran."""
    lesson = f"Lesson {record['lesson']}: f" if record["lesson"] else "F"
    lines = [
        f"# {lesson}eedback for {record['student']}",
        "",
        f"Submission: `{Path(record['submission']).name}`",
        "",
    ]
    if not record["exercises"]:
        return "\n".join(lines + [f"This notebook could not be graded: {record['note']}.", ""])
    score, most = _total(record)
    lines += [f"**Score: {number(score)} / {number(most)}**", ""]
    for e in record["exercises"]:
        full = e["score"] >= e["max_score"]
        mark = "✅" if full else ("🟡" if e["score"] > 0 else "❌")
        summary, _, case = e["reason"].partition("\n")
        why = f": {summary}" if summary and not full else ""
        lines.append(
            f"- {mark} `{e['name']}`, {number(e['score'])} / {number(e['max_score'])} "
            f"({e['status']}){why}"
        )
        if case.strip() and not full:
            lines += ["", "  ```text", *(f"  {line}" for line in case.splitlines()), "  ```", ""]
    if _notes(record):
        lines += ["", "While your notebook ran:", "", *(f"- {note}" for note in _notes(record))]
    return "\n".join(lines) + "\n"


def answers_page(records: list[dict], questions: dict[int, dict[str, str]]) -> str:
    """Every student's written answers, question by question, for marking by hand."""
    lines = [
        "# Written answers",
        "",
        "Each question, then every student's answer (quoted as written).",
        "",
    ]
    answers: dict[int, dict[str, list[tuple[str, str]]]] = {}
    for record in _in_order(records):
        for answer_id, text in record["answers"].items() if record["lesson"] else ():
            by_id = answers.setdefault(record["lesson"], {})
            by_id.setdefault(answer_id, []).append((record["student"], text))
    for lesson, by_id in sorted(answers.items()):
        asked = questions.get(lesson, {})  # the lesson's order, then any the lesson lacks
        for answer_id in [a for a in asked if a in by_id] + sorted(set(by_id) - set(asked)):
            lines += [f"## Lesson {lesson}, `{answer_id}`", ""]
            if answer_id in asked:
                lines += [*(f"> {line}" for line in asked[answer_id].splitlines()), ""]
            for student, text in by_id[answer_id]:
                quoted = [f"> {line}" for line in text.splitlines()] or ["> *(no answer)*"]
                lines += [f"### {student}", "", *quoted, ""]
    return "\n".join(lines)


def write_all(out_dir: Path, records: list[dict], questions: dict[int, dict[str, str]]) -> None:
    """(Re)write grades.csv, totals.csv, feedback/*.md and answers.md in `out_dir`."""
    records = _in_order(records)
    grades = [row for record in records for row in grade_rows(record)]
    _write(out_dir / "grades.csv", _csv(GRADE_COLUMNS, grades))
    _write(out_dir / "totals.csv", _csv(TOTAL_COLUMNS, [total_row(r) for r in records]))
    used: set[str] = set()
    for record in records:
        name, n = feedback_name(record), 2
        while name in used:  # two notebooks of one lesson from one student: keep both pages
            name, n = re.sub(r"(_\d+)?\.md$", f"_{n}.md", name), n + 1
        used.add(name)
        _write(out_dir / "feedback" / name, feedback(record))
    _write(out_dir / "answers.md", answers_page(records, questions))


def summary(records: list[dict], seconds: float, out_dir: Path) -> str:
    """What the instructor sees at the end of a run: counts, what failed and why, where to look."""
    failed = [r for r in records if r["outcome"] != "graded"]
    troubled = [r for r in records if r["outcome"] == "graded" and r["events"]]
    minutes, secs = divmod(round(seconds), 60)
    lines = [
        f"{len(records)} submissions: {len(records) - len(failed)} graded, {len(failed)} "
        f"could not be graded ({minutes} min {secs} s)."
    ]
    lines += [
        f"  not graded: {r['student']} ({Path(r['submission']).name}): {r['outcome']}, {r['note']}"
        for r in failed
    ]
    if troubled:
        lines.append(
            f"{len(troubled)} graded notebooks had problems while running "
            "(details in their feedback):"
        )
        lines += [f"  {r['student']}, lesson {r['lesson']}: {r['events'][0]}" for r in troubled]
    lines.append(
        f"Scores: {out_dir / 'grades.csv'} and {out_dir / 'totals.csv'}; feedback for "
        f"students in {out_dir / 'feedback'}; written answers in "
        f"{out_dir / 'answers.md'}."
    )
    return "\n".join(lines)
