"""Lesson 1 exercises: UTF-8 by hand.

Expected values come from Python itself (`str.encode`, `bytes.decode`) and from
`lib.unicode_tools`, so the checks test the learner against the real thing, not against numbers
typed in by hand.
"""

from __future__ import annotations

from lib import unicode_tools
from lib.exercises.core import Case, Exercise, close
from lib.exercises.generated import random_code_points, random_texts
from lib.exercises.predict_lessons import PREDICT_TEXTS as PREDICT_TEXTS  # the notebook shows them
from lib.exercises.predict_lessons import predict_utf8_bytes

# Code points on both sides of every UTF-8 length boundary, plus a few everyday characters:
# 'A', 'é', 'ह', '€', '안', '👋' and the last code point of Unicode.
_BOUNDARY_CODE_POINTS = [0x00, 0x41, 0x7F]  # 1 byte
_BOUNDARY_CODE_POINTS += [0x80, 0xE9, 0x7FF]  # 2 bytes
_BOUNDARY_CODE_POINTS += [0x800, 0x939, 0x20AC, 0xC548, 0xD7FF, 0xE000, 0xFFFF]  # 3 (no surrogates)
_BOUNDARY_CODE_POINTS += [0x10000, 0x1F44B, 0x10FFFF]  # 4 bytes

# Short texts in several scripts, written for these checks.
_TEXTS = ["hello", "héllo", "नमस्ते", "안녕하세요", "Привет"]
_TEXTS += ["€5", "👋 hi", "日本", "ሰላም", "\x7f\x80"]


def _utf8_encode_cases() -> list[Case]:
    return [Case(args=(cp,), expected=chr(cp).encode("utf-8")) for cp in _BOUNDARY_CODE_POINTS]


def _hidden_utf8_encode_cases() -> list[Case]:
    return [Case(args=(cp,), expected=chr(cp).encode("utf-8")) for cp in random_code_points(1, 30)]


def _first_character(texts: list[str]) -> list[Case]:
    return [
        Case(args=(text.encode("utf-8"),), expected=(ord(text[0]), len(text[0].encode("utf-8"))))
        for text in texts
    ]


def _utf8_decode_first_cases() -> list[Case]:
    return _first_character(_TEXTS + [chr(cp) + "!" for cp in _BOUNDARY_CODE_POINTS])


def _hidden_utf8_decode_first_cases() -> list[Case]:
    texts = random_texts(2, 20) + [chr(cp) + "x" for cp in random_code_points(3, 20)]
    return _first_character(texts)


def _per_char(texts: list[str]) -> list[Case]:
    return [Case(args=(text,), expected=unicode_tools.bytes_per_char(text)) for text in texts]


def _bytes_per_char_cases() -> list[Case]:
    return _per_char(_TEXTS + [""])


def _hidden_bytes_per_char_cases() -> list[Case]:
    return _per_char(random_texts(4, 20, longest=30))


def _is_valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")  # strict: Python's decoder is the reference
    except UnicodeDecodeError:
        return False
    return True


_BYTE_STRINGS = [text.encode("utf-8") for text in _TEXTS] + [
    b"",
    b"\xc2\x80",  # U+0080, the smallest 2-byte character: valid, not overlong
    b"\xef\xbf\xbf",  # U+FFFF
    b"\xf4\x8f\xbf\xbf",  # U+10FFFF, the very last code point
    b"\xff",  # 0xFF never appears in UTF-8
    b"\x80",  # a continuation byte with no lead byte
    b"abc\xe2\x82",  # '€' cut short at the end
    b"\xe2\x82abc",  # '€' cut short in the middle
    b"\xe2\x82\xac\x80",  # a valid '€' followed by a stray continuation byte
    b"\xc0\xaf",  # '/' in 2 bytes instead of 1: overlong
    b"\xe0\x80\xaf",  # '/' in 3 bytes: overlong
    b"\xf0\x82\x82\xac",  # '€' in 4 bytes: overlong
    b"\xed\xa0\x80",  # U+D800, a surrogate
    b"\xf4\x90\x80\x80",  # U+110000, beyond Unicode
    b"\xf8\x88\x80\x80\x80",  # an old 5-byte form that UTF-8 no longer allows
]


