"""Lesson 8's exercises: training your own tokenizer.

- `workers`: `first_merge`, the first merge from the workers' counts;
- `cuts`: `may_cut`, a rule for where a text may be cut, from the characters around the cut;
- `tiktoken_file`: `tiktoken_line`, one line of a .tiktoken file.
"""

from __future__ import annotations

from lib.exercises.lesson8.cuts import may_cut
from lib.exercises.lesson8.tiktoken_file import tiktoken_line
from lib.exercises.lesson8.workers import first_merge

__all__ = ["EXERCISES", "first_merge", "may_cut", "tiktoken_line"]

EXERCISES = [first_merge, may_cut, tiktoken_line]
