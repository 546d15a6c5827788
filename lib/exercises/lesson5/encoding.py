"""Lesson 5: `encode` and `encode_with_specials`.

Expected values come from `lib`'s reference code. The small tokenizers behind the cases are
trained on a few sentences written for these checks (`texts`).
"""

from __future__ import annotations

import functools
import itertools

from lib import bpe
from lib.exercises.cases import answers_fit
from lib.exercises.core import Case, Exercise, Raises
from lib.exercises.generated import random_texts
from lib.exercises.lesson5.texts import HIDDEN_TEXTS, SPECIALS, TEXTS, TRAINING_TEXT
from lib.tokenizer import Tokenizer


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


def _specials_cases(
    texts_and_allowed: list[tuple[str, set[str]]], extra: tuple[str, ...] = ()
) -> list[Case]:
    """Cases with the lesson's special tokens, plus `extra` ones (given the next ids)."""
    merges = list(_merges(320))
    specials = {name: 256 + len(merges) + i for i, name in enumerate([*SPECIALS, *extra])}
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
    (f"{EOT} {USER}\n", {EOT, USER}),  # only whitespace between and after: keep it
]
# A special token that holds another (as in CS336's tests): the longer one must win wherever both
# match, so an answer that tries the shorter first, or each special in turn, fails.
DOUBLE = EOT + EOT
_OVERLAPPING = [
    (f"a{EOT}{EOT}{EOT}b", {EOT, DOUBLE}),
    (f"{DOUBLE}", {EOT, DOUBLE}),
]


def _shorter_special_first(cases: list[Case], answers: list) -> str | None:
    """Name the overlap mistake: the doubled special token cut as two single ones. (The check's
    input line cuts the special-token dict short, so the doubled token may not show there.)"""
    for case, answer in zip(cases, answers, strict=True):
        specials, expected = case.args[2], case.expected
        if DOUBLE not in specials or not isinstance(expected, list) or answer == expected:
            continue
        double, single = specials[DOUBLE], specials[EOT]
        as_singles = [
            i for token in expected for i in ([single] * 2 if token == double else [token])
        ]
        if answer == as_singles:
            return (
                f"These cases have a third special token, {DOUBLE!r} (id {double}), and your "
                f"answer cut it as two {EOT!r}. Where two specials match at the same place, the "
                "longer one wins."
            )
    return None


