"""The Tokenizer as a library type: checked on construction, immutable, tiktoken's special rules."""

import random
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import Tokenizer, bpe, data

TEXT = data.read_text("the-verdict")[:20000]


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.train(TEXT, 400, pattern="gpt2", special_tokens=["<|endoftext|>"])


def byte_vocab():
    return {i: bytes([i]) for i in range(256)}


# -- merges decide, not ids ---------------------------------------------------------------------


def test_merge_order_is_the_rank_whatever_the_ids(tok):
    """Shuffle the ids of the merged tokens: the same pieces must come out, under the new ids."""
    merged = list(range(256, 256 + len(tok.merges)))
    shuffled = merged[:]
    random.Random(0).shuffle(shuffled)
    new_id = dict(zip(merged, shuffled, strict=True))
    vocab = {new_id.get(i, i): token for i, token in tok.vocab.items() if i < 256 + len(merged)}
    other = Tokenizer(vocab, tok.merges, tok.pattern, special_tokens=["<|endoftext|>"])
    sample = "I had always thought Jack Gisburn rather a cheap genius."
    assert other.encode(sample) == [new_id.get(i, i) for i in tok.encode(sample)]
    assert other.special_tokens == {"<|endoftext|>": 256 + len(merged)}
    with pytest.raises(ValueError, match="not in merge order"):
        other.to_tiktoken()


def test_special_tokens_as_a_list_or_a_dict(tok):
    as_list = Tokenizer(tok.vocab, tok.merges, tok.pattern, special_tokens=["<|endoftext|>"])
    assert as_list.special_tokens == tok.special_tokens == {"<|endoftext|>": 399}
    vocab = {i: t for i, t in tok.vocab.items() if i != 399}
    added = Tokenizer(vocab, tok.merges, special_tokens=["<|a|>", "<|b|>", "<|a|>"])
    assert added.special_tokens == {"<|a|>": 399, "<|b|>": 400}
    assert added.vocab[400] == b"<|b|>" and added.decode([399]) == "<|a|>"
    from_generator = Tokenizer.train(TEXT, 300, special_tokens=(s for s in ["<|a|>"]))
    assert from_generator.special_tokens == {"<|a|>": 299}


# -- checked on construction --------------------------------------------------------------------


@pytest.mark.parametrize(
    "vocab, merges, specials, error, message",
    [
        ({}, [], None, ValueError, r"no token for byte 0x00 \(256 of the 256"),
        ({**byte_vocab(), 256: b"a"}, [], None, ValueError, "ids 97 and 256 both stand for b'a'"),
        (
            byte_vocab(),
            [(b"a", b"b")],
            None,
            ValueError,
            r"merge 0 .* makes b'ab', which is not in",
        ),
        ({**byte_vocab(), 256: b"ab"}, [(b"a", b"b"), (b"ab", b"c")], None, ValueError, "merge 1"),
        ({**byte_vocab(), 256: b"ab"}, [(b"a", b"b")] * 2, None, ValueError, "appears twice"),
        ({**byte_vocab(), 256: b"ab"}, [(b"a", "b")], None, TypeError, "merge 0 must be bytes"),
        ({**byte_vocab(), 256: b"ab"}, [(b"ab",)], None, ValueError, "must be a pair"),
        ({**byte_vocab(), -1: b"ab"}, [], None, ValueError, "vocab id must be a non-negative"),
        ({**byte_vocab(), 256: "ab"}, [], None, TypeError, r"vocab\[256\] must be bytes"),
        (byte_vocab(), [], {"<|a|>": 97}, ValueError, "'<|a|>' has id 97, which the vocabulary"),
        (byte_vocab(), [], {"<|a|>": 300, "<|b|>": 300}, ValueError, "both have id 300"),
        (byte_vocab(), [], ["<|a|>", ""], ValueError, "non-empty valid text, got ''"),
        (byte_vocab(), [], ["\ud800"], ValueError, "non-empty valid text"),
        (byte_vocab(), [], "<|a|>", TypeError, "a list or a dict"),
        ([b"a"], [], None, TypeError, "vocab must be a dict"),
    ],
)
def test_bad_parts_are_named(vocab, merges, specials, error, message):
    with pytest.raises(error, match=message):
        Tokenizer(vocab, merges, special_tokens=specials)


