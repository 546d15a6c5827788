"""Lesson 5's exercises: encoding, special tokens, GPT-4's digit groups, and the capstone.

- `encoding`: `encode`, and `specials`: `encode_with_specials`, both checked against the
  small tokenizers of `reference`;
- `numbers`: `digit_groups`, the number pieces of GPT-4's pattern in any text;
- `capstone`: `recover_merges` and `gpt4_encode`, GPT-4's tokenizer in the learner's own code,
  checked against tiktoken, and `capstone_turns`, the mistakes its 💡s name;
- `texts`: the sentences they are checked on, written for them.
"""

from __future__ import annotations

from lib.exercises.lesson5.capstone import gpt4_encode, recover_merges
from lib.exercises.lesson5.encoding import encode
from lib.exercises.lesson5.numbers import digit_groups
from lib.exercises.lesson5.specials import encode_with_specials

__all__ = [
    "EXERCISES",
    "digit_groups",
    "encode",
    "encode_with_specials",
    "gpt4_encode",
    "recover_merges",
]

EXERCISES = [encode, encode_with_specials, recover_merges, gpt4_encode, digit_groups]
