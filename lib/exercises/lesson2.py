"""Lesson 2 exercises: a character-level tokenizer.

Expected values come from `lib.char_tokenizer.CharTokenizer`, so the learner is checked against the
library the rest of the course uses. The texts are a few words written for these checks, in several
scripts, with characters of every UTF-8 length.
"""

from __future__ import annotations

from typing import Any

from lib.char_tokenizer import CharTokenizer
from lib.exercises.core import Case, Exercise, Raises, close

_TEXTS = [
    "banana",
    "hello world",
    "To be, or not to be!",
    "नमस्ते दुनिया",
    "안녕하세요",
    "Привет, мир",
    "€5 for tea 🙂",
    "aAbB 12\n\t?",
    "",
]


def _build_vocab_cases() -> list[Case]:
    return [Case(args=(text,), expected=CharTokenizer.train(text).char_to_id) for text in _TEXTS]


def _encode_chars_cases() -> list[Case]:
    # (training corpus, text to encode): most texts have characters the corpus lacks.
    pairs = [
        ("hello world", "hello"),
        ("hello world", "hello there"),
        ("नमस्ते दुनिया", "नमस्कार दुनिया"),
        ("hi there", "hi 👋 there"),
        ("Привет, мир", "Привет, Zoë!"),
        ("abc", ""),
    ]
    cases = []
    for corpus, text in pairs:
        vocab = CharTokenizer.train(corpus).char_to_id
        for policy in ("error", "unk", "bytes"):
            try:
                expected: Any = CharTokenizer(vocab, unknown=policy).encode(text)
            except ValueError:
                expected = Raises(ValueError)
            cases.append(Case(args=(text, vocab, policy), expected=expected))
    # The default policy is "error".
    vocab = CharTokenizer.train("hello world").char_to_id
    cases.append(Case(args=("world", vocab), expected=CharTokenizer(vocab).encode("world")))
    cases.append(Case(args=("word!", vocab), expected=Raises(ValueError)))
    return cases


def _compression_ratio_cases() -> list[Case]:
    cases = []
    for corpus in ("hello world", "नमस्ते दुनिया", "€5 for tea 🙂"):
        tok = CharTokenizer.train(corpus, unknown="bytes")
        for text in _TEXTS:
            if text:
                expected = tok.compression_ratio(text)
                cases.append(Case(args=(text, tok.encode(text)), expected=expected))
    return cases


build_vocab = Exercise(
    name="build_vocab",
    lesson=2,
    points=1,
    target="build_vocab",
    cases=_build_vocab_cases,
    hint=(
        "set(text) gives the distinct characters and sorted(...) puts them in code point order. "
        "enumerate(...) then pairs each character with its position: 0, 1, 2, ..."
    ),
    solution="""\
def build_vocab(text: str) -> dict[str, int]:
    return {ch: i for i, ch in enumerate(sorted(set(text)))}
""",
)

encode_chars = Exercise(
    name="encode_chars",
    lesson=2,
    points=2,
    target="encode_chars",
    cases=_encode_chars_cases,
    hint=(
        "Loop over the characters of text. If ch is in vocab, append vocab[ch]. Otherwise look at "
        'unknown: "unk" appends len(vocab); "bytes" appends len(vocab) + b for every b in '
        'ch.encode("utf-8") (ids.extend does that in one line); anything else raises '
        "ValueError(...) with a message naming the character."
    ),
    solution="""\
def encode_chars(text: str, vocab: dict[str, int], unknown: str = "error") -> list[int]:
    ids = []
    for position, ch in enumerate(text):
        if ch in vocab:
            ids.append(vocab[ch])
        elif unknown == "unk":
            ids.append(len(vocab))  # the one id reserved for <unk>, right after the characters
        elif unknown == "bytes":
            ids.extend(len(vocab) + b for b in ch.encode("utf-8"))  # byte fallback
        else:
            raise ValueError(f"character {ch!r} at position {position} is not in the vocabulary")
    return ids
""",
)

compression_ratio = Exercise(
    name="compression_ratio",
    lesson=2,
    points=1,
    target="compression_ratio",
    cases=_compression_ratio_cases,
    compare=close,
    hint='len(text.encode("utf-8")) is the number of bytes; len(ids) is the number of tokens.',
    solution="""\
def compression_ratio(text: str, ids: list[int]) -> float:
    return len(text.encode("utf-8")) / len(ids)
""",
)

EXERCISES = [build_vocab, encode_chars, compression_ratio]
