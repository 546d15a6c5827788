"""Lesson 1: `utf8_encode` and `utf8_decode_first`, UTF-8's bit operations written out by
the learner (`str.encode` is taken away: it would be the answer)."""

from __future__ import annotations

from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_code_points, random_texts
from lib.exercises.lesson1.texts import BOUNDARY_CODE_POINTS, TEXTS


def _utf8_encode_cases() -> list[Case]:
    return [Case(args=(cp,), expected=chr(cp).encode("utf-8")) for cp in BOUNDARY_CODE_POINTS]


def _hidden_utf8_encode_cases() -> list[Case]:
    return [Case(args=(cp,), expected=chr(cp).encode("utf-8")) for cp in random_code_points(1, 30)]


def _first_character(texts: list[str]) -> list[Case]:
    return [
        Case(args=(text.encode("utf-8"),), expected=(ord(text[0]), len(text[0].encode("utf-8"))))
        for text in texts
    ]


def _utf8_decode_first_cases() -> list[Case]:
    return _first_character(TEXTS + [chr(cp) + "!" for cp in BOUNDARY_CODE_POINTS])


def _hidden_utf8_decode_first_cases() -> list[Case]:
    texts = random_texts(2, 20) + [chr(cp) + "x" for cp in random_code_points(3, 20)]
    return _first_character(texts)


utf8_encode = Exercise(
    name="utf8_encode",
    lesson=1,
    points=2,
    target="utf8_encode",
    cases=_utf8_encode_cases,
    hidden_cases=_hidden_utf8_encode_cases,
    forbidden=(".encode",),  # the lesson asks for the bit operations themselves
    hints=(
        "Two decisions: how many bytes (compare cp with the limits in the table above), "
        "then which bits go in which byte. The last byte always carries the lowest 6 bits"
        " of cp.",
        "cp & 0b111111 keeps the lowest 6 bits and cp >> 6 drops them, so you can peel "
        "off 6 bits at a time from the right. Each continuation byte is 0b10000000 | (6 "
        "bits); the lead byte is its marker OR whatever bits are left.",
        "Below 0x80 one byte, below 0x800 two, below 0x10000 three, else four. Do one "
        "case on paper first: € is U+20AC, 16 bits 0010 0000 1010 1100. Three bytes hold "
        "4 + 6 + 6 of them: which shift brings the top 4 bits down to the bottom, which "
        "shift and mask isolate the middle 6? Your answer for € should be e2 82 ac.",
    ),
    solution_code="""\
def utf8_encode(cp: int) -> bytes:
    if cp < 0x80:  # 0xxxxxxx: ASCII stays as it is
        return bytes([cp])
    if cp < 0x800:  # 110xxxxx 10xxxxxx
        return bytes([0b11000000 | (cp >> 6), 0b10000000 | (cp & 0b111111)])
    if cp < 0x10000:  # 1110xxxx 10xxxxxx 10xxxxxx
        return bytes([
            0b11100000 | (cp >> 12),
            0b10000000 | ((cp >> 6) & 0b111111),
            0b10000000 | (cp & 0b111111),
        ])
    return bytes([  # 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx
        0b11110000 | (cp >> 18),
        0b10000000 | ((cp >> 12) & 0b111111),
        0b10000000 | ((cp >> 6) & 0b111111),
        0b10000000 | (cp & 0b111111),
    ])
""",
)

utf8_decode_first = Exercise(
    name="utf8_decode_first",
    lesson=1,
    points=2,
    target="utf8_decode_first",
    cases=_utf8_decode_first_cases,
    hidden_cases=_hidden_utf8_decode_first_cases,
    forbidden=(".decode",),  # reading the bits is the exercise
    hints=(
        "Everything you need is in the first byte: its leading bits say how many bytes "
        "the character has. Then undo what utf8_encode did.",
        "Shift the lead byte right to read its marker: lead >> 5 == 0b110 means 2 bytes, "
        "lead >> 4 == 0b1110 means 3, lead >> 3 == 0b11110 means 4, below 0x80 just 1. "
        "Keep the lead's other bits as the start of the code point.",
        "Build the code point from the left: start with the lead's payload bits (5, 4 or "
        "3 of them), then each continuation byte brings 6 more. Adding 6 bits at the "
        "right means making room for them first (a shift) and then putting them in (an OR"
        " of the byte's lowest 6 bits). Try it on e2 82 ac: you should get 0x20AC.",
    ),
    solution_code="""\
def utf8_decode_first(data: bytes) -> tuple[int, int]:
    lead = data[0]
    if lead < 0x80:  # 0xxxxxxx: one byte, the code point itself
        return lead, 1
    if lead >> 5 == 0b110:
        n_bytes, cp = 2, lead & 0b11111
    elif lead >> 4 == 0b1110:
        n_bytes, cp = 3, lead & 0b1111
    else:  # 11110xxx
        n_bytes, cp = 4, lead & 0b111
    for byte in data[1:n_bytes]:  # each continuation byte adds 6 more bits at the right
        cp = (cp << 6) | (byte & 0b111111)
    return cp, n_bytes
""",
)
