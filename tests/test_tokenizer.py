"""Tokenizer: round trips, special tokens, files, tiktoken export, and clear errors on bad input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import Tokenizer, data
from lib.tokenizer_text_format import escape, unescape

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def tok():
    text = data.read_text("the-verdict") + data.read_text("ramcharitmanas")[:20000]
    return Tokenizer.train(text, 600, pattern="gpt4", special_tokens=[EOT, "<|end|>"])


@pytest.fixture(scope="module")
def special_tok():  # one special token (line 6), then merges: 256 is the first (line 8)
    return Tokenizer.train(data.read_text("the-verdict"), 300, special_tokens=[EOT])


@pytest.fixture(scope="module")
def raw_tok():
    return Tokenizer.train(data.read_text("the-verdict"), 400)  # no pattern: one byte stream


any_text = st.text(st.characters(codec="utf-8"), max_size=200) | st.text(
    st.sampled_from(list(" \n\r\t aé'sDOG123नमस्ते👋🏽‍")), max_size=60
)


@settings(max_examples=examples(300), deadline=None)
@given(text=any_text)
def test_decode_encode_round_trip(tok, raw_tok, text):
    for t in (tok, raw_tok):
        assert t.decode(t.encode(text)) == text
        assert t.decode(t.encode_ordinary(text)) == text


@settings(max_examples=examples(200), deadline=None)
@given(text=any_text)
def test_to_tiktoken_encodes_like_encode(tok, raw_tok, text):
    for t, enc in ((tok, tok_tiktoken(tok)), (raw_tok, tok_tiktoken(raw_tok))):
        assert enc.encode(text) == t.encode(text)
        assert enc.encode(text + EOT, allowed_special="all") == t.encode(
            text + EOT, allowed_special="all"
        )


_exported = {}


def tok_tiktoken(t):
    if id(t) not in _exported:
        _exported[id(t)] = t.to_tiktoken()
    return _exported[id(t)]


def test_layout_of_a_trained_vocabulary(tok):
    assert len(tok.vocab) == 600 and len(tok.merges) == 342
    assert tok.vocab[256] == tok.merges[0][0] + tok.merges[0][1]
    assert tok.special_tokens == {EOT: 598, "<|end|>": 599}
    assert tok.encode(EOT, allowed_special="all") == [tok.special_tokens[EOT]]


def test_special_tokens_follow_tiktoken(tok):
    text = f"hi {EOT} there<|end|>"
    with pytest.raises(ValueError, match=r"special token '<\|endoftext\|>'.*disallowed"):
        tok.encode(text)
    assert tok.encode(text, disallowed_special=()) == tok.encode_ordinary(text)
    both = tok.encode(text, allowed_special="all")
    assert tok.special_tokens[EOT] in both and tok.special_tokens["<|end|>"] in both
    only_eot = tok.encode(text, allowed_special={EOT}, disallowed_special=())
    assert tok.special_tokens[EOT] in only_eot and tok.special_tokens["<|end|>"] not in only_eot
    with pytest.raises(ValueError, match=r"<\|end\|>"):
        tok.encode(text, allowed_special={EOT})
    # Names that are not special tokens: ignored when allowed, searched for when disallowed.
    plain = "hi <|nope|>"
    assert tok.encode(plain, allowed_special={"<|nope|>"}) == tok.encode_ordinary(plain)
    with pytest.raises(ValueError, match=r"<\|nope\|>"):
        tok.encode(plain, disallowed_special={"<|nope|>"})
    with pytest.raises(TypeError, match='"all" or a collection'):
        tok.encode(text, allowed_special=EOT)


def test_unknown_id_names_the_id(tok):
    with pytest.raises(ValueError, match="token id 123456 is not in"):
        tok.decode([1, 123456])
    with pytest.raises(ValueError, match="token id 'x'"):
        tok.decode([1, "x"])


def test_invalid_utf8_is_replaced_or_raises(tok):
    ids = tok.encode("ह")  # three bytes; a lone first byte is not valid UTF-8
    first_byte = [tok.ranks[b"\xe0"]]
    assert tok.decode(ids) == "ह"
    assert tok.decode(first_byte) == "\ufffd"
    with pytest.raises(UnicodeDecodeError):
        tok.decode(first_byte, errors="strict")
    assert tok.decode_bytes(first_byte) == b"\xe0"


@pytest.mark.parametrize("bad", [b"bytes", None, 42])
def test_non_str_text_is_a_type_error(tok, bad):
    with pytest.raises(TypeError, match="text must be a str"):
        tok.encode(bad)
    with pytest.raises(TypeError, match="text must be a str"):
        Tokenizer.train(bad, 300)


def test_lone_surrogates_become_replacement_characters(tok):
    assert tok.decode(tok.encode("a\ud800b")) == "a\ufffdb"
    assert (
        tok.decode(tok.encode("\ud83d\ude00")) == "😀"
    )  # a valid pair is joined, as tiktoken does


@settings(max_examples=examples(300), deadline=None)
@given(
    token=st.binary(max_size=12)
    | st.text(max_size=8).map(lambda s: s.encode("utf-8", "surrogatepass"))
)
def test_escape_round_trips_and_has_no_spaces(token):
    assert unescape(escape(token)) == token
    assert " " not in escape(token) and "\n" not in escape(token)


# -- files -----------------------------------------------------------------------------------


def assert_same(a: Tokenizer, b: Tokenizer):
    assert (a.vocab, a.merges, a.pattern, a.special_tokens, a.name) == (
        b.vocab,
        b.merges,
        b.pattern,
        b.special_tokens,
        b.name,
    )


def test_save_load_round_trip(tok, raw_tok, tmp_path):
    for t in (tok, raw_tok):
        path = tmp_path / "tok.txt"
        t.save(path)
        assert_same(Tokenizer.load(path), t)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("lib.Tokenizer v1\n") and "merges 144\n" in text


def test_save_load_a_tiktoken_encoding(tmp_path):
    gpt2 = Tokenizer.from_tiktoken("gpt2")  # byte ids are not 0..255 here
    gpt2.save(tmp_path / "gpt2.txt")
    loaded = Tokenizer.load(tmp_path / "gpt2.txt")
    assert_same(loaded, gpt2)
    sample = "Hello, world! Ünïcödé and <|endoftext|>"
    assert loaded.encode(sample, allowed_special="all") == data.tiktoken_encoding("gpt2").encode(
        sample, allowed_special="all"
    )


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda lines: ["lib.Tokenizer v2", *lines[1:]], r"line 1: .*reads lib.Tokenizer v1"),
        (lambda lines: ["hello", *lines[1:]], r"line 1: not a tokenizer file"),
        (lambda lines: [], r"line 1: not a tokenizer file"),
        (lambda lines: lines[:-3], r"line \d+: the file ends where a merge should be"),
        (
            lambda lines: lines[:2] + ["pattern {nope"] + lines[3:],
            r"line 3: expected a JSON string",
        ),
        (lambda lines: lines[:-1] + ["999 a"], r"line \d+: expected an id and two tokens"),
        (lambda lines: lines[:-1] + ["999 \\q b"], r"line \d+: expected an id and two tokens"),
        (
            lambda lines: lines[:-1] + ["999 zzzzzz b"],
            r"line \d+: merge 999 joins tokens that do not",
        ),
        (lambda lines: lines + ["extra"], r"line \d+: unexpected text after the last merge"),
        (lambda lines: lines[:5] + ["256 <|x|>"] + lines[6:], r"line 8: merge 256 .*reuses id 256"),
        (lambda lines: lines[:5] + ["65 <|x|>"] + lines[6:], r"line 6: special token .* id 65"),
        (
            lambda lines: lines[:4] + ["specials 2", lines[5], lines[5]] + lines[6:],
            r"line 7: special token '<\|endoftext\|>'",
        ),
        (lambda lines: lines[:7] + ["256 \udcff a"] + lines[8:], r"line 8: .*not UTF-8"),
    ],
)
def test_damaged_files_name_file_and_line(special_tok, tmp_path, damage, message):
    path = tmp_path / "tok.txt"
    special_tok.save(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    text = "\n".join(damage(lines)) + "\n"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    with pytest.raises(ValueError, match=message) as err:
        Tokenizer.load(path)
    assert str(path) in str(err.value)


def test_binary_garbage_is_not_a_tokenizer_text_format(tmp_path):
    path = tmp_path / "tok.txt"
    path.write_bytes(b"\x80\x81\x00 garbage")
    with pytest.raises(ValueError, match="not a tokenizer file"):
        Tokenizer.load(path)


def test_unknown_tiktoken_name():
    with pytest.raises(ValueError, match="unknown encoding 'gpt5'"):
        Tokenizer.from_tiktoken("gpt5")


def test_each_distinct_chunk_is_encoded_once_per_call_even_with_the_cache_full(tok, monkeypatch):
    """A chunk that repeats costs one BPE run per call, not one per occurrence, even once the
    chunk cache is full (its limit set to 0 here); the ids still follow the text's order. (Few
    new chunks run one by one; many run together, `tests/test_bpe_batch.py` counts those.)"""
    from lib import bpe, tokenizer_encoder

    encode_chunk, runs = bpe.encode_chunk, []

    def counted(data, *tables):
        runs.append(data)
        return encode_chunk(data, *tables)

    text = " the dog and the cat and the dog" * 3
    expected = tok.encode_ordinary(text)
    monkeypatch.setattr(tokenizer_encoder, "CACHE_LIMIT", 0)
    monkeypatch.setattr(bpe, "encode_chunk", counted)
    tok._plain.cache.clear()
    assert tok.encode_ordinary(text) == expected
    # " and" and " the" are tokens of this vocabulary, looked up whole; the others ran BPE once.
    assert b" the" in tok.ranks and b" and" in tok.ranks
    assert sorted(runs) == [b" cat", b" dog"]
