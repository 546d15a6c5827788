"""Results an LMS takes: gradebook.csv for Canvas, and the roster report.

gradebook.csv follows the layout of a Canvas gradebook export, which is also what Canvas's
"Import" in the gradebook reads back (checked against Canvas guides and university help pages
describing the export and import): the columns `Student`, `ID`, `SIS User ID`, `SIS Login ID`,
`Section`, then one column per assignment, and a second row whose `Student` cell is
`Points Possible` holding each assignment's maximum. Canvas identifies a student by `ID` (its own
internal number) or `SIS User ID`, so both are written back exactly as the roster had them (a
Canvas export used as the roster has both; a roster of our own only the SIS id); without a roster
there are no ids and Canvas can match no one (the run's summary says so);
here an assignment is a lesson, `Lesson N`, plus `Total`. On import, a column Canvas does not know
becomes a new assignment: leave `Total` (or any lesson) unticked on the import page if it should
not be one. A lesson the student did not hand in is an empty cell, which Canvas leaves ungraded.
"""

from __future__ import annotations

from lib.grading.roster import Match, Student, match
from lib.grading.safe_text import md_code, md_inline
from lib.grading.versions import identity, total

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def with_ids(records: list[dict], roster: list[Student] | None) -> tuple[list[dict], dict]:
    """Copies of `records` with `student_id` from the roster (unless the grader set one), and
    the roster match of each submission name ({} without a roster)."""
    if roster is None:
        return records, {}
    matches = {name: match(name, roster) for name in sorted({r["student"] for r in records})}
    return [
        {
            **r,
            "student_id": r.get("student_id")
            or getattr(matches[r["student"]].student, "key", None),
        }
        for r in records
    ], matches


def lesson_column(lesson: int) -> str:
    return f"Lesson {lesson}"


def gradebook_rows(counting: list[dict], roster: list[Student] | None) -> tuple[list, list]:
    """(columns, rows) of gradebook.csv from the submissions that count: the Points Possible
    row, then every roster student in roster order (empty cells where nothing was handed in),
    then anyone who handed in but matched no roster student (their ids empty)."""
    lessons = sorted({r["lesson"] for r in counting})
    possible = {n: max(total(r)[1] for r in counting if r["lesson"] == n) for n in lessons}
    scores: dict[str, dict[int, float]] = {}
    names: dict[str, str] = {}
    for r in counting:
        scores.setdefault(identity(r), {})[r["lesson"]] = total(r)[0]
        names.setdefault(identity(r), r["student"])
    people = [(s.key, [s.name, s.canvas_id, s.id, s.login, s.section]) for s in roster or []]
    known = {key for key, _ in people}
    people += [(who, [names[who], "", r_id, "", ""]) for who, r_id in _unlisted(counting, known)]
    columns = [*CANVAS_COLUMNS, *map(lesson_column, lessons), "Total"]
    rows: list[dict] = [
        {"Student": "Points Possible", **{lesson_column(n): possible[n] for n in lessons}}
    ]
    rows[0]["Total"] = sum(possible.values())
    for who, cells in people:
        own = scores.get(who, {})
        row = dict(zip(CANVAS_COLUMNS, cells, strict=True))
        row.update({lesson_column(n): own[n] for n in lessons if n in own})
        row["Total"] = sum(own.values()) if own else None
        rows.append(row)
    return columns, rows


def _unlisted(counting: list[dict], known: set[str]) -> list[tuple[str, str]]:
    """(identity, id) of those who handed in but are not on the roster, sorted by name."""
    found = {identity(r): r.get("student_id") or "" for r in counting if identity(r) not in known}
    return sorted(found.items(), key=lambda item: item[0].casefold())


def roster_report(
    counting: list[dict], roster: list[Student], matches: dict[str, Match], warning: str
) -> str:
    """roster_report.md: submissions matching no student, then, per lesson, who handed nothing
    in. `warning` (may be empty) goes on top (e.g. that grading ran without the sandbox)."""
    lines = ["# Roster report", ""] + ([warning, ""] if warning else [])
    lines += ["## Submissions matching no student", ""]
    unmatched = []
    for name, m in matches.items():
        several = "matches several: " + ", ".join(
            md_inline(f"{s.name} ({s.key})") for s in m.candidates
        )
        if m.student is None:
            unmatched.append(f"- {md_code(name)}: {several if m.candidates else 'matches no one'}")
    lines += [*(unmatched or ["None."]), ""]
    for lesson in sorted({r["lesson"] for r in counting}):
        handed_in = {r.get("student_id") for r in counting if r["lesson"] == lesson}
        missing = [s for s in roster if s.key not in handed_in]
        lines += [f"## Lesson {lesson}: no submission from {len(missing)} of {len(roster)}", ""]
        lines += [f"- {md_inline(f'{s.name} ({s.key})')}" for s in missing] or [
            "Everyone handed it in."
        ]
        lines.append("")
    return "\n".join(lines)
