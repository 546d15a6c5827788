"""What lesson 1's exercises are checked on: code points on both sides of every UTF-8 length
boundary, and short texts in several scripts, written for these checks."""

from __future__ import annotations

# Code points on both sides of every UTF-8 length boundary, plus a few everyday characters:
# 'A', 'é', 'ह', '€', '안', '👋' and the last code point of Unicode.
BOUNDARY_CODE_POINTS = [0x00, 0x41, 0x7F]  # 1 byte
BOUNDARY_CODE_POINTS += [0x80, 0xE9, 0x7FF]  # 2 bytes
BOUNDARY_CODE_POINTS += [0x800, 0x939, 0x20AC, 0xC548, 0xD7FF, 0xE000, 0xFFFF]  # 3 (no surrogates)
# 4 bytes; U+E0041 (a tag letter, as in flag emoji) has bit 6 of cp >> 12 set, where a mask
# put after the marker shows (& 0xFF keeps that bit)
BOUNDARY_CODE_POINTS += [0x10000, 0x1F44B, 0xE0041, 0x10FFFF]

# Short texts in several scripts, written for these checks.
TEXTS = ["hello", "héllo", "नमस्ते", "안녕하세요", "Привет"]
TEXTS += ["€5", "👋 hi", "日本", "ሰላም", "\x7f\x80"]
