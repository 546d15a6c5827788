"""Lesson 5 exercises: encoding, special tokens, and the capstone: GPT-4's tokenizer in your code.

Expected values come from `lib`'s reference code and, for the capstone, from tiktoken itself. The
small tokenizers behind the first cases are trained on a few sentences written for these checks;
the sentences the capstone is graded on (`lesson5_texts`) were written for it too.
"""

from __future__ import annotations

import functools

from lib import bpe, tiktoken_files
from lib.exercises.core import Case, Exercise, Raises
from lib.exercises.lesson5_texts import (
    GPT4_HIDDEN,
    GPT4_SHOWN,
    HIDDEN_TEXTS,
    SPECIALS,
    TEXTS,
    TRAINING_TEXT,
)
from lib.tokenizer import Tokenizer

# Reaching tiktoken (which encodes at once) is not writing an encoder.
NO_TIKTOKEN = ("tiktoken", "Encoding", ".Encoding", "get_encoding", ".get_encoding")


@functools.cache
def _merges(vocab_size: int) -> tuple[tuple[bytes, bytes], ...]:
    return tuple(Tokenizer.train(TRAINING_TEXT, vocab_size, special_tokens=SPECIALS).merges)


def _reference(merges, special_tokens: dict[str, int] | None = None) -> Tokenizer:
    """A tokenizer made of exactly these merges: bytes are ids 0-255, merge i is id 256 + i."""
    return Tokenizer(bpe.build_vocab(list(merges)), list(merges), special_tokens=special_tokens)


def _encode_cases(texts: list[str], sizes: tuple[int, ...]) -> list[Case]:
    cases = []
    for vocab_size in sizes:
        merges = list(_merges(vocab_size))
        reference = _reference(merges)
        cases += [Case(args=(t, merges), expected=reference.encode_ordinary(t)) for t in texts]
    return cases


def _specials_cases(texts_and_allowed: list[tuple[str, set[str]]]) -> list[Case]:
    merges = list(_merges(320))
    specials = {name: 256 + len(merges) + i for i, name in enumerate(SPECIALS)}
    reference = _reference(merges, specials)
    cases = []
    for text, allowed in texts_and_allowed:
        try:
            expected = reference.encode(text, allowed_special=allowed)
        except ValueError:
            expected = Raises(ValueError)
        cases.append(Case(args=(text, merges, dict(specials), allowed), expected=expected))
    return cases


EOT, USER = SPECIALS
_SHOWN_SPECIALS = [
    ("the cat sat", set()),
    (f"the cat{EOT}the mat", {EOT}),
    (f"{EOT}{EOT}", {EOT}),
    (f"{USER} नमस्ते{EOT}", {EOT, USER}),
    (f"hi {EOT}", set()),  # disallowed: raise
    (f"{USER} hi {EOT}", {EOT}),  # one allowed, one not: raise
    ("<|endoftext", {EOT}),  # not a special token, just similar text
]
_HIDDEN_SPECIALS = [
    (f"{USER}{USER}zebra{EOT}", {EOT, USER}),
    (f"Привет{USER}", {USER}),
    (f"<|user|{EOT}", {EOT}),
    (f"a{USER}b", set()),
    ("", {EOT}),
]


@functools.cache
def _ranks(name: str) -> dict[bytes, int]:
    return tiktoken_files.load(name)[0]


def _first_ranks(name: str, count: int) -> dict[bytes, int]:
    """The tokens of an encoding with ids below `count`: a small tokenizer of its own."""
    return {token: i for token, i in _ranks(name).items() if i < count}


def _toy_ranks() -> dict[bytes, int]:
    """Bytes in a shuffled order, as in GPT-2 and GPT-4, then four merges."""
    ranks = {bytes([b]): (b * 7 + 3) % 256 for b in range(256)}  # 7 and 256 share no factor
    return ranks | {b"ab": 256, b"abb": 257, b"ba": 258, b"abbba": 259}


def _recover_cases(sources: list[tuple[str, int]], toy: bool) -> list[Case]:
    tables = [_toy_ranks()] if toy else []
    tables += [_first_ranks(name, count) for name, count in sources]
    return [Case(args=(ranks,), expected=bpe.recover_merges(ranks)) for ranks in tables]


