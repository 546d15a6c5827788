"""Lesson 1: `utf8_encode` and `utf8_decode_first`, UTF-8's bit operations written out by
the learner (`str.encode` is taken away: it would be the answer)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from lib.exercises.cases import answers_fit, answers_match
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


# How a middle byte's marker and mask go wrong: the mask left off (bytes() refuses values over
# 255, more often with `+`), or put after the marker, where it cuts the marker's bit off (& 63) or
# keeps the bits above the 6 (& 0xFF: a learner "fixing" the ValueError). The first two are
# the mask left off; `_encode_turns` has other words for the rest.
MIDDLE_SLIPS: tuple[Callable[[int], int], ...] = (
    lambda shifted: 0x80 | shifted,
    lambda shifted: 0x80 + shifted,
    lambda shifted: (0x80 | shifted) & 0b111111,
    lambda shifted: (0x80 | shifted) & 0xFF,
    lambda shifted: (0x80 + shifted) & 0xFF,
)


def _unmasked_middle(
    cp: int, slipped: tuple[bool, bool, bool], slip: Callable[[int], int]
) -> bytes:
    """UTF-8 with some middle bytes made by `slip` instead of `0x80 | shifted & 63`: `slipped`
    says which, the 3-byte row's, the 4-byte row's from cp >> 12, and from cp >> 6. On masked
    bits `|` and `+` agree, so the other bytes keep their `|`."""

    def middle(shifted: int, which: int) -> int:
        return slip(shifted) if slipped[which] else 0x80 | shifted & 63

    if cp < 0x10000:
        if cp < 0x800:
            return chr(cp).encode("utf-8")
        return bytes([0xE0 | cp >> 12, middle(cp >> 6, 0), 0x80 | cp & 63])
    return bytes([0xF0 | cp >> 18, middle(cp >> 12, 1), middle(cp >> 6, 2), 0x80 | cp & 63])


def _encode_turns(cases: list[Case], answers: list) -> str | None:
    # The lesson never turns numbers into bytes: here the bit work is right and the type is not.
    if answers_fit(cases, answers, lambda cp: list(chr(cp).encode("utf-8"))):
        return (
            "your numbers are right, but they are a list, and the answer is a bytes object. "
            "bytes() makes one from a list of ints: bytes([72, 105]) is b'Hi'."
        )
    slipped = [which for which in itertools.product((False, True), repeat=3) if any(which)]
    models = [
        (slip, lambda cp, w=w, s=slip: _unmasked_middle(cp, w, s))
        for slip in MIDDLE_SLIPS
        for w in slipped
    ]
    fits = [(slip, model) for slip, model in models if answers_fit(cases, answers, model)]
    if not fits:
        return None
    # Several can fit the failed cases (with cp >> 12 under 256, `0x80 | x` and its `& 0xFF`
    # agree); the better fit also gives the answers that passed (`& 0xFF` passes 0x10FFFF, where
    # the unmasked byte raises).
    exact = [slip for slip, model in fits if answers_match(cases, answers, model)]
    slip = (exact or [fits[0][0]])[0]
    if slip not in MIDDLE_SLIPS[2:]:
        return (
            "a byte holds 8 bits: after a shift, one of your middle bytes still has the bits "
            "above its lowest 6, so mask it (& 0b111111) before adding the marker 10."
        )
    return (
        "mask a middle byte (& 0b111111) before adding the marker 10, not after: a mask after "
        "it cuts the marker off (& 0b111111) or keeps bits above the lowest 6 (& 0xFF)."
    )


utf8_encode = Exercise(
    name="utf8_encode",
    lesson=1,
    points=2,
    target="utf8_encode",
    cases=_utf8_encode_cases,
    hidden_cases=_hidden_utf8_encode_cases,
    forbidden=(".encode",),  # the lesson asks for the bit operations themselves
    wrong_turns=_encode_turns,
    hints=(
        "Two decisions: how many bytes (compare cp with the limits in the table above), "
        "then which bits go in which byte. The last byte always carries the lowest 6 bits"
        " of cp.",
        "The cell just before this exercise built the last byte of €: its lowest 6 bits, "
        "with the marker 10 in front. Every continuation byte is made the same way, once a "
        "shift has brought its 6 bits down to the bottom. The lead byte gets its row's "
        "marker and the bits that are left at the top.",
        "Do € on paper first: U+20AC is 0010 000010 101100 in the 4 + 6 + 6 slots of the "
        "3-byte row. Which shift brings the top 4 bits to the bottom? Which shift and "
        "which mask leave only the middle 6? Check yourself: € gives e2 82 ac, 0x7F gives "
        "7f and 0x80 c2 80 (each side of the first boundary), 0x10FFFF f4 8f bf bf, and "
        "0xE0041 (917569, a case of the check) f3 a0 81 81.",
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
        "Which bits of the lead byte tell the four rows of the table apart? Look at those "
        "alone: section 4's operators can drop the low bits or keep only some, and what is "
        "left compares with each row's marker. The bits after the marker are where the "
        "code point starts.",
        "Each continuation byte brings 6 new bits, at the right end of what you have so "
        "far. Check yourself on e2 82 ac: the lead gives 0010 (a 3-byte row), after 82 "
        "you hold 0010 000010, after ac 0010 000010 101100 = 0x20AC, so the answer is "
        "(8364, 3). 👋, f0 9f 91 8b, gives (0x1F44B, 4) = (128075, 4).",
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
