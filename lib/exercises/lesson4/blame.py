"""Lesson 4's `first_bad_token`: which token a broken text's first bad character begins in.

`bad_token` is the reference, built on Python's strict UTF-8 decoder; `_blame_turns` names the
usual mistakes (tokens judged one by one, a position in bytes taken for a token's index, one
token early or late).
"""

from __future__ import annotations

import itertools

from lib.exercises.core import Case, Exercise
from lib.exercises.lesson4.ids import (
    broken_streams,
    hidden_id_sequences,
    id_sequences,
    tokenizer,
    with_token_bytes,
)
from lib.tokenizer import Tokenizer


def bad_token(ids: list[int], vocab: dict[int, bytes]) -> int | None:
    """The index in `ids` of the token where the joined bytes' first broken character starts
    (None if they are valid UTF-8): where Python's strict decoder first fails."""
    try:
        b"".join(vocab[i] for i in ids).decode("utf-8")
        return None
    except UnicodeDecodeError as error:
        ends = itertools.accumulate(len(vocab[i]) for i in ids)
        return next(k for k, end in enumerate(ends) if end > error.start)


def _blamed(tok: Tokenizer, sequences: list[list[int]]) -> list[Case]:
    vocab = dict(tok.vocab)
    return [Case(args=(ids, vocab), expected=bad_token(ids, vocab)) for ids in sequences]


def _bad_token_cases() -> list[Case]:
    tok = tokenizer(400)
    return _blamed(tok, id_sequences(tok)[:12] + broken_streams(tok))


def _hidden_bad_token_cases() -> list[Case]:
    tok = tokenizer(350)
    return _blamed(tok, hidden_id_sequences(tok))


def _alone_first(ids: list[int], vocab: dict[int, bytes]) -> int | None:
    """The first token that is not UTF-8 on its own: the token-by-token answer."""
    return next((k for k, i in enumerate(ids) if bad_token([i], vocab) is not None), None)


def _blame_turns(cases: list[Case], answers: list) -> str | None:
    """Name the mistake when every wrong answer fits one: tokens judged one by one, a position
    in bytes taken for a token's index, or the token before the right one."""
    wrong = [(c, a) for c, a in zip(cases, answers, strict=True) if a != c.expected]
    if not wrong:
        return None
    if all(a == _alone_first(*c.args) for c, a in wrong):
        return (
            "Your answers blame the first token that is not UTF-8 on its own, but the tokens "
            "after such a token may complete its character. Only the joined bytes can tell: "
            "decode them all at once and ask the error where it starts."
        )
    if any(isinstance(a, int) and a >= len(c.args[0]) for c, a in wrong):
        return (
            "One of your answers is past the last token: the error's position counts bytes of "
            "the joined text (not tokens, not characters). Find the token whose bytes cover "
            "that position."
        )
    late = [isinstance(a, int) and c.expected is not None and a > c.expected for c, a in wrong]
    if all(late):
        return (
            "Your answers blame a token after the one where the broken character begins: "
            "that is where the error starts, not where it ends."
        )
    if all(isinstance(a, int) and c.expected is not None and a == c.expected - 1 for c, a in wrong):
        return (
            "Your answers are one token early: a token whose bytes end exactly where the "
            "trouble starts holds none of it."
        )
    return None


first_bad_token = Exercise(
    name="first_bad_token",
    lesson=4,
    points=1,
    target="first_bad_token",
    cases=_bad_token_cases,
    hidden_cases=_hidden_bad_token_cases,
    wrong_turns=with_token_bytes(_blame_turns),
    hints=(
        "A token that is not UTF-8 on its own is not to blame if the next tokens complete its "
        "character: only the joined bytes can tell. What does Python's strict decoding of "
        "them give you when it fails?",
        "A UnicodeDecodeError knows where the trouble starts: see its attributes start, end "
        "and reason. Is start counted in tokens, in characters or in bytes? Then: which "
        "token's bytes cover that position?",
        "Check yourself: the tokens b'ok', b'\\xe0\\xa4', b'\\xa8!', b'\\x80' join to "
        "'ok' + 'न' + '!' and a stray byte at position 6, which is in token 3. Cut the same "
        "ids after b'\\xe0\\xa4' and token 1 is to blame.",
    ),
    solution_code="""\
def first_bad_token(ids: list[int], vocab: dict[int, bytes]) -> int | None:
    try:
        b"".join(vocab[i] for i in ids).decode("utf-8")  # strict: raises at the first problem
    except UnicodeDecodeError as error:
        end = 0
        for k, i in enumerate(ids):
            end += len(vocab[i])  # the joined bytes up to the end of token k
            if end > error.start:  # error.start is a position in bytes, not in tokens
                return k
    return None
""",
)
