"""The batch encoder (`lib.bpe_batch`) gives exactly the ids of the one-chunk encoders: the lesson's
merge loop (`bpe.encode_chunk_naive`) and the rank-driven loop (`bpe.encode_chunk`)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import Tokenizer, bpe, bpe_batch, data, patterns, tokenizer_encoder

# Short strings over few letters, so that a small vocabulary finds many merges in them.
ALPHABET = "ab c\u00e9"
words = st.text(ALPHABET, min_size=1, max_size=30)


def trained(text: str, vocab_size: int) -> tuple[dict, list, dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a short text runs out of pairs: fine here
        vocab, merges = bpe.train(text, vocab_size)
    return vocab, merges, {token: i for i, token in vocab.items()}


@settings(max_examples=examples(150), deadline=None)
@given(train_text=st.text(ALPHABET, max_size=200), chunks=st.lists(words, min_size=1, max_size=40))
def test_batch_equals_the_merge_loop_for_a_trained_tokenizer(train_text, chunks):
    vocab, merges, ranks = trained(train_text, 300)
    table = bpe_batch.PairTable(ranks, ranks)
    datas = [c.encode() for c in chunks if c.encode() not in ranks]  # whole tokens: not batched
    assert bpe_batch.encode_chunks(datas, table) == [
        bpe.encode_chunk_naive(d, merges) for d in datas
    ]


@st.composite
def scrambled_vocabularies(draw):
    """Every byte, then random tokens over "abc" with random ranks: a token may rank before its
    own parts, or be unreachable, as in tiktoken's files (o200k_base has 71,000 such cuts)."""
    tokens = draw(st.sets(st.text("abc", min_size=2, max_size=5), min_size=1, max_size=40))
    ranks = draw(st.permutations(range(256, 256 + len(tokens))))
    vocab = {bytes([b]): b for b in range(256)}
    vocab.update({t.encode(): r for t, r in zip(sorted(tokens), ranks, strict=True)})
    return vocab


@settings(max_examples=examples(300), deadline=None)
@given(ranks=scrambled_vocabularies(), chunks=st.lists(st.binary(min_size=1), max_size=20))
def test_batch_equals_the_rank_driven_loop_on_any_ranks(ranks, chunks):
    """Ranks in no order at all: a new pair can rank below the pairs already there, which is
    why a round joins only each chunk's lowest pair."""
    datas = [c.translate(bytes(b"abc"[b % 3] for b in range(256))) for c in chunks]
    datas = [d for d in datas if d not in ranks]
    table = bpe_batch.PairTable(ranks, ranks)
    assert bpe_batch.encode_chunks(datas, table) == [bpe.encode_chunk(d, ranks) for d in datas]


def test_long_chunks_and_compaction():
    """Chunks of very different lengths: the short ones finish and are dropped from the arrays
    (compaction) while the long ones go on; in one batch, and in batches sorted by length."""
    text = data.read_text("the-verdict")
    vocab, merges, ranks = trained(text[:10_000], 600)
    starts = range(10_000, 15_000, 97)
    datas = [text[i : i + n].encode() for n in (1, 2, 3, 50, 400) for i in starts]
    datas = [d for d in datas if d not in ranks]
    table = bpe_batch.PairTable(ranks, ranks)
    expected = [bpe.encode_chunk(d, ranks) for d in datas]
    assert bpe_batch.encode_chunks(datas, table) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bpe_batch, "_BATCH_BYTES", 500)  # many batches, by length, then unsorted
        assert bpe_batch.encode_chunks(datas, table) == expected
    assert bpe_batch.encode_chunks([], table) == []


def test_the_pair_table_holds_every_cut_of_every_token():
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 300, b"bc": 256, b"abc": 257}
    table = bpe_batch.PairTable(ranks, ranks)
    left = np.array([ord("a"), 300, ord("a"), ord("b"), ord("c")])
    right = np.array([ord("b"), ord("c"), 256, ord("c"), ord("a")])
    assert table.lookup(left, right).tolist() == [300, 257, 257, 256, bpe_batch._NONE]


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def tiktoken_pair(request):
    return Tokenizer.from_tiktoken(request.param), data.tiktoken_encoding(request.param)


@settings(max_examples=examples(60), deadline=None)
@given(texts=st.lists(st.text(st.characters(exclude_categories=("Cn",))), min_size=20))
def test_batched_tokenizer_equals_tiktoken_on_random_text(tiktoken_pair, texts):
    """Every chunk new and batched, however few (`BATCH_FROM` set to 1), on random text."""
    ours, ref = tiktoken_pair
    text = " ".join(texts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tokenizer_encoder, "BATCH_FROM", 1)
        ours._plain.cache.clear()
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_each_distinct_new_chunk_is_batched_once(tiktoken_pair, monkeypatch):
    ours, ref = tiktoken_pair
    encode_chunks, batches = bpe_batch.encode_chunks, []

    def counted(chunks, table):
        batches.append(list(chunks))
        return encode_chunks(chunks, table)

    monkeypatch.setattr(bpe_batch, "encode_chunks", counted)
    monkeypatch.setattr(tokenizer_encoder, "BATCH_FROM", 1)
    ours._plain.cache.clear()
    text = " Karpathian tokenizers and the dogs, Karpathian dogs" * 3
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    distinct = {c.encode() for c in patterns.split_text(text, ours.pattern)}
    assert len(batches) == 1
    assert sorted(batches[0]) == sorted(c for c in distinct if c not in ours.ranks)
    assert b" Karpathian" in batches[0]


def test_a_trained_tokenizer_encodes_the_same_batched_or_chunk_by_chunk():
    """A trained tokenizer's merge ranks are not its ids (ranks 0.., ids 256..): the batch maps
    one to the other."""
    text = data.read_text("the-verdict")
    tok = Tokenizer.train(text[:10_000], 400, "gpt4")
    assert tok._merge_rank is not tok._token_id
    encodings = []
    for batch_from in (1, 10**9):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tokenizer_encoder, "BATCH_FROM", batch_from)
            tok._plain.cache.clear()
            encodings.append(tok.encode_ordinary(text[10_000:]))
    assert encodings[0] == encodings[1]
