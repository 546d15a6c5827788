"""The page a student reads, as Markdown and as a self-contained HTML page (same content).

Both say the score, each exercise passed or not (with the first failing case, as the notebook's
check shows it), whether the student opened an exercise's solution, what went wrong while the
notebook ran, and any notice about the grading itself (graded without the sandbox; not the
version that counts). The HTML page adds the student's written answers. Everything in it that a
student could have typed (their name, file name, answers, and the reasons, which quote their
values) goes through `html.escape`: a `<script>` in an answer shows as text and never runs; in
the Markdown page, through `safe_text`, so it cannot draw headings or a score of its own.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from lib.grading.safe_text import md_code, md_inline, printable
from lib.grading.tables import number
from lib.grading.versions import total

UNSANDBOXED = (
    "Graded without the sandbox (--no-sandbox): the notebook ran with the instructor's "
    "permissions, so a notebook could have changed results."
)
CSS = """\
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1b1b; --muted: #555555;
  --box: #f2f2f2; --warn-bg: #fff1c2; --warn-fg: #4d3800; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #151515; --fg: #e9e9e9; --muted: #b0b0b0; --box: #262626;
    --warn-bg: #4a3a05; --warn-fg: #ffe8a3; } }
body { background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, sans-serif;
  max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }
.muted { color: var(--muted); }
.notice { background: var(--warn-bg); color: var(--warn-fg); padding: .5rem .8rem;
  border-radius: 6px; }
pre, blockquote { background: var(--box); padding: .6rem .8rem; border-radius: 6px; margin: .4rem 0;
  white-space: pre-wrap; overflow-wrap: anywhere; }
li { margin: .3rem 0; }"""


PLAIN_MARKS = ("✓", "½", "✗")  # in every font


def _mark(e: dict, symbols: tuple[str, str, str] = ("✅", "🟡", "❌")) -> str:
    """Full, partial or no marks, as a symbol (emoji in Markdown; the HTML page passes plain
    ones that every font has, so a machine without emoji fonts shows no empty boxes)."""
    full, partial, none = symbols
    return full if e["score"] >= e["max_score"] else (partial if e["score"] > 0 else none)


def _notes(record: dict) -> list[str]:
    return [note for note in [record.get("note"), *record.get("events", [])] if note]


def notices(record: dict, extra: list[str]) -> list[str]:
    """What to say about the grading itself, before the score."""
    return ([] if record.get("sandboxed", True) else [UNSANDBOXED]) + extra


def _written(record: dict) -> str:
    mark, most = record["written"]
    marks = f"{number(mark)} / {number(most)}"
    return f"Of which your written answers, marked by your instructor: {marks}."


def _exercise(e: dict, opened: set[str]) -> tuple[str, str, str]:
    """(status words, why it lost points or "", the failing case or "") of one exercise."""
    full = e["score"] >= e["max_score"]
    summary, _, case = e["reason"].partition("\n")
    status = e["status"] + ("; solution opened" if e["name"] in opened else "")
    return status, summary if summary and not full else "", case if not full else ""


def title(record: dict) -> str:
    """ "Lesson 3: feedback for Ann Lee", or "Feedback for ..." when the lesson is unknown."""
    if record["lesson"]:
        return f"Lesson {record['lesson']}: feedback for {record['student']}"
    return f"Feedback for {record['student']}"


def _fenced(text: str) -> list[str]:
    """A failing case as a code block whose fence no backtick run in it can close."""
    fence = "`" * max([3, *(len(run) + 1 for run in re.findall("`+", text))])
    return ["", f"  {fence}text", *(f"  {line}" for line in text.splitlines()), f"  {fence}", ""]


def markdown(record: dict, extra: list[str] = ()) -> str:
    """feedback/<student>_lesson<N>.md. `extra`: notices from the report (version that counts)."""
    lines = [f"# {md_inline(title(record))}", ""]
    lines += [f"Submission: {md_code(Path(record['submission']).name)}", ""]
    notes = notices(record, list(extra))
    lines += [line for text in notes for line in (f"**Note:** {md_inline(text)}", "")]
    if not record["exercises"]:
        why = md_inline(record["note"])
        return "\n".join(lines + [f"This notebook could not be graded: {why}.", ""])
    score, most = total(record)
    lines += [f"**Score: {number(score)} / {number(most)}**", ""]
    lines += [f"{_written(record)}", ""] if record.get("written") else []
    opened = set(record.get("solutions") or [])
    for e in record["exercises"]:
        status, why, case = _exercise(e, opened)
        points = f"{number(e['score'])} / {number(e['max_score'])}"
        why = f": {md_inline(why)}" if why else ""
        lines.append(f"- {_mark(e)} {md_code(e['name'])}, {points} ({md_inline(status)}){why}")
        if case.strip():
            lines += _fenced(printable(case))
    if _notes(record):
        notes = [f"- {md_inline(note)}" for note in _notes(record)]
        lines += ["", "While your notebook ran:", "", *notes]
    return "\n".join(lines) + "\n"


def _question(asked: str) -> str:
    """The words of a question as the lesson asks it, without its Markdown heading lines."""
    words = [line.strip() for line in asked.splitlines() if not line.lstrip().startswith("#")]
    return " ".join(line for line in words if line)


def html_page(record: dict, extra: list[str] = (), asked: dict[str, str] | None = None) -> str:
    """feedback/<student>_lesson<N>.html: the Markdown page's content, plus the written answers,
    as one HTML file with no outside resources, readable in a light or a dark browser theme.
    `asked`: the lesson's questions by answer key, to head each answer with its question."""
    heading = escape(title(record))
    body = [f"<h1>{heading}</h1>"]
    body.append(f"<p>Submission: <code>{escape(Path(record['submission']).name)}</code></p>")
    body += [f'<p class="notice">{escape(text)}</p>' for text in notices(record, list(extra))]
    if not record["exercises"]:
        body.append(f"<p>This notebook could not be graded: {escape(record['note'])}.</p>")
    else:
        score, most = total(record)
        body += [f"<p><strong>Score: {number(score)} / {number(most)}</strong></p>"]
        body += [f"<p>{escape(_written(record))}</p>"] if record.get("written") else []
        body.append("<ul>")
        opened = set(record.get("solutions") or [])
        for e in record["exercises"]:
            status, why, case = _exercise(e, opened)
            points = f"{number(e['score'])} / {number(e['max_score'])}"
            body.append(
                f"<li>{_mark(e, PLAIN_MARKS)} <code>{escape(e['name'])}</code>, {points} "
                f"({escape(status)})"
                + (f": {escape(why)}" if why else "")
                + (f"<pre>{escape(case)}</pre>" if case.strip() else "")
                + "</li>"
            )
        body.append("</ul>")
    if _notes(record):
        body += ["<h2>While your notebook ran</h2>", "<ul>"]
        body += [f"<li>{escape(note)}</li>" for note in _notes(record)] + ["</ul>"]
    if record.get("answers"):
        body.append("<h2>Your written answers</h2>")
        for answer_id, text in record["answers"].items():
            shown = escape(text) if text.strip() else '<span class="muted">(no answer)</span>'
            question = _question((asked or {}).get(answer_id, ""))
            body += [
                f"<h3>{escape(question)}</h3>"
                if question
                else f"<h3><code>{escape(answer_id)}</code></h3>",
                f"<blockquote>{shown}</blockquote>",
            ]
    return printable(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{heading}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )
