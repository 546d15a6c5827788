"""Lesson 5 exercises: encoding text to ids, special tokens, and what the split pattern changes.

Expected values come from `lib.Tokenizer`, whose encoder matches tiktoken's id for id. The
tokenizers behind the cases are trained on a few sentences written for these checks.
"""

from __future__ import annotations

import functools

from lib import bpe, patterns
from lib.exercises.core import Case, Exercise, Raises
from lib.tokenizer import Tokenizer

# Written for these checks: English, Hindi, Korean, Russian, code, numbers and emoji.
_TRAINING_TEXT = (
    "the cat sat on the mat, and the hat sat on the cat. The cat's hat? That's the mat! "
    "नमस्ते! आज मौसम बहुत अच्छा है। मैं चाय पीता हूँ। "
    "안녕하세요, 오늘 날씨가 좋아요. Привет, как дела? "
    "def add(a, b):\n    return a + b\n\n"
    "1234567 + 890 = 1235457 👋🏽🎉 aaaaaaaa "
) * 4

_TEXTS = [
    "the cat sat on the mat",
    "The CAT's hat!",
    "नमस्ते, मौसम?",
    "안녕하세요 Привет 👋🏽",
    "    return a + b\n",
    "aaaaaaaaaaa",  # overlapping pairs: merges apply left to right
    "12345678901",
    "zebra quiz",  # letters the training text never paired
    "",
]

_SPECIALS = ["<|endoftext|>", "<|user|>"]


@functools.cache
def _tokenizer(vocab_size: int, pattern: str | None = None) -> Tokenizer:
    return Tokenizer.train(_TRAINING_TEXT, vocab_size, pattern=pattern, special_tokens=_SPECIALS)


def _plain(merges: list[tuple[bytes, bytes]], pattern: str | None = None) -> Tokenizer:
    """The reference: a tokenizer made of exactly these merges (and this pattern)."""
    return Tokenizer(bpe.build_vocab(merges), merges, pattern)


def _encode_cases() -> list[Case]:
    cases = []
    for vocab_size in (258, 300, 420):
        merges = list(_tokenizer(vocab_size).merges)
        reference = _plain(merges)
        cases += [
            Case(args=(text, merges), expected=reference.encode_ordinary(text)) for text in _TEXTS
        ]
    return cases


def _encode_with_specials_cases() -> list[Case]:
    tok = _tokenizer(320, "gpt4")
    eot, user = _SPECIALS
    texts_and_allowed = [
        ("the cat sat", set()),
        (f"the cat{eot}the mat", {eot}),
        (f"{eot}{eot}", {eot}),
        (f"{user} नमस्ते{eot}", {eot, user}),
        (f"{user}hi", {eot, user}),
        (f"hi {eot}", set()),  # disallowed: raise
        (f"{user} hi {eot}", {eot}),  # one allowed, one not: raise
        ("<|endoftext", {eot}),  # not a special token, just similar text
    ]
    cases = []
    for text, allowed in texts_and_allowed:
        try:
            expected = tok.encode(text, allowed_special=allowed)
        except ValueError:
            expected = Raises(ValueError)
        cases.append(Case(args=(text, tok, allowed), expected=expected))
    return cases


def _count_with_pattern_cases() -> list[Case]:
    merges = list(_tokenizer(420).merges)
    cases = []
    for pattern in (patterns.GPT2_PATTERN, patterns.GPT4_PATTERN, r"\S+|\s+"):
        reference = _plain(merges, pattern)
        cases += [
            Case(args=(text, merges, pattern), expected=len(reference.encode_ordinary(text)))
            for text in _TEXTS
        ]
    return cases


encode = Exercise(
    name="encode",
    lesson=5,
    points=2,
    target="encode",
    cases=_encode_cases,
    hint=(
        "rank = {left + right: 256 + i for i, (left, right) in enumerate(merges)} gives each "
        "merged token its id, and a single byte b has id b. Keep a list of byte strings, "
        "parts = [bytes([b]) for b in text.encode('utf-8')]. Repeatedly look at every neighbouring "
        "pair, pick the one whose parts[i] + parts[i + 1] has the lowest rank, join it (leftmost "
        "first), and stop when no pair is in rank. Finally map each part to its id."
    ),
    solution="""\
def encode(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    rank = {left + right: 256 + i for i, (left, right) in enumerate(merges)}
    parts = [bytes([b]) for b in text.encode("utf-8")]
    while len(parts) > 1:
        # The neighbouring pair learned earliest (lowest id); min() keeps the leftmost on ties.
        candidates = [(rank[a + b], i)
                      for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in rank]
        if not candidates:
            break
        _, i = min(candidates)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return [rank[p] if len(p) > 1 else p[0] for p in parts]
""",
)

encode_with_specials = Exercise(
    name="encode_with_specials",
    lesson=5,
    points=2,
    target="encode_with_specials",
    allowed_lib=("lib.patterns.split_on_special",),
    cases=_encode_with_specials_cases,
    hint=(
        "First the check: for every special in tok.special_tokens that is not in allowed, "
        "`if special in text: raise ValueError(...)`. Then pieces = "
        "patterns.split_on_special(text, allowed); a piece that is in allowed becomes "
        "[tok.special_tokens[piece]], any other piece tok.encode_ordinary(piece)."
    ),
    solution="""\
from lib import patterns


def encode_with_specials(text: str, tok, allowed: set[str]) -> list[int]:
    for special in tok.special_tokens:
        if special not in allowed and special in text:
            raise ValueError(f"the text contains the disallowed special token {special!r}")
    ids = []
    for piece in patterns.split_on_special(text, allowed):
        if piece in allowed:
            ids.append(tok.special_tokens[piece])  # the special id, never merged with anything
        else:
            ids.extend(tok.encode_ordinary(piece))
    return ids
""",
)

count_with_pattern = Exercise(
    name="count_with_pattern",
    lesson=5,
    points=1,
    target="count_with_pattern",
    allowed_lib=("lib.bpe.build_vocab", "lib.bpe.encode_chunk"),
    cases=_count_with_pattern_cases,
    hint=(
        "import regex; chunks = regex.findall(pattern, text). Build the ranks once: "
        "ranks = {t: i for i, t in bpe.build_vocab(merges).items()} maps each token's bytes to its "
        "id. Then add up len(bpe.encode_chunk(chunk.encode('utf-8'), ranks)) over the chunks."
    ),
    solution="""\
import regex

from lib import bpe


def count_with_pattern(text: str, merges: list[tuple[bytes, bytes]], pattern: str) -> int:
    ranks = {token: i for i, token in bpe.build_vocab(merges).items()}  # token bytes -> id
    # BPE never merges across chunks, so each chunk is encoded on its own.
    chunks = regex.findall(pattern, text)
    return sum(len(bpe.encode_chunk(chunk.encode("utf-8"), ranks)) for chunk in chunks)
""",
)

EXERCISES = [encode, encode_with_specials, count_with_pattern]
