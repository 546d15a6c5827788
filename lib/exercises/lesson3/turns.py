"""Trainers that look right and are not, and the feedback that recognises them in `train_bpe`
(`stats_turns` does the same for `get_stats`).

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
from lib.exercises.cases import Case, answers_fit

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
