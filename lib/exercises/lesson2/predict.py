"""Lesson 2's "predict, then run" question: on which corpus word tokenizers meet more unknown
words and more bytes per word, predicted before section 7 measures it.

Asked before the lesson shows the answer; the mechanics are in `lib.exercises.predictions`:
a dict literal, answers computed when checked, and a reason shown with every miss.
"""

from __future__ import annotations

import regex

from lib import data
from lib.exercises import predictions
from lib.exercises.core import Case

# Predicted before section 7 measures it: word tokenizers on each corpus's held-out last 10%.
_WORD = regex.compile(r" ?[\p{L}\p{M}\p{N}]+| ?[^\s\p{L}\p{M}\p{N}]+|\s+")  # the lesson's
PREDICT_QUESTIONS = ("more unknown words", "more bytes per word")
_CORPORA = {"shakespeare": "tinyshakespeare", "ramcharitmanas": "ramcharitmanas"}


def _word_stats(name: str) -> tuple[float, float]:
    """(share of held-out words unseen in training, held-out UTF-8 bytes per word)."""
    text = data.read_text(name)
    cut = int(len(text) * 0.9)
    seen, words = set(_WORD.findall(text[:cut])), _WORD.findall(text[cut:])
    unknown = sum(word not in seen for word in words) / len(words)
    return unknown, len(text[cut:].encode("utf-8")) / len(words)


def _predict_words_cases() -> list[Case]:
    stats = {short: _word_stats(name) for short, name in _CORPORA.items()}
    (eng_unk, eng_bpw), (hin_unk, hin_bpw) = stats["shakespeare"], stats["ramcharitmanas"]
    unknown = "ramcharitmanas" if hin_unk > eng_unk else "shakespeare"
    per_word = "ramcharitmanas" if hin_bpw > eng_bpw else "shakespeare"
    return predictions.cases(
        [
            predictions.Answer(
                PREDICT_QUESTIONS[0],
                unknown,
                f"{unknown!r}: {hin_unk:.0%} of Hindi held-out words are unseen, {eng_unk:.0%} of "
                "English: more word forms, 5x less text",
            ),
            predictions.Answer(
                PREDICT_QUESTIONS[1],
                per_word,
                f"{per_word!r}: {hin_bpw:.1f} bytes per Hindi word, {eng_bpw:.1f} per English "
                "word: 3 bytes per Devanagari letter",
            ),
        ]
    )


predict_words = predictions.question(
    name="predict_words",
    lesson=2,
    target="predicted_words",
    cases=_predict_words_cases,
    hints=(
        "Think about the two languages, not the code: which one builds more different word forms "
        "out of one word, and how many bytes does one Devanagari letter take?",
        "Also think about size: a vocabulary of every training word can only know the words it "
        "has seen, and section 1 printed how long each corpus is.",
    ),
    solution_code="""\
predicted_words = {"more unknown words": "ramcharitmanas", "more bytes per word": "ramcharitmanas"}
""",
)
