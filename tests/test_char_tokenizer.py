"""Unit tests of lib.char_tokenizer.CharTokenizer (lesson 2)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lib.char_tokenizer import CharTokenizer

CORPUS = "hello world, नमस्ते दुनिया 👋"


def test_vocabulary_is_sorted_unique_characters():
    tok = CharTokenizer.train("banana")
    assert tok.chars == ["a", "b", "n"]
    assert tok.vocab_size == 3
    assert tok.encode("banana") == [1, 0, 2, 0, 2, 0]


def test_doctest_example():
    tok = CharTokenizer.train("hello world")
    assert tok.encode("hello") == [3, 2, 4, 4, 5]


@given(st.text())
def test_round_trip_on_its_own_corpus(text):
    tok = CharTokenizer.train(text)
    assert tok.decode(tok.encode(text)) == text
    assert len(tok.encode(text)) == len(text)


def test_round_trip_multilingual():
    tok = CharTokenizer.train(CORPUS)
    assert tok.decode(tok.encode("नमस्ते 👋 hello")) == "नमस्ते 👋 hello"


def test_error_policy_names_character_code_point_and_position():
    tok = CharTokenizer.train(CORPUS)
    with pytest.raises(ValueError) as info:
        tok.encode("hello dé")
    message = str(info.value)
    assert "'é'" in message and "U+00E9" in message and "position 7" in message
    assert 'unknown="unk"' in message and 'unknown="bytes"' in message  # says what to do


def test_unk_policy_reserves_the_last_id():
    tok = CharTokenizer.train("abc", unknown="unk")
    assert tok.vocab_size == 4
    assert tok.unk_id == 3
    assert tok.encode("abxc") == [0, 1, 3, 2]
    assert tok.decode([0, 1, 3, 2]) == "ab<unk>c"


def test_byte_fallback_spells_unseen_characters_as_utf8_bytes():
    tok = CharTokenizer.train("abc", unknown="bytes")
    assert tok.vocab_size == 3 + 256
    assert tok.byte_offset == 3
    assert tok.encode("aé") == [0, 3 + 0xC3, 3 + 0xA9]
    assert tok.decode(tok.encode("a👋é c")) == "a👋é c"
    assert tok.compression_ratio("é") == 1.0  # two bytes, two tokens
    assert tok.decode([3 + 0xC3]) == "\ufffd"  # half a character: replaced, never an exception


@given(st.text(), st.text())
def test_byte_fallback_round_trips_any_text(corpus, text):
    tok = CharTokenizer.train(corpus, unknown="bytes")
    assert tok.decode(tok.encode(text)) == text


def test_error_policy_has_no_extra_ids():
    tok = CharTokenizer.train("abc")
    assert tok.vocab_size == 3
    assert tok.unk_id is None and tok.byte_offset is None
    with pytest.raises(ValueError, match="id 3 is not in the vocabulary"):
        tok.decode([0, 3])


@pytest.mark.parametrize(
    "policy, bad_id",
    [("unk", -1), ("unk", 4), ("error", 3), ("bytes", 3 + 256), ("unk", "a"), ("unk", 1.0)],
)
def test_decode_rejects_ids_outside_the_vocabulary(policy, bad_id):
    tok = CharTokenizer.train("abc", unknown=policy)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tok.decode([0, bad_id])


def test_compression_ratio_is_utf8_bytes_per_token():
    tok = CharTokenizer.train(CORPUS)
    assert tok.compression_ratio("hello") == 1.0
    assert tok.compression_ratio("नमस्ते") == 3.0  # Devanagari code points are 3 bytes each
    assert tok.compression_ratio("h👋") == 2.5
    with pytest.raises(ValueError, match="empty"):
        tok.compression_ratio("")


@pytest.mark.parametrize("bad_text", [b"abc", None, ["a", "b"], 42])
def test_non_str_text_raises_type_error(bad_text):
    with pytest.raises(TypeError, match="must be a str"):
        CharTokenizer.train(bad_text)
    with pytest.raises(TypeError, match="must be a str"):
        CharTokenizer.train("abc").encode(bad_text)


def test_bad_policy_and_bad_vocabulary_entries():
    with pytest.raises(ValueError, match="unknown must be"):
        CharTokenizer.train("abc", unknown="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one character"):
        CharTokenizer(["ab", "c"])


def test_constructor_from_characters_and_empty_corpus():
    assert CharTokenizer("cab").chars == ["a", "b", "c"]
    empty = CharTokenizer.train("", unknown="unk")
    assert empty.vocab_size == 1
    assert empty.encode("xy") == [0, 0]
    assert repr(empty) == "CharTokenizer(vocab_size=1, unknown='unk')"
