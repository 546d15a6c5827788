"""lib.bpe_dropout: p = 0 is the tokenizer's own encoding, every p decodes back to the text, the
same seed gives the same ids, draws replay exactly, and a p outside [0, 1) is refused."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import Tokenizer, bpe_dropout, data
from lib.added_tokens import add_tokens


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    text = data.read_text("the-verdict") + data.read_text("ramcharitmanas")[:20000]
    return Tokenizer.train(text, 600, pattern="gpt4")


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    return Tokenizer.from_tiktoken("cl100k_base")


any_text = st.text(st.characters(codec="utf-8"), max_size=120) | st.text(
    st.sampled_from(list(" \n aé'sDOG123नमस्ते👋🏽‍ lowering tokenization")), max_size=60
)


class Replay:
    """Fixed draws, handed out in order, as `bpe_dropout.Draws`."""

    def __init__(self, draws: list[float]):
        self.draws = list(draws)

    def random(self) -> float:
        return self.draws.pop(0)


@settings(max_examples=examples(200), deadline=None)
@given(text=any_text, seed=st.integers(0, 2**32))
def test_p_zero_is_the_tokenizers_own_encoding(tok, cl100k, text, seed):
    for t in (tok, cl100k):
        assert bpe_dropout.encode(t, text, 0.0, seed) == t.encode_ordinary(text)


@settings(max_examples=examples(200), deadline=None)
@given(text=any_text, p=st.floats(0, 0.999), seed=st.integers(0, 2**32))
def test_every_output_decodes_to_the_input(tok, cl100k, text, p, seed):
    for t in (tok, cl100k):
        ids = bpe_dropout.encode(t, text, p, seed)
        assert t.decode(ids) == t.decode(t.encode_ordinary(text))  # lone surrogates: both U+FFFD


def test_p_zero_follows_merges_appended_after_training(cl100k):
    grown = add_tokens(cl100k, [" Karpathy"])
    text = "Andrej Karpathy and Karpathian prose"
    assert bpe_dropout.encode(grown, text, 0.0, 1) == grown.encode_ordinary(text)


def test_the_same_seed_gives_the_same_ids_and_dropout_gives_many_segmentations(cl100k):
    word = " tokenization"
    runs = {
        p: [tuple(bpe_dropout.encode(cl100k, word, p, seed)) for seed in range(200)]
        for p in (0.0, 0.1, 0.5)
    }
    assert set(runs[0.0]) == {tuple(cl100k.encode(word))}
    assert 1 < len(set(runs[0.1])) < len(set(runs[0.5]))
    mean_tokens = {p: sum(map(len, r)) / len(r) for p, r in runs.items()}
    assert mean_tokens[0.0] < mean_tokens[0.1] < mean_tokens[0.5]
    assert bpe_dropout.encode(cl100k, word * 5, 0.5, 7) == bpe_dropout.encode(
        cl100k, word * 5, 0.5, 7
    )
    assert bpe_dropout.encode(cl100k, word, 0.5, random.Random(3)) == bpe_dropout.encode(
        cl100k, word, 0.5, 3
    )


def test_one_draw_per_candidate_pair_left_to_right_at_every_step():
    ranks = {b"ab": 0, b"bc": 1, b"abc": 2}
    # step 1: (a, b) kept (0.9), (b, c) dropped (0.1): ab merges; step 2: (ab, c) kept (0.7)
    assert bpe_dropout.segment(b"abc", ranks, 0.5, Replay([0.9, 0.1, 0.7])) == [b"abc"]
    # step 1: (a, b) dropped, (b, c) kept: bc merges; step 2: (a, bc) joins to the token abc
    # too (a token's bytes count, not how it was first made), but it is dropped (0.4)
    assert bpe_dropout.segment(b"abc", ranks, 0.5, Replay([0.2, 0.6, 0.4])) == [b"a", b"bc"]
    assert bpe_dropout.segment(b"abc", ranks, 0.5, Replay([0.2, 0.6, 0.6])) == [b"abc"]
    # step 1: both dropped: nothing merges, and no further step is taken
    assert bpe_dropout.segment(b"abc", ranks, 0.5, Replay([0.2, 0.3])) == [b"a", b"b", b"c"]
    # a draw equal to p keeps the pair: dropped means below p
    assert bpe_dropout.segment(b"ab", ranks, 0.5, Replay([0.5])) == [b"ab"]


def test_equal_ranks_merge_leftmost_first():
    assert bpe_dropout.segment(b"aaa", {b"aa": 0}, 0.0, Replay([0.5] * 2)) == [b"aa", b"a"]


@pytest.mark.parametrize("p", [-0.1, 1, 1.0, 1.5, float("nan"), "0.1", None, True])
def test_a_p_outside_zero_to_one_is_refused(cl100k, p):
    with pytest.raises(ValueError, match="probability of dropping a merge"):
        bpe_dropout.encode(cl100k, "hello", p, 0)


def test_text_must_be_a_str(cl100k):
    with pytest.raises(TypeError, match="text must be a str"):
        bpe_dropout.encode(cl100k, b"hello", 0.1, 0)


def test_merge_ranks_are_merge_order_whatever_the_ids(tok, cl100k):
    assert tok.merge_ranks == {a + b: k for k, (a, b) in enumerate(tok.merges)}
    assert cl100k.merge_ranks == cl100k.ranks
