"""Unit tests for lib.unicode_tools (lesson 1's helpers)."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lib import unicode_tools as ut


def test_utf8_bits_euro_sign_shows_layout_payload_and_bytes():
    lines = ut.utf8_bits("€").splitlines()
    assert lines[0] == "'€' U+20AC EURO SIGN → 3 bytes"
    assert lines[1] == "layout   1110xxxx 10xxxxxx 10xxxxxx"
    assert lines[2] == "payload      0010   000010   101100"
    assert lines[3] == "bytes    11100010 10000010 10101100"
    assert lines[4] == "hex            e2       82       ac"


@given(st.characters(exclude_categories=["Cs"]))
def test_utf8_bits_payload_fills_the_x_slots_of_the_real_bytes(ch):
    _, layout, payload, bits, hexes = ut.utf8_bits(ch).splitlines()
    layout, payload, bits = layout[9:], payload[9:], bits[9:]
    assert bits.replace(" ", "") == "".join(f"{b:08b}" for b in ch.encode("utf-8"))
    assert hexes.split()[1:] == [f"{b:02x}" for b in ch.encode("utf-8")]
    for slot, bit, shown in zip(layout, bits, payload, strict=True):
        if slot == "x":  # a payload position: the payload line repeats the byte's bit
            assert shown == bit
        else:  # a fixed marker bit (or the gap between bytes): the byte carries the layout's bit
            assert (shown, bit) == (" ", slot)
    assert int(payload.replace(" ", ""), 2) == ord(ch)


def test_utf8_bits_rejects_lone_surrogate():
    with pytest.raises(UnicodeEncodeError):
        ut.utf8_bits("\ud800")


def test_encoding_table_counts_bytes_without_byte_order_mark():
    rows = ut.encoding_table("hह€👋")
    assert [(r["UTF-8"], r["UTF-16"], r["UTF-32"]) for r in rows] == [
        (1, 2, 4),
        (3, 2, 4),
        (3, 2, 4),
        (4, 4, 4),
    ]
    assert rows[3]["code point"] == "U+1F44B"
    assert rows[2]["UTF-8 bytes"] == "e2 82 ac"
    assert rows[0]["character"] == "h  LATIN SMALL LETTER H"


def test_code_space_summary_adds_up():
    summary = ut.code_space_summary()
    assert summary["code points"] == 0x110000
    assert summary["assigned"] + summary["unassigned"] == 0x110000
    assert summary["surrogates"] == 2048  # U+D800..U+DFFF, fixed by UTF-16's design
    parts = ("letters", "marks", "numbers", "punctuation", "symbols", "separators")
    assert sum(summary[k] for k in parts) + summary["controls and format"] == summary["characters"]
    not_characters = summary["private use"] + summary["surrogates"]
    assert summary["characters"] + not_characters == summary["assigned"]


def test_code_space_has_grown_since_unicode_3_2():
    old = ut.code_space_summary(unicodedata.ucd_3_2_0)
    assert old["characters"] < ut.code_space_summary()["characters"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("नमस्ते", 3),  # न, म, and स्ते: consonant + virama + consonant + vowel sign stay together
        ("e\u0301", 1),  # e + combining acute accent
        ("👩\u200d👩\u200d👧", 1),  # an emoji ZWJ sequence: five code points, one family
        ("🇮🇳🇯🇵", 2),  # regional-indicator letters pair up into flags
        ("", 0),
    ],
)
def test_graphemes_counts_user_perceived_characters(text, expected):
    clusters = ut.graphemes(text)
    assert len(clusters) == expected
    assert "".join(clusters) == text


def test_bytes_per_char():
    assert ut.bytes_per_char("hello") == 1.0
    assert ut.bytes_per_char("नमस्ते") == 3.0
    assert ut.bytes_per_char("h€") == 2.0
    assert ut.bytes_per_char("") == 0.0


def test_code_point_label():
    assert ut.code_point_label("ह") == "U+0939 DEVANAGARI LETTER HA"
    assert ut.code_point_label("\n") == "U+000A <no name>"
