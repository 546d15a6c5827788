"""Lesson 1: `is_valid_utf8`, checked against Python's strict decoder on broken, overlong and
surrogate bytes; its 💡 names the rule a learner's answer leaves out."""

from __future__ import annotations

from lib.exercises.cases import answers_fit
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng
from lib.exercises.lesson1.texts import TEXTS


def _is_valid(data: bytes) -> bool:
    try:
        data.decode("utf-8")  # strict: Python's decoder is the reference
    except UnicodeDecodeError:
        return False
    return True


_BYTE_STRINGS = [text.encode("utf-8") for text in TEXTS] + [
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
    # Review J1: a lead read as a range (>= 0xF0) takes F8 for a 4-byte lead, and a continuation
    # read as >= 0x80 takes the lead byte C3 or C2 for one; each of these catches one of the two.
    b"\xf8\x90\x80\x80",
    b"\xc3\xc3",
    b"\xe2\xc2\xac",
]


def _loosely_valid(data: bytes, lead_range: bool, any_continuation: bool) -> bool:
    """A validator with one or both of review J1's slips: any byte >= 0xF0 read as a 4-byte lead
    (`lead_range`), any byte >= 0x80 taken as a continuation (`any_continuation`). Every other
    rule is kept, so that its answers differ from Python's only where a slip does."""
    i = 0
    while i < len(data):
        lead = data[i]
        if lead < 0x80:
            i += 1
            continue
        if lead < 0xC0 or (lead >= 0xF8 and not lead_range):
            return False
        n_bytes = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        tail = data[i + 1 : i + n_bytes]
        continues = [byte >= 0x80 if any_continuation else byte >> 6 == 0b10 for byte in tail]
        if len(tail) < n_bytes - 1 or not all(continues):
            return False
        cp = lead & (0xFF >> (n_bytes + 1))
        for byte in tail:
            cp = (cp << 6) | (byte & 0b111111)
        smallest = {2: 0x80, 3: 0x800, 4: 0x10000}[n_bytes]
        if cp < smallest or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
            return False
        i += n_bytes
    return True


_LEAD_RANGE = (
    "the lead byte of a 4-byte character is 11110xxx, and only 0xF0 to 0xF4 of those (0xF5 "
    "to 0xF7 would start code points above 0x10FFFF), not any byte from 0xF0 up: 0xF8 is >= "
    "0xF0 but starts 11111, and no character starts with a byte from 0xF8 to 0xFF."
)
_ANY_CONTINUATION = (
    "a continuation byte is 10xxxxxx, not any byte from 0x80 up: 0xC3 and 0xC2 are "
    ">= 0x80 but start 11, so each begins a new character, and the one before it is cut short."
)


def _validity_turns(cases: list[Case], answers: list) -> str | None:
    """Names review J1's slips when they explain every failed case: F8 to FF taken as 4-byte
    leads, and any byte >= 0x80 taken as a continuation."""
    slips = {(True, False): [_LEAD_RANGE], (False, True): [_ANY_CONTINUATION]}
    slips[True, True] = slips[True, False] + slips[False, True]
    for (lead, continuation), words in slips.items():
        if answers_fit(
            cases, answers, lambda data, a=lead, b=continuation: _loosely_valid(data, a, b)
        ):
            return "\n".join(words)
    return None


def _validity(byte_strings: list[bytes], kind: str = "") -> list[Case]:
    return [Case(args=(data,), expected=_is_valid(data), kind=kind) for data in byte_strings]


def _is_valid_utf8_cases() -> list[Case]:
    return _validity(_BYTE_STRINGS)


def _spelt(cp: int, size: int) -> bytes:
    """`cp` written in `size` bytes of UTF-8's pattern, whether or not UTF-8 allows that."""
    lead = 0 if size == 1 else (0xF00 >> size) & 0xFF  # 110xxxxx, 1110xxxx or 11110xxx
    tail = [0x80 | (cp >> 6 * k) & 0x3F for k in reversed(range(size - 1))]
    return bytes([lead | cp >> 6 * (size - 1), *tail])


