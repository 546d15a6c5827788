"""Inputs made up for the grader's hidden cases, the same on every run (a fixed seed).

`check()` shows a few hand-picked cases; the grader also runs these, so an answer that only
remembers what `check()` showed earns nothing for them. They are drawn from every UTF-8 length
and several scripts, so an answer that handles only English is caught too.

>>> random_texts(7, 3) == random_texts(7, 3)
True
>>> all(0xD800 > cp or cp > 0xDFFF for cp in random_code_points(1, 50))
True
"""

from __future__ import annotations

import random

# Characters of every UTF-8 length: ASCII, Latin-1, Greek, Cyrillic, Devanagari, Hangul, CJK,
# Tamil, emoji (with a skin tone and a ZWJ), and white space.
ALPHABET = "aeinost ETAZ.,!?0159\n\téüßñçΩλжДनमस्तेािकआ안녕하세요日本語中文தமிழ்€™😀👋🏽\u200d🎉"

# The first code point of each UTF-8 length, and the last of all; surrogates are left out.
_RANGES = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]


def random_code_points(seed: int, count: int) -> list[int]:
    """`count` code points spread over every range of UTF-8 lengths."""
    rng = random.Random(seed)
    return [rng.randint(*_RANGES[i % len(_RANGES)]) for i in range(count)]


def random_texts(seed: int, count: int, longest: int = 12) -> list[str]:
    """`count` short texts drawn from `ALPHABET` (none empty)."""
    rng = random.Random(seed)
    return ["".join(rng.choices(ALPHABET, k=rng.randint(1, longest))) for _ in range(count)]
