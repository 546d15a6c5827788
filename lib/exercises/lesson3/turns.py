"""Trainers that look right and are not, and the feedback that recognises them.

Lesson 3's reference breaks ties by the greatest (left bytes, right bytes) and counts overlapping
pairs (`aaa` holds two `aa`). Three natural loops differ exactly there:

- `train_first_seen` keeps minbpe's `max(stats, key=stats.get)`: of the tied pairs, the one met
  first while counting;
- `train_overlap_once` counts a pair that overlaps itself once per run, as `"aaa".count("aa")`
  does;
- `train_ids_tie` breaks ties by the greatest pair of ids, which hint 2 warns against.

The notebook runs both through `lib.difftest` to find the smallest text where each goes wrong,
and the exercises' `wrong_turns` hooks compare a learner's answers with theirs to name the mistake.
"""

from __future__ import annotations

from typing import Any

from lib import bpe
from lib.exercises.cases import Case, answers_fit, show

SECTION = "section 4, 'Ties, and why the rule matters'"


def count_pairs_once(ids: list[int]) -> dict[tuple[int, int], int]:
    """Pair counts where a pair that overlaps itself counts once: [97, 97, 97] has one (97, 97)."""
    counts: dict[tuple[int, int], int] = {}
    last_end = -1  # the position of the right id of the equal-ids pair counted last
    for i, pair in enumerate(zip(ids, ids[1:], strict=False)):
        if pair[0] == pair[1] and i <= last_end:
            continue  # shares its left id with the copy just counted
        counts[pair] = counts.get(pair, 0) + 1
        last_end = i + 1 if pair[0] == pair[1] else -1
    return counts


def _train(
    text: str, vocab_size: int, first_seen: bool, overlap_once: bool, ids_tie: bool = False
) -> bpe.Merges:
    ids = list(text.encode("utf-8"))
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for new_id in range(256, vocab_size):
        stats = count_pairs_once(ids) if overlap_once else bpe.get_stats(ids)
        if not stats:
            break
        if first_seen:
            a, b = max(stats, key=stats.get)  # type: ignore[arg-type]
        elif ids_tie:
            a, b = max(stats, key=lambda p: (stats[p], p))
        else:
            a, b = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
        ids = bpe.merge(ids, (a, b), new_id)
        vocab[new_id] = vocab[a] + vocab[b]
        merges.append((vocab[a], vocab[b]))
    return merges


def train_first_seen(text: str, vocab_size: int) -> bpe.Merges:
    """The lesson's loop with minbpe's tie rule: of the tied pairs, the one counted first."""
    return _train(text, vocab_size, first_seen=True, overlap_once=False)


def train_overlap_once(text: str, vocab_size: int) -> bpe.Merges:
    """The lesson's loop, counting a self-overlapping pair once (`aaaa`: two `aa`, not three)."""
    return _train(text, vocab_size, first_seen=False, overlap_once=True)


# Said of `train_bpe` and of `train_with_pattern` (review J2), whose loops share the tie rule.
FIRST_SEEN = (
    "your merges match the 'first pair seen' tie rule (minbpe's max(stats, "
    "key=stats.get)). This course breaks ties by the greatest (left bytes, right bytes) "
    f"among the most frequent pairs: see {SECTION}."
)

# Said of both too (review K6).
IDS_TIE = (
    "your merges match breaking ties by the pair's ids. The tie rule compares bytes: "
    "a merged token's id says when it was learned, not what it spells, so compare "
    f"(vocab[a], vocab[b]) of the tied pairs: see {SECTION}."
)


def train_turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Name the tie rule or the overlap count when a learner's merges follow one of them."""
    if answers_fit(cases, answers, train_first_seen):
        return FIRST_SEEN
    if answers_fit(cases, answers, train_ids_tie):
        return IDS_TIE
    if answers_fit(cases, answers, train_overlap_once):
        return (
            "your merges match counting a pair that overlaps itself only once ('aaa' as one "
            "'aa'). Count every adjacent pair, overlapping ones too: 'aaa' has two (exercise 1)."
        )
    return None


def train_ids_tie(text: str, vocab_size: int) -> bpe.Merges:
    """The lesson's loop breaking ties by the greatest pair of ids, not of bytes."""
    return _train(text, vocab_size, first_seen=False, overlap_once=False, ids_tie=True)


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
