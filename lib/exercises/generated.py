"""Inputs made up for the grader's hidden cases.

`check()` shows a few hand-picked cases; the grader also runs these, so an answer that only
remembers what `check()` showed earns nothing for them. They are drawn from every UTF-8 length
and several scripts, so an answer that handles only English is caught too.

Learners have this code, so fixed seeds alone would let one work out the hidden inputs and
hard-code their answers. The grader therefore makes its cases inside `secret_inputs(salt)`, with
a salt derived from the instructor's secret key: the same inputs on every run of that instructor,
and none a learner can know. Without a salt (`check()`, the tests) the inputs are fixed.

>>> random_texts(7, 3) == random_texts(7, 3)
True
>>> plain = random_texts(7, 3)
>>> with secret_inputs("the instructor's"):
...     random_texts(7, 3) != plain
True
>>> all(0xD800 > cp or cp > 0xDFFF for cp in random_code_points(1, 50))
True
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

_salt = ""  # set by `secret_inputs` while the grader makes its cases


@contextlib.contextmanager
def secret_inputs(salt: str) -> Iterator[None]:
    """Within this block, every `rng` (and so every generated input) also depends on `salt`."""
    global _salt
    previous, _salt = _salt, salt
    try:
        yield
    finally:
        _salt = previous


def rng(seed: int) -> random.Random:
    """The random source of hidden cases: fixed by `seed`, and by the grader's salt if set."""
    return random.Random(f"{seed}:{_salt}" if _salt else seed)


# Characters of every UTF-8 length: ASCII, Latin-1, Greek, Cyrillic, Devanagari, Hangul, CJK,
# Tamil, emoji (with a skin tone and a ZWJ), and white space.
ALPHABET = "aeinost ETAZ.,!?0159\n\téüßñçΩλжДनमस्तेािकआ안녕하세요日本語中文தமிழ்€™😀👋🏽\u200d🎉"

# The first code point of each UTF-8 length, and the last of all; surrogates are left out.
_RANGES = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]


def random_code_points(seed: int, count: int) -> list[int]:
    """`count` code points spread over every range of UTF-8 lengths."""
    source = rng(seed)
    return [source.randint(*_RANGES[i % len(_RANGES)]) for i in range(count)]


def random_texts(seed: int, count: int, longest: int = 12) -> list[str]:
    """`count` short texts drawn from `ALPHABET` (none empty)."""
    source = rng(seed)
    return ["".join(source.choices(ALPHABET, k=source.randint(1, longest))) for _ in range(count)]
