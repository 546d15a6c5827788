"""The BPE algorithms: reference fixtures, the lesson's examples, and fast == naive everywhere."""

import json
import time
import warnings
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import bpe, bpe_fast, bpe_long_chunks, data, patterns


def gpt2_printable_bytes() -> dict[str, int]:
    """GPT-2 writes each byte as a printable character (space -> 'Ġ'); CS336's fixtures use it."""
    keep = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    chars = {b: chr(b) for b in keep}
    shifted = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + shifted)
            shifted += 1
    return {c: b for b, c in chars.items()}


def from_gpt2_text(token: str) -> bytes:
    table = gpt2_printable_bytes()
    return bytes(table[c] for c in token)


def test_cs336_reference_merges_and_vocab():
    text = data.read_text("cs336/corpus.en")
    start = time.perf_counter()
    vocab, merges = bpe.train(text, 500, pattern="gpt2", special_tokens=["<|endoftext|>"])
    elapsed = time.perf_counter() - start
    reference = []
    for line in data.read_text("cs336/train-bpe-reference-merges.txt").splitlines():
        left, right = line.split(" ")
        reference.append((from_gpt2_text(left), from_gpt2_text(right)))
    assert len(reference) == 243
    assert merges == reference
    ref_vocab = json.loads(data.read_text("cs336/train-bpe-reference-vocab.json"))
    expected = {k.encode() if k == "<|endoftext|>" else from_gpt2_text(k) for k in ref_vocab}
    assert set(vocab.values()) == expected
    assert len(vocab) == 500
    assert vocab[499] == b"<|endoftext|>"  # specials come after the merges
    print(f"CS336 training took {elapsed:.2f} s")


