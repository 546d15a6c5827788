"""Lesson 1's exercises: UTF-8 by hand.

Expected values come from Python itself (`str.encode`, `bytes.decode`) and from
`lib.unicode_tools`, so the checks test the learner against the real thing, not against numbers
typed in by hand. One module a part of the lesson:

- `predict`: the UTF-8 lengths predicted in section 4, before the lesson shows any bytes;
- `by_hand`: `utf8_encode` and `utf8_decode_first`, the bit operations themselves;
- `measuring`: `bytes_per_char`; `validity`: `is_valid_utf8`;
- `texts`: the code points and texts they are all checked on.
"""

from __future__ import annotations

from lib.exercises.lesson1.by_hand import utf8_decode_first, utf8_encode
from lib.exercises.lesson1.measuring import bytes_per_char
from lib.exercises.lesson1.predict import PREDICT_TEXTS, predict_utf8_bytes
from lib.exercises.lesson1.validity import is_valid_utf8

__all__ = [
    "EXERCISES",
    "PREDICT_TEXTS",
    "bytes_per_char",
    "is_valid_utf8",
    "predict_utf8_bytes",
    "utf8_decode_first",
    "utf8_encode",
]

EXERCISES = [predict_utf8_bytes, utf8_encode, utf8_decode_first, bytes_per_char, is_valid_utf8]
