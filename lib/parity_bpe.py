"""Parity-aware BPE: every merge goes to the language the tokenizer currently serves worst.

Standard BPE merges the pair that is most frequent in all the training text together, so the
languages with the most text, or the most bytes per character, collect most of the merges. Foroutan
et al., "Parity-aware Byte Pair Encoding" (2025), change only that choice. Before each merge they
find the language that the merges so far compress worst on a *parallel* development text (the same
content in every language), and merge the pair most frequent in that language's training text. The
vocabulary is shared, so the merge is then applied to every language's text. The paper defines
"worst" by a compression rate; on parallel text the authors' public code takes the language whose
development text needs the most tokens, and so does this module.

The paper keeps the development text apart from the training text. Here the training text itself is
the development text, which keeps the course's lab small and must therefore be parallel (like
FLORES). The counting is the fast trainer's (`lib.bpe_fast`): each language keeps its own chunks,
pair counts and queue, and `merge_pair` updates them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lib.bpe import Merges, chunk_counts
from lib.bpe_fast import PairQueue, merge_pair, prepare_chunks


@dataclass
class _Language:
    """One language's training text, as the fast trainer keeps it, and its current length."""

    chunks: list[str]
    weights: list[int]
    counts: dict[str, int]
    where: dict[str, list[int]]
    queue: PairQueue
    tokens: int  # how many tokens its whole text takes with the merges so far


def train_parity(
    texts: Mapping[str, str], vocab_size: int, pattern: str | None = "gpt4"
) -> tuple[Merges, list[str]]:
    """Learn `vocab_size - 256` merges from parallel `texts` ({language: text}), each one for the
    language whose text is currently the longest in tokens.

    Returns the merges in order and, for each merge, the language it was chosen for. With a
    single language this is exactly standard BPE (`lib.bpe.train`), ties included. A language
    with no pair left to merge is skipped, and training stops when no language has one.
    """
    if not texts:
        raise ValueError("texts is empty: give at least one {language: text}")
    if not isinstance(vocab_size, int) or vocab_size < 256:
        raise ValueError(f"vocab_size must be an integer of at least 256, got {vocab_size!r}")
    words = {lang: chunk_counts(text, pattern) for lang, text in texts.items()}
    kept = {lang: [chunk for chunk in w if len(chunk) > 1] for lang, w in words.items()}
    # As in `train_fast`: no more merges than the text can give, so every id stays a character.
    n_merges = min(vocab_size - 256, sum(len(c) - 1 for chunks in kept.values() for c in chunks))
    edge = chr(256 + n_merges)  # shared by all languages: the ids are shared
    token_bytes = [bytes([i]) for i in range(256)]

    def by_bytes(pair: str) -> tuple[bytes, bytes]:  # the standard tie rule: greatest bytes
        return token_bytes[ord(pair[0])], token_bytes[ord(pair[1])]

    languages = {}
    for lang, chunks in kept.items():
        framed, weights, counts, where = prepare_chunks(chunks, words[lang], edge)
        tokens = sum(len(chunk) * n for chunk, n in words[lang].items())
        languages[lang] = _Language(
            framed, weights, counts, where, PairQueue(counts, by_bytes), tokens
        )

    merges: Merges = []
    chosen_for: list[str] = []
    active = dict(languages)  # the languages that may still have a pair to merge
    while len(merges) < n_merges and active:
        worst = max(active, key=lambda lang: (active[lang].tokens, lang))
        pair = active[worst].queue.pop(active[worst].counts)
        if pair is None:
            del active[worst]
            continue
        new = chr(256 + len(merges))
        merges.append(by_bytes(pair))
        chosen_for.append(worst)
        token_bytes.append(b"".join(merges[-1]))
        for state in languages.values():
            state.tokens -= merge_pair(
                pair, new, edge, state.chunks, state.weights, state.counts, state.where, state.queue
            )
    return merges, chosen_for
