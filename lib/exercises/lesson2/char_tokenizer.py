"""Lesson 2: `build_vocab`, `encode_chars` and `compression_ratio`, a character-level tokenizer.

Expected values come from `lib.char_tokenizer.CharTokenizer`, so the learner is checked against the
library the rest of the course uses. The texts are a few words written for these checks, in several
scripts, with characters of every UTF-8 length.
"""

from __future__ import annotations

from typing import Any

from lib.char_tokenizer import CharTokenizer
from lib.exercises.core import Case, Exercise, Raises, close
from lib.exercises.generated import random_texts, rng

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


def _vocabularies(texts: list[str]) -> list[Case]:
    return [Case(args=(text,), expected=CharTokenizer.train(text).char_to_id) for text in texts]


def _build_vocab_cases() -> list[Case]:
    return _vocabularies(_TEXTS)


def _hidden_build_vocab_cases() -> list[Case]:
    return _vocabularies(random_texts(11, 15, longest=40))


def _encode_chars_cases() -> list[Case]:
    # (training corpus, text to encode): most texts have characters the corpus lacks.
    pairs = [
        ("hello world", "hello"),
        ("hello world", "hello there"),
        ("नमस्ते दुनिया", "नमस्कार दुनिया"),
        ("hi there", "hi 👋 there"),
        ("Привет, мир", "Привет, Zoë!"),
        ("abc", ""),
        ("", "é"),  # an empty vocabulary: n is 0, so a byte's id is the byte itself
    ]
    cases = _encodings(pairs)
    # The default policy is "error".
    vocab = CharTokenizer.train("hello world").char_to_id
    cases.append(Case(args=("world", vocab), expected=CharTokenizer(vocab).encode("world")))
    cases.append(Case(args=("word!", vocab), expected=Raises(ValueError)))
    return cases


def _encodings(pairs: list[tuple[str, str]]) -> list[Case]:
    """Each (corpus, text) pair under each policy: what CharTokenizer gives, or its ValueError."""
    cases = []
    for corpus, text in pairs:
        vocab = CharTokenizer.train(corpus).char_to_id
        for policy in ("error", "unk", "bytes"):
            try:
                expected: Any = CharTokenizer(vocab, unknown=policy).encode(text)
            except ValueError:
                expected = Raises(ValueError)
            cases.append(Case(args=(text, vocab, policy), expected=expected))
    return cases


def _hidden_encode_chars_cases() -> list[Case]:
    corpora, texts = random_texts(12, 8, longest=40), random_texts(13, 8, longest=10)
    return _encodings(list(zip(corpora, texts, strict=True)))


def _ratios(texts: list[str], tokenizers: list[CharTokenizer]) -> list[Case]:
    return [
        Case(args=(text, tok.encode(text)), expected=tok.compression_ratio(text))
        for tok in tokenizers
        for text in texts
        if text
    ]


def _compression_ratio_cases() -> list[Case]:
    corpora = ("hello world", "नमस्ते दुनिया", "€5 for tea 🙂")
    return _ratios(_TEXTS, [CharTokenizer.train(c, unknown="bytes") for c in corpora])


def _hidden_compression_ratio_cases() -> list[Case]:
    """Made-up id lists too: the answer depends on the text's bytes and the number of ids."""
    draw = rng(14)
    texts = random_texts(14, 12, longest=30)
    cases = _ratios(texts, [CharTokenizer.train(texts[0], unknown="bytes")])
    for text in texts:
        ids = [draw.randrange(100) for _ in range(draw.randint(1, 50))]
        cases.append(Case(args=(text, ids), expected=len(text.encode("utf-8")) / len(ids)))
    return cases


build_vocab = Exercise(
    name="build_vocab",
    lesson=2,
    points=1,
    target="build_vocab",
    cases=_build_vocab_cases,
    hidden_cases=_hidden_build_vocab_cases,
    hints=(
        "Three steps: find the distinct characters, put them in a fixed order, number them.",
        "Python has a builtin for each step: one keeps each item once, one puts items in "
        "order, one numbers them from 0 as you loop. Check yourself: build_vocab('Hi, hi!') "
        "is {' ': 0, '!': 1, ',': 2, 'H': 3, 'h': 4, 'i': 5}: code point order puts the "
        "space and punctuation first, and capitals before small letters.",
    ),
    solution_code="""\
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
    hidden_cases=_hidden_encode_chars_cases,
    hints=(
        "One id per known character. The only question is what to do with a character "
        "that is not in vocab: that is what `unknown` decides, and section 4 describes "
        "each choice.",
        "Go character by character. A known character gives its id; for an unknown one "
        "the policy decides: raise, one id (n), or one id per UTF-8 byte (n + b, so maybe "
        "several). n is len(vocab), the first id no character has, also when vocab is "
        "empty.",
        "Check yourself with vocab = {'h': 0, 'i': 1}: 'hi!' gives [0, 1, 2] with 'unk' "
        "and [0, 1, 35] with 'bytes' ('!' is the byte 0x21 = 33, and 2 + 33 = 35); with "
        "'error', the default, it raises ValueError for the '!'. With an empty vocab, 'é' "
        "under 'bytes' gives [195, 169], the bytes c3 a9 themselves.",
    ),
    solution_code="""\
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
    hidden_cases=_hidden_compression_ratio_cases,
    compare=close,
    hints=(
        "Bytes of the text over tokens in ids: which of the two do you get with len directly?",
        "The tokens you can count as they are. The bytes are those of the text's UTF-8 "
        "encoding, not its characters: 'é' is one character but two bytes. Check yourself: "
        "'né' with the ids [110, 195, 169] gives 1.0, and with the ids [5, 7] gives 1.5.",
    ),
    solution_code="""\
def compression_ratio(text: str, ids: list[int]) -> float:
    return len(text.encode("utf-8")) / len(ids)
""",
)
