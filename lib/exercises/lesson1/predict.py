"""Lesson 1's "predict, then run" question: the UTF-8 length of ten texts, predicted in section 4
before the lesson shows any of their bytes.

Asked before the lesson shows the answer; the mechanics are in `lib.exercises.predictions`:
a dict literal, answers computed when checked, and a reason shown with every miss.
"""

from __future__ import annotations

from collections import Counter

from lib.exercises import predictions
from lib.exercises.core import Case

# Texts whose UTF-8 length the learner predicts before the lesson shows any of them.
PREDICT_TEXTS = ["A", "ß", "ж", "ক", "ツ", "😀", "naïve", "Straße", "🇮🇳", "日本語"]
_RANGE_OF_LENGTH = {1: "U+0000–U+007F", 2: "U+0080–U+07FF", 3: "U+0800–U+FFFF", 4: "U+10000 and up"}


def _why_bytes(text: str) -> str:
    """'naïve' is 6 UTF-8 bytes: 4 code points × 1 (U+0000–U+007F) + 1 × 2 (...)."""
    sizes = sorted(Counter(len(ch.encode("utf-8")) for ch in text).items())
    terms = [f"{count} × {size} ({_RANGE_OF_LENGTH[size]})" for size, count in sizes]
    terms[0] = terms[0].replace(" × ", f" code point{'s' if sizes[0][1] > 1 else ''} × ", 1)
    total = len(text.encode("utf-8"))
    return f"{text!r} is {total} UTF-8 byte{'s' * (total > 1)}: {' + '.join(terms)}"


def _predict_utf8_bytes_cases() -> list[Case]:
    return predictions.cases(
        [predictions.Answer(t, len(t.encode("utf-8")), _why_bytes(t)) for t in PREDICT_TEXTS]
    )


predict_utf8_bytes = predictions.question(
    name="predict_utf8_bytes",
    lesson=1,
    target="predicted_utf8_bytes",
    cases=_predict_utf8_bytes_cases,
    hints=(
        "Do it on paper: for each code point, find its row in the table of section 4 (hex(ord(ch)) "
        "tells you the number), then add up the bytes of all the code points of the text.",
        "Watch out for texts that are more code points than they look: a flag is two regional "
        "indicator symbols, each above U+FFFF.",
    ),
    solution_code="""\
predicted_utf8_bytes = {
    "A": 1, "ß": 2, "ж": 2, "ক": 3, "ツ": 3, "😀": 4,
    "naïve": 6, "Straße": 7, "🇮🇳": 8, "日本語": 9,
}
""",
)
