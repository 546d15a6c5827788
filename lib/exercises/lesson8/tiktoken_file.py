"""Lesson 8's `tiktoken_line`: one line of a .tiktoken file.

A warm-up, worth one point: the format is a convention (section 5 states it), so there is nothing
to work out but the one trap, base64's answer being bytes; the hints ask about that trap and stop
short of its fix, which the 💡 for `b'...'` in a line names once the learner has fallen in.

Expected values come from `lib.train.tiktoken_line` (what `python -m lib.train --format tiktoken`
writes).
"""

from __future__ import annotations

from lib import train
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts

_TOKENS = [(b"a", 97), (b" the", 262), (bytes([0xE0, 0xA4]), 300), (b"\n\n", 1000)]
_TOKENS += [("👋".encode(), 4095), (b"\xff", 255)]


def _hidden_tokens() -> list[tuple[bytes, int]]:
    return [(text.encode(), 256 + 97 * n) for n, text in enumerate(random_texts(88, 10))]


def _line_cases(tokens: list[tuple[bytes, int]]) -> list[Case]:
    return [
        Case(args=(token, rank), expected=train.tiktoken_line(token, rank))
        for token, rank in tokens
    ]


def _line_turns(cases: list[Case], answers: list) -> str | None:
    """Name the usual slips: base64's bytes written with their b'...' around them, or a line
    break in the line (left on at its end, or from base64.encodebytes, which adds one)."""
    if any(isinstance(a, str) and a.startswith(("b'", 'b"')) for a in answers):
        return "base64.b64encode returns bytes: .decode('ascii') turns them into text first."
    if any(isinstance(a, str) and "\n" in a for a in answers):  # at the end, or encodebytes'
        return (
            "Without the line break: whoever writes the file adds it after each line. "
            "base64.encodebytes puts one after the base64 too; base64.b64encode does not."
        )
    return None


tiktoken_line = Exercise(
    name="tiktoken_line",
    lesson=8,
    points=1,
    target="tiktoken_line",
    cases=lambda: _line_cases(_TOKENS),
    hidden_cases=lambda: _line_cases(_hidden_tokens()),
    allowed_lib=("base64",),
    wrong_turns=_line_turns,
    hints=(
        "The bytes go through base64 (the module `base64`), then a space, then the rank as digits.",
        "What type does base64.b64encode return, and what type is the line? Print "
        "base64.b64encode(b' the') in a cell and compare it with the line for b' the' with "
        "rank 262, 'IHRoZQ== 262'.",
    ),
    solution_code="""\
import base64


def tiktoken_line(token: bytes, rank: int) -> str:
    return base64.b64encode(token).decode("ascii") + " " + str(rank)
""",
)
