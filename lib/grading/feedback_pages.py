"""A student's feedback (`feedback.Feedback`) written out: a Markdown page and an HTML page.

Both say the same things in the same order; the HTML page, which a browser shows well, adds the
student's written answers. Everything in them that a student could have typed (their name, file
name, answers, and the reasons, which quote their values) is escaped: in HTML through
`html.escape`, so a `<script>` in an answer shows as text and never runs; in Markdown through
`safe_text`, so it cannot draw headings or a score of its own.
"""

from __future__ import annotations

import re
from html import escape

from lib.grading.feedback import Feedback
from lib.grading.safe_text import md_code, md_inline, printable

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

EMOJI_MARKS = {"full": "✅", "partial": "🟡", "none": "❌"}  # Markdown: emoji read well there
# HTML: symbols every font has, so a machine without emoji fonts shows no empty boxes.
PLAIN_MARKS = {"full": "✓", "partial": "½", "none": "✗"}
NO_ANSWER = '<span class="muted">(no answer)</span>'


def _fenced(text: str) -> list[str]:
    """A failing case as a code block whose fence no backtick run in it can close."""
    fence = "`" * max([3, *(len(run) + 1 for run in re.findall("`+", text))])
    return ["", f"  {fence}text", *(f"  {line}" for line in text.splitlines()), f"  {fence}", ""]


def markdown(page: Feedback) -> str:
    """feedback/<student>_lesson<N>.md."""
    lines = [f"# {md_inline(page.title)}", "", f"Submission: {md_code(page.submission)}", ""]
    lines += [line for text in page.notices for line in (f"**Note:** {md_inline(text)}", "")]
    if page.not_graded:
        lines.append(f"This notebook could not be graded: {md_inline(page.not_graded)}.")
    else:
        lines += [f"**Score: {page.score}**", ""]
        lines += [page.written, ""] if page.written else []
    for e in page.exercises:
        why = f": {md_inline(e.why)}" if e.why else ""
        mark = EMOJI_MARKS[e.marks]
        lines.append(f"- {mark} {md_code(e.name)}, {e.points} ({md_inline(e.status)}){why}")
        if e.case.strip():
            lines += _fenced(printable(e.case))
    if page.events:
        lines += ["", "While your notebook ran:", "", *(f"- {md_inline(n)}" for n in page.events)]
    return "\n".join(lines) + "\n"


def html(page: Feedback) -> str:
    """feedback/<student>_lesson<N>.html: the Markdown page's content, plus the written answers,
    as one HTML file with no outside resources, readable in a light or a dark browser theme."""
    body = [f"<h1>{escape(page.title)}</h1>"]
    body.append(f"<p>Submission: <code>{escape(page.submission)}</code></p>")
    body += [f'<p class="notice">{escape(text)}</p>' for text in page.notices]
    if page.not_graded:
        body.append(f"<p>This notebook could not be graded: {escape(page.not_graded)}.</p>")
    else:
        body.append(f"<p><strong>Score: {page.score}</strong></p>")
        body += [f"<p>{escape(page.written)}</p>"] if page.written else []
        body.append("<ul>")
        for e in page.exercises:
            why = f": {escape(e.why)}" if e.why else ""
            case = f"<pre>{escape(e.case)}</pre>" if e.case.strip() else ""
            body.append(
                f"<li>{PLAIN_MARKS[e.marks]} <code>{escape(e.name)}</code>, {e.points} "
                f"({escape(e.status)}){why}{case}</li>"
            )
        body.append("</ul>")
    if page.events:
        body += ["<h2>While your notebook ran</h2>", "<ul>"]
        body += [f"<li>{escape(note)}</li>" for note in page.events] + ["</ul>"]
    if page.answers:
        body.append("<h2>Your written answers</h2>")
    for answer in page.answers:
        heading = escape(answer.question) or f"<code>{escape(answer.key)}</code>"
        shown = (
            escape(answer.text) if answer.text.strip() else '<span class="muted">(no answer)</span>'
        )
        body += [f"<h3>{heading}</h3>", f"<blockquote>{shown}</blockquote>"]
    return printable(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(page.title)}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )
