"""Small helpers for lesson 1: looking at text as code points, bytes and graphemes.

Python's `str` is a sequence of *code points* (integers 0..0x10FFFF). Text on disk or on the wire is
a sequence of *bytes*, and an *encoding* maps one to the other. These helpers make those layers
visible; the standard library does the real work (`str.encode`, `unicodedata`, and the `regex`
package's `\\X` for grapheme clusters).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from types import ModuleType

import regex

# The UTF-8 layouts by sequence length. Each 'x' is a payload bit taken from the code point; the
# fixed bits in front say "this is a lead byte of an n-byte sequence" (0, 110, 1110, 11110) or
# "this is a continuation byte" (10). Index 0 is unused so the list reads as UTF8_LAYOUTS[n_bytes].
UTF8_LAYOUTS = [
    "",
    "0xxxxxxx",
    "110xxxxx 10xxxxxx",
    "1110xxxx 10xxxxxx 10xxxxxx",
    "11110xxx 10xxxxxx 10xxxxxx 10xxxxxx",
]

# Unicode's two-letter general categories grouped by their first letter (L = letter, ...).
CATEGORY_GROUPS = {
    "L": "letters",
    "M": "marks",
    "N": "numbers",
    "P": "punctuation",
    "S": "symbols",
    "Z": "separators",
}

LAST_CODE_POINT = 0x10FFFF


def code_point_label(ch: str) -> str:
    """Return the conventional name of one code point, e.g. 'U+20AC EURO SIGN'.

    "U+" followed by at least four hex digits is how the Unicode standard writes code points.
    Control characters and surrogates have no name in `unicodedata`: they get a placeholder.
    """
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '<no name>')}"


def utf8_bits(ch: str) -> str:
    """Show how one code point becomes UTF-8, bit by bit: a header, then four aligned lines.

    >>> print(utf8_bits("€"))
    '€' U+20AC EURO SIGN → 3 bytes
    layout   1110xxxx 10xxxxxx 10xxxxxx
    payload      0010   000010   101100
    bytes    11100010 10000010 10101100
    hex            e2       82       ac

    The payload line is the code point written in binary, cut into the slots marked 'x'.
    """
    encoded = ch.encode("utf-8")  # raises for lone surrogates, which UTF-8 cannot carry
    layout = UTF8_LAYOUTS[len(encoded)]
    payload_bits = format(ord(ch), f"0{layout.count('x')}b")
    payload, used = [], 0
    for byte_layout in layout.split():
        n_free = byte_layout.count("x")
        slot = payload_bits[used : used + n_free]
        payload.append(slot.rjust(8))  # right-align: payload bits sit under the x's
        used += n_free
    lines = [
        f"{ch!r} {code_point_label(ch)} → {len(encoded)} byte{'s' if len(encoded) > 1 else ''}",
        "layout   " + layout,
        "payload  " + " ".join(payload),
        "bytes    " + " ".join(format(b, "08b") for b in encoded),
        "hex      " + " ".join(format(b, "02x").rjust(8) for b in encoded),
    ]
    return "\n".join(lines)


def encoding_table(chars: str | list[str]) -> list[dict[str, str | int]]:
    """One row per character: its code point and how many bytes UTF-8, UTF-16 and UTF-32 need.

    UTF-16 and UTF-32 are encoded little-endian *without* a byte-order mark, so the numbers are the
    cost of the character itself ('utf-16' alone would add a 2-byte BOM in front).
    """
    return [
        {
            "code point": f"U+{ord(ch):04X}",
            "UTF-8": len(ch.encode("utf-8")),
            "UTF-16": len(ch.encode("utf-16-le")),
            "UTF-32": len(ch.encode("utf-32-le")),
            "UTF-8 bytes": ch.encode("utf-8").hex(" "),
            "character": f"{ch}  {unicodedata.name(ch, '<no name>')}",
        }
        for ch in chars
    ]


def code_space_summary(db: ModuleType = unicodedata) -> dict[str, int]:
    """Count what the code space 0..0x10FFFF holds, according to a Unicode database.

    Every code point has a general category; 'Cn' means *unassigned* (nothing there yet). Pass
    `unicodedata.ucd_3_2_0` to see the Unicode 3.2 of 2002 instead of the version Python ships
    (`db.unidata_version` says which). Scanning all 1,114,112 code points takes well under a second.
    """
    categories = Counter(db.category(chr(cp)) for cp in range(LAST_CODE_POINT + 1))
    assigned = LAST_CODE_POINT + 1 - categories["Cn"]
    summary = {
        "code points": LAST_CODE_POINT + 1,
        "assigned": assigned,
        # Private-use code points are reserved for private agreements and surrogates only exist to
        # build UTF-16 pairs: neither is a character anyone can exchange, so leave them out here.
        "characters": assigned - categories["Co"] - categories["Cs"],
    }
    for letter, group in CATEGORY_GROUPS.items():
        summary[group] = sum(n for cat, n in categories.items() if cat.startswith(letter))
    summary["controls and format"] = categories["Cc"] + categories["Cf"]
    summary["private use"] = categories["Co"]
    summary["surrogates"] = categories["Cs"]
    summary["unassigned"] = categories["Cn"]
    return summary


def graphemes(text: str) -> list[str]:
    """Split text into grapheme clusters: what a reader would call one character each.

    `regex`'s `\\X` implements Unicode's extended grapheme cluster rules (UAX #29), which keep a
    letter with its vowel signs and accents, an emoji with its ZWJ-joined partners and skin tone,
    and the two regional-indicator letters of a flag together.
    """
    return regex.findall(r"\X", text)


def bytes_per_char(text: str) -> float:
    """UTF-8 bytes per code point: 1.0 for ASCII, up to 4.0. The empty string gives 0.0."""
    return len(text.encode("utf-8")) / len(text) if text else 0.0
