"""Lesson 4's "predict, then run" question: which tokenizer spells each sentence in fewer tokens,
ours trained on Hindi or GPT-4's, predicted before section 6 shows the tokens.

Asked before the lesson shows the answer; the mechanics are in `lib.exercises.predictions`:
a dict literal, answers computed when checked, and a reason shown with every miss.
"""

from __future__ import annotations

import functools

from lib import data
from lib.exercises import predictions
from lib.exercises.core import Case
from lib.tokenizer import Tokenizer

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


predict_fewer_tokens = predictions.question(
    name="predict_fewer_tokens",
    lesson=4,
    target="predicted_fewer_tokens",
    cases=_predict_fewer_tokens_cases,
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
