"""The 💡s of lesson 8's `first_merge`: the slips its answers can tell apart.

Some show in an answer's type (ints or text where bytes belong, the merged token for the pair);
the others in which pair it picks, matched against the pair that slip gives (`answers_fit`):
counts kept instead of added, and another tie rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lib.exercises.cases import Case, answers_fit

Pair = tuple[bytes, bytes]


def _pair_counts(tokens: list[tuple[bytes, int]]) -> dict[Pair, int]:
    """How often each pair occurs in these (pre-token, count)s, in the order first seen."""
    pairs: dict[Pair, int] = {}
    for token, n in tokens:
        for left, right in zip(token, token[1:], strict=False):
            pair = (bytes([left]), bytes([right]))
            pairs[pair] = pairs.get(pair, 0) + n
    return pairs


def _added(parts: list[dict[bytes, int]]) -> list[tuple[bytes, int]]:
    return [item for part in parts for item in part.items()]


def _kept(parts: list[dict[bytes, int]], last: bool) -> list[tuple[bytes, int]]:
    """The workers' dicts merged as dicts: of the counts of a pre-token that several workers
    counted, only the last one (update, |) or the first one (ChainMap) is kept."""
    merged: dict[bytes, int] = {}
    for part in parts if last else parts[::-1]:
        merged.update(part)
    return list(merged.items())


def _greatest(pairs: dict[Pair, int]) -> Pair | None:
    return max(pairs, key=lambda pair: (pairs[pair], pair), default=None)


def _first_seen(pairs: dict[Pair, int]) -> Pair | None:  # max(pairs, key=pairs.get)
    return max(pairs, key=pairs.__getitem__, default=None)


def _least(pairs: dict[Pair, int]) -> Pair | None:
    return min(pairs, key=lambda pair: (-pairs[pair], pair), default=None)


def _slip(
    tokens: Callable[[list[dict[bytes, int]]], list[tuple[bytes, int]]],
    pick: Callable[[dict[Pair, int]], Pair | None],
) -> Callable[[list[dict[bytes, int]]], Pair | None]:
    """`first_merge` with the workers' counts combined by `tokens` and the winner chosen by
    `pick`."""
    return lambda parts: pick(_pair_counts(tokens(parts)))


KEPT = (
    "A pre-token that several workers counted: add their counts; yours keeps only one of them, "
    "as dict.update and | do."
)
TIE = (
    "Your pairs are among the most frequent, but where several pairs tie you pick another one "
    "than the course: ties go to the greatest pair, (left bytes, right bytes) compared as "
    "tuples, as in lesson 3."
)


def merge_turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Name the slip that `answers` (one per case) show, if a known one does."""
    if any(isinstance(a, bytes) for a in answers):
        return (
            "first_merge returns the pair that is merged, two bytes objects such as "
            "(b't', b'h'), not the token the merge makes (b'th')."
        )
    halves = [half for a in answers if isinstance(a, tuple) for half in a]
    for kind, example in ((int, "116"), (str, "'t'")):
        if any(isinstance(half, kind) for half in halves):
            return (
                f"Write bytes: each half of a merge is a bytes object of one byte, b't', not "
                f"{example}. Iterating over bytes gives ints; bytes([116]) turns one back."
            )
    if any(
        answers_fit(cases, answers, _slip(lambda p, last=last: _kept(p, last), _greatest))
        for last in (True, False)
    ):
        return KEPT
    if any(answers_fit(cases, answers, _slip(_added, pick)) for pick in (_first_seen, _least)):
        return TIE
    return None
