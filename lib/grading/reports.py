"""Every file of the grader's output folder, written from the records (`write_all`): the CSV
tables (`grade_tables`), feedback pages, written answers, the gradebook, the class summary and
the roster report. What the run prints at its end is `run_summary`.

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
    feedback_pages,
    gradebook,
    similarity,
    similarity_report,
    summary_chart,
    written_marks,
)
from lib.grading.feedback_names import feedback_stems, person
from lib.grading.grade_tables import GRADE_COLUMNS, TOTAL_COLUMNS, grade_rows, total_row
from lib.grading.roster import Student
from lib.grading.safe_text import md_block, md_code, md_inline, printable
from lib.grading.tables import csv_text, write_text
from lib.grading.versions import counting_records, identity


def _in_order(records: list[dict]) -> list[dict]:
    return sorted(
        records, key=lambda r: (r["student"].casefold(), r["lesson"] or 0, r["submission"])
    )


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


def _pages(record: dict, notice: list[str], questions: dict) -> tuple[str, str]:
    """One record's feedback pages, Markdown and HTML. A record they cannot be made of (one
    from an older grader, or edited by hand) costs its own pages, never the batch's reports: it
    gets a page that says so."""
    try:
        page = feedback.of_record(record, notice, questions.get(record["lesson"]))
        return feedback_pages.markdown(page), feedback_pages.html(page)
    except Exception as error:  # any record field of an unexpected type or shape
        why = (
            f"This feedback page could not be made ({type(error).__name__}): your grade is in "
            "the instructor's tables. Please tell your instructor."
        )
        return (
            f"# Feedback\n\n{why}\n",
            f"<!DOCTYPE html>\n<html><body><p>{why}</p></body></html>\n",
        )


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
        markdown, html = _pages(record, _version_notice(record, counting), questions)
        write_text(out_dir / "feedback" / f"{stem}.md", markdown)
        write_text(out_dir / "feedback" / f"{stem}.html", html)
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
