"""A SuperBPE-style second stage: tokens that may cross spaces, learned after ordinary ones.

Every tokenizer so far cut its text at spaces before BPE saw it (the split pattern), so no token
can hold two words, however often " of the" comes up. SuperBPE (Liu, Hayase, Hofmann, Oh, Smith
and Choi, "SuperBPE: Space Travel for Language Models", 2025) spends one vocabulary budget in two
stages:

1. ordinary BPE, with the split pattern, up to a *transition point* of `transition` tokens;
2. then more merges, learned from where stage 1 stopped (each line encoded by stage 1), with the
   text cut only at line breaks: a merge may now join " of" and " the".

BPE is greedy, so stage 1 is exactly the first merges of ordinary BPE trained to the full size.
Encoding follows the same two stages: stage 1 encodes each line as usual, then stage 2's merges
join its tokens, the lowest rank first (`bpe_dropout.join_pieces`, with nothing dropped).

Stage 2 learns with the fast trainer's own bookkeeping (`lib.bpe_fast`): a line of token ids is a
string with one character per id, so its pair counts and merges work unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lib import bpe, patterns
from lib.bpe_dropout import join_pieces
from lib.bpe_fast import PairQueue, count_pairs, merge_pair
from lib.tokenizer import Tokenizer

# Stage 2's only cut: after a line's last line break, where stage 1's pattern cuts too, so each
# piece is encoded by stage 1 just as the whole text would be.
LINES = r"[^\n]*\n+|[^\n]+"


@dataclass(frozen=True)
class SuperwordTokenizer:
    """Stage 1's `base` tokenizer (ids 0 .. base.n_vocab - 1) and stage 2's `merges`, whose
    tokens take the ids after it, in order."""

    base: Tokenizer
    merges: list[tuple[bytes, bytes]]
    _ranks: dict[bytes, int] = field(init=False, repr=False)
    _vocab: dict[int, bytes] = field(init=False, repr=False)
    _ids: dict[bytes, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        first = self.base.n_vocab
        ranks: dict[bytes, int] = {}
        vocab = dict(self.base.vocab)
        for rank, (left, right) in enumerate(self.merges):
            ranks.setdefault(left + right, rank)
            vocab[first + rank] = left + right
        # A token's bytes -> its id: stage 1's id where stage 1 has the token, else the first.
        ids = {token: i for i, token in reversed(vocab.items())}
        ids.update(self.base.ranks)
        object.__setattr__(self, "_ranks", ranks)
        object.__setattr__(self, "_vocab", vocab)
        object.__setattr__(self, "_ids", ids)

    @property
    def n_vocab(self) -> int:
        return self.base.n_vocab + len(self.merges)

    @property
    def vocab(self) -> dict[int, bytes]:
        """{id: token bytes}, stage 1's then stage 2's (a copy)."""
        return dict(self._vocab)

    def encode(self, text: str) -> list[int]:
        """Each line: stage 1's ids, then stage 2's merges over them."""
        ids: list[int] = []
        for line in patterns.split_text(text, LINES):
            parts = [self.base.vocab[i] for i in self.base.encode_ordinary(line)]
            ids += [self._ids[part] for part in join_pieces(parts, self._ranks)]
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        return b"".join(self._vocab[i] for i in ids).decode("utf-8", errors="replace")


def train(text: str, vocab_size: int, transition: int, pattern: str = "gpt4") -> SuperwordTokenizer:
    """Stage 1: BPE with `pattern` to `transition` tokens; stage 2: merges across spaces, within
    lines, until `vocab_size` tokens in all (fewer if the text runs out of pairs)."""
    if not 256 < transition <= vocab_size:
        raise ValueError(
            f"transition must be above 256 and at most vocab_size ({vocab_size}), got {transition}"
        )
    base = Tokenizer.train(text, transition, pattern=pattern)
    edge = chr(vocab_size)  # above every id: frames each line, never a token
    lines, weights = [], []
    for line, count in bpe.chunk_counts(text, LINES).items():
        ids = base.encode_ordinary(line.decode("utf-8"))
        if len(ids) > 1:
            lines.append(edge + "".join(map(chr, ids)) + edge)
            weights.append(count)
    counts, where = count_pairs(lines, weights)
    token_bytes = [base.vocab[i] for i in range(base.n_vocab)]  # fewer, if stage 1 ran out
    # Ties as in stage 1 (and `bpe.train`): the greatest (left bytes, right bytes) wins.
    queue = PairQueue(counts, key=lambda k: (token_bytes[ord(k[0])], token_bytes[ord(k[1])]))
    merges = []
    for new_id in range(base.n_vocab, vocab_size):
        pair = queue.pop(counts)
        if pair is None:
            break
        left, right = token_bytes[ord(pair[0])], token_bytes[ord(pair[1])]
        merges.append((left, right))
        token_bytes.append(left + right)
        merge_pair(pair, chr(new_id), edge, lines, weights, counts, where, queue)
    return SuperwordTokenizer(base, merges)
