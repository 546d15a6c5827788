"""Lesson 6 exercises: token counts across languages, the premium, and what it costs.

Expected values come from `lib.fairness` (the functions the notebook itself uses) and from
tiktoken's cl100k_base, so a check compares the learner's code with the real counts.
"""

from __future__ import annotations

import functools

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
def _cl100k():
    return data.tiktoken_encoding("cl100k_base")


def cl100k_base_encode(text: str) -> list[int]:
    """GPT-4's encoder as a plain function: checks copy their arguments, and a function is cheap
    to copy (a bound method would drag a copy of the whole encoding along)."""
    return _cl100k().encode(text)


def _count_tokens_cases() -> list[Case]:
    # Real tokens, then UTF-8 bytes and characters: the same function must count all three.
    encoders = {"cl100k_base": cl100k_base_encode, "bytes": str.encode, "characters": list}
    counts = fairness.token_counts(encoders, _SENTENCES)
    cases = [
        Case(args=(_SENTENCES, encode), expected=counts[name]) for name, encode in encoders.items()
    ]
    cases.append(Case(args=({}, str.encode), expected={}))
    return cases


def _premium_cases() -> list[Case]:
    counts = fairness.token_counts({"cl100k_base": cl100k_base_encode}, _SENTENCES)["cl100k_base"]
    # Round numbers first, whose answers are easy to check by hand; then real counts, and another
    # reference language.
    small = {"eng_Latn": 40, "deu_Latn": 50, "mya_Mymr": 480}
    cases = [Case(args=(small, lang), expected=fairness.premium(small, lang)) for lang in small]
    cases += [Case(args=(counts, lang), expected=fairness.premium(counts, lang)) for lang in counts]
    cases.append(
        Case(
            args=(counts, "eng_Latn"),
            kwargs={"reference": "hin_Deva"},
            expected=fairness.premium(counts, "eng_Latn", "hin_Deva"),
        )
    )
    return cases


def _sentences_that_fit_cases() -> list[Case]:
    token_lists = [
        ([10, 20, 30], 100),  # everything fits
        ([10, 20, 30], 60),  # exactly full
        ([10, 20, 30], 59),  # the last sentence is one token too long
        ([50, 10, 10], 40),  # not even the first sentence fits
        ([], 8192),  # nothing to fit
        ([30, 100, 5], 40),  # sentences stay in order: the 5 after the 100 does not count
    ]
    return [
        Case(args=(tokens, context), expected=fairness.sentences_that_fit(tokens, context))
        for tokens, context in token_lists
    ]


count_tokens = Exercise(
    name="count_tokens",
    lesson=6,
    points=1,
    target="count_tokens",
    cases=_count_tokens_cases,
    hint=(
        "Loop over texts.items(): for each language, call encode(text) and take len() of what it "
        "returns. Build a new dict {lang: that length}. Do not assume encode returns token ids: "
        "str.encode returns bytes and list returns characters, and len() works on all of them."
    ),
    solution="""\
def count_tokens(texts: dict[str, str], encode) -> dict[str, int]:
    return {lang: len(encode(text)) for lang, text in texts.items()}
""",
)

premium = Exercise(
    name="premium",
    lesson=6,
    points=1,
    target="premium",
    cases=_premium_cases,
    compare=close,
    hint=(
        "counts maps a language code to its number of tokens. Look up the count of lang and the "
        "count of reference, and divide the first by the second. Use true division (/), not //, "
        "so that a premium of 1.5 stays 1.5."
    ),
    solution="""\
def premium(counts: dict[str, int], lang: str, reference: str = "eng_Latn") -> float:
    return counts[lang] / counts[reference]
""",
)

sentences_that_fit = Exercise(
    name="sentences_that_fit",
    lesson=6,
    points=1,
    target="sentences_that_fit",
    cases=_sentences_that_fit_cases,
    hint=(
        "Keep a running total of tokens used and a count of sentences. For each sentence's token "
        "count n in order: if used + n would go over context_length, stop (break); otherwise add n "
        "to the total and 1 to the count. A sentence that does not fit ends the loop, even if a "
        "shorter one comes later: a document is read in order."
    ),
    solution="""\
def sentences_that_fit(sentence_tokens: list[int], context_length: int) -> int:
    used = fitted = 0
    for n in sentence_tokens:
        if used + n > context_length:
            break
        used += n
        fitted += 1
    return fitted
""",
)

EXERCISES = [count_tokens, premium, sentences_that_fit]  # in the order the notebook asks them
