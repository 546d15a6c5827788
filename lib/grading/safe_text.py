"""Text from a student, made safe to print or write: no control characters, and in Markdown
nothing a reader could take for structure.

A file name, an exception message or a written answer can hold anything a notebook put there.
Raw escape sequences reaching the instructor's terminal erased the run's summary line, printed a
fake "All 3 notebooks graded cleanly" and retitled the window; in a student's feedback.md they
drew a fake `# Score: 100 / 100`. A newline in an answer's metadata forged a heading (and another
student's answer) in answers.md, and a raw `<script>` went into it. So everything printed or
written goes through `printable`, and every student-supplied piece of Markdown through
`md_inline` (one line: names, ids) or `md_block` (answers, kept as lines inside our quotes).
"""

from __future__ import annotations

import re

# ANSI escape sequences whole (CSI "ESC [ ... letter", OSC "ESC ] ... BEL or ESC \", and any
# other ESC + one character), so no half of one is left to show as "[2K".
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?|\x9b")
# C0 but tab and newline, DEL, C1, and the bidirectional overrides that reorder what is shown.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` without escape sequences or control characters; a carriage return and the Unicode
    line and paragraph separators become newlines (a terminal's \\r would overwrite a line).

    >>> printable("ok\\x1b[2K\\x1b]0;owned\\x07\\rAll graded\\x00")
    'ok\\nAll graded'
    """
    text = _ESCAPES.sub("", text.replace("\r\n", "\n"))
    text = re.sub("[\r\u2028\u2029]", "\n", text)
    return _CONTROLS.sub("", text)


def _no_html(text: str) -> str:
    """`&` and `<` as entities, so a Markdown viewer shows `<script>` instead of running it, and
    no image syntax (`![...](...)`): a viewer would load it unasked, a tracking pixel."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("![", "!\\[")


def md_inline(text: str) -> str:
    """One line of student text inside our own Markdown (a heading, a list item): line breaks
    become spaces, so no heading or quote of its own can start, and HTML shows as text.
    Backticks and other marks stay: our own notes put code in backticks.

    >>> md_inline("alice\\n### bob <img src=x>")
    'alice ### bob &lt;img src=x>'
    """
    return _no_html(" ".join(printable(text).split()))


def md_code(text: str) -> str:
    """Student text as inline code (a file name, an answer's key): one line, in a code span
    long enough that no backtick inside can close it."""
    flat = " ".join(printable(text).split())
    fence = "`" * (max(map(len, re.findall("`+", flat)), default=0) + 1)
    return f"{fence} {flat} {fence}" if "`" in flat else f"`{flat}`"


def md_block(text: str) -> list[str]:
    """A student's text as lines to put inside our block quote (`> ` each): HTML as text."""
    return _no_html(printable(text)).splitlines()
