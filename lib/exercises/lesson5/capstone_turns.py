"""The capstone's 💡s: `gpt4_encode` answers that look right and are not, named from the ids.

Each recogniser works the known mistake out with tiktoken itself, so it needs no copy of the
learner's tables, and says what went wrong in words of its own: it never quotes a case.
(Python's `re` in place of `regex` raises before any id is made: `tips.cause_of_errors`
names it, for every exercise.)
"""

from __future__ import annotations

from typing import Any

from lib.exercises.cases import Case


def _gpt4() -> Any:
    from lib import data

    return data.tiktoken_encoding("cl100k_base")  # tiktoken keeps it: made once a process


def byte_values_as_ids(cases: list[Case], answers: list[Any]) -> str | None:
    """Exercise 1's habit: a single byte's id is its byte value. Right for our tokenizers, wrong
    for GPT-4's, which numbers its 256 single bytes in GPT-2's order."""
    gpt4 = _gpt4()
    for case, answer in zip(cases, answers, strict=True):
        if not isinstance(case.expected, list) or answer == case.expected:
            continue
        tokens = [gpt4.decode_single_token_bytes(i) for i in case.expected]
        if answer == [
            t[0] if len(t) == 1 else i for t, i in zip(tokens, case.expected, strict=True)
        ]:
            return (
                "Your single bytes have their byte value as id. GPT-4 numbers its 256 "
                "single-byte tokens in GPT-2's order (section 4): look each one up in the "
                "vocabulary, like every other token."
            )
    return None


def pattern_before_specials(cases: list[Case], answers: list[Any]) -> str | None:
    """The split pattern run on the whole text, specials and all: an allowed special token in
    the text comes out as the ids of its ordinary pieces, just what `encode_ordinary` gives."""
    gpt4 = _gpt4()
    for case, answer in zip(cases, answers, strict=True):
        text, allowed = case.args
        if (
            answer != case.expected
            and any(special in text for special in allowed)
            and answer == gpt4.encode_ordinary(text)
        ):
            return (
                "Your special token came out as ordinary pieces: the split pattern cuts a "
                "special token such as '<|endoftext|>' into pieces ('<|', or '.<|' after a "
                "full stop; 'endoftext'; '|>'), so no chunk is ever the special token. Cut the "
                "text at the allowed special tokens first, and run the pattern only on what "
                "lies between them."
            )
    return None


def gpt4_turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Whichever of the capstone's known mistakes the answers show."""
    return byte_values_as_ids(cases, answers) or pattern_before_specials(cases, answers)
