"""Lesson 8's exercises: training your own tokenizer.

- `workers`: `first_merge`, the first merge from the workers' counts;
- `cuts`: `unsafe_cuts`, the cuts that change a text's pre-tokens (`unsafe_boundaries` is the
  course's answer, which the notebook runs after the check);
- `tiktoken_file`: `tiktoken_line`, one line of a .tiktoken file.
"""

from __future__ import annotations

from lib.exercises.lesson8.cuts import unsafe_boundaries, unsafe_cuts
from lib.exercises.lesson8.tiktoken_file import tiktoken_line
from lib.exercises.lesson8.workers import first_merge

__all__ = ["EXERCISES", "first_merge", "tiktoken_line", "unsafe_boundaries", "unsafe_cuts"]

EXERCISES = [first_merge, unsafe_cuts, tiktoken_line]
