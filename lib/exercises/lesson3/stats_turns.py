"""The feedback that names what a learner's `get_stats` got wrong (lesson 3, section 2).

Each `_` function below looks for one slip in the shown cases' wrong answers (hidden cases'
inputs are the grader's secret) and says it in the learner's own numbers; `stats_turns` asks
them in an order where each earlier slip would also explain the later symptoms.
"""

from __future__ import annotations

from typing import Any

from lib import bpe
from lib.exercises.cases import Case, answers_fit, show


def _without_last_pair(ids: list[int]) -> dict[tuple[int, int], int]:
    return bpe.get_stats(ids[:-1])


def _shown_wrong_dicts(cases: list[Case], answers: list[Any]) -> list[tuple[list[int], dict]]:
    """(ids, answer) of each shown case whose answer is a wrong dict, first failure first.
    Hidden cases are left out: their input is the grader's secret."""
    return [
        (case.args[0], answer)
        for case, answer in zip(cases, answers, strict=False)
        if not case.hidden and isinstance(answer, dict) and answer != case.expected
    ]


def _key_not_a_pair(wrong: list[tuple[list[int], dict]]) -> str | None:
    """Name a key that is not a pair of ids, from the first failure that has one: str(pair),
    '(97, 97)', or letters, ('a', 'a'), which the extra-pair words would say [97, 97, 97] lacks.
    None counts as an id: a zip padded past the end is an extra pair's slip."""
    for ids, answer in wrong:
        key = next((k for k in answer if not _is_pair_of_ids(k)), None)
        if key is not None:
            example = next(zip(ids, ids[1:], strict=False), (97, 98))
            return (
                f"your dictionary for {show(ids, 60)} has the key {show(key, 40)}, which is not "
                f"a pair of ids: each key is a tuple of two ints taken from ids, such as {example}."
            )
    return None


def _is_pair_of_ids(key: Any) -> bool:
    return (
        isinstance(key, tuple) and len(key) == 2 and all(i is None or type(i) is int for i in key)
    )


def _extra_pair(wrong: list[tuple[list[int], dict]]) -> str | None:
    """Name a pair the learner's dict holds that its ids do not have (a loop that wraps around
    to (ids[-1], ids[0]), a zip padded with None, or a real pair turned round), from the first
    failure that has one."""
    for ids, answer in wrong:
        real = set(zip(ids, ids[1:], strict=False))
        extra = next((pair for pair in answer if pair not in real), None)
        if extra is not None and extra[::-1] in real:
            return (
                f"your dictionary for {show(ids, 60)} holds the pair {show(extra, 40)}, which "
                f"is {show(extra[::-1], 40)} turned round: a pair keeps its ids in the order "
                "the text has them, the left one first."
            )
        if extra is not None:
            has = "has no pair at all" if len(ids) < 2 else "does not have it"
            return (
                f"your dictionary for {show(ids, 60)} holds the pair {show(extra, 40)}, and "
                f"{show(ids, 60)} {has}. The pairs are (ids[i], ids[i + 1]) for each i from 0 "
                "to len(ids) - 2: no pair wraps around from the end, and none goes past it."
            )
    return None


def _miscount(wrong: list[tuple[list[int], dict]]) -> str | None:
    """Quote the learner's own wrong count from the first failure on ids with no two equal
    neighbours. There no pair overlaps itself, so a wrong count is a counting slip (every pair
    counted 1, or a new pair started at 0), and a pair left out is the loop's: it skips a
    position (reading ids two at a time, or starting at 1)."""
    for ids, answer in wrong:
        if any(a == b for a, b in zip(ids, ids[1:], strict=False)):
            continue
        for pair, count in bpe.get_stats(ids).items():
            times = "once" if count == 1 else f"{count} times"
            if pair not in answer:
                return (
                    f"a pair is missing: in {show(ids, 60)} you leave {pair} out, and it occurs "
                    f"{times}. Each position i from 0 to len(ids) - 2 starts a pair, (ids[i], "
                    "ids[i + 1]): move one position at a time, so that your loop visits them all."
                )
            if answer[pair] != count:
                return (
                    f"a count is wrong where no pair can overlap: in {show(ids, 60)} you count "
                    f"{pair} as {answer[pair]!r}, and it occurs {times}. Every count is the number "
                    "of times the pair occurs: a pair met once counts 1, and each further meeting "
                    "adds 1."
                )
    return None


def stats_turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Name the loop that stops one pair early, then a key that is not a pair of ids, a pair the
    ids do not have, a pair left out or a wrong count where nothing overlaps, and last the
    overlap mistake: a pair of two equal ids counted fewer times than it occurs
    (`count_pairs_once`, or skipping ahead after such a pair). Each is checked before the next:
    losing the last pair, a pair too many, or never counting past 1 undercounts or miscounts
    [97, 97, 97] too."""
    if answers_fit(cases, answers, _without_last_pair):
        return (
            "the last pair is missing: [1, 2, 3] holds (1, 2) and (2, 3), and the last pair "
            "starts at the second-to-last id. Your loop stops one position early."
        )
    wrong = _shown_wrong_dicts(cases, answers)
    named = _key_not_a_pair(wrong) or _extra_pair(wrong) or _miscount(wrong)
    if named:
        return named
    for case, answer in zip(cases, answers, strict=False):
        try:
            short = isinstance(answer, dict) and any(
                a == b and answer.get((a, b), 0) < n for (a, b), n in case.expected.items()
            )
        except Exception:  # a strange answer: it gets no advice, only its verdict
            short = False
        if short:
            return (
                "a pair of equal ids is counted too few times: [97, 97, 97] holds the pair "
                "(97, 97) twice, at positions 0-1 and 1-2, and both count."
            )
    return None