def test_options_are_keyword_only(tok):
    with pytest.raises(TypeError):
        tok.encode("hi", "all")
    with pytest.raises(TypeError):
        Tokenizer(byte_vocab(), [], None, ["<|a|>"])
    with pytest.raises(TypeError, match="merges is required"):
        Tokenizer(byte_vocab(), None)


def test_nothing_can_drift(tok):
    with pytest.raises(TypeError):
        tok.vocab[0] = b"x"
    with pytest.raises(TypeError):
        tok.ranks[b"x"] = 0
    with pytest.raises(TypeError):
        tok.special_tokens["<|x|>"] = 5
    with pytest.raises(AttributeError):
        tok.vocab = {}
    tok.merges.append((b"a", b"b"))  # a copy: the tokenizer does not change
    assert len(tok.merges) == 143 and tok.n_vocab == 400


def test_unknown_ids_and_repr():
    small = Tokenizer(byte_vocab(), [])
    assert repr(small) == "Tokenizer(name='custom', n_vocab=256, special_tokens=[])"
    for bad in (256, -1, "x", None, [1]):
        with pytest.raises(ValueError, match=re.escape(f"token id {bad!r} is not in")):
            small.decode([104, bad])
    assert small.encode("hé") == [104, 0xC3, 0xA9]


def test_fast_and_naive_agree_beyond_the_unicode_range():
    """vocab_size past chr()'s limit once overflowed the fast trainer; both now just run out."""
    results = []
    for method in ("fast", "naive"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(bpe.train("abracadabra " * 5, 0x110000 + 7, method=method))
        assert "no pair of adjacent tokens is left" in str(caught[0].message)
    assert results[0] == results[1] and len(results[0][1]) == 11


# -- special tokens exactly as tiktoken ---------------------------------------------------------

ALPHABET = "<|ab>"
special_sets = st.lists(
    st.text(ALPHABET, min_size=1, max_size=4), min_size=1, max_size=4, unique=True
).filter(  # where one token is a prefix of another, tiktoken's pick depends on its hash map
    lambda ss: not any(a != b and b.startswith(a) for a in ss for b in ss)
)


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), specials=special_sets)
def test_allowed_and_disallowed_match_tiktoken(tok, data, specials):
    base = tok
    vocab = {i: t for i, t in base.vocab.items() if i not in base.special_tokens.values()}
    ours = Tokenizer(vocab, base.merges, base.pattern, special_tokens=specials)
    theirs = ours.to_tiktoken()
    names = st.sampled_from([*specials, "zz", "<|"])  # with names that are no special token
    choice = st.just("all") | st.frozensets(names, max_size=3)
    allowed = data.draw(choice, "allowed")
    disallowed = data.draw(choice | st.just(()), "disallowed")
    text = data.draw(st.text(ALPHABET + " xz", max_size=30), "text")

    def run(encoder):
        try:
            return encoder.encode(text, allowed_special=allowed, disallowed_special=disallowed)
        except ValueError:
            return "ValueError"

    assert run(ours) == run(theirs)
    if run(ours) != "ValueError":
        lazy = ours.encode_iterable(
            [text[:7], text[7:9], text[9:]], allowed_special=allowed, disallowed_special=disallowed
        )
        assert list(lazy) == run(ours)


def test_longest_special_wins_where_two_start_together():
    base = Tokenizer(byte_vocab(), [])
    tok = Tokenizer(base.vocab, [], special_tokens=["<|a", "<|a|>"])
    assert tok.encode("<|a|>", allowed_special="all") == [257]
    # The longest match is not allowed, so that place is plain text: a shorter one is not tried.
    assert tok.encode("<|a|>", allowed_special={"<|a"}, disallowed_special=()) == list(b"<|a|>")
