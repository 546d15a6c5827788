"""Lesson 5's `digit_groups`: the number pieces GPT-4's pattern cuts out of any text, worked out
from its piece `\\p{N}{1,3}+` alone. Expected values come from `lib.patterns.split_text`."""

from __future__ import annotations

import unicodedata
from collections import Counter

from lib.exercises.cases import answers_fit
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng

# Number characters of several kinds: ASCII and Devanagari digits, superscripts, a fraction, a
# Roman numeral, a circled one; and characters that look like numbers to some test but are not
# \p{N}: the CJK numerals 五 and 一 are letters (str.isnumeric() says True).
_NUMBERS = "0123456789" * 2 + "१२३४५" + "²³" + "½Ⅻ①" * 3
_NOT_NUMBERS = "ab xé, .$-" + "五一" * 4 + "\n"
# `regex` carries its own Unicode tables, newer than `unicodedata`'s (14.0 on Python 3.11, 15.1 on
# 3.13): they disagree on over 400 code points, e.g. U+10D40, a Garay digit new in Unicode 16. The
# texts use only characters both agree on, so that the hinted unicodedata answer stays right.

_DIGIT_TEXTS = [
    "1234567",
    "In 2024, 1234567 people paid $80,235.50.",
    "98765x4321",  # each run of numbers is cut on its own
    "१२३४५ और 12",  # Devanagari digits are numbers too
    "½ cup, Ⅻ o'clock, x²³⁴⁵",  # so are a fraction, a Roman numeral, superscripts
    "五月 is May, the 3rd",  # 五 is a letter (a CJK numeral), not \p{N}
    "Chapter Ⅻ: ① ½",
    "一二三 is 123",
    "",
    "no numbers",
]


RUN, MIXED = "a long run of digits", "numbers among other characters"


def _hidden_digit_texts() -> list[tuple[str, str]]:
    """Long runs of digits, written out and made up, and made-up texts of numbers and other
    characters (secret when the grader makes them), each with its kind."""
    draw = rng(52)
    alphabet = _NUMBERS + _NOT_NUMBERS
    mixed = ["".join(draw.choices(alphabet, k=draw.randint(1, 24))) for _ in range(12)]
    runs = ["".join(draw.choices("0123456789", k=draw.randint(4, 16))) for _ in range(3)]
    written = [(RUN, text) for text in ("80235", "3141592653", "00000000")]
    return written + [(RUN, text) for text in runs] + [(MIXED, text) for text in mixed]


def _digit_cases(texts: list[str], kind: str = "") -> list[Case]:
    import regex

    from lib import patterns

    return [
        Case(
            args=(text,),
            expected=[p for p in patterns.split_text(text, "gpt4") if regex.match(r"\p{N}", p)],
            kind=kind,
        )
        for text in texts
    ]


def _other_characters(cases: list[Case], answers: list) -> str | None:
    """Name the class mistake, and which way it goes: groups that leave out characters \\p{N}
    matches (str's isdigit, isdecimal), hold others (isnumeric takes 五), or both."""
    missing = extra = False
    for case, answer in zip(cases, answers, strict=True):
        if isinstance(answer, list) and all(isinstance(group, str) for group in answer):
            got, right = Counter("".join(answer)), Counter("".join(case.expected))
            missing, extra = missing or bool(right - got), extra or bool(got - right)
    if not (missing or extra):
        return None
    if missing and extra:
        which = "leave out characters that \\p{N} matches, and hold others it does not match"
    elif missing:
        which = "leave out characters that \\p{N} matches"
    else:
        which = "hold characters that \\p{N} does not match"
    return (
        "Your groups " + which + ". \\p{N} is every character whose Unicode category starts "
        "with N, whatever the script: ½ and ² are No, Ⅻ is Nl, and 五 is a letter (Lo). str's "
        "isdigit, isdecimal and isnumeric draw other lines."
    )


def _from_the_right(text: str) -> list[str]:
    """Groups of three counted from the right of each number, as place value (and 1,234,567)
    groups them: review J5's reading of `\\p{N}{1,3}+`."""
    runs, groups = [], []
    for ch in text + " ":
        if unicodedata.category(ch).startswith("N"):
            runs.append(ch)
        elif runs:
            first = len(runs) % 3 or 3
            groups.append("".join(runs[:first]))
            groups += ["".join(runs[i : i + 3]) for i in range(first, len(runs), 3)]
            runs = []
    return groups


def _grouping_turns(cases: list[Case], answers: list) -> str | None:
    """The class mistake first (`_other_characters`), then groups counted from the right."""
    words = _other_characters(cases, answers)
    if words or not answers_fit(cases, answers, _from_the_right):
        return words
    return (
        "you counted each number's groups from the right, as place value does (1,234,567). "
        "\\p{N}{1,3}+ reads from the left and takes the first three it meets: '1234567' is "
        "['123', '456', '7']. The cells after the check show what that does to arithmetic."
    )


digit_groups = Exercise(
    name="digit_groups",
    lesson=5,
    points=1,
    target="digit_groups",
    forbidden=("re", "regex", ".encode", ".encode_ordinary", ".split_text"),
    cases=lambda: _digit_cases(_DIGIT_TEXTS),
    hidden_cases=lambda: [
        case for kind, text in _hidden_digit_texts() for case in _digit_cases([text], kind)
    ],
    wrong_turns=_grouping_turns,
    hints=(
        "Read the pattern piece \\p{N}{1,3}+ slowly. \\p{N} is a class of characters, and "
        "not only 0 to 9: which characters of the check's texts are in it? The module "
        "unicodedata tells you a character's category, and the N of \\p{N} is one.",
        "A number piece holds number characters and nothing else. So where does a group end "
        "when the next character is not a number, and where does the next group start "
        "counting its three?",
        "Check yourself: 'x²³⁴⁵ or ½, 98765x4321' gives ['²³⁴', '⁵', '½', '987', '65', "
        "'432', '1'], and '五月' gives [] (五 is a letter).",
    ),
    solution_code="""\
import unicodedata


def digit_groups(text: str) -> list[str]:
    groups, length = [], 0  # length: of the last group, while it may still grow
    for ch in text:
        if not unicodedata.category(ch).startswith("N"):  # \\p{N}: any number character
            length = 0  # the next number starts a group of its own
        elif length in (0, 3):
            groups.append(ch)
            length = 1
        else:
            groups[-1] += ch
            length += 1
    return groups
""",
)