OVERLONG, SURROGATE, TOO_LARGE = "an overlong form", "a surrogate", "beyond U+10FFFF"
STARTS_NOTHING, NO_LEAD = "a byte that starts nothing", "a continuation byte with no lead"
LEAD_ALONE, LEAD_AFTER_LEAD = "a lead byte left alone", "a lead byte where a continuation is due"


def _broken_by_rule(seed: int) -> list[Case]:
    """One made-up input per rule the written-out cases test, each between random texts: so
    that a rule earns as much on the cases made from the salt as on those anyone can list (the
    score is capped by the former, `salted_share`), not just whether the last character is whole."""
    source = rng(seed)
    breaks = [
        (OVERLONG, _spelt(source.randint(0, 0x7F), 2)),
        (OVERLONG, _spelt(source.randint(0x80, 0x7FF), 3)),
        (OVERLONG, _spelt(source.randint(0x800, 0xFFFF), 4)),
        (SURROGATE, _spelt(source.randint(0xD800, 0xDFFF), 3)),
        (TOO_LARGE, _spelt(source.randint(0x110000, 0x1FFFFF), 4)),
        (STARTS_NOTHING, bytes([source.randint(0xF5, 0xFF), 0x80, 0x80, 0x80])),
        (NO_LEAD, bytes([source.randint(0x80, 0xBF)])),
        (LEAD_ALONE, bytes([source.randint(0xC2, 0xF4), source.randint(0x20, 0x7E)])),
        # Review J1's slip: any byte >= 0x80 taken for a continuation, here another lead byte.
        (LEAD_AFTER_LEAD, bytes([source.randint(0xC2, 0xDF), source.randint(0xC2, 0xDF)])),
    ]
    around = [text.encode("utf-8") for text in random_texts(seed, 2 * len(breaks), longest=4)]
    made = [(kind, around[2 * i] + bad + around[2 * i + 1]) for i, (kind, bad) in enumerate(breaks)]
    return [case for kind, data in made for case in _validity([data], kind)]


def _hidden_is_valid_utf8_cases() -> list[Case]:
    """Valid texts, the same cut one byte short or with one byte changed, each rule broken
    between random texts, and surrogates, overlong and too-large code points written out by
    hand."""
    texts = [text.encode("utf-8") for text in random_texts(5, 12, longest=6)]
    short = [data[:-1] for data in texts if len(data) > 1]
    changed = [data[:1] + bytes([0x80 | data[1]]) + data[2:] for data in texts if len(data) > 2]
    by_hand = [
        *_validity([b"x\xed\xbf\xbf"], SURROGATE),
        *_validity([b"\xc1\xbf", b"\xf0\x8f\xbf\xbf"], OVERLONG),
        *_validity(
            [b"\xf5\x80\x80\x80", b"\xfe", b"\xf9\x80\x80\x80", b"\xfb\xbf\xbf\xbf"], STARTS_NOTHING
        ),
        *_validity([b"x\xdf\xdfy", b"\xf0\x9f\xe0\xa0"], LEAD_AFTER_LEAD),
    ]
    return [
        *_validity(texts, "a made-up text"),
        *_validity(short, "a made-up text cut short"),
        *_validity(changed, "a made-up text with a byte changed"),
        *_broken_by_rule(6),
        *by_hand,
    ]


is_valid_utf8 = Exercise(
    name="is_valid_utf8",
    lesson=1,
    points=2,
    target="is_valid_utf8",
    forbidden=(".decode",),
    cases=_is_valid_utf8_cases,
    hidden_cases=_hidden_is_valid_utf8_cases,
    wrong_turns=_validity_turns,
    hints=(
        "Walk through the bytes one character at a time, the way utf8_decode_first reads one "
        "character, and return False the moment something breaks a rule of the table above.",
        "The rules: a lead byte is 0xxxxxxx, 110xxxxx, 1110xxxx or 11110xxx; exactly that many "
        "continuation bytes 10xxxxxx follow (are they all there?); and the code point they spell "
        "must not be overlong, a surrogate, or beyond U+10FFFF.",
        "Try three inputs by hand before the check does. e0 80 af: which rule does it break, "
        "and what is the smallest code point a 3-byte form may carry? ed a0 80: which code point "
        "does it spell? f4 90 80 80: is that still Unicode? If your function accepts one of them, "
        "that is the rule it is missing.",
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
