"""Lesson 6's first exercise: where a language's token premium comes from, step by step
(`premium_factors`).

Expected values come from `lib.fairness`, and for the premium's steps from tiktoken's encodings,
on one sentence written for these checks in several scripts.
"""

from __future__ import annotations

import functools
from typing import Any

import tiktoken

from lib import data, fairness
from lib.exercises.core import Case, Exercise, close
from lib.exercises.generated import rng

# Written for these checks (not taken from any dataset): one sentence in several scripts.
_SENTENCES = {
    "eng_Latn": "The cat is sleeping on the warm mat.",
    "hin_Deva": "बिल्ली गर्म चटाई पर सो रही है।",
    "rus_Cyrl": "Кошка спит на тёплом коврике.",
    "zho_Hans": "猫在温暖的垫子上睡觉。",
    "kor_Hang": "고양이가 따뜻한 매트 위에서 자고 있어요.",
    "tam_Taml": "பூனை சூடான பாயில் தூங்குகிறது.",
}


@functools.cache
def _sentence_counts() -> dict[str, dict[str, int]]:
    """The four counts `premium_factors` reads, for the sentences above."""
    cl100k, o200k = (data.tiktoken_encoding(name) for name in ("cl100k_base", "o200k_base"))
    middle = tiktoken.Encoding(
        name="o200k_vocab_cl100k_pattern",
        pat_str=cl100k._pat_str,
        mergeable_ranks=o200k._mergeable_ranks,
        special_tokens={},
    )
    encoders = {"characters": list, "bytes": str.encode}
    encoders |= {"o200k vocab + cl100k pattern": middle.encode, "o200k_base": o200k.encode}
    return fairness.token_counts(encoders, _SENTENCES)


def _same_factors(got: Any, expected: dict[str, float]) -> bool:
    return (
        isinstance(got, dict)
        and set(got) == set(expected)
        and all(close(got[name], value) for name, value in expected.items())
    )


ENGLISH, OTHER = "English the reference", "another language the reference"


def _factor_cases(langs: tuple[str, ...], reference: str = "eng_Latn") -> list[Case]:
    counts = _sentence_counts()
    return [_factor_case(counts, lang, reference) for lang in langs]


def _factor_case(counts: dict[str, dict[str, int]], lang: str, reference: str) -> Case:
    """English as the reference by default (no keyword), any other named."""
    return Case(
        args=(counts, lang),
        kwargs={} if reference == "eng_Latn" else {"reference": reference},
        expected=fairness.premium_factors(counts, lang, reference),
        kind=ENGLISH if reference == "eng_Latn" else OTHER,
    )


def _round_counts() -> list[Case]:
    counts = {  # easy to check by hand: 2 x 1.5 x 2 x 0.5 = 3
        "characters": {"eng_Latn": 100, "xx": 200},
        "bytes": {"eng_Latn": 100, "xx": 300},
        "o200k vocab + cl100k pattern": {"eng_Latn": 25, "xx": 150},
        "o200k_base": {"eng_Latn": 20, "xx": 60},
    }
    return [
        Case(args=(counts, "xx"), expected=fairness.premium_factors(counts, "xx")),
        # The other way round: an answer that always divides by English fails here.
        Case(
            args=(counts, "eng_Latn"),
            kwargs={"reference": "xx"},
            expected=fairness.premium_factors(counts, "eng_Latn", "xx"),
        ),
    ]


def _drawn_counts() -> list[Case]:
    """Eight tables of made-up counts for three languages, drawn with the grader's salt
    (`generated.rng`): inputs no table of lib's cases holds. Half with English the reference
    by default, half with another language named."""
    source = rng(62)
    cases = []
    for n in range(8):
        counts = {
            step: {lang: source.randint(5, 900) for lang in ("eng_Latn", "xx", "yy")}
            for step in _round_counts()[0].args[0]
        }
        reference = "eng_Latn" if n % 2 else source.choice(["xx", "yy"])
        lang = source.choice([lang for lang in ("eng_Latn", "xx", "yy") if lang != reference])
        cases.append(_factor_case(counts, lang, reference))
    return cases


premium_factors = Exercise(
    name="premium_factors",
    lesson=6,
    points=2,
    target="premium_factors",
    cases=lambda: (
        _round_counts()
        + _factor_cases(("hin_Deva", "tam_Taml", "zho_Hans"))
        + _factor_cases(("eng_Latn",), "tam_Taml")
    ),
    hidden_cases=lambda: (
        _factor_cases(("rus_Cyrl", "kor_Hang"))
        + _factor_cases(("eng_Latn",), "hin_Deva")
        + _drawn_counts()
    ),
    compare=_same_factors,
    hints=(
        "Each factor is a ratio of ratios: how much more `lang` needs than `reference` at"
        " one step, divided by how much more it needed at the step before. The first step"
        " has no step before it.",
        "Go through the steps in order: characters, bytes, the middle encoding, "
        "o200k_base. What is each step's ratio of `lang` to `reference`? In the example "
        "above they are 2, 3, 6 and 3. Which number turns one step's ratio into the next "
        "one's, and what stands in for the step before characters?",
        "Check yourself: multiplied together, the four factors must give the o200k_base "
        "ratio, because each step's ratio cancels the one before. And the reference is an"
        " argument: with reference=lang every factor is 1.",
    ),
    solution_code="""\
def premium_factors(counts, lang, reference="eng_Latn"):
    steps = ["characters", "bytes", "o200k vocab + cl100k pattern", "o200k_base"]
    ratios = [counts[step][lang] / counts[step][reference] for step in steps]
    return {
        "characters": ratios[0],
        "utf8": ratios[1] / ratios[0],
        "vocabulary": ratios[2] / ratios[1],
        "pattern": ratios[3] / ratios[2],
    }
""",
)
