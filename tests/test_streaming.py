"""The streaming decoder: its chunks join to the full decoding, with no '�' for valid text."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lib.streaming import StreamingDecoder

TEXTS = [
    "नमस्ते दुनिया, आप कैसे हैं?",  # Devanagari: 3-byte characters, often cut by cl100k_base
    "Hi 👋🏽 and 👨‍👩‍👧 family",  # 4-byte emoji, a skin-tone modifier, a ZWJ sequence
    "안녕하세요 你好 Привет",
    "plain ASCII text",
]


class ByteTokenizer:
    """The harshest tokenizer for a streaming decoder: every token is a single byte."""

    def decode_bytes(self, tokens: list[int]) -> bytes:
        return bytes(tokens)


@pytest.fixture(scope="module")
def cl100k():
    from lib import data

    return data.tiktoken_encoding("cl100k_base")


def stream(decoder: StreamingDecoder, ids: list[int]) -> list[str]:
    """Feed ids one by one; return every chunk, the flush included."""
    return [decoder.feed(i) for i in ids] + [decoder.flush()]


@pytest.mark.parametrize("text", TEXTS)
def test_single_bytes_rebuild_the_text_without_replacement_chars(text):
    chunks = stream(StreamingDecoder(ByteTokenizer()), list(text.encode("utf-8")))
    assert "".join(chunks) == text
    assert not any("\ufffd" in chunk for chunk in chunks)
    # A chunk is empty exactly while a character waits for its continuation bytes.
    assert sum(1 for chunk in chunks if chunk) <= len(text) + 1


@pytest.mark.parametrize("text", TEXTS)
def test_cl100k_token_by_token_equals_decode(cl100k, text):
    ids = cl100k.encode(text)
    chunks = stream(StreamingDecoder(cl100k), ids)
    assert "".join(chunks) == cl100k.decode(ids)
    assert not any("\ufffd" in chunk for chunk in chunks)


def test_our_trained_tokenizer_streams_like_it_decodes():
    from lib import Tokenizer

    # No split pattern, so merges freely cross character boundaries.
    tok = Tokenizer.train(" ".join(TEXTS) * 3, vocab_size=300)
    for text in TEXTS:
        ids = tok.encode(text)
        chunks = stream(StreamingDecoder(tok), ids)
        assert "".join(chunks) == tok.decode(ids) == text
        assert not any("\ufffd" in chunk for chunk in chunks)


def test_cl100k_really_splits_characters(cl100k):
    """Guard for the test above: the Hindi text must contain tokens that are not valid UTF-8."""
    pieces = [cl100k.decode_single_token_bytes(i) for i in cl100k.encode(TEXTS[0])]
    assert any(not _is_utf8(piece) for piece in pieces)


def test_feed_accepts_a_list_and_holds_back_a_partial_character():
    dec = StreamingDecoder(ByteTokenizer())
    emoji = "👋".encode()
    assert dec.feed(list(b"ok " + emoji[:2])) == "ok "
    assert dec.pending == emoji[:2]
    assert dec.feed(list(emoji[2:])) == "👋"
    assert dec.pending == b""
    assert dec.flush() == ""


def test_flush_replaces_an_unfinished_character_and_resets():
    dec = StreamingDecoder(ByteTokenizer())
    assert dec.feed(list("€".encode()[:2])) == ""
    assert dec.flush() == "\ufffd"
    assert dec.feed(list(b"fresh")) == "fresh"


def test_strict_raises_on_bytes_that_can_never_be_valid():
    strict = StreamingDecoder(ByteTokenizer(), errors="strict")
    assert strict.feed(0xE2) == ""  # the start of a 3-byte character: fine, wait
    with pytest.raises(UnicodeDecodeError):
        strict.feed(0x41)  # 'A' cannot continue it
    with pytest.raises(UnicodeDecodeError):
        StreamingDecoder(ByteTokenizer(), errors="strict").feed(0xFF)


def test_replace_matches_bytes_decode_on_invalid_input():
    data = b"ab\xff\xe2\x82cd\xe2"
    chunks = stream(StreamingDecoder(ByteTokenizer()), list(data))
    assert "".join(chunks) == data.decode("utf-8", errors="replace")


@given(st.text(max_size=40), st.data())
def test_any_text_any_chunking_round_trips(text, data):
    raw = list(text.encode("utf-8"))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=8)))
    dec = StreamingDecoder(ByteTokenizer(), errors="strict")
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    assert "".join(dec.feed(p) for p in pieces) + dec.flush() == text


def _is_utf8(piece: bytes) -> bool:
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
