"""Our pure-Python encoder against tiktoken, token for token, on all of OpenAI's encodings."""

import json
import random
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

import lib
from lib import Tokenizer, data, tiktoken_files
from lib.tiktoken_files import ENCODINGS

# gpt2 and r50k_base are one encoding under two names, read from different files (see the test
# below): comparing both would encode everything twice for nothing.
COMPARED = tuple(name for name in ENCODINGS if name != "r50k_base")
N_GENERATED = examples(2000)  # seeded random strings per encoding, beside hypothesis' examples

# Fragments that stress the split patterns: whitespace runs, CRLF, digits, contractions in any
# case, punctuation runs, emoji (with skin tone and ZWJ), combining marks, many scripts, lone
# surrogates (tiktoken turns them into U+FFFD) and the special token itself.
FRAGMENTS = [
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " \n ",
    "\u00a0",
    "\u3000",
    "\u2028",
    "0",
    "7",
    "12",
    "123",
    "1234",
    "3.14",
    "1,000,000",
    "٣",
    "५",
    "'s",
    "'S",
    "'ll",
    "'LL",
    "'re",
    "'ve",
    "'d",
    "'m",
    "'t",
    "’s",
    "'",
    '"',
    "''",
    "hello",
    "Hello",
    "HELLO",
    "world",
    " the",
    " Egg",
    "EGG",
    "camelCase",
    "snake_case",
    "!",
    "?!",
    "...",
    "—",
    "(",
    ")",
    "{}",
    "==",
    "->",
    "#",
    "//",
    "/*",
    "@",
    "👋",
    "👋🏽",
    "👩‍👩‍👧",
    "🇮🇳",
    "é",
    "e\u0301",
    "\u0301",
    "ñ",
    "ß",
    "İ",
    "नमस्ते",
    "हिन्दी",
    "안녕하세요",
    "こんにちは",
    "你好",
    "Привет",
    "مرحبا",
    "שלום",
    "ሰላም",
    "မင်္ဂလာပါ",
    "தமிழ்",
    "ไทย",
    "Ελληνικά",
    "\u200c",
    "\u200d",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "<|endoftext|>",
    "<|endoftext",
    "<|fim_prefix|>",
]


def generated_strings(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(FRAGMENTS, k=rng.randint(0, 25))) for _ in range(n)]


@pytest.fixture(scope="module", params=COMPARED)
def pair(request):
    return Tokenizer.from_tiktoken(request.param), data.tiktoken_encoding(request.param)


def test_r50k_base_is_gpt2_under_another_name():
    """Same ranks, pattern and special tokens: what holds for gpt2 below holds for r50k_base."""
    assert tiktoken_files.load("r50k_base") == tiktoken_files.load("gpt2")


def test_p50k_base_is_gpt2_plus_tokens_of_whitespace_only():
    """Same pattern, gpt2's ranks kept, and every token added is spaces or tabs alone: a token is
    made inside one chunk, so the two encode alike every chunk that is not whitespace alone. On
    FLORES then, p50k_base repeats gpt2 but for runs of blanks, which the tests below give both
    (Python source, tabs, generated strings of blanks)."""
    gpt2_ranks, gpt2_pattern, _ = tiktoken_files.load("gpt2")
    ranks, pattern, _ = tiktoken_files.load("p50k_base")
    assert pattern == gpt2_pattern
    assert {token: ranks[token] for token in gpt2_ranks} == gpt2_ranks
    added = set(ranks) - set(gpt2_ranks)
    assert added and all(token.strip(b" \t") == b"" for token in added)


@pytest.mark.end_to_end  # 3 encodings x 32 languages in pure Python: once, in the main run
def test_flores_devtest_every_language(pair):
    ours, ref = pair
    if ours.name == "p50k_base":
        pytest.skip("gpt2's run proves it: test_p50k_base_is_gpt2_plus_tokens_of_whitespace_only")
    for lang in data.flores_languages():
        text = data.read_text(f"flores200/devtest/{lang}.devtest")
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), lang


def test_tiny_shakespeare(pair):
    ours, ref = pair
    text = data.read_text("tinyshakespeare")
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_python_source(pair):
    ours, ref = pair
    ours_dir = Path(lib.__file__).parent
    sources = [p.read_text(encoding="utf-8") for p in sorted(ours_dir.glob("*.py"))]
    sources += [Path(m.__file__).read_text(encoding="utf-8") for m in (json, random, textwrap)]
    for source in sources:
        assert ours.encode_ordinary(source) == ref.encode_ordinary(source)
        tabs = source.replace("    ", "\t")  # tab indentation takes other paths through the pattern
        assert ours.encode_ordinary(tabs) == ref.encode_ordinary(tabs)


def test_generated_strings_with_specials_allowed_and_disallowed(pair):
    ours, ref = pair
    for text in generated_strings(seed=len(ours.name), n=N_GENERATED):
        allowed = ours.encode(text, allowed_special="all")
        assert allowed == ref.encode(text, allowed_special="all"), text
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text
        if any(special in text for special in ours.special_tokens):
            with pytest.raises(ValueError):
                ref.encode(text)
            with pytest.raises(ValueError, match=r"special token '<\|.*\|>'.*disallowed"):
                ours.encode(text)
        else:
            assert ours.encode(text) == ref.encode(text), text


# Code points this Python's Unicode tables call unassigned are left out: the `regex` package knows
# newer Unicode than tiktoken's Rust regex, so for a letter added recently (U+3D000 is one) the two
# split patterns disagree, and that is a difference of Unicode versions, not of BPE.
@settings(max_examples=examples(150), deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cn",)), max_size=100))
def test_hypothesis_text(pair, text):
    ours, ref = pair
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())


def test_special_token_ids_and_decoding_agree(pair):
    ours, ref = pair
    assert ours.special_tokens == ref._special_tokens
    assert ours.n_vocab == ref.n_vocab
    ids = ref.encode("Tokenizers split 'words' differently: नमस्ते 👋", allowed_special="all")
    assert ours.decode(ids) == ref.decode(ids)
    assert [ours.decode_bytes([i]) for i in ids] == [ref.decode_single_token_bytes(i) for i in ids]


def test_recovered_merges_rebuild_the_vocabulary():
    ours = Tokenizer.from_tiktoken("cl100k_base")
    merges = ours.merges
    assert len(merges) == len(ours.ranks) - 256
    assert all(ours.ranks[a + b] > max(ours.ranks[a], ours.ranks[b]) for a, b in merges[:5000])