def test_the_wikipedia_example():
    vocab, merges = bpe.train("aaabdaaabac", 259)
    assert merges == [(b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]
    ranks = {token: i for i, token in vocab.items()}
    ids = []
    for chunk in ["aaabdaaabac"]:
        ids += bpe.encode_chunk(chunk.encode(), ranks)
    assert ids == [258, 100, 258, 97, 99]


def test_pairs_overlap_and_merge_goes_left_to_right():
    assert bpe.get_stats([97, 97, 97]) == {(97, 97): 2}
    assert bpe.get_stats([1, 2, 1, 2], weight=3) == {(1, 2): 6, (2, 1): 3}
    assert bpe.merge([97, 97, 97], (97, 97), 256) == [256, 97]
    assert bpe.merge([97, 97, 97, 97], (97, 97), 256) == [256, 256]
    assert bpe.merge([1, 2, 3, 1, 2], (1, 2), 9) == [9, 3, 9]


def test_ties_take_the_greatest_bytes():
    # "ab" and "cd" both occur twice: (b"c", b"d") > (b"a", b"b"), so "cd" is merged first.
    _, merges = bpe.train("abcdabcd", 257)
    assert merges == [(b"c", b"d")]
    # In "aaabdaaabac", after "aa" the pairs (aa, a) and (a, b) tie at 2: b"aa" > b"a" wins.
    for method in ("naive", "fast"):
        assert bpe.train("aaabdaaabac", 258, method=method)[1][1] == (b"aa", b"a")


def test_special_tokens_are_never_merged_across():
    text = "ab<|endoftext|>ab<|endoftext|>ab"
    vocab, merges = bpe.train(text, 258, special_tokens=["<|endoftext|>"], method="naive")
    assert all(b"<" not in left + right for left, right in merges)
    assert vocab[max(vocab)] == b"<|endoftext|>"


def test_vocab_size_too_small_says_the_minimum():
    with pytest.raises(ValueError, match="at least 257"):
        bpe.train("hello", 256, special_tokens=["<|endoftext|>"])


def test_vocab_larger_than_text_allows_stops_and_says_so():
    with pytest.warns(UserWarning, match="stopped after 4 of 744 merges"):
        vocab, merges = bpe.train("hello", 1000)
    assert len(merges) == 4 and len(vocab) == 260


@pytest.mark.parametrize(
    "train", [bpe.train, lambda *a: bpe.train_from_counts(Counter([b"hello"]), a[1])]
)
def test_a_request_is_checked_once_and_the_warning_names_the_callers_line(train, monkeypatch):
    calls = []
    check = bpe.check_request
    monkeypatch.setattr(bpe, "check_request", lambda *a: calls.append(a) or check(*a))
    with pytest.warns(UserWarning, match="stopped after") as caught:
        train("hello", 1000)
    assert len(calls) == 1
    assert caught[0].filename == __file__


@pytest.mark.parametrize("bad", [b"bytes", None, ["a"]])
def test_text_must_be_str(bad):
    with pytest.raises(TypeError, match="must be a str"):
        bpe.train(bad, 300)


def test_bad_arguments():
    with pytest.raises(ValueError, match="method"):
        bpe.train("abc", 300, method="quick")
    with pytest.raises(TypeError, match="special_tokens"):
        bpe.train("abc", 300, special_tokens="<|endoftext|>")
    with pytest.raises(ValueError, match="invalid split pattern"):
        bpe.train("abc", 300, pattern="(unclosed")


# -- fast == naive ---------------------------------------------------------------------------

ALPHABET = "aab \n\t.'0123ééह्िन👋"  # ties, runs, punctuation, digits, combining marks, 4-byte chars
texts = st.lists(st.sampled_from([*ALPHABET, "<|endoftext|>", "aaaa"]), max_size=60).map("".join)


def both_methods(text, vocab_size, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small texts run out of pairs; that is expected here
        return [bpe.train(text, vocab_size, method=m, **kw) for m in ("naive", "fast")]


@settings(max_examples=examples(300), deadline=None)
@given(
    text=texts,
    extra=st.integers(0, 40),
    pattern=st.sampled_from([None, "gpt2", "gpt4", "gpt4o"]),
    special=st.booleans(),
)
def test_fast_equals_naive_on_generated_text(text, extra, pattern, special):
    specials = ["<|endoftext|>"] if special else []
    naive, fast = both_methods(
        text, 256 + len(specials) + extra, pattern=pattern, special_tokens=specials
    )
    assert fast == naive


@settings(max_examples=examples(300), deadline=None)
@given(
    text=texts,
    extra=st.integers(0, 40),
    pattern=st.sampled_from([None, "gpt4"]),
    special=st.booleans(),
    long_chunks=st.booleans(),
)
def test_both_bookkeepings_equal_naive(text, extra, pattern, special, long_chunks):
    """The fast trainer keeps its books as strings (short chunks) or as places in arrays (long
    chunks, `bpe_long_chunks`); it chooses by the chunks' lengths, and either gives the merges of
    the naive loop on any text. Repeated chunks (weights above 1) come from the pattern."""
    specials = ["<|endoftext|>"] if special else []
    words = bpe.chunk_counts(text, pattern, specials)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        naive = bpe.train_from_counts(words, 256 + len(specials) + extra, specials, "naive")[1]
    assert bpe_fast.train_fast(words, extra, long_chunks=long_chunks) == naive


def test_a_text_without_a_pattern_is_trained_on_token_places(monkeypatch):
    """One long chunk goes to `LongChunks`, whose merges cost the places they change (a string
    would be copied whole by every merge); words stay with the string books."""
    merged = []
    merge = bpe_long_chunks.LongChunks.merge
    monkeypatch.setattr(
        bpe_long_chunks.LongChunks,
        "merge",
        lambda self, *args: merged.append(args) or merge(self, *args),
    )
    text = data.read_text("the-verdict")[:5000]
    assert bpe.train(text, 300) == bpe.train(text, 300, method="naive")
    assert len(merged) == 44
    bpe.train(text, 300, "gpt4")
    assert len(merged) == 44


@pytest.mark.parametrize("text", ["", "a", "aa", "aaaaaa", "ababab", "\u00e9" * 7])
def test_fast_equals_naive_on_edge_cases(text):
    naive, fast = both_methods(text, 270)
    assert fast == naive


def test_fast_equals_naive_on_real_text():
    text = data.read_text("the-verdict")[:6000] + data.read_text("ramcharitmanas")[:6000]
    for pattern in ("gpt4", None):
        naive, fast = both_methods(text, 400, pattern=pattern)
        assert fast == naive
    words = bpe.chunk_counts(text)  # one chunk: the long-chunk books; now the string ones too
    assert bpe_fast.is_long(list(words))
    assert bpe_fast.train_fast(words, 144, long_chunks=False) == naive[1]


# -- encoding one chunk ----------------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(train_text=texts, text=texts)
def test_rank_driven_encoding_equals_replaying_merges(train_text, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vocab, merges = bpe.train(train_text, 300)
    ranks = {token: i for i, token in vocab.items()}
    data_bytes = text.encode("utf-8")
    fast = bpe.encode_chunk(data_bytes, ranks)
    assert b"".join(vocab[i] for i in fast) == data_bytes
    if data_bytes not in ranks:  # a whole-chunk token is taken directly, as tiktoken does
        assert fast == bpe.encode_chunk_naive(data_bytes, merges)


def test_patterns_resolve_names_and_split_specials():
    assert patterns.resolve("gpt4") == patterns.GPT4_PATTERN
    assert patterns.resolve(None) is None
    assert patterns.split_text("dog. dog! dog?", "gpt2") == ["dog", ".", " dog", "!", " dog", "?"]
    # Longest special first when one is a prefix of another.
    pieces = patterns.split_on_special("x<|end|><|endoftext|>y", ["<|end|>", "<|endoftext|>"])
    assert pieces == ["x", "<|end|>", "<|endoftext|>", "y"]
    assert patterns.split_on_special("a<|endoftext|>", ["<|end", "<|endoftext|>"]) == [
        "a",
        "<|endoftext|>",
    ]
