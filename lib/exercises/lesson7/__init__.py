"""Lesson 7's exercises: WordPiece's greedy match, Unigram's Viterbi, SentencePiece's decoding.

Expected values come from `lib.wordpiece`, `lib.unigram` and `lib.sentencepiece_text`, which the
tests prove equal to Hugging Face `tokenizers` and SentencePiece. One module an exercise:

- `wordpiece`: `wordpiece_word` and the small vocabulary it is checked with;
- `viterbi`: `viterbi` and the piece scores it is checked with;
- `byte_fallback`: `decode_pieces`, byte-fallback pieces read back as SentencePiece does.
"""

from __future__ import annotations

from lib.exercises.lesson7.byte_fallback import decode_pieces
from lib.exercises.lesson7.viterbi import viterbi
from lib.exercises.lesson7.wordpiece import WORDPIECE_VOCAB, wordpiece_word

__all__ = ["EXERCISES", "WORDPIECE_VOCAB", "decode_pieces", "viterbi", "wordpiece_word"]

EXERCISES = [wordpiece_word, viterbi, decode_pieces]  # in the order the notebook asks them
