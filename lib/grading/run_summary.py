"""What the instructor reads in the terminal at the end of a grading run (`summary`)."""

from __future__ import annotations

from pathlib import Path

from lib.grading import protections, summary_chart
from lib.grading.reports import unsandboxed_warning
from lib.grading.safe_text import printable


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
    lines += [  # `parallel_grading._handed_on`: never handed on unclean
        f"Sandbox user {r['retired_user']} was retired after {r['student']}'s notebook: the "
        "clean-up after it did not finish, so no later notebook ran as that user."
        for r in records
        if r.get("retired_user") and (r.get("graded_at") or "") >= since
    ]
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
