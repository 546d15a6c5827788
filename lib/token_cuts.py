"""One way to ask any tokenizer how it cuts a text: `cutter(tokenizer)(text) -> Cut`.

The course meets tokenizers of many shapes, and the playground (lib/playground.py) shows them side
by side. Each shape is turned into the same thing, a function from text to a `Cut`: the bytes
of each token and its id (None when the tokenizer has no ids). The shapes, in the order they are
recognised:

- a name such as "gpt2", "cl100k_base" or "o200k_base": that tiktoken encoding;
- a `tiktoken.Encoding`, the course's `Tokenizer`, or anything with `encode` and `decode`
  (the character-level tokenizer of lesson 2);
- lesson 7's tokenizers: a `lib.unigram.Unigram`, a WordPiece vocabulary (the `dict` of piece to
  id that `lib.wordpiece` encodes with), a Hugging Face `tokenizers.Tokenizer` and a
  `sentencepiece.SentencePieceProcessor`;
- a function of your own from text to a list of token strings (or bytes, or `(piece, start,
  end)` tuples, as `wordpiece.tokenize` returns).

Special-token strings in the text, such as "<|endoftext|>", are cut as ordinary text: text typed
by a person is never allowed to become a special token (lesson 5 says why). `specials(tokenizer)`
names them, so the playground can say so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from lib import wordpiece
from lib.token_view import token_bytes


@dataclass
class Cut:
    """A text cut into tokens: the bytes of each token and its id (None if there are no ids)."""

    pieces: list[bytes]
    ids: list[int | None]


Cutter = Callable[[str], Cut]
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")  # SentencePiece's byte tokens, "<0xE3>"


def cutter(tokenizer: Any) -> Cutter:
    """A function from text to `Cut` for any of the shapes in the module's docstring."""
    if isinstance(tokenizer, str):
        from lib import data  # only here: it is the module that fetches tiktoken's files

        tokenizer = data.tiktoken_encoding(tokenizer)
    if isinstance(tokenizer, dict) and wordpiece.UNK in tokenizer:  # a WordPiece vocabulary
        vocab = tokenizer
        return lambda text: _from_pieces([p for p, _, _ in wordpiece.tokenize(text, vocab)], vocab)
    if hasattr(tokenizer, "encode_as_pieces"):  # sentencepiece.SentencePieceProcessor
        return lambda text: _from_pieces(tokenizer.encode_as_pieces(text), tokenizer.piece_to_id)
    if hasattr(tokenizer, "tokenize") and hasattr(tokenizer, "ids"):  # lib.unigram.Unigram
        return lambda text: _from_pieces(
            [p for p, _, _ in tokenizer.tokenize(text)], None, tokenizer.encode(text)
        )
    if hasattr(tokenizer, "token_to_id"):  # Hugging Face: [CLS] and [SEP] are not the text's
        return lambda text: _from_pieces(
            (found := tokenizer.encode(text, add_special_tokens=False)).tokens, None, found.ids
        )
    if hasattr(tokenizer, "encode") and hasattr(tokenizer, "decode"):
        return lambda text: _from_encode(tokenizer, text)
    if callable(tokenizer):  # the learner's own function
        return lambda text: _from_function(tokenizer, text)
    raise TypeError(
        f"cannot tokenize with a {type(tokenizer).__name__}: give a tokenizer, a tiktoken "
        "encoding's name, or a function from text to a list of token strings"
    )


def name_of(tokenizer: Any) -> str:
    """A short label: the encoding's name, the tokenizer's, the function's, or the type's."""
    if isinstance(tokenizer, str):
        return tokenizer
    name = getattr(tokenizer, "name", None) or getattr(tokenizer, "__name__", None)
    return name if isinstance(name, str) else type(tokenizer).__name__


def specials(tokenizer: Any) -> set[str]:
    """The special-token strings a tokenizer knows (tiktoken's or ours), else none."""
    if isinstance(tokenizer, str):
        from lib import data

        tokenizer = data.tiktoken_encoding(tokenizer)
    found = getattr(tokenizer, "special_tokens_set", None) or getattr(
        tokenizer, "special_tokens", None
    )
    return {s for s in found if isinstance(s, str)} if isinstance(found, Iterable) else set()


def piece_bytes(piece: str) -> bytes:
    """A token string's bytes; SentencePiece's byte token "<0xE3>" is the one byte 0xE3."""
    byte = _BYTE_PIECE.fullmatch(piece)
    return bytes([int(byte.group(1), 16)]) if byte else piece.encode("utf-8", "surrogatepass")


def _from_encode(tokenizer: Any, text: str) -> Cut:
    if specials(tokenizer):  # tiktoken's rules: disallowed_special=() reads them as plain text
        ids = list(tokenizer.encode(text, disallowed_special=()))
    else:
        ids = list(tokenizer.encode(text))
    return Cut([token_bytes(tokenizer, i) for i in ids], ids)


def _from_pieces(pieces: list[str], lookup: Any, ids: list[int] | None = None) -> Cut:
    """From token strings, with their `ids` or a `lookup` (a dict or a function) to find them."""
    if ids is None:
        find = lookup.get if isinstance(lookup, dict) else lookup
        ids = [find(p) for p in pieces]
    return Cut([piece_bytes(p) for p in pieces], list(ids))


def _from_function(function: Callable[[str], Any], text: str) -> Cut:
    tokens = list(function(text))
    pieces = [t[0] if isinstance(t, tuple) else t for t in tokens]
    if not all(isinstance(p, (str, bytes)) for p in pieces):
        kinds = sorted({type(p).__name__ for p in pieces if not isinstance(p, (str, bytes))})
        raise TypeError(
            f"{name_of(function)} returned {', '.join(kinds)}, not token strings: give the "
            "tokenizer itself for ids, or return a list of strings"
        )
    return Cut(
        [p if isinstance(p, bytes) else piece_bytes(p) for p in pieces], [None] * len(pieces)
    )
