"""Lesson 5: `encode_with_specials`, special tokens cut out before BPE, allowed or refused.

Expected values come from `lib`'s reference tokenizer (`reference.py`) with the lesson's special
tokens, and a third that holds one of them twice, so that the longer must win.
"""

from __future__ import annotations

from dataclasses import replace

from lib.exercises.core import Case, Exercise, Raises
from lib.exercises.generated import random_texts, rng
from lib.exercises.lesson5.reference import reference_tokenizer, trained_merges
from lib.exercises.lesson5.texts import SPECIALS


def _specials_cases(
    texts_and_allowed: list[tuple[str, set[str]]], extra: tuple[str, ...] = ()
) -> list[Case]:
    """Cases with the lesson's special tokens, plus `extra` ones (given the next ids)."""
    merges = list(trained_merges(320))
    specials = {name: 256 + len(merges) + i for i, name in enumerate([*SPECIALS, *extra])}
    reference = reference_tokenizer(merges, specials)
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


# Hidden cases by kind. Lib writes some of each out; the grader draws more (`_drawn`), but for
# the empty text, of which there is one.
ALLOWED, REFUSED = "special tokens, allowed", "a special token not allowed"
CUT_SHORT, HOLDS = "a special token cut short", "a special token that holds another"
_HIDDEN_OVERLAPPING = [
    (HOLDS, f"{EOT}x{DOUBLE}{EOT}{EOT}", {EOT, DOUBLE}),
    (REFUSED, f"{EOT}{EOT}", {EOT}),
]
_HIDDEN_SPECIALS = [
    (ALLOWED, f"{USER}{USER}zebra{EOT}", {EOT, USER}),
    (ALLOWED, f"Привет{USER}", {USER}),
    (CUT_SHORT, f"<|user|{EOT}", {EOT}),
    (REFUSED, f"a{USER}b", set()),
    ("an empty text", "", {EOT}),
]


def _drawn() -> list[tuple[str, str, set[str]]]:
    """Texts of made-up pieces and special tokens, of each kind above but the empty text, drawn
    with the grader's salt (`generated.rng`): inputs no table of lib's cases holds."""
    source = rng(51)
    pieces = random_texts(52, 24, longest=6)
    drawn = []
    for _ in range(8):  # each with one or two special tokens among the pieces
        parts = source.choices(pieces, k=source.randint(1, 4))
        for special in source.choices(SPECIALS, k=source.randint(1, 2)):
            parts.insert(source.randint(0, len(parts)), special)
        drawn.append((ALLOWED, "".join(parts), set(SPECIALS)))
    special = source.choice(SPECIALS)
    cut = special[: source.randint(2, len(special) - 1)]
    drawn.append(
        (CUT_SHORT, source.choice(pieces) + cut + source.choice(pieces) + special, {special})
    )
    refused = [source.choice(pieces), source.choice(SPECIALS), source.choice(pieces)]
    drawn.append((REFUSED, "".join(refused), set()))
    return drawn


def _drawn_overlapping() -> list[tuple[str, str, set[str]]]:
    """Made-up pieces among single and doubled <|endoftext|>, allowed or not."""
    source = rng(56)
    parts = [source.choice([*random_texts(57, 3, longest=4), EOT]) for _ in range(6)]
    text = "".join(parts) + EOT * source.randint(2, 3)
    return [(HOLDS, text, {EOT, DOUBLE}), (REFUSED, source.choice(parts) + DOUBLE, {EOT})]


def _hidden_cases() -> list[Case]:
    plain, overlapping = _HIDDEN_SPECIALS + _drawn(), _HIDDEN_OVERLAPPING + _drawn_overlapping()
    cases = _specials_cases([(text, allowed) for _, text, allowed in plain])
    cases += _specials_cases([(text, allowed) for _, text, allowed in overlapping], (DOUBLE,))
    kinds = [kind for kind, _, _ in plain + overlapping]
    return [replace(case, kind=kind) for case, kind in zip(cases, kinds, strict=True)]


encode_with_specials = Exercise(
    name="encode_with_specials",
    lesson=5,
    points=2,
    target="encode_with_specials",
    allowed_lib=("lib.bpe.encode_chunk", "lib.bpe.build_vocab"),
    cases=lambda: _specials_cases(_SHOWN_SPECIALS) + _specials_cases(_OVERLAPPING, (DOUBLE,)),
    hidden_cases=_hidden_cases,
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
