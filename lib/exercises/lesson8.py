"""Lesson 8 exercises: where a corpus may be cut, adding up the workers' counts, a .tiktoken line.

Expected values come from `lib.corpus_files.safe_cuts` (the rule the file trainer cuts by) and
`lib.train.tiktoken_line` (what `python -m lib.train --format tiktoken` writes).
"""

from __future__ import annotations

from collections import Counter

from lib import corpus_files, train
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts

# Runs of spaces, line ends before letters and before spaces, digits and punctuation, several
# scripts: every place the rule says yes or no to.
_TEXTS = [
    "end. Next",
    "a  b",
    "one two\nThree",
    "x\n y",
    "2024 was\n\nlong",
    "नमस्ते दुनिया",
    "  leading",
    "trailing  ",
    "",
    "no-cut-here",
]
_HIDDEN_TEXTS = ["Привет, мир\nВторой", "a.\nb c\t d", "日本 語\n本", "end\n", " x y "]


def _cut_cases(texts: list[str]) -> list[Case]:
    return [Case(args=(text,), expected=corpus_files.safe_cuts(text)) for text in texts]


_PARTS = [
    [{b"the": 3, b" cat": 1}, {b"the": 2, b" dog": 5}],
    [{b" a": 1}],
    [],
    [{}, {b"x": 1}, {}],
    [{" न".encode(): 2}, {" न".encode(): 3, b"!": 1}, {b"!": 4}],
]


def _hidden_parts() -> list[list[dict[bytes, int]]]:
    """Workers' counts of the chunks of made-up texts: some chunks in several parts, some once."""
    texts = random_texts(81, 40)
    chunks = [text.encode() for text in texts]
    return [
        [{chunk: n + 1 for n, chunk in enumerate(chunks[start : start + width])}, {chunks[0]: 7}]
        for start, width in zip(range(0, 40, 4), (1, 2, 3, 4, 2, 3, 4, 1, 2, 3), strict=True)
    ]


def _add_cases(parts: list[list[dict[bytes, int]]]) -> list[Case]:
    cases = []
    for counts in parts:
        total: Counter = Counter()
        for part in counts:
            total.update(part)
        cases.append(Case(args=(counts,), expected=dict(total)))
    return cases


_TOKENS = [(b"a", 97), (b" the", 262), (bytes([0xE0, 0xA4]), 300), (b"\n\n", 1000)]
_TOKENS += [("👋".encode(), 4095), (b"\xff", 255)]


def _hidden_tokens() -> list[tuple[bytes, int]]:
    return [(text.encode(), 256 + 97 * n) for n, text in enumerate(random_texts(88, 10))]


def _line_cases(tokens: list[tuple[bytes, int]]) -> list[Case]:
    return [
        Case(args=(token, rank), expected=train.tiktoken_line(token, rank))
        for token, rank in tokens
    ]


safe_cuts = Exercise(
    name="safe_cuts",
    lesson=8,
    points=2,
    target="safe_cuts",
    cases=lambda: _cut_cases(_TEXTS),
    hidden_cases=lambda: _cut_cases(_HIDDEN_TEXTS + random_texts(8, 6, longest=16)),
    hint=(
        "Look at each position p from 1 to len(text) - 1 and ask two questions about the "
        "characters just before it and at it. Use str.isspace() and str.isalpha().",
        "p is a cut when text[p] == ' ' and text[p - 1] is not whitespace; or when text[p] is a "
        "letter, text[p - 1] == '\\n' and p >= 2 with text[p - 2] not whitespace.",
    ),
    solution="""\
def safe_cuts(text: str) -> list[int]:
    cuts = []
    for p in range(1, len(text)):
        before_space = text[p] == " " and not text[p - 1].isspace()
        line_start = (
            p >= 2 and text[p].isalpha() and text[p - 1] == "\\n" and not text[p - 2].isspace()
        )
        if before_space or line_start:
            cuts.append(p)
    return cuts
""",
)

add_counts = Exercise(
    name="add_counts",
    lesson=8,
    points=1,
    target="add_counts",
    cases=lambda: _add_cases(_PARTS),
    hidden_cases=lambda: _add_cases(_hidden_parts()),
    hint=(
        "Start from an empty dict and go through every worker's dict in turn.",
        "For each (chunk, n) of a part: total[chunk] = total.get(chunk, 0) + n.",
    ),
    solution="""\
def add_counts(parts: list[dict[bytes, int]]) -> dict[bytes, int]:
    total = {}
    for part in parts:
        for chunk, n in part.items():
            total[chunk] = total.get(chunk, 0) + n
    return total
""",
)


def _line_turns(cases: list[Case], answers: list) -> str | None:
    """Name the usual slip: the bytes of base64 written with their b'...' around them."""
    if any(isinstance(a, str) and a.startswith(("b'", 'b"')) for a in answers):
        return "base64.b64encode returns bytes: .decode('ascii') turns them into text first."
    return None


tiktoken_line = Exercise(
    name="tiktoken_line",
    lesson=8,
    points=1,
    target="tiktoken_line",
    cases=lambda: _line_cases(_TOKENS),
    hidden_cases=lambda: _line_cases(_hidden_tokens()),
    allowed_lib=("base64",),
    wrong_turns=_line_turns,
    hint=(
        "The bytes go through base64 (the module `base64`), then a space, then the rank as digits.",
        "base64.b64encode(token) returns bytes: .decode('ascii') makes them a str; then "
        "f'{that} {rank}'.",
    ),
    solution="""\
import base64


def tiktoken_line(token: bytes, rank: int) -> str:
    return base64.b64encode(token).decode("ascii") + " " + str(rank)
""",
)

EXERCISES = [safe_cuts, add_counts, tiktoken_line]
