"""Lesson 6's measuring exercises: where a language's token premium comes from, step by step
(`premium_factors`), and how unequal a list of counts is (`gini`).

Expected values come from `lib.fairness`, and for the premium's steps from tiktoken's encodings,
on one sentence written for these checks in several scripts.
"""

from __future__ import annotations

import functools
from typing import Any

import tiktoken

from lib import data, fairness
from lib.exercises.core import Case, Exercise, close

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


def _factor_cases(langs: tuple[str, ...], reference: str = "eng_Latn") -> list[Case]:
    counts = _sentence_counts()
    return [
        Case(
            args=(counts, lang),
            kwargs={} if reference == "eng_Latn" else {"reference": reference},
            expected=fairness.premium_factors(counts, lang, reference),
        )
        for lang in langs
    ]


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


def _gini_cases(lists: list[list[int]]) -> list[Case]:
    return [Case(args=(values,), expected=fairness.gini(values)) for values in lists]


def _formula_for_sorted_values(values: list[float]) -> float:
    """The Gini coefficient by the formula that holds only for values sorted smallest first,
    used on the values as given: what an answer that forgets to sort returns."""
    n = len(values)
    return sum((2 * i - n - 1) * x for i, x in enumerate(values, 1)) / (n * sum(values))


def _unsorted_turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Name the forgotten sort: every wrong answer is the sorted formula's on the values as
    given (a list already sorted gets the right answer that way, so some case passes)."""
    wrong = [
        (case, a) for case, a in zip(cases, answers, strict=True) if not close(a, case.expected)
    ]
    if wrong and all(close(a, _formula_for_sorted_values(case.args[0])) for case, a in wrong):
        return (
            "Your answers are what the formula over sorted values gives on the values in the "
            "order they came: it assumes the values sorted, smallest first, and these are not. "
            "Sort a copy first (the caller's list must stay as it was), or use the definition "
            "with every pair, which needs no order."
        )
    return None


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
        _factor_cases(("rus_Cyrl", "kor_Hang")) + _factor_cases(("eng_Latn",), "hin_Deva")
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

gini = Exercise(
    name="gini",
    lesson=6,
    points=1,
    target="gini",
    # one list out of order: the sorted formula needs a sort, and it must not be the caller's
    cases=lambda: _gini_cases([[0, 0, 0, 4], [4, 1, 3, 2], [52835, 253270, 404265]]),
    hidden_cases=lambda: _gini_cases([[7], [10, 30], [2, 2, 2, 2, 12], [1.5, 0.5]]),
    compare=close,
    wrong_turns=_unsorted_turns,
    hints=(
        "A pick is an ordered pair (x, y), and x may be picked twice: every value meets every"
        " value, itself included, so two loops (or one over the pairs) visit them all. An "
        "average is a sum divided by how many things were summed.",
        "Work [0, 0, 0, 4] out by hand first: of its 16 picks, which have a gap, and how big"
        " is it? What are the average gap and the average value, and does the first divided"
        " by twice the second come to 0.75? The order of the values must not matter (nor may"
        " your function change it).",
    ),
    solution_code="""\
def gini(values):
    total = sum(abs(x - y) for x in values for y in values)
    return total / (2 * len(values) * sum(values))
""",
)
