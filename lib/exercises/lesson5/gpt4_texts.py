"""The hidden texts of `gpt4_encode`, by kind: the written-out ones (`GPT4_HIDDEN`) and those
the grader draws with its salt (`drawn_texts`), one drawn family for each written-out kind.

A student's score is capped by their share of the drawn cases (`salted_share`), so each kind the
written-out texts test is drawn too: sentences in other languages (from FLORES `devtest`), code,
numbers and white space (made of the pieces GPT-4's split pattern treats apart), and special
tokens, allowed, cut short, or not allowed (an error).
"""

from __future__ import annotations

from lib.exercises.generated import random_texts, rng

EOT = "<|endoftext|>"
SENTENCE, SYMBOLS = "a sentence in another language", "code, numbers and white space"
SPECIAL = "special tokens"
_FIM = {"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", EOT}

GPT4_HIDDEN: list[tuple[str, str, set[str]]] = [
    (SENTENCE, "Die Straßenbahn fährt um 7:45 Uhr über die Brücke.", set()),
    (SENTENCE, "東京の天気は晴れです。明日は雨が降るでしょう。", set()),
    (SENTENCE, "مرحبا بكم في الدرس الخامس", set()),
    (SENTENCE, "வணக்கம், இது ஒரு சோதனை வாக்கியம்.", set()),
    (SENTENCE, "Ελληνικά: καλημέρα σας!", set()),
    (SYMBOLS, "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n", set()),
    (SYMBOLS, 'print(f"{x!r:>10}")  # ok?\r\n', set()),
    (SYMBOLS, "3.14159265358979 and 1,000,000,000 and 007 and 2^64", set()),
    (SYMBOLS, "   leading spaces, trailing spaces   ", set()),
    (SYMBOLS, "\n\n\t\t  \n", set()),
    (SYMBOLS, "WE'RE HERE, they'll come, I'VE seen it, don't", set()),
    (SYMBOLS, "👨‍👩‍👧‍👦🏳️‍🌈 emoji families and flags 🇮🇳🇯🇵", set()),
    (SYMBOLS, "https://example.com/path?query=1&b=two#frag", set()),
    (SYMBOLS, "ǅ ﬁ ① ½ Ⅻ ﷽ \u200b zero width", set()),
    (SPECIAL, f"<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>{EOT}", _FIM),
    (SPECIAL, f"one{EOT}{EOT}two", {EOT}),
    (SPECIAL, "<|endoftext is not a special token", set()),
    (SPECIAL, "<|endofprompt|> hidden", {EOT}),  # another special, not allowed: raise
]

# What the written-out SYMBOLS texts are made of: words with contractions in either case,
# numbers, runs of white space, code's punctuation, emoji sequences and rare characters.
_CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
_PUNCTUATION = "(){}[];:=+-*/<>!?#&%$@^~|\\\"'.,_"
_RARE = ["👨\u200d👩\u200d👧", "🏳️\u200d🌈", "🇮🇳", "🇯🇵", "ǅ", "ﬁ", "①", "½", "Ⅻ", "﷽", "\u200b", "²"]


def _symbols(seed: int) -> str:
    """A made-up text of the pieces above, about 40 characters."""
    source = rng(seed)
    pieces = []
    for _ in range(source.randint(8, 12)):
        word = "".join(source.choices("abcdefghijklmnopqrstuvwxyz", k=source.randint(1, 6)))
        kind = source.randrange(6)
        if kind == 0:
            word += source.choice(_CONTRACTIONS)
            pieces.append(word.upper() if source.random() < 0.5 else word)
        elif kind == 1:
            pieces.append("".join(source.choices("0123456789", k=source.randint(1, 12))))
        elif kind == 2:
            pieces.append("".join(source.choices([" ", "  ", "\t", "\n", "\r\n"], k=3)))
        elif kind == 3:
            pieces.append("".join(source.choices(_PUNCTUATION, k=source.randint(1, 3))))
        elif kind == 4:
            pieces.append(source.choice(_RARE))
        else:
            pieces.append(word)
    return "".join(pieces)


_CL100K_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]


def drawn_texts() -> list[tuple[str, str, set[str]]]:
    """Texts no list in this code holds, secret when the grader makes them, each with its kind
    and the special tokens it allows: strings of many scripts, each with a special token set in
    it, allowed, allowed among all, or not (an error), and the start of another cut short;
    made-up code, numbers and white space; sentences of FLORES `devtest` in any of its
    languages. Thirty hidden cases in all, as the cell's time limit allows."""
    from lib import data

    draw = rng(53)
    made = []
    for n, text in enumerate(random_texts(51, 6, 40)):
        special, cut = draw.choice(_CL100K_SPECIALS), draw.randint(0, len(text))
        allowed = [{special}, set(_CL100K_SPECIALS), set()][n % 3]
        started = draw.choice(_CL100K_SPECIALS)[: draw.randint(2, 8)]  # `<|endof`: just text
        made.append((SPECIAL, text[:cut] + special + text[cut:] + started, allowed))
    made += [(SYMBOLS, _symbols(60 + n), set()) for n in range(3)]
    languages = sorted(data.flores_languages())
    sentences = [draw.choice(data.flores(draw.choice(languages))) for _ in range(3)]
    return made + [(SENTENCE, sentence, set()) for sentence in sentences]