def _longest_match(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    """Review J5's misreading of BPE: at each position, the longest token that fits (WordPiece's
    rule), whatever order the merges were learned in."""
    ids = {token: i for i, token in bpe.build_vocab(list(merges)).items()}
    data, found, start = text.encode("utf-8"), [], 0
    while start < len(data):
        end = next(e for e in range(len(data), start, -1) if data[start:e] in ids)
        found.append(ids[data[start:end]])
        start = end
    return found


# Review K7: no trained case puts an early short merge against a later longer one that overlaps
# it, so joining the pair that makes the longest token first passed them all. By hand: BPE joins
# ab (256), then cd (257, learned before abc); the longest pair first joins ab, then abc.
CROSSING_MERGES = [(b"a", b"b"), (b"c", b"d"), (b"ab", b"c")]


def _crossing_case() -> Case:
    return Case(args=("abcd", CROSSING_MERGES), expected=[256, 257])


def _hidden_crossing_case() -> Case:
    """The same crossing with other letters, twice in one text: xy, then zw, then xy again."""
    merges = [(b"x", b"y"), (b"z", b"w"), (b"xy", b"z")]
    return Case(
        args=("xyzw xyzw", merges), expected=_reference(merges).encode_ordinary("xyzw xyzw")
    )


def _longest_pair(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    """Review K7's misreading: of the neighbouring pairs, join first the one that makes the
    longest token (the earliest learned of equal lengths)."""
    rank = {left + right: 256 + i for i, (left, right) in enumerate(merges)}
    parts = [bytes([b]) for b in text.encode("utf-8")]
    while pairs := [
        (-len(a + b), rank[a + b], i)
        for i, (a, b) in enumerate(itertools.pairwise(parts))
        if a + b in rank
    ]:
        *_, i = min(pairs)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return [rank[p] if len(p) > 1 else p[0] for p in parts]


def _longest_match_taken(cases: list[Case], answers: list) -> str | None:
    if answers_fit(cases, answers, _longest_pair):
        return (
            "you joined first the pair that makes the longest token. BPE joins first the pair "
            "that was learned first, whatever its length: with the merges (b'a', b'b'), (b'c', "
            "b'd'), (b'ab', b'c'), 'abcd' is ab then cd, because cd was learned before abc."
        )
    if not answers_fit(cases, answers, _longest_match):
        return None
    return (
        "you took the longest token that fits at each position. BPE does not look ahead: it "
        "replays the merges in the order they were learned, and the longest match can cut "
        "where no merge would. (Lesson 7 meets longest match as WordPiece's rule.)"
    )


_HIDDEN_OVERLAPPING = [(f"{EOT}x{DOUBLE}{EOT}{EOT}", {EOT, DOUBLE}), (f"{EOT}{EOT}", {EOT})]
_HIDDEN_SPECIALS = [
    (f"{USER}{USER}zebra{EOT}", {EOT, USER}),
    (f"Привет{USER}", {USER}),
    (f"<|user|{EOT}", {EOT}),
    (f"a{USER}b", set()),
    ("", {EOT}),
]


encode = Exercise(
    name="encode",
    lesson=5,
    points=2,
    target="encode",
    cases=lambda: [*_encode_cases(TEXTS, (300, 420)), _crossing_case()],
    hidden_cases=lambda: [
        *_encode_cases(HIDDEN_TEXTS + random_texts(50, 4, 30), (360, 500)),
        _hidden_crossing_case(),
    ],
    wrong_turns=_longest_match_taken,
    hints=(
        "Work with a list of byte strings, one per token, starting from the single bytes. What "
        "do you need to know about a pair of neighbours to decide which one to join first?",
        "How do you find a pair's merge order from its two pieces? Searching the list of "
        "merges for every pair at every step is slow: section 1 says how tiktoken looks a pair "
        "up in one step. Then: which pair goes first when the same pair occurs twice, and when "
        "are you done?",
        "Check yourself by hand, then with your function. With the merges (b'a', b'b'), "
        "(b'b', b'c'), (b'ab', b'c') (ids 256, 257, 258), 'abcbc' goes a b c b c, then ab c b c, "
        "then ab c bc, then abc bc: the answer is [258, 257]. 'abab' is [256, 256], and 'é', "
        "which no merge touches, is its two UTF-8 bytes, [195, 169]. With the one merge "
        "(b'a', b'a'), 'aaa' is [256, 97]: of two equal pairs, the leftmost goes first.",
    ),
    solution_code="""\
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
    cases=lambda: _specials_cases(_SHOWN_SPECIALS) + _specials_cases(_OVERLAPPING, (DOUBLE,)),
    hidden_cases=lambda: (
        _specials_cases(_HIDDEN_SPECIALS) + _specials_cases(_HIDDEN_OVERLAPPING, (DOUBLE,))
    ),
    wrong_turns=_shorter_special_first,
    hints=(
        "Two jobs, in this order: decide whether the text may be encoded at all, then cut it "
        "into pieces that are either an allowed special token or ordinary text.",
        "First the refusal: a special token that is not allowed but occurs in the text (`in` "
        "works on strings) means ValueError. Then the cutting: which function of `re` splits a "
        "string and also keeps the pieces it split on (its documentation says what parentheses "
        "in the pattern change)? A special token's | means something in "
        "a regex: how do you make it match as plain text? And with nothing allowed, what would "
        "your pattern be?",
        "Check yourself on two of the check's cases (318 is '<|endoftext|>', 319 '<|user|>' and "
        "320 the doubled '<|endoftext|><|endoftext|>'). With 318 and 319 allowed, "
        "'<|endoftext|> <|user|>\\n' gives [318, 32, 319, 10]: the space and the line break are "
        "text too. With 318 and 320 allowed, 'a' + three '<|endoftext|>' + 'b' gives "
        "[97, 320, 318, 98]. Where two specials match at the same place, which must the regex "
        "try first, and how do you make sure it does?",
    ),
    solution_code="""\
import re

from lib import bpe


def encode_with_specials(
    text: str, merges: list[tuple[bytes, bytes]], special_tokens: dict[str, int], allowed: set[str]
) -> list[int]:
    for special in special_tokens:
        if special not in allowed and special in text:
            raise ValueError(f"the text contains the disallowed special token {special!r}")
    ranks = {token: i for i, token in bpe.build_vocab(merges).items()}
    pieces = [text]
    if allowed:
        longest_first = sorted(allowed, key=len, reverse=True)  # <|a|><|a|> before <|a|>
        pieces = re.split("(" + "|".join(map(re.escape, longest_first)) + ")", text)
    ids = []
    for piece in pieces:
        if piece in allowed:
            ids.append(special_tokens[piece])  # the special id, never merged with anything
        elif piece:
            ids.extend(bpe.encode_chunk(piece.encode("utf-8"), ranks))
    return ids
""",
)
