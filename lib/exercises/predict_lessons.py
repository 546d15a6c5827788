"""The "predict, then run" questions of lessons 1, 2 and 4 (the mechanics are in `predictions`).

Each lesson module lists its question among its `EXERCISES`; they live together here because
they share one shape: a dict literal, answers computed from Python or the data when checked, and
a reason shown with every miss.
"""

from __future__ import annotations

import functools
from collections import Counter

import regex

from lib import data
from lib.exercises import predictions
from lib.exercises.core import Case, Exercise
from lib.tokenizer import Tokenizer

# --- lesson 1: UTF-8 lengths, predicted in section 4 before the lesson shows their bytes ----

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


predict_utf8_bytes = Exercise(
    name="predict_utf8_bytes",
    lesson=1,
    points=1,
    target="predicted_utf8_bytes",
    cases=_predict_utf8_bytes_cases,
    compare=predictions.predicted,
    wrong_turns=predictions.every_miss,
    literal=True,
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


# --- lesson 2: word tokenizers on English and Hindi -----------------------------------------

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


predict_words = Exercise(
    name="predict_words",
    lesson=2,
    points=1,
    target="predicted_words",
    cases=_predict_words_cases,
    compare=predictions.predicted,
    wrong_turns=predictions.every_miss,
    literal=True,
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


# --- lesson 4: which tokenizer is shorter ----------------------------------------------------

# Predicted before section 6 shows the tokens: which tokenizer spells each sentence in fewer?
PREDICT_SENTENCES = {
    "hindi sentence": "नमस्ते! आज मौसम बहुत अच्छा है।",
    "english sentence": "The weather is very nice today.",
}


@functools.cache
def _hindi_tokenizer() -> Tokenizer:
    """The lesson's own: 1,000 tokens trained on the Ramcharitmanas with GPT-4's pattern."""
    return Tokenizer.train(data.read_text("ramcharitmanas"), vocab_size=1000, pattern="gpt4")


def _predict_fewer_tokens_cases() -> list[Case]:
    ours, gpt4 = _hindi_tokenizer(), data.tiktoken_encoding("cl100k_base")
    answers = []
    for key, sentence in PREDICT_SENTENCES.items():
        n_ours, n_gpt4 = len(ours.encode(sentence)), len(gpt4.encode(sentence))
        if n_ours < n_gpt4:
            why = (
                f"'ours': {n_ours} tokens, GPT-4 {n_gpt4}: all our {len(ours.merges)} merges are "
                "Hindi pieces; GPT-4's 100k presumably hold few"
            )
        else:
            why = (
                f"'gpt4': {n_gpt4} tokens, ours {n_ours}: our merges never saw English, so its "
                "letters stay single bytes"
            )
        answers.append(predictions.Answer(key, "ours" if n_ours < n_gpt4 else "gpt4", why))
    return predictions.cases(answers)


predict_fewer_tokens = Exercise(
    name="predict_fewer_tokens",
    lesson=4,
    points=1,
    target="predicted_fewer_tokens",
    cases=_predict_fewer_tokens_cases,
    compare=predictions.predicted,
    wrong_turns=predictions.every_miss,
    literal=True,
    hints=(
        "A tokenizer spells text in few tokens when its merges were learned on text like it. "
        "What was each tokenizer trained on?",
        "Our tokenizer has 1,000 tokens, all learned from Hindi verse; GPT-4's has 100,000, "
        "presumably learned mostly from English and code. Which one has long Hindi tokens, and "
        "which has ' weather' as one token?",
    ),
    solution_code="""\
predicted_fewer_tokens = {"hindi sentence": "ours", "english sentence": "gpt4"}
""",
)
