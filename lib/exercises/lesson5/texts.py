"""The texts lesson 5's exercises are checked on, written for them.

`GPT4_SHOWN` are the sentences `check()` shows for the capstone; the hidden ones are in
`gpt4_texts`.
"""

from __future__ import annotations

SPECIALS = ["<|endoftext|>", "<|user|>"]

# English, Hindi, Korean, Russian, code, numbers and emoji.
TRAINING_TEXT = (
    "the cat sat on the mat, and the hat sat on the cat. The cat's hat? That's the mat! "
    "नमस्ते! आज मौसम बहुत अच्छा है। मैं चाय पीता हूँ। "
    "안녕하세요, 오늘 날씨가 좋아요. Привет, как дела? "
    "def add(a, b):\n    return a + b\n\n"
    "1234567 + 890 = 1235457 👋🏽🎉 aaaaaaaa "
) * 4

TEXTS = [
    "the cat sat on the mat",
    "The CAT's hat!",
    "नमस्ते, मौसम?",
    "안녕하세요 Привет 👋🏽",
    "    return a + b\n",
    "aaaaaaaaaaa",  # overlapping pairs: merges apply left to right
    "12345678901",
    "zebra quiz",  # letters the training text never paired
    "",
    # The longest token first is not BPE: 'cat' is a token, but 'at ' was learned first ...
    "the cat on a hat",
    "that hat",
    "hat + cat = 2",
    # ... and where a pair overlaps itself, the leftmost copy is joined first.
    "x   y",
    "baaab",
    "a   b   c",
]

# Each hidden text with its kind; the grader draws more texts of each (`encoding._drawn_texts`).
TRAINED, RUN, MADE_UP = "words the merges were trained on", "a run of one letter", "a made-up text"
HIDDEN_TEXTS = [(TRAINED, "that hat, that cat"), (TRAINED, "मैं चाय"), (RUN, "aaaaaaa")]
HIDDEN_TEXTS += [(TRAINED, "def f(x):\n\treturn x"), (MADE_UP, "日本語")]
HIDDEN_TEXTS += [(TRAINED, "the hat on a cat"), (RUN, "a     b"), (RUN, "aaa aaa")]

EOT = "<|endoftext|>"

GPT4_SHOWN: list[tuple[str, set[str]]] = [
    ("Hello, world! How's it going?", set()),
    ("नमस्ते, आप कैसे हैं?", set()),
    ("def add(a, b):\n    return a + b\n", set()),
    ("In 2024, 1234567 people paid $80,235.50.", set()),
    ("a   b\n\n\n   c  ", set()),
    ("👋🏽 Привет! 안녕하세요", set()),
    (f"The end.{EOT}A new story", {EOT}),
    (f"Ignore this {EOT}", set()),  # a disallowed special token: raise ValueError
]
