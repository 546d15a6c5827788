"""The ids lesson 4's decoding exercises are checked on.

Small byte-level tokenizers trained on a few sentences written for these checks, in several
scripts and with no split pattern, so that many tokens end in the middle of a character; the
texts they encode, whole and cut short; random runs of ids; and streams with bytes that can never
become a character.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from lib.exercises.cases import Case
from lib.exercises.generated import random_texts, rng
from lib.tokenizer import Tokenizer

# Written for these checks: English, Hindi, Korean, Russian, and emoji (a skin tone, a ZWJ family).
_TRAINING_TEXT = (
    "the cat sat on the mat, and the hat sat on the cat. "
    "नमस्ते! आज मौसम बहुत अच्छा है। मैं चाय पीता हूँ और किताब पढ़ता हूँ। "
    "안녕하세요, 오늘 날씨가 좋아요. "
    "Привет, как дела? Всё хорошо. "
    "👋🏽 👋🏽 🎉🎉 👨‍👩‍👧 "
) * 3

_TEXTS = [
    "the cat sat",
    "नमस्ते, आज चाय?",
    "안녕하세요 👋🏽",
    "Всё хорошо 🎉",
    "👨‍👩‍👧 family",
    "",
]


@functools.cache
def tokenizer(vocab_size: int) -> Tokenizer:
    """A byte-level tokenizer with no split pattern: its merges cross characters freely."""
    return Tokenizer.train(_TRAINING_TEXT, vocab_size)


def id_sequences(tok: Tokenizer) -> list[list[int]]:
    """Whole texts, plus cut-off ones and lone tokens whose bytes are not valid UTF-8."""
    seqs = [tok.encode(text) for text in _TEXTS]
    long_ids = tok.encode(_TEXTS[1] + _TEXTS[2])
    seqs += [long_ids[:k] for k in range(1, len(long_ids), 3)]
    seqs += [[i] for i in sorted(tok.vocab) if i >= 256][:10]
    return seqs


def hidden_id_sequences(tok: Tokenizer, random_ids: bool = True) -> list[list[int]]:
    """Texts check() never shows, whole and cut short, and (if `random_ids`) runs of random ids,
    mostly not UTF-8."""
    draw = rng(21)
    seqs = [tok.encode(text) for text in random_texts(21, 10, longest=20)]
    seqs += [ids[: draw.randint(1, len(ids))] for ids in seqs if ids]
    if random_ids:
        seqs += [draw.choices(sorted(tok.vocab), k=draw.randint(1, 8)) for _ in range(10)]
    return seqs


def broken_streams(tok: Tokenizer) -> list[list[int]]:
    """Streams with bytes that can never become a character, which must show as "\ufffd" at once
    while the stream goes on: a byte that never occurs in UTF-8 (ff) first, a lone continuation
    byte (80) in the middle, a character cut short by the next one (e0, then "ok"), two bad
    bytes in a row (ff fe), a lead byte whose next byte rules out every character (e0 80: that
    would be an overlong form), and lone tokens that are fragments of a character."""
    ids, ok = tok.encode(_TEXTS[1]), tok.encode("ok")
    fragments = [
        [i] for i in sorted(tok.vocab) if i >= 256 and "\ufffd" in tok.decode([i], errors="replace")
    ]
    broken = [[0xFF, *ids], [*ids[:3], 0x80, *ids[3:]], [0xE0, *ok], [*ids[:2], 0xFF, 0xFE, *ok]]
    broken += [[*ok, 0xE0, 0x80, *ok], [*ids[:3], 0xC0, 0x80, *ok], [*ids[:5], 0xF8, *ok]]
    broken += [[*ok, 0xF4, 0x90, 0x80, *ok]]  # f4 90: past U+10FFFF, the last code point
    # Characters begun over two or three tokens and never finished, cut off or not.
    for k in (0, 4, 7):
        broken += [[*ids[:k], 0xE0, 0xA4, *ok], [*ids[:k], 0xF0, 0x9F, 0x91]]
    broken += [[*ids[:6], 0xF0, 0x9F, 0x91, *ids[6:]]]
    # A token that starts in the middle of one character and ends in the middle of another: its
    # first bytes are broken for good, its last wait for the next token, which finishes them.
    both = [i for [i] in fragments if _starts_and_ends_broken(tok.vocab[i])]
    broken += [[*prefix, i, *_finish(tok.vocab[i])] for i in both[:2] for prefix in ([], ids[:2])]
    return [*broken, *fragments[:3]]


def _starts_and_ends_broken(token: bytes) -> bool:
    return 0x80 <= token[0] < 0xC0 and bool(_finish(token))


def _finish(token: bytes) -> list[int]:
    """The continuation bytes that complete the unfinished character at the end of `token`."""
    for back in range(1, 4):
        if len(token) >= back and token[-back] >= 0xC0:
            need = 2 if token[-back] < 0xE0 else 3 if token[-back] < 0xF0 else 4
            return [0xA8] * (need - back) if need > back else []
    return []


def with_token_bytes(turns: Callable[[list[Case], list], str | None]) -> Callable:
    """A `wrong_turns` hook that adds, after `turns`' words, the bytes of the first failed shown
    case's tokens: the ids of a private tokenizer tell the learner nothing."""

    def hook(cases: list[Case], answers: list) -> str | None:
        words = turns(cases, answers)
        for case, answer in zip(cases, answers, strict=True):
            if not case.hidden and answer != case.expected:
                ids, vocab = case.args
                listed = ", ".join([repr(vocab[i]) for i in ids[:12]] + ["..."][: len(ids) > 12])
                line = f"The first failed case's tokens, as bytes: [{listed}]"
                return f"{words}\n{line}" if words else line
        return words

    return hook
