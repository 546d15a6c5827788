"""Lesson 6 exercises: where a premium comes from, how unequal counts are, and a training mix.

Expected values come from `lib.fairness` and tiktoken; the design challenge trains a real
2,048-token tokenizer on the learner's mix with the course's fast trainer and measures it on
FLORES `devtest`, which the mix never sees (the grader also measures a second half of it).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import tiktoken

from lib import data, fairness
from lib.exercises.core import Case, Exercise, close
from lib.tokenizer import Tokenizer

# Written for these checks (not taken from any dataset): one sentence in several scripts.
_SENTENCES = {
    "eng_Latn": "The cat is sleeping on the warm mat.",
    "hin_Deva": "बिल्ली गर्म चटाई पर सो रही है।",
    "rus_Cyrl": "Кошка спит на тёплом коврике.",
    "zho_Hans": "猫在温暖的垫子上睡觉。",
    "kor_Hang": "고양이가 따뜻한 매트 위에서 자고 있어요.",
    "tam_Taml": "பூனை சூடான பாயில் தூங்குகிறது.",
}
MIX_LANGUAGES = ("eng_Latn", "spa_Latn", "rus_Cyrl", "hin_Deva", "tam_Taml")
MIX_BUDGET = 50_000  # UTF-8 bytes of training text in all
MIX_THRESHOLD = 1.45  # the worst premium, relative to the cheapest language, must stay under it
# The margin to leave on the first half of devtest: a mix's worst premium on the two halves
# differed by up to 0.024 over the mixes tried (e.g. 1.421 and 1.445).
MIX_MARGIN = 0.03


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


# -- the design challenge: a training mix ---------------------------------------------------------
@dataclass(frozen=True)
class WorstPremiumUnder:
    """What a mix must achieve on one half of `devtest`; its repr is what a failure shows."""

    threshold: float
    half: int  # 0: the first half of devtest (the check's), 1: the second (the grader's too)

    def __repr__(self) -> str:
        which = ("first", "second")[self.half]
        return f"a worst premium under {self.threshold} on the {which} half of devtest"


def _first_bytes(text: str, n: int) -> str:
    return text.encode("utf-8")[:n].decode("utf-8", errors="ignore")


def measure_mix(mix: dict[str, int], half: int = 0) -> dict[str, float]:
    """Train a 2,048-token BPE (GPT-4's pattern) on the first `mix[lang]` UTF-8 bytes of each
    language's FLORES `dev` text; return each language's premium on half of `devtest`, relative
    to the cheapest language (so starving English of text cannot make the others look cheap)."""
    _check_mix(mix)
    return dict(_measured(tuple(mix.items()), half))  # a copy: the remembered one stays as it is


def _check_mix(mix: Any) -> None:
    """Raise ValueError, saying what to change, unless the challenge accepts `mix`."""
    if not isinstance(mix, dict) or set(mix) - set(MIX_LANGUAGES):
        raise ValueError(f"a mix is a dict whose keys are among {MIX_LANGUAGES}")
    if not all(type(n) is int and n >= 0 for n in mix.values()) or not any(mix.values()):
        raise ValueError(
            "each amount must be an int (write 4_000, not 4e3 or 4000.0), >= 0, and not all 0"
        )
    if sum(mix.values()) > MIX_BUDGET:
        raise ValueError(f"the mix uses {sum(mix.values()):,} bytes; the budget is {MIX_BUDGET:,}")


@functools.lru_cache(maxsize=8)
def _measured(mix: tuple[tuple[str, int], ...], half: int) -> dict[str, float]:
    """measure_mix's work, remembered: judging a failed mix and then explaining why measure it
    twice, and each measurement trains a tokenizer. The order of `mix` is the training text's."""
    text = "\n".join(_first_bytes("\n".join(data.flores(lang, "dev")), n) for lang, n in mix)
    encoding = Tokenizer.train(text, vocab_size=2048, pattern="gpt4").to_tiktoken()
    counts = {}
    for lang in MIX_LANGUAGES:
        sentences = data.flores(lang, "devtest")
        middle = len(sentences) // 2
        part = sentences[:middle] if half == 0 else sentences[middle:]
        counts[lang] = len(encoding.encode("\n".join(part)))
    cheapest = min(counts.values())
    return {lang: round(n / cheapest, 3) for lang, n in counts.items()}


def _meets(got: Any, goal: WorstPremiumUnder) -> bool:
    try:
        return max(measure_mix(got, goal.half).values()) < goal.threshold
    except ValueError:
        return False


def _what_the_mix_did(cases: list[Case], answers: list[Any]) -> str | None:
    """The failed mix's own result on the half it failed: its worst language and premium on the
    check's half; on the grader's hidden half only that it missed, not a number to tune to."""
    try:
        _check_mix(answers[0])
    except ValueError as error:
        return f"This is not a mix the challenge accepts: {error}."
    missed = [
        case for case, mix in zip(cases, answers, strict=True) if not _meets(mix, case.expected)
    ]
    if not missed:
        return None
    goal = missed[0].expected
    if missed[0].hidden:
        return (
            f"On the grader's other half of devtest, your mix's worst premium reaches"
            f" {goal.threshold} or more: leave a margin (aim for about"
            f" {goal.threshold - MIX_MARGIN:.2f} on the first half)."
        )
    premiums = measure_mix(answers[0], goal.half)
    worst = max(premiums, key=premiums.__getitem__)
    name = data.flores_languages()[worst]
    return (
        f"Your mix's worst premium here is {premiums[worst]}, for {name} ({worst}):"
        " give it more bytes."
    )


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
        "o200k_base. At each, ratio = counts[step][lang] / counts[step][reference]. The "
        "factor is that ratio divided by the previous step's ratio (for characters, the "
        "ratio itself).",
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
    cases=lambda: _gini_cases([[0, 0, 0, 4], [1, 2, 3, 4], [52835, 253270, 404265]]),
    hidden_cases=lambda: _gini_cases([[7], [10, 30], [2, 2, 2, 2, 12], [1.5, 0.5]]),
    compare=close,
    hints=(
        "The formula compares every value with every value, itself included: two loops, "
        "or one loop over the pairs, summing the absolute differences.",
        "With n values there are n * n ordered pairs (x with itself too, and x, y as well"
        " as y, x). Sum their absolute differences, then divide by 2 * n * n times the "
        "mean. Check: equal values give 0; [0, 0, 0, 1] gives 0.75.",
    ),
    solution_code="""\
def gini(values):
    total = sum(abs(x - y) for x in values for y in values)
    return total / (2 * len(values) * sum(values))
""",
)

training_mix = Exercise(
    name="training_mix",
    lesson=6,
    points=2,
    target="training_mix",
    cases=lambda: [Case(expected=WorstPremiumUnder(MIX_THRESHOLD, 0))],
    hidden_cases=lambda: [Case(expected=WorstPremiumUnder(MIX_THRESHOLD, 1))],
    compare=_meets,
    wrong_turns=_what_the_mix_did,
    time_limit=30.0,
    hints=(
        "Start from an equal split and run ex.measure_mix(your_mix): which language is worst? "
        "A language gets merges in proportion to how often its pairs occur in the training text.",
        "Scripts with 3 bytes per character get a third of the characters from the same bytes. "
        "Move bytes from English and Spanish towards Tamil and Hindi, a few thousand at a time, "
        "and watch the worst premium.",
    ),
    solution_code="""\
training_mix = {
    "eng_Latn": 4_000, "spa_Latn": 4_000, "rus_Cyrl": 9_000, "hin_Deva": 14_000, "tam_Taml": 19_000
}
""",
)

EXERCISES = [premium_factors, training_mix, gini]  # in the order the notebook asks them
