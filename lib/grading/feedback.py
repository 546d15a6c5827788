"""The page a student reads, as Markdown and as a self-contained HTML page (same content).

Both say the score, each exercise passed or not (with the first failing case, as the notebook's
check shows it), whether the student opened an exercise's solution, what went wrong while the
notebook ran, and any notice about the grading itself (graded without the sandbox; not the
version that counts). The HTML page adds the student's written answers. Everything in it that a
student could have typed (their name, file name, answers, and the reasons, which quote their
values) goes through `html.escape`: a `<script>` in an answer shows as text and never runs.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

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


def _exercise(e: dict, opened: set[str]) -> tuple[str, str, str]:
    """(status words, why it lost points or "", the failing case or "") of one exercise."""
    full = e["score"] >= e["max_score"]
    summary, _, case = e["reason"].partition("\n")
    status = e["status"] + ("; solution opened" if e["name"] in opened else "")
    return status, summary if summary and not full else "", case if not full else ""


def markdown(record: dict, extra: list[str] = ()) -> str:
    """feedback/<student>_lesson<N>.md. `extra`: notices from the report (version that counts)."""
    lesson = f"Lesson {record['lesson']}: f" if record["lesson"] else "F"
    lines = [f"# {lesson}eedback for {record['student']}", ""]
    lines += [f"Submission: `{Path(record['submission']).name}`", ""]
    lines += [line for text in notices(record, list(extra)) for line in (f"**Note:** {text}", "")]
    if not record["exercises"]:
        return "\n".join(lines + [f"This notebook could not be graded: {record['note']}.", ""])
    score, most = total(record)
    lines += [f"**Score: {number(score)} / {number(most)}**", ""]
    opened = set(record.get("solutions") or [])
    for e in record["exercises"]:
        status, why, case = _exercise(e, opened)
        points = f"{number(e['score'])} / {number(e['max_score'])}"
        lines.append(f"- {_mark(e)} `{e['name']}`, {points} ({status}){': ' + why if why else ''}")
        if case.strip():
            lines += ["", "  ```text", *(f"  {line}" for line in case.splitlines()), "  ```", ""]
    if _notes(record):
        lines += ["", "While your notebook ran:", "", *(f"- {note}" for note in _notes(record))]
    return "\n".join(lines) + "\n"


def html_page(record: dict, extra: list[str] = ()) -> str:
    """feedback/<student>_lesson<N>.html: the Markdown page's content, plus the written answers,
    as one HTML file with no outside resources, readable in a light or a dark browser theme."""
    lesson = f"Lesson {record['lesson']}: f" if record["lesson"] else "F"
    title = escape(f"{lesson}eedback for {record['student']}")
    body = [f"<h1>{title}</h1>"]
    body.append(f"<p>Submission: <code>{escape(Path(record['submission']).name)}</code></p>")
    body += [f'<p class="notice">{escape(text)}</p>' for text in notices(record, list(extra))]
    if not record["exercises"]:
        body.append(f"<p>This notebook could not be graded: {escape(record['note'])}.</p>")
    else:
        score, most = total(record)
        body += [f"<p><strong>Score: {number(score)} / {number(most)}</strong></p>", "<ul>"]
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
            body += [
                f"<h3><code>{escape(answer_id)}</code></h3>",
                f"<blockquote>{shown}</blockquote>",
            ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )
