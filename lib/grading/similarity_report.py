"""similarity.html and similarity.csv: the pairs, clusters and solution matches of `similarity`,
for an instructor to read. Everything a student wrote (names, file names, code) is untrusted and
escaped before it reaches the page; the CSV goes through `tables.csv_text` like every other.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import numpy as np

from lib.grading.similarity import FLAGGED, SAME_AS_SOLUTION, Findings, K
from lib.grading.tables import csv_text, write_text

COLUMNS = ["lesson", "exercise", "kind", "student", "other", "score", "opened_solution"]
COLUMNS += ["other_opened_solution", "cluster", "submission", "other_submission"]
HINT = (
    "Similarity is a hint for a human, never a verdict. Short exercises have few natural "
    "answers, and students may rightly share an idea: read both codes, and talk with the "
    "students, before concluding anything."
)
STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
.hint{background:#fff4d6;border-left:4px solid #e0a800;padding:.6em 1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:85%;white-space:pre-wrap}
mark{background:#ffd27f}.opened{color:#b00020;font-weight:bold}summary{cursor:pointer}"""


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def csv_rows(findings: dict[str, Findings]) -> list[dict]:
    """similarity.csv: a row per flagged pair, per code equal to the solution, per unparsable."""
    rows = []
    for name, found in findings.items():
        base = {"lesson": found.reference.lesson, "exercise": name}
        cluster_of = {i: n for n, group in enumerate(found.clusters, 1) for i in group}
        for a, b, score, *_ in found.pairs:
            one, two = found.entries[a], found.entries[b]
            rows.append(
                {
                    **base,
                    "kind": "pair",
                    "student": one.student,
                    "other": two.student,
                    "score": round(100 * score),
                    "opened_solution": _yes(one.opened),
                    "other_opened_solution": _yes(two.opened),
                    "cluster": cluster_of.get(a),
                    "submission": one.submission,
                    "other_submission": two.submission,
                }
            )
        for entry in found.entries:
            if entry.solution_score >= SAME_AS_SOLUTION:
                rows.append(
                    {
                        **base,
                        "kind": "same as solution",
                        "student": entry.student,
                        "other": "(published solution)",
                        "score": round(100 * entry.solution_score),
                        "opened_solution": _yes(entry.opened),
                        "submission": entry.submission,
                    }
                )
        for entry in found.unparsable:
            rows.append(
                {
                    **base,
                    "kind": "unparsable",
                    "student": entry.student,
                    "opened_solution": _yes(entry.opened),
                    "submission": entry.submission,
                }
            )
    return rows


def _marked(code: str, slices: np.ndarray) -> str:
    """The code, escaped, with the parts found in the other code in <mark>."""
    parts, at = [], 0
    spans = sorted(zip(*slices.tolist(), strict=True)) if slices.size else []
    for start, end in spans:
        start, end = max(start, at), min(end, len(code))
        if start >= end:
            continue
        parts += [escape(code[at:start]), f"<mark>{escape(code[start:end])}</mark>"]
        at = end
    return "".join(parts) + escape(code[at:])


def _who(entry) -> str:
    opened = ' <span class="opened">(opened the solution)</span>' if entry.opened else ""
    return f"{escape(entry.student)}{opened}"


def _section(name: str, found: Findings) -> list[str]:
    html = [f"<h2>Lesson {found.reference.lesson}: <code>{escape(name)}</code></h2>"]
    html.append(
        f"<p>{len(found.entries)} codes compared; {found.stubs} left as handed out or too "
        "short to compare.</p>"
    )
    same = [e for e in found.entries if e.solution_score >= SAME_AS_SOLUTION]
    if same:
        html.append("<h3>Same as the published solution</h3><ul>")
        html += [f"<li>{_who(e)}: {100 * e.solution_score:.0f}%</li>" for e in same]
        html.append("</ul>")
    for number, group in enumerate(found.clusters, 1):
        names = ", ".join(escape(found.entries[i].student) for i in group)
        html.append(f"<p><b>Cluster {number}</b> ({len(group)} students): {names}</p>")
    for a, b, score, slices_a, slices_b in found.pairs:
        one, two = found.entries[a], found.entries[b]
        html += [
            f"<details open><summary>{_who(one)} and {_who(two)}: {100 * score:.0f}%</summary>",
            '<div class="pair">',
            f"<div><p>{escape(one.submission)}</p><pre>{_marked(one.code, slices_a)}</pre></div>",
            f"<div><p>{escape(two.submission)}</p><pre>{_marked(two.code, slices_b)}</pre></div>",
            "</div></details>",
        ]
    for entry in found.unparsable:
        html.append(f"<p>Unparsable (not compared): {_who(entry)}</p>")
        html.append(f"<pre>{escape(entry.code)}</pre>")
    return html


def page(findings: dict[str, Findings], students: int) -> str:
    """similarity.html: the hint, the method, a table of exercises, then what each one found."""
    html = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Similarity report</title>",
        f"<style>{STYLE}</style></head><body><h1>Similarity report</h1>",
        f'<p class="hint">{escape(HINT)}</p>',
        f"<p>Compared: the versions that count of {students} students. Names, whitespace and "
        f"comments are normalised and matches under {K} characters ignored (copydetect's "
        "winnowing); code handed out with the lesson, the stub included, never counts. A pair "
        f"is listed when each shares at least {FLAGGED:.0%} of its code with the other; a code "
        f"is the published solution when they share {SAME_AS_SOLUTION:.0%} both ways.</p>",
    ]
    if students < 2:
        html.append(
            "<p><b>Nothing to compare:</b> this folder holds the work of "
            f"{'one student' if students else 'no student'}; similarity needs two.</p>"
        )
        return "\n".join([*html, "</body></html>"])
    html.append(
        "<table><tr><th>Lesson</th><th>Exercise</th><th>Compared</th><th>Pairs</th>"
        "<th>Clusters</th><th>Same as solution (opened it)</th><th>Unparsable</th></tr>"
    )
    for name, found in findings.items():
        same = [e for e in found.entries if e.solution_score >= SAME_AS_SOLUTION]
        html.append(
            f"<tr><td>{found.reference.lesson}</td><td>{escape(name)}</td>"
            f"<td>{len(found.entries)}</td><td>{len(found.pairs)}</td>"
            f"<td>{len(found.clusters)}</td><td>{len(same)} ({sum(e.opened for e in same)})</td>"
            f"<td>{len(found.unparsable)}</td></tr>"
        )
    html.append("</table>")
    for name, found in findings.items():
        if (
            found.pairs
            or found.unparsable
            or any(e.solution_score >= SAME_AS_SOLUTION for e in found.entries)
        ):
            html += _section(name, found)
    return "\n".join([*html, "</body></html>"])


def write(out_dir: Path, findings: dict[str, Findings], students: int) -> None:
    """Write similarity.html and similarity.csv into `out_dir`."""
    write_text(out_dir / "similarity.csv", csv_text(COLUMNS, csv_rows(findings)))
    write_text(out_dir / "similarity.html", page(findings, students))
