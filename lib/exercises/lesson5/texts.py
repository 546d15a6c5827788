"""The texts lesson 5's exercises are checked on, written for them.

`GPT4_SHOWN` are the sentences `check()` shows for the capstone; `GPT4_HIDDEN` only the grader
runs: other scripts, code, numbers, runs of whitespace and special tokens, so that an encoder
that only works on what the check showed loses points.
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

HIDDEN_TEXTS = ["that hat, that cat", "मैं चाय", "aaaaaaa", "def f(x):\n\treturn x", "日本語"]
HIDDEN_TEXTS += ["the hat on a cat", "a     b", "aaa aaa"]

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

GPT4_HIDDEN: list[tuple[str, set[str]]] = [
    ("Die Straßenbahn fährt um 7:45 Uhr über die Brücke.", set()),
    ("東京の天気は晴れです。明日は雨が降るでしょう。", set()),
    ("مرحبا بكم في الدرس الخامس", set()),
    ("வணக்கம், இது ஒரு சோதனை வாக்கியம்.", set()),
    ("Ελληνικά: καλημέρα σας!", set()),
    ("for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n", set()),
    ('print(f"{x!r:>10}")  # ok?\r\n', set()),
    ("3.14159265358979 and 1,000,000,000 and 007 and 2^64", set()),
    ("   leading spaces, trailing spaces   ", set()),
    ("\n\n\t\t  \n", set()),
    ("WE'RE HERE, they'll come, I'VE seen it, don't", set()),
    ("👨‍👩‍👧‍👦🏳️‍🌈 emoji families and flags 🇮🇳🇯🇵", set()),
    ("https://example.com/path?query=1&b=two#frag", set()),
    ("ǅ ﬁ ① ½ Ⅻ ﷽ \u200b zero width", set()),
    (
        f"<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>{EOT}",
        {"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", EOT},
    ),
    (f"one{EOT}{EOT}two", {EOT}),
    ("<|endoftext is not a special token", set()),
    ("<|endofprompt|> hidden", {EOT}),  # another special, not allowed: raise
]
