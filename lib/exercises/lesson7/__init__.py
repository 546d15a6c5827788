"""Lesson 7's exercises: WordPiece's greedy match, Unigram's Viterbi, SentencePiece's byte fallback.

Expected values come from `lib.wordpiece` and `lib.unigram`, which the tests prove equal to
Hugging Face `tokenizers` and SentencePiece. One module an exercise:

- `wordpiece`: `wordpiece_word` and the small vocabulary it is checked with;
- `viterbi`: `viterbi` and the piece scores it is checked with;
- `byte_fallback`: `byte_fallback`.
"""

from __future__ import annotations

from lib.exercises.lesson7.byte_fallback import byte_fallback
from lib.exercises.lesson7.viterbi import viterbi
from lib.exercises.lesson7.wordpiece import WORDPIECE_VOCAB, wordpiece_word

__all__ = ["EXERCISES", "WORDPIECE_VOCAB", "byte_fallback", "viterbi", "wordpiece_word"]

EXERCISES = [wordpiece_word, viterbi, byte_fallback]  # in the order the notebook asks them
