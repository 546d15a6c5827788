"""Lesson 7: `byte_fallback`, SentencePiece's pieces for characters outside its vocabulary."""

from __future__ import annotations

from lib import unigram
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts

_FALLBACK_TEXTS = ["A", "é", "ஆ", "€", "😀", "aஆ", "", "世界", "ü", "\n"]


def _fallbacks(texts: list[str]) -> list[Case]:
    return [Case(args=(text,), expected=unigram.byte_fallback(text)) for text in texts]


def _byte_fallback_cases() -> list[Case]:
    return _fallbacks(_FALLBACK_TEXTS)


def _hidden_byte_fallback_cases() -> list[Case]:
    return _fallbacks(random_texts(73, 20, longest=6))


byte_fallback = Exercise(
    name="byte_fallback",
    lesson=7,
    points=1,
    target="byte_fallback",
    cases=_byte_fallback_cases,
    hidden_cases=_hidden_byte_fallback_cases,
    hints=(
        "One piece per UTF-8 byte of the text, not per character, each written like <0xE0>.",
        "Iterating over the bytes of text.encode('utf-8') gives integers. Python's Format "
        "Specification Mini-Language (in the documentation of `format`) can write an "
        "integer in hexadecimal with a fixed number of digits. Check yourself: 'é' gives "
        "['<0xC3>', '<0xA9>'], and '\\n' gives ['<0x0A>'], not '<0xA>' or '<0x0a>'.",
    ),
    solution_code="""\
def byte_fallback(text: str) -> list[str]:
    return [f"<0x{b:02X}>" for b in text.encode("utf-8")]
""",
)
