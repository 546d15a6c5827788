"""Lesson 3's exercises: training byte-pair encoding.

- `training_loop`: `get_stats`, `merge` and `train_bpe`, the loop itself;
- `first_merges`: the first merge of three hidden texts, predicted from their pair tallies
  (`show_tallies` prints them);
- `chunks`: `train_with_pattern`, training on chunks with special tokens;
- `speed`: the optional, ungraded `speed_challenge`;
- `turns`: two trainers that look right and are not (the notebook finds where they go wrong),
  and the feedback that recognises them in a learner's answers; `stats_turns`, the slips of a
  `get_stats` named in the learner's own numbers.
"""

from __future__ import annotations

from lib.exercises.lesson3.chunks import train_with_pattern
from lib.exercises.lesson3.first_merges import first_merges, show_tallies
from lib.exercises.lesson3.speed import speed_challenge
from lib.exercises.lesson3.training_loop import get_stats, merge, train_bpe

__all__ = [
    "EXERCISES",
    "first_merges",
    "get_stats",
    "merge",
    "show_tallies",
    "speed_challenge",
    "train_bpe",
    "train_with_pattern",
]

EXERCISES = [get_stats, merge, train_bpe, first_merges, train_with_pattern]