def _validity(byte_strings: list[bytes]) -> list[Case]:
    return [Case(args=(data,), expected=_is_valid(data)) for data in byte_strings]


def _is_valid_utf8_cases() -> list[Case]:
    return _validity(_BYTE_STRINGS)


def _hidden_is_valid_utf8_cases() -> list[Case]:
    """Valid texts, the same cut one byte short or with one byte changed, and surrogates,
    overlong and too-large code points written out by hand."""
    texts = [text.encode("utf-8") for text in random_texts(5, 12, longest=6)]
    broken = [data[:-1] for data in texts if len(data) > 1]
    broken += [data[:1] + bytes([0x80 | data[1]]) + data[2:] for data in texts if len(data) > 2]
    by_hand = [b"x\xed\xbf\xbf", b"\xc1\xbf", b"\xf0\x8f\xbf\xbf", b"\xf5\x80\x80\x80", b"\xfe"]
    return _validity(texts + broken + by_hand)


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

bytes_per_char = Exercise(
    name="bytes_per_char",
    lesson=1,
    points=1,
    target="bytes_per_char",
    cases=_bytes_per_char_cases,
    hidden_cases=_hidden_bytes_per_char_cases,
    compare=close,
    hints=(
        "Count two things for the same text: bytes and code points. Which Python call "
        "counts each? And what should happen when there is nothing to count?",
        "len of a str counts its code points; len of its UTF-8 encoding counts bytes. The"
        " answer is bytes per code point, always a float, and 0.0 for the empty string "
        "(which has neither).",
    ),
    solution_code="""\
def bytes_per_char(text: str) -> float:
    if not text:
        return 0.0
    return len(text.encode("utf-8")) / len(text)
""",
)

is_valid_utf8 = Exercise(
    name="is_valid_utf8",
    lesson=1,
    points=2,
    target="is_valid_utf8",
    forbidden=(".decode",),
    cases=_is_valid_utf8_cases,
    hidden_cases=_hidden_is_valid_utf8_cases,
    hints=(
        "Walk through the bytes one character at a time, the way utf8_decode_first reads one "
        "character, and return False the moment something breaks a rule of the table above.",
        "The rules: a lead byte is 0xxxxxxx, 110xxxxx, 1110xxxx or 11110xxx; exactly that many "
        "continuation bytes 10xxxxxx follow (are they all there?); and the code point they spell "
        "must not be overlong, a surrogate, or beyond U+10FFFF.",
        "Walk through the bytes one character at a time. A lead byte must be 0xxxxxxx, 110xxxxx, "
        "1110xxxx or 11110xxx (anything else is invalid), and it says how many continuation bytes "
        "follow; each of those must exist and look like 10xxxxxx (byte >> 6 == 0b10). Then rebuild "
        "the code point as in utf8_decode_first and reject it if it is overlong (smaller than "
        "0x80, 0x800 or 0x10000 for 2, 3 or 4 bytes), a surrogate (0xD800..0xDFFF) or above "
        "0x10FFFF.",
    ),
    solution_code="""\
def is_valid_utf8(data: bytes) -> bool:
    i = 0
    while i < len(data):
        lead = data[i]
        if lead < 0x80:
            n_bytes, cp, smallest = 1, lead, 0
        elif lead >> 5 == 0b110:
            n_bytes, cp, smallest = 2, lead & 0b11111, 0x80
        elif lead >> 4 == 0b1110:
            n_bytes, cp, smallest = 3, lead & 0b1111, 0x800
        elif lead >> 3 == 0b11110:
            n_bytes, cp, smallest = 4, lead & 0b111, 0x10000
        else:  # 10xxxxxx cannot start a character, and 0xF8..0xFF never appear at all
            return False
        tail = data[i + 1 : i + n_bytes]
        if len(tail) < n_bytes - 1 or any(byte >> 6 != 0b10 for byte in tail):
            return False  # cut short, or a byte that should continue the character does not
        for byte in tail:
            cp = (cp << 6) | (byte & 0b111111)
        if cp < smallest or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
            return False  # overlong, a surrogate, or beyond Unicode
        i += n_bytes
    return True
""",
)

EXERCISES = [predict_utf8_bytes, utf8_encode, utf8_decode_first, bytes_per_char, is_valid_utf8]