def _gpt4_cases(texts_and_allowed: list[tuple[str, set[str]]]) -> list[Case]:
    from lib import data

    tiktoken_gpt4 = data.tiktoken_encoding("cl100k_base")
    cases = []
    for text, allowed in texts_and_allowed:
        try:
            expected = tiktoken_gpt4.encode(text, allowed_special=allowed)
        except ValueError:
            expected = Raises(ValueError)
        cases.append(Case(args=(text, set(allowed)), expected=expected))
    return cases


def _digit_cases(numbers: list[str]) -> list[Case]:
    from lib import patterns

    return [Case(args=(n,), expected=patterns.split_text(n, "gpt4")) for n in numbers]


encode = Exercise(
    name="encode",
    lesson=5,
    points=2,
    target="encode",
    cases=lambda: _encode_cases(TEXTS, (300, 420)),
    hidden_cases=lambda: _encode_cases(HIDDEN_TEXTS, (360, 500)),
    forbidden=NO_TIKTOKEN,
    hint=(
        "Work with a list of byte strings, one per token, starting from the single bytes. What "
        "do you need to know about a pair of neighbours to decide which one to join first?",
        "Build a table from merged bytes to id: merge i, (left, right), makes left + right with "
        "id 256 + i. At each step look at every neighbouring pair whose joined bytes are in the "
        "table, and join the one with the lowest id (the leftmost of equals). Stop when no pair "
        "is in the table.",
        "At the end a part of one byte has the byte's value as its id (bytes are ids 0-255 "
        "here), any longer part the id from your table. `min` over (id, position) tuples picks "
        "the lowest id and, among equal ids, the leftmost position.",
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
    allowed_lib=("lib.bpe.encode_chunk", "lib.bpe.build_vocab"),
    forbidden=NO_TIKTOKEN,
    cases=lambda: _specials_cases(_SHOWN_SPECIALS),
    hidden_cases=lambda: _specials_cases(_HIDDEN_SPECIALS),
    hint=(
        "Two jobs, in this order: decide whether the text may be encoded at all, then cut it "
        "into pieces that are either an allowed special token or ordinary text.",
        "Raise ValueError if a special token that is not allowed occurs in the text (`in` on "
        "strings finds it). To cut: `re.split` with a pattern in parentheses keeps what it "
        "split on, e.g. re.split('(' + '|'.join(map(re.escape, allowed)) + ')', text).",
        "An allowed special piece becomes [special_tokens[piece]]; any other piece your "
        "`encode(piece, merges)` from exercise 1 (or bpe.encode_chunk with the ranks "
        "{t: i for i, t in bpe.build_vocab(merges).items()}). Skip empty pieces, and do not "
        "split at all when nothing is allowed.",
    ),
    solution="""\
import re

from lib import bpe


def encode_with_specials(
    text: str, merges: list[tuple[bytes, bytes]], special_tokens: dict[str, int], allowed: set[str]
) -> list[int]:
    for special in special_tokens:
        if special not in allowed and special in text:
            raise ValueError(f"the text contains the disallowed special token {special!r}")
    ranks = {token: i for i, token in bpe.build_vocab(merges).items()}
    pieces = re.split("(" + "|".join(map(re.escape, allowed)) + ")", text) if allowed else [text]
    ids = []
    for piece in pieces:
        if piece in allowed:
            ids.append(special_tokens[piece])  # the special id, never merged with anything
        elif piece:
            ids.extend(bpe.encode_chunk(piece.encode("utf-8"), ranks))
    return ids
""",
)

recover_merges = Exercise(
    name="recover_merges",
    lesson=5,
    points=2,
    target="recover_merges",
    forbidden=NO_TIKTOKEN,
    cases=lambda: _recover_cases([("cl100k_base", 1000)], toy=True),
    hidden_cases=lambda: _recover_cases([("gpt2", 3000), ("cl100k_base", 6000)], toy=False),
    time_limit=30,
    hint=(
        "A token was made by joining two tokens that existed before it, so both have lower "
        "ranks. Which encoder from this lesson, allowed only the tokens ranked below, would "
        "stop exactly at those two parts?",
        "For each token of more than one byte, in rank order: start from its single bytes and "
        "join the neighbouring pair whose joined bytes have the lowest rank, but only pairs "
        "ranked below the token itself. When no pair may be joined any more, two parts are left.",
        "Those two parts, as a tuple (left, right), are the merge; append it. Sorting "
        "ranks.items() by the rank gives the order; single bytes have no merge.",
    ),
    solution="""\
def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue  # a single byte: nothing was merged
        parts = [bytes([b]) for b in token]
        while len(parts) > 2:
            # Rank-driven BPE with only the tokens learned before this one.
            found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:]))
                     if ranks.get(a + b, rank) < rank]
            _, i = min(found)
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        merges.append((parts[0], parts[1]))
    return merges
""",
)

gpt4_encode = Exercise(
    name="gpt4_encode",
    lesson=5,
    points=4,
    target="gpt4_encode",
    allowed_lib=("lib.tiktoken_files.load", "lib.bpe.recover_merges"),
    forbidden=NO_TIKTOKEN,
    cases=lambda: _gpt4_cases(GPT4_SHOWN),
    hidden_cases=lambda: _gpt4_cases(GPT4_HIDDEN),
    time_limit=30,
    hint=(
        "Three layers, outside in: special tokens, which are cut out first or make you raise; "
        "the split pattern, after which each chunk is on its own; and BPE on each chunk's bytes. "
        "Get the two inner layers right on text without special tokens first.",
        "regex.findall(pattern, piece) gives the chunks. For each chunk, join neighbouring "
        "parts in the order of the merges: a table {left + right: merge number} gives each "
        "pair's priority. The ids come from the vocabulary turned around, {bytes: id}: GPT-4's "
        "single bytes do not have their byte value as id.",
        "Load GPT-4 once, outside gpt4_encode: gpt4_vocab = {i: t for t, i in gpt4_ranks.items()} "
        "and gpt4_merges = recover_merges(gpt4_ranks). Then gpt4_encode only calls your "
        "tokenizer with GPT-4's vocabulary, merges, pattern and special tokens.",
    ),
    solution="""\
import regex

from lib import bpe, tiktoken_files


def tokenize(text, vocab, merges, pattern, special_tokens, allowed_special) -> list[int]:
    \"\"\"A regex BPE tokenizer with special tokens, like tiktoken's encode.\"\"\"
    for special in special_tokens:
        if special in text and special not in allowed_special:
            raise ValueError(f"the text contains the disallowed special token {special!r}")
    id_of = {token: i for i, token in vocab.items()}  # bytes -> id (GPT-4's bytes are shuffled)
    priority = {left + right: n for n, (left, right) in enumerate(merges)}
    if allowed_special:
        cut = "(" + "|".join(regex.escape(s) for s in allowed_special) + ")"
        pieces = regex.split(cut, text)
    else:
        pieces = [text]
    ids = []
    for piece in pieces:
        if piece in allowed_special:
            ids.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            while len(parts) > 1:
                found = [(priority[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:]))
                         if a + b in priority]
                if not found:
                    break
                _, i = min(found)  # the merge learned first, leftmost on ties
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            ids.extend(id_of[part] for part in parts)
    return ids


gpt4_ranks, gpt4_pattern, gpt4_specials = tiktoken_files.load("cl100k_base")
gpt4_vocab = {i: token for token, i in gpt4_ranks.items()}
gpt4_merges = bpe.recover_merges(gpt4_ranks)  # or your own recover_merges: the same list


def gpt4_encode(text: str, allowed_special: set[str]) -> list[int]:
    return tokenize(text, gpt4_vocab, gpt4_merges, gpt4_pattern, gpt4_specials, allowed_special)
""",
)

digit_groups = Exercise(
    name="digit_groups",
    lesson=5,
    points=1,
    target="digit_groups",
    forbidden=(*NO_TIKTOKEN, "re", "regex", ".encode", ".encode_ordinary", ".split_text"),
    cases=lambda: _digit_cases(["7", "77", "777", "7777", "1234567", "2024"]),
    hidden_cases=lambda: _digit_cases(["80235", "3141592653", "१२३४५", "", "00000000"]),
    hint=(
        "Predict from the pattern alone: GPT-4's pattern has the piece \\p{N}{1,3}. Which end "
        "of the number does a regular expression start matching from?",
        "It starts at the left and takes as many digits as it may, up to three, then starts "
        "again after them. Only the last group can be shorter.",
        "Slices of three from the left: [digits[i : i + 3] for i in range(0, len(digits), 3)].",
    ),
    solution="""\
def digit_groups(digits: str) -> list[str]:
    return [digits[i : i + 3] for i in range(0, len(digits), 3)]
""",
)

EXERCISES = [encode, encode_with_specials, recover_merges, gpt4_encode, digit_groups]
