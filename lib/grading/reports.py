"""What the instructor and the students read: the CSV tables, feedback pages, written answers,
the gradebook, the class summary and the roster report, all from the records (`write_all`).

Every file is rewritten whole from all the records of the output folder after each graded
submission (a class is small), through a temporary file and a rename, so an interrupted run
never leaves half a CSV, and grading another folder into the same output adds rows, never drops
them. Every CSV cell goes through `tables.csv_text`, which defuses spreadsheet formulas.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lib.grading import (
    feedback,
    gradebook,
    protections,
    similarity,
    similarity_report,
    summary_chart,
    written_marks,
)
from lib.grading.feedback_names import feedback_stems, person
from lib.grading.roster import Student
from lib.grading.safe_text import md_block, md_code, md_inline, printable
from lib.grading.tables import csv_text, write_text
from lib.grading.versions import counting_records, identity, total

GRADE_COLUMNS = ["student", "lesson", "exercise", "score", "max", "status", "reason", "submission"]
GRADE_COLUMNS += ["solution_opened", "matches_solution", "counts", "sandboxed"]
TOTAL_COLUMNS = ["student", "lesson", "score", "max", "percent", "outcome", "notes", "submission"]
TOTAL_COLUMNS += ["student_id", "counts", "graded_at", "sandboxed"]


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def one_line(text: str) -> str:
    """A multi-line reason (summary, then the first failing case) as one CSV-friendly line."""
    return "; ".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _in_order(records: list[dict]) -> list[dict]:
    return sorted(
        records, key=lambda r: (r["student"].casefold(), r["lesson"] or 0, r["submission"])
    )


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


def answers_page(
    records: list[dict], questions: dict[int, dict[str, str]], warning: str = "", counts=None
) -> str:
    """Every student's written answers, question by question, for marking by hand. `counts`
    (one flag per record): which version of a lesson counts, when a student handed in two."""
    lines = ["# Written answers", ""] + ([warning, ""] if warning else [])
    lines += ["Each question, then every student's answer (quoted as written).", ""]
    answers: dict[int, dict[str, list[tuple[str, str]]]] = {}
    versions = Counter((identity(r), r["lesson"]) for r in records)
    for record, counted in zip(records, counts or [True] * len(records), strict=True):
        who = md_inline(record["student"])
        if versions[identity(record), record["lesson"]] > 1:  # say which of them counts
            file = md_code(Path(record["submission"]).name)
            who += f" ({file}, {'the version that counts' if counted else 'does not count'})"
        for answer_id, text in record["answers"].items() if record["lesson"] else ():
            by_id = answers.setdefault(record["lesson"], {})
            by_id.setdefault(answer_id, []).append((who, text))
    for lesson, by_id in sorted(answers.items()):
        asked = questions.get(lesson, {})  # the lesson's order, then any the lesson lacks
        for answer_id in [a for a in asked if a in by_id] + sorted(set(by_id) - set(asked)):
            lines += [f"## Lesson {lesson}, {md_code(answer_id)}", ""]
            if answer_id in asked:
                lines += [*(f"> {line}" for line in asked[answer_id].splitlines()), ""]
            for student, text in by_id[answer_id]:
                quoted = [f"> {line}" for line in md_block(text)] or ["> *(no answer)*"]
                lines += [f"### {student}", "", *quoted, ""]
    return printable("\n".join(lines))


def unsandboxed_warning(records: list[dict]) -> str:
    """The line every Markdown report starts with when any submission ran without the sandbox."""
    bare = sum(not r.get("sandboxed", True) for r in records)
    if not bare:
        return ""
    return (
        f"**Warning: {bare} of {len(records)} submissions were graded without the sandbox "
        "(--no-sandbox)**: their code ran with the instructor's permissions and could have "
        "changed any result. Column `sandboxed` in grades.csv and totals.csv says which."
    )


def _version_notice(record: dict, counting: dict) -> list[str]:
    """Feedback's notice on a version of a lesson that does not count."""
    chosen = counting.get((identity(record), record["lesson"]))
    if chosen is None or chosen is record:
        return []
    return [
        f"This is not the version of lesson {record['lesson']} that counts: "
        f"{Path(chosen['submission']).name} does (the highest score counts; between equal "
        "scores, the one graded last)."
    ]


