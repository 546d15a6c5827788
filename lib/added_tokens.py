"""Growing a trained tokenizer without retraining it: new special tokens, new ordinary tokens.

A model that is fine-tuned for chat needs tokens its tokenizer never had (`<|im_start|>`), and a
model for a new domain may want a frequent word as one token. Retraining would renumber
everything the model has learned, so both functions here keep every existing id as it is and give
the new tokens ids nobody uses yet, above the largest one. Each returns a new `Tokenizer`, built
with its public constructor from the old one's vocabulary, merges, pattern and special tokens, so
the constructor checks the result as it checks any other.

>>> from lib import Tokenizer
>>> tok = Tokenizer.train("low lower lowest", 260, pattern="gpt2")
>>> grown = add_special_tokens(tok, ["<|im_start|>", "<|im_end|>"])
>>> dict(grown.special_tokens)
{'<|im_start|>': 260, '<|im_end|>': 261}
>>> longer = add_tokens(grown, [" lowest"])
>>> longer.encode(" lowest"), longer.decode([262])
([263], ' lowes')
"""

from __future__ import annotations

from collections.abc import Iterable

from lib import patterns
from lib.tokenizer import Tokenizer


def add_special_tokens(tok: Tokenizer, tokens: Iterable[str]) -> Tokenizer:
    """`tok` with `tokens` as new special tokens, numbered from one above its largest id.

    A token that is already one of `tok`'s special tokens is an error (its id would be ambiguous),
    and so is one given twice; the constructor refuses empty or unencodable text."""
    if isinstance(tokens, str):
        raise TypeError(f"tokens must be a list of str, e.g. [{tokens!r}]")
    tokens = list(tokens)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"a special token is text (str), got {type(token).__name__}")
        if token in tok.special_tokens:
            raise ValueError(
                f"{token!r} is already special token {tok.special_tokens[token]}; leave it out"
            )
    if len(set(tokens)) != len(tokens):
        raise ValueError("a new special token is given twice; give each once")
    first = tok.n_vocab
    new = {token: first + k for k, token in enumerate(tokens)}
    return _rebuilt(tok, tok.merges, {**tok.special_tokens, **new})


def add_tokens(tok: Tokenizer, tokens: Iterable[str]) -> Tokenizer:
    """`tok` with each of `tokens` as one ordinary token, by merges appended after the learned ones.

    A token's text must be one piece under the split pattern (else encoding never sees it whole)
    and not a token yet. `tok` encodes it as a few tokens a, b, c; the new merges (a, b) and then
    (ab, c) come last in merge order, so encoding that piece now ends in one id, and no earlier
    merge is undone; but other text where a and b meet changes too (on cl100k, ` Karpathian` becomes
    ` Karpath` + `ian`). The tokens in between (ab) are new ids: each costs a row of embeddings."""
    if isinstance(tokens, str):
        raise TypeError(f"tokens must be a list of str, e.g. [{tokens!r}]")
    special_ids = set(tok.special_tokens.values())
    merges = tok.merges
    vocab = {i: t for i, t in tok.vocab.items() if i not in special_ids}
    next_id = tok.n_vocab  # above the special tokens too: no id is ever reused
    for token in tokens:
        if not isinstance(token, str) or not token:
            raise ValueError(f"a new token is non-empty text (str), got {token!r}")
        pieces = patterns.split_text(token, tok.pattern)
        if pieces != [token]:
            raise ValueError(
                f"{token!r} splits into {pieces} under the pattern, so encoding never sees it "
                "whole; add one piece at a time"
            )
        ids = Tokenizer(vocab, merges, tok.pattern).encode_ordinary(token)
        if len(ids) == 1:
            raise ValueError(f"{token!r} is already token {ids[0]}; leave it out")
        left = vocab[ids[0]]
        for i in ids[1:]:
            merges.append((left, vocab[i]))
            left += vocab[i]
            vocab[next_id] = left
            next_id += 1
    return _rebuilt(tok, merges, dict(tok.special_tokens), vocab)


def _rebuilt(
    tok: Tokenizer,
    merges: list[tuple[bytes, bytes]],
    special: dict[str, int],
    vocab: dict[int, bytes] | None = None,
) -> Tokenizer:
    """A tokenizer from `tok`'s parts, special tokens' ids kept out of the ordinary vocabulary."""
    special_ids = set(special.values())
    ordinary = {i: t for i, t in (vocab or tok.vocab).items() if i not in special_ids}
    return Tokenizer(ordinary, merges, tok.pattern, special_tokens=special, name=tok.name)
