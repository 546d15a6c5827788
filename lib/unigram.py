"""Unigram language-model tokenization (Kudo, 2018): the most probable segmentation, by Viterbi.

A Unigram vocabulary gives every piece a **score**, the log of its probability. A segmentation of
a text into pieces is scored by adding up the scores of its pieces (multiplying probabilities),
and the tokenizer picks the best one. BPE replays merges; Unigram *searches*, so a word is cut the
same way wherever it occurs, and the second-best cut is there too if we want it (`sample`).

The search is dynamic programming over the text's positions. `best[end]` is the best way to cover
`text[:end]`: some piece `text[start:end]` added to `best[start]`. Positions are visited left to
right, so `best[start]` is final when it is used. A character that no piece covers becomes the
unknown piece with a low score (the lowest score minus 10, as SentencePiece and Hugging Face do),
so every text can be segmented.

`Unigram.encode` matches Hugging Face `tokenizers`' `Unigram` model (`fuse_unk`: unknown characters
in a row become one unknown token) and, with `byte_fallback`, SentencePiece's: each unknown
character becomes the tokens of its UTF-8 bytes, `<0xE0>` `<0xAE>` `<0x86>`, so nothing is lost.
The tests check both, piece for piece. Training (how the scores are found) is in `unigram_train`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

Token = tuple[str, int, int]  # (piece, start, end) in the text that was segmented
UNK_PENALTY = 10.0


def byte_piece(byte: int) -> str:
    """SentencePiece's name for a byte token: 227 -> "<0xE3>"."""
    return f"<0x{byte:02X}>"


def byte_fallback(text: str) -> list[str]:
    """The byte tokens that spell `text` in UTF-8: "ஆ" -> ["<0xE0>", "<0xAE>", "<0x86>"]."""
    return [byte_piece(b) for b in text.encode("utf-8")]


@dataclass
class Unigram:
    """A Unigram model: `pieces[i]` is (piece, score) for token id i.

    `unk_id` names the unknown piece. With `byte_fallback`, the 256 pieces "<0x00>".."<0xFF>" must
    be in the vocabulary; they and the pieces in `control` (such as "<s>") are never matched
    against text, as in SentencePiece.
    """

    pieces: list[tuple[str, float]]
    unk_id: int = 0
    byte_fallback: bool = False
    control: frozenset[str] = frozenset()
    ids: dict[str, int] = field(init=False, repr=False)
    scores: dict[str, float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.ids = {piece: i for i, (piece, _) in enumerate(self.pieces)}
        skip = set(self.control) | {self.pieces[self.unk_id][0]}
        if self.byte_fallback:
            skip |= {byte_piece(b) for b in range(256)}
        self.scores = {piece: score for piece, score in self.pieces if piece not in skip}
        self.unk_score = min(score for _, score in self.pieces) - UNK_PENALTY
        self.longest = max(map(len, self.scores), default=1)

    def lattice(self, text: str) -> list[list[tuple[int, float]]]:
        """Every piece that could end at each position: `lattice[end]` lists (start, score) for
        each vocabulary piece equal to `text[start:end]`, by increasing start. A character that
        no piece covers gets an unknown piece of its own (with the unknown score), so there is
        always a path to the end."""
        n = len(text)
        lattice: list[list[tuple[int, float]]] = [[] for _ in range(n + 1)]
        for start in range(n):
            for end in range(start + 1, min(n, start + self.longest) + 1):
                score = self.scores.get(text[start:end])
                if score is not None:
                    lattice[end].append((start, score))
            if text[start] not in self.scores:
                lattice[start + 1].append((start, self.unk_score))
        return lattice

    def segment(self, text: str) -> list[Token]:
        """The best segmentation, by Viterbi: (piece, start, end) for each piece, in order. A
        character that no piece covers is a one-character piece of its own, not in the
        vocabulary."""
        lattice = self.lattice(text)
        # best[end] = (score of the best path covering text[:end], where its last piece starts).
        # `max` keeps the first of equal scores, the smallest start, as the references do.
        best = [(0.0, 0)]
        for end in range(1, len(text) + 1):
            best.append(max(((best[s][0] + score, s) for s, score in lattice[end]), key=_first))
        tokens: list[Token] = []
        end = len(text)
        while end > 0:  # walk back from the end along the winning path
            start = best[end][1]
            tokens.append((text[start:end], start, end))
            end = start
        return tokens[::-1]

    def tokenize(self, text: str) -> list[Token]:
        """The tokens of `text` with their spans. An unknown token shows the text it stands for
        (its id is `unk_id`), and unknown characters in a row are fused into one. With
        `byte_fallback` it is then spelled in byte tokens, each with the span of the whole run,
        as Hugging Face does."""
        tokens: list[Token] = []
        for piece, start, end in self.segment(text):
            if piece not in self.scores and tokens and tokens[-1][0] not in self.scores:
                tokens[-1] = (tokens[-1][0] + piece, tokens[-1][1], end)  # fuse with the last
            else:
                tokens.append((piece, start, end))
        if not self.byte_fallback:
            return tokens
        return [
            (byte, start, end)
            for piece, start, end in tokens
            for byte in ([piece] if piece in self.scores else byte_fallback(piece))
        ]

    def encode(self, text: str) -> list[int]:
        return [self.ids.get(piece, self.unk_id) for piece, _, _ in self.tokenize(text)]

    def sample(self, text: str, alpha: float = 1.0, rng: random.Random | None = None) -> list[str]:
        """One segmentation drawn at random, with probability proportional to exp(alpha * score).

        Subword regularization (Kudo, 2018) trains a model on such samples, so that it sees
        several cuts of the same word. Large `alpha` sharpens towards the Viterbi segmentation;
        `alpha=0` makes every segmentation equally likely. First a forward pass adds up, for
        each position, the weight of every path that reaches it; then a backward walk picks each
        last piece with probability proportional to its share of that total.
        """
        rng = rng or random.Random()
        lattice = self.lattice(text)
        forward = [0.0]  # forward[end]: log of the total weight of all the paths to `end`
        for end in range(1, len(text) + 1):
            forward.append(logsumexp([forward[s] + alpha * score for s, score in lattice[end]]))
        pieces = []
        end = len(text)
        while end > 0:
            weights = [
                math.exp(forward[s] + alpha * score - forward[end]) for s, score in lattice[end]
            ]
            start = rng.choices([s for s, _ in lattice[end]], weights)[0]
            pieces.append(text[start:end])
            end = start
        return pieces[::-1]


def _first(candidate: tuple[float, int]) -> float:
    return candidate[0]


def logsumexp(values: list[float]) -> float:
    """log(sum(exp(v) for v in values)), without overflow: factor out the largest first."""
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in values))