def write_all(
    out_dir: Path,
    records: list[dict],
    questions: dict[int, dict[str, str]],
    roster: list[Student] | None = None,
    *,
    charts: bool = True,
    references: dict[str, similarity.Reference] | None = None,
) -> None:
    """(Re)write every report in `out_dir` from `records` (all of the folder's, not one run's):
    grades.csv, totals.csv, feedback/*.md and *.html, answers.md, written_marks.csv, gradebook.csv,
    class_summary.csv, summary.md, and with a `roster` roster_report.md. `charts=False` skips
    summary.html and summary.png (drawing the PNG starts a browser: about 3 s) and the
    similarity report (similarity.html, .csv: comparing a whole class takes seconds), which
    needs `references` (`similarity.references`)."""
    out_dir = Path(out_dir)
    records, matches = gradebook.with_ids(_in_order(records), roster)
    records = written_marks.with_marks(out_dir, records)
    chosen = counting_records(records)
    counting = {(identity(r), r["lesson"]): r for r in chosen}
    counts = [any(r is c for c in chosen) for r in records]
    warning = unsandboxed_warning(records)
    grades = [
        row for r, c in zip(records, counts, strict=True) for row in grade_rows(r, c, references)
    ]
    write_text(out_dir / "grades.csv", csv_text(GRADE_COLUMNS, grades))
    totals = [total_row(r, c) for r, c in zip(records, counts, strict=True)]
    write_text(out_dir / "totals.csv", csv_text(TOTAL_COLUMNS, totals))
    people = [person(r, matches[r["student"]].student if matches else None) for r in records]
    pages = set()
    for record, stem in zip(records, feedback_stems(records, people, counts), strict=True):
        notice, asked = _version_notice(record, counting), questions.get(record["lesson"])
        write_text(out_dir / "feedback" / f"{stem}.md", feedback.markdown(record, notice))
        write_text(out_dir / "feedback" / f"{stem}.html", feedback.html_page(record, notice, asked))
        pages |= {f"{stem}.md", f"{stem}.html"}
    for page in (out_dir / "feedback").glob("*.*"):  # pages named otherwise by an earlier run
        if page.suffix in (".md", ".html") and page.name not in pages:
            page.unlink()
    write_text(out_dir / "answers.md", answers_page(records, questions, warning, counts))
    columns, rows = gradebook.gradebook_rows(chosen, roster)
    write_text(out_dir / "gradebook.csv", csv_text(columns, rows))
    summary_rows = summary_chart.class_summary(chosen)
    write_text(out_dir / "class_summary.csv", csv_text(summary_chart.COLUMNS, summary_rows))
    write_text(out_dir / "summary.md", summary_chart.summary_page(summary_rows, warning))
    if charts and summary_rows:
        summary_chart.write_chart(out_dir, summary_rows)
    if charts and references is not None:
        findings = similarity.class_findings(chosen, references)
        similarity_report.write(out_dir, findings, len({identity(r) for r in chosen}))
    if roster is not None:
        report = gradebook.roster_report(chosen, roster, matches, warning)
        write_text(out_dir / "roster_report.md", report)
    else:  # a report of an earlier roster would no longer match these tables
        (out_dir / "roster_report.md").unlink(missing_ok=True)


def summary(records: list[dict], seconds: float, out_dir: Path, since: str = "") -> str:
    """What the instructor sees at the end of a run: counts, what failed and why, where to look.
    `since`: when the run started (as `graded_at` writes it); records graded before then were
    kept from an earlier run, and are counted apart (a resumed run grades nothing again)."""
    out_dir = Path(out_dir)
    failed = [r for r in records if r["outcome"] != "graded"]
    troubled = [r for r in records if r["outcome"] == "graded" and r["events"]]
    kept = sum(r not in failed and (r.get("graded_at") or "") < since for r in records)
    minutes, secs = divmod(round(seconds), 60)
    done = f"{len(records) - len(failed) - kept} graded"
    done += f", {kept} kept from an earlier run (unchanged)" if kept else ""
    lines = [
        f"{len(records)} submissions: {done}, {len(failed)} could not be graded "
        f"({minutes} min {secs} s)."
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
    if unsandboxed_warning(records):
        bare = sum(not r.get("sandboxed", True) for r in records)
        lines.append(f"WARNING: {bare} submissions were graded WITHOUT the sandbox (--no-sandbox).")
    lines.append(protections.line(all(r.get("sandboxed", True) for r in records), records))
    lines += filter(None, [summary_chart.png_note(out_dir)])
    roster = out_dir / "roster_report.md"
    if not roster.exists():
        lines.append(
            "No roster (--roster): gradebook.csv has no ids and names students by their file "
            "names, so an LMS cannot import it. Grade again with --roster (a Canvas gradebook "
            "export works as it is) to fill them in."
        )
    lines.append(
        f"Scores: {out_dir / 'grades.csv'} and {out_dir / 'totals.csv'}; for the LMS: "
        f"{out_dir / 'gradebook.csv'}; class summary: {out_dir / 'summary.md'}"
        f"{f'; roster: {roster}' if roster.exists() else ''}; feedback for students (.md and "
        f".html) in {out_dir / 'feedback'}; written answers in {out_dir / 'answers.md'}; "
        f"similar code (a hint, not a verdict) in {out_dir / 'similarity.html'}."
    )
    return printable("\n".join(lines))  # names and notes hold what notebooks wrote
