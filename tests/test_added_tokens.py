"""lib.added_tokens: new tokens get fresh ids, old ids never change, bad input fails clearly."""

from __future__ import annotations

import pytest

from lib import Tokenizer
from lib.added_tokens import add_special_tokens, add_tokens

TEXT = "the lowest tokens, the lower tokens, a token " * 20


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer.train(TEXT, 270, pattern="gpt4", special_tokens=["<|endoftext|>"])


def test_new_special_tokens_take_fresh_ids_and_every_old_id_stays(tok):
    grown = add_special_tokens(tok, ["<|im_start|>", "<|im_end|>"])
    eot = tok.special_tokens["<|endoftext|>"]
    assert eot == tok.n_vocab - 1 == 269
    assert dict(grown.special_tokens) == {
        "<|endoftext|>": eot,
        "<|im_start|>": eot + 1,
        "<|im_end|>": eot + 2,
    }
    assert all(grown.vocab[i] == token for i, token in tok.vocab.items())
    assert grown.merges == tok.merges
    text = "<|im_start|>user\nthe lowest<|im_end|>"
    assert grown.encode(text, allowed_special="all") == [
        eot + 1,
        *tok.encode("user\nthe lowest"),
        eot + 2,
    ]
    with pytest.raises(ValueError, match="im_end"):
        grown.encode(text.replace("<|im_start|>", ""))  # disallowed by default, like tiktoken


@pytest.mark.parametrize(
    ("tokens", "error", "words"),
    [
        (["<|endoftext|>"], ValueError, "already special token 269"),
        (["<|a|>", "<|a|>"], ValueError, "given twice"),
        ("<|a|>", TypeError, "list of str"),
        ([b"<|a|>"], TypeError, "is text"),
        ([""], ValueError, "non-empty"),
    ],
)
def test_special_tokens_are_checked(tok, tokens, error, words):
    with pytest.raises(error, match=words):
        add_special_tokens(tok, tokens)


def test_an_ordinary_token_is_one_id_after_appended_merges(tok):
    before = tok.encode(" tokenization")
    assert len(before) > 1
    grown = add_tokens(tok, [" tokenization"])
    (new_id,) = grown.encode(" tokenization")
    assert new_id >= tok.n_vocab and grown.decode([new_id]) == " tokenization"
    assert grown.merges[: len(tok.merges)] == tok.merges  # learned merges keep their order
    assert len(grown.merges) - len(tok.merges) == len(before) - 1  # one merge per join
    assert all(grown.vocab[i] == token for i, token in tok.vocab.items())
    sample = "the lowest tokens, the lower tokens"  # text without the new token: same ids
    assert grown.encode(sample) == tok.encode(sample)


def test_ids_never_collide_with_special_tokens(tok):
    grown = add_tokens(add_special_tokens(tok, ["<|im_end|>"]), [" tokenization"])
    ids = list(grown.vocab)
    assert len(ids) == len(set(ids)) and min(set(ids) - set(tok.vocab)) == 270
    assert grown.special_tokens["<|im_end|>"] == 270 and grown.decode([271]) != "<|im_end|>"


@pytest.mark.parametrize(
    ("tokens", "words"),
    [
        ([" the"], "already token"),
        (["two words"], "splits into"),
        ([""], "non-empty"),
        ([" tokenization", " tokenization"], "already token"),
    ],
)
def test_ordinary_tokens_are_checked(tok, tokens, words):
    with pytest.raises(ValueError, match=words):
        add_tokens(tok, tokens)
