"""The shapes a byte-level BPE tokenizer's data takes, named once for every module that uses them.

- `Vocab`: {id: token bytes}. Ids 0..255 are the single bytes in the course's trainers; tiktoken's
  files number them otherwise, so code reads a byte's id from the vocabulary, never assumes it.
- `Merges`: [(left bytes, right bytes)], in the order they were learned. That order, the merge
  rank, decides which pair joins first when encoding.
"""

Vocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]
