"""The parity-aware trainer (lib/parity_bpe.py): standard BPE's rules, merges for the worst."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import bpe
from lib.parity_bpe import train_parity

TEXTS = st.text(alphabet="ab é\u0939\u093f", max_size=40)


@pytest.mark.filterwarnings("ignore:stopped after")  # short texts run out of pairs: fine here
@settings(max_examples=examples(60), deadline=None)
@given(text=TEXTS, extra=st.integers(0, 30), pattern=st.sampled_from([None, "gpt4"]))
def test_one_language_is_standard_bpe(text, extra, pattern):
    _, expected = bpe.train(text, 256 + extra, pattern)
    merges, chosen_for = train_parity({"only": text}, 256 + extra, pattern)
    assert merges == expected
    assert chosen_for == ["only"] * len(merges)


@pytest.mark.filterwarnings("ignore:stopped after")
@settings(max_examples=examples(40), deadline=None)
@given(text=TEXTS, extra=st.integers(0, 20))
def test_two_copies_of_one_text_are_standard_bpe(text, extra):
    """The same text twice: every language's counts are the whole's, halved, so the same pairs
    win, ties included, whichever copy is chosen."""
    _, expected = bpe.train(text, 256 + extra)
    assert train_parity({"a": text, "b": text}, 256 + extra, None)[0] == expected


def test_the_worst_language_gets_merges_and_gets_better():
    # "x" is long in bytes and its pairs are rarer than "y"'s: standard BPE serves "y" first.
    texts = {"x": "ok " * 30 + "\u0939\u093f\u0928 " * 20, "y": "ok " * 80}
    lengths = {lang: len(text.encode()) for lang, text in texts.items()}
    assert lengths["x"] > lengths["y"]
    _, standard = bpe.train("".join(texts.values()), 258, "gpt4")
    parity, chosen_for = train_parity(texts, 258, "gpt4")
    assert standard[0] == (b"o", b"k")  # most frequent overall
    assert chosen_for[0] == "x" and parity[0] != standard[0]

    def tokens(merges, text):
        chunks = bpe.chunk_counts(text, "gpt4")
        return sum(len(bpe.encode_chunk_naive(c, merges)) * n for c, n in chunks.items())

    worst_standard = max(tokens(standard, t) for t in texts.values())
    worst_parity = max(tokens(parity, t) for t in texts.values())
    assert worst_parity < worst_standard


def test_training_stops_when_no_language_has_a_pair():
    merges, chosen_for = train_parity({"a": "ab", "b": "c"}, 300, None)
    assert merges == [(b"a", b"b")] and chosen_for == ["a"]


@pytest.mark.parametrize("texts, size", [({}, 300), ({"a": "x"}, 255), ({"a": "x"}, 300.0)])
def test_bad_requests_are_refused(texts, size):
    with pytest.raises(ValueError):
        train_parity(texts, size)


@settings(max_examples=examples(40), deadline=None)
@given(
    texts=st.dictionaries(st.sampled_from(["x", "y", "z"]), TEXTS, min_size=2, max_size=3),
    extra=st.integers(1, 12),
)
def test_each_merge_goes_to_the_language_with_the_most_tokens_so_far(texts, extra):
    """Recount every language from scratch before each merge, with the slow encoder: the merge
    was chosen for the longest language that still had a pair, and is that language's most
    frequent pair under the standard tie rule."""
    merges, chosen_for = train_parity(texts, 256 + extra, None)
    for k, (merge, lang) in enumerate(zip(merges, chosen_for, strict=True)):
        pieces = {
            name: [bpe.encode_chunk_naive(text.encode(), merges[:k])]
            for name, text in texts.items()
        }
        mergeable = [name for name, ids in pieces.items() if len(ids[0]) > 1]
        assert lang == max(mergeable, key=lambda name: (len(pieces[name][0]), name))
        vocab = bpe.build_vocab(merges[:k])
        stats = bpe.get_stats(pieces[lang][0])
        top = max(stats.values())
        best = max((vocab[a], vocab[b]) for (a, b), n in stats.items() if n == top)
        assert merge == best
