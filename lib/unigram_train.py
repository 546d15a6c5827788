"""Training a Unigram vocabulary: start big, then prune with EM (Kudo, 2018), in a small clear form.

BPE grows a vocabulary from bytes, one merge at a time. Unigram goes the other way:

1. **Seed**: every character, plus the most frequent substrings of the words (a word is a run of
   text starting at `▁`, SentencePiece's space, so no piece crosses a word boundary). Each piece
   gets the log of its relative frequency as its score.
2. **EM**: *expectation*: for each word, how often each piece is used on average over *all*
   segmentations, weighted by their probability (forward-backward over the lattice of
   `Unigram.lattice`); *maximization*: new scores, the log of those expected counts, normalized.
3. **Prune**: for each piece, estimate how much worse the corpus would be segmented without it
   (its Viterbi uses times the score it loses against the best way to spell it with the other
   pieces), and drop the least useful fraction. Single characters always stay, so every word can
   still be spelled. Repeat 2-3 until the vocabulary has the size asked for.

SentencePiece's trainer does the same with more care (a suffix array to find the seeds, a
Bayesian variant of the M step, special and byte pieces); its vocabularies differ from ours in
detail, not in kind.
"""

from __future__ import annotations

import math
from collections import Counter

from lib.sentencepiece_text import SPACE, to_sentencepiece
from lib.unigram import Unigram


def word_counts(sentences: list[str]) -> Counter:
    """Each `▁`-word of the sentences and how often it occurs: "a cat" -> ▁a, ▁cat."""
    counts: Counter = Counter()
    for sentence in sentences:
        text = to_sentencepiece(sentence)
        counts.update(SPACE + word for word in text.split(SPACE) if word)
    return counts


def seed_pieces(words: Counter, size: int, max_length: int = 8) -> dict[str, float]:
    """All characters and the `size` most frequent longer substrings, scored log(frequency)."""
    chars: Counter = Counter()
    longer: Counter = Counter()
    for word, count in words.items():
        for start in range(len(word)):
            chars[word[start]] += count
            for end in range(start + 2, min(len(word), start + max_length) + 1):
                longer[word[start:end]] += count
    kept = {**dict(longer.most_common(size)), **chars}
    total = sum(kept.values())
    return {piece: math.log(count / total) for piece, count in kept.items()}


def expected_counts(model: Unigram, words: Counter) -> Counter:
    """The E step: for each piece, its use summed over every segmentation of every word,
    each segmentation weighted by its probability under `model`.

    Words are short, so plain probabilities (not logs) cannot underflow here.
    """
    counts: Counter = Counter()
    for word, count in words.items():
        n = len(word)
        edges = [[(s, math.exp(score)) for s, score in ends] for ends in model.lattice(word)]
        forward = [1.0] + [0.0] * n  # total probability of all the paths from 0 to each position
        for end in range(1, n + 1):
            forward[end] = sum(forward[s] * p for s, p in edges[end])
        backward = [0.0] * n + [1.0]  # ... and from each position to the end of the word
        for end in range(n, 0, -1):
            for s, p in edges[end]:
                backward[s] += p * backward[end]
        for end in range(1, n + 1):  # each edge's share of all the paths that go through it
            for s, p in edges[end]:
                counts[word[s:end]] += count * forward[s] * p * backward[end] / forward[n]
    return counts


def prune(model: Unigram, words: Counter, keep: int) -> dict[str, float]:
    """Keep the `keep` most useful pieces of `model` (all single characters are kept too)."""
    used: Counter = Counter()
    for word, count in words.items():
        for piece, _, _ in model.segment(word):
            used[piece] += count
    loss = {}
    for piece, score in list(model.scores.items()):
        if len(piece) == 1:
            continue
        del model.scores[piece]  # how would the word be spelled without this piece?
        alternative = sum(model.scores[p] for p, _, _ in model.segment(piece))
        model.scores[piece] = score
        loss[piece] = used[piece] * (score - alternative)
    ranked = sorted(loss, key=lambda piece: (-loss[piece], piece))
    chars = [piece for piece in model.scores if len(piece) == 1]
    return {piece: model.scores[piece] for piece in chars + ranked[: max(0, keep - len(chars))]}


def train(
    sentences: list[str], vocab_size: int, seed_size: int = 5000, shrink: float = 0.75
) -> list[tuple[str, float]]:
    """A Unigram vocabulary of (about, never fewer than its characters) `vocab_size` pieces,
    as (piece, score) pairs from the most to the least probable. Each round runs two EM steps
    and then keeps `shrink` of the pieces."""
    words = word_counts(sentences)
    scores = seed_pieces(words, seed_size)
    while True:
        for _ in range(2):
            model = Unigram([("<unk>", 0.0), *scores.items()])
            counts = expected_counts(model, words)
            total = sum(counts.values())
            scores = {p: math.log(max(c, 1e-300) / total) for p, c in counts.items()}
        model = Unigram([("<unk>", 0.0), *scores.items()])
        pruned = prune(model, words, max(vocab_size, int(len(scores) * shrink)))
        if len(scores) <= vocab_size or len(pruned) == len(scores):  # done, or all characters
            return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        scores = pruned
