"""Lesson 1: `bytes_per_char`, how many bytes a text costs per code point in UTF-8."""

from __future__ import annotations

from lib import unicode_tools
from lib.exercises.core import Case, Exercise, close
from lib.exercises.generated import random_texts
from lib.exercises.lesson1.texts import TEXTS


def _per_char(texts: list[str]) -> list[Case]:
    return [Case(args=(text,), expected=unicode_tools.bytes_per_char(text)) for text in texts]


def _bytes_per_char_cases() -> list[Case]:
    # More code points than a reader sees (a family emoji, an e with a combining accent), and a
    # space between 2-byte letters: each counts as a code point like any other.
    return _per_char(TEXTS + ["👩\u200d👩\u200d👧", "e\u0301", "é é", ""])


def _a_float_close(got: object, expected: float) -> bool:
    """A float within rounding of `expected`: the empty string's 0.0 too, not the int 0."""
    return type(got) is float and close(got, expected)


def _hidden_bytes_per_char_cases() -> list[Case]:
    return _per_char(random_texts(4, 20, longest=30))


bytes_per_char = Exercise(
    name="bytes_per_char",
    lesson=1,
    points=1,
    target="bytes_per_char",
    cases=_bytes_per_char_cases,
    hidden_cases=_hidden_bytes_per_char_cases,
    compare=_a_float_close,
    hints=(
        "Count two things for the same text: bytes and code points. Which Python call "
        "counts each? And what should happen when there is nothing to count?",
        "A str and its UTF-8 encoding are two sequences of the same text: one of code "
        "points, one of bytes (section 3 made the second). len counts either. The empty "
        "text needs its own answer, before anything divides by zero.",
        "Check yourself: 'h€' gives 4 bytes / 2 code points = 2.0; 'e\\u0301' (e and a "
        "combining accent) 3 / 2 = 1.5, though a reader sees one letter; '' gives 0.0, "
        "a float like every other answer, not the int 0.",
    ),
    solution_code="""\
def bytes_per_char(text: str) -> float:
    if not text:
        return 0.0
    return len(text.encode("utf-8")) / len(text)
""",
)
