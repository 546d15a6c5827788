"""BPE-dropout: encoding that now and then skips a merge, so one word has many segmentations.

Ordinary BPE encodes a word the same way every time. A model trained on those ids sees
" tokenization" only ever as one or two tokens, and learns little about the pieces inside it, so
a typo that splits the word differently finds it unprepared. Provilkov, Emelianenko and Voita
("BPE-Dropout: Simple and Effective Subword Regularization", ACL 2020) keep the tokenizer as it is
and change only how a word is encoded while the model trains:

- start from the word's bytes;
- at each step, look at every adjacent pair whose joined bytes are a token, and *drop* each one
  with probability p, for this step only;
- merge the best pair left (the lowest merge rank, the leftmost among equals), and repeat;
- stop when no pair is left: every merge is done, or every candidate was dropped this time.

One draw is taken per candidate pair, left to right, at every step (none when p = 0), so the same
draws always give the same pieces.

With p = 0 nothing is dropped and this is ordinary BPE, token for token: that is how the model is
used after training. With p near 1 most words stay bytes. The paper used p = 0.1.

>>> import random
>>> ranks = {b"ab": 0, b"abc": 1}
>>> segment(b"abc", ranks, 0.0, random.Random(0))
[b'abc']
>>> sorted({tuple(segment(b"abc", ranks, 0.5, random.Random(s))) for s in range(20)})
[(b'a', b'b', b'c'), (b'ab', b'c'), (b'abc',)]

This is written to be read, not to be fast: each step looks at every pair again, which is fine for
the pieces a split pattern makes (words), and slow for one long chunk.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Protocol

from lib import patterns
from lib.bpe import replace_lone_surrogates
from lib.tokenizer import Tokenizer


class Draws(Protocol):
    """Anything with `random()` giving numbers in [0, 1): a `random.Random`, or a fixed list of
    draws wrapped in a class, to replay one exact run."""

    def random(self) -> float: ...


def check_p(p: object) -> float:
    """`p` as a float, or ValueError: a probability of dropping a merge, 0 <= p < 1."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(
            f"p is the probability of dropping a merge, from 0 up to (not including) 1; got {p!r}"
        )
    return float(p)


def segment(word: bytes, merge_ranks: Mapping[bytes, int], p: float, rng: Draws) -> list[bytes]:
    """The pieces of `word` under BPE with dropout probability `p`.

    `merge_ranks` maps a token's bytes to its merge rank (lower merges first), as
    `Tokenizer.merge_ranks` gives it; `rng` gives the draws (see above).
    """
    return join_pieces([word[i : i + 1] for i in range(len(word))], merge_ranks, p, rng)


def join_pieces(
    parts: list[bytes], merge_ranks: Mapping[bytes, int], p: float = 0.0, rng: Draws | None = None
) -> list[bytes]:
    """BPE from `parts` on (bytes, or tokens already made): `segment`'s loop. With p = 0 no
    pair is ever dropped, and `rng` is not needed."""
    p = check_p(p)
    if p > 0 and rng is None:
        raise ValueError("dropping merges (p > 0) needs rng, a random.Random")
    parts = list(parts)
    while True:
        best = None  # (rank, position) of the best pair kept at this step
        for i in range(len(parts) - 1):
            rank = merge_ranks.get(parts[i] + parts[i + 1])
            if rank is None:
                continue
            if p > 0 and rng.random() < p:
                continue  # dropped, for this step only
            if best is None or rank < best[0]:
                best = (rank, i)
        if best is None:
            return parts
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


def encode(
    tok: Tokenizer, text: str, p: float, rng: random.Random | int | None = None
) -> list[int]:
    """`tok.encode_ordinary(text)` with BPE-dropout: each piece of the split pattern is segmented
    by `segment`. `rng` is a `random.Random`, or a seed for one (None: a fresh, unseeded one).

    With p = 0 the ids are exactly `tok.encode_ordinary(text)`. Whatever p, they decode to `text`.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    p = check_p(p)
    if rng is None or isinstance(rng, int):
        rng = random.Random(rng)
    ranks, ids = tok.merge_ranks, tok.ranks
    out: list[int] = []
    for chunk in patterns.split_text(replace_lone_surrogates(text), tok.pattern):
        out += [ids[piece] for piece in segment(chunk.encode("utf-8"), ranks, p, rng)]
    return out
