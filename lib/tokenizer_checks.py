"""Checking the data a `Tokenizer` is built from, so a bad vocabulary fails early and clearly.

A tokenizer's parts must agree with each other: every merge joins two tokens that exist into a
token that exists, no two ids stand for the same bytes, every one of the 256 bytes has a token
(else some text could not be encoded), and special tokens collide with nothing. Files from other
tools break these rules in ways that would otherwise surface much later, as a wrong id or a
`KeyError` deep inside encoding; here each problem is reported by naming the entry at fault.

>>> check({i: bytes([i]) for i in range(256)}, [(b"a", b"b")], ["<|end|>"])
Traceback (most recent call last):
ValueError: merge 0 (b'a', b'b') makes b'ab', which is not in the vocab
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lib.bpe_types import Merges


def check(
    vocab: Mapping[int, bytes],
    merges: Iterable[tuple[bytes, bytes]] | None,
    special_tokens: Iterable[str] | Mapping[str, int] | None,
) -> tuple[dict[int, bytes], Merges | None, dict[str, int]]:
    """Validated copies of (vocab with the special tokens in it, merges, {special: id}).

    Special tokens given as a list take the id the vocabulary gives their bytes when no byte or
    merge needs it, else the next free id.
    """
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict {{id: bytes}}, not {type(vocab).__name__}")
    vocab = {_id(i, "vocab id"): _bytes(token, f"vocab[{i!r}]") for i, token in vocab.items()}
    merges = None if merges is None else list(merges)
    specials = _specials(vocab, special_tokens, _made_by(merges or []))
    for special, i in specials.items():
        if vocab.setdefault(i, special.encode("utf-8")) != special.encode("utf-8"):
            raise ValueError(
                f"special token {special!r} has id {i}, which the vocabulary gives to "
                f"{vocab[i]!r}; choose a free id"
            )
    special_ids = set(specials.values())
    ids: dict[bytes, int] = {}
    for i, token in vocab.items():
        if i not in special_ids and ids.setdefault(token, i) != i:
            raise ValueError(
                f"ids {ids[token]} and {i} both stand for {token!r}; ids must be unique"
            )
    missing = [b for b in range(256) if bytes([b]) not in ids]
    if missing:
        raise ValueError(
            f"the vocabulary has no token for byte {missing[0]:#04x} ({len(missing)} of the 256 "
            "bytes are missing); a byte-level tokenizer needs all 256 to encode any text"
        )
    return vocab, None if merges is None else _merges(merges, ids), specials


def _merges(merges: Iterable[tuple[bytes, bytes]], ids: Mapping[bytes, int]) -> Merges:
    checked: Merges = []
    seen: set[tuple[bytes, bytes]] = set()
    for k, pair in enumerate(merges):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"merge {k} must be a pair (left bytes, right bytes), got {pair!r}")
        left, right = (_bytes(part, f"merge {k}") for part in pair)
        for part in (left, right):
            if part not in ids:
                raise ValueError(
                    f"merge {k} {(left, right)!r} uses {part!r}, not in the vocabulary"
                )
        if left + right not in ids:
            raise ValueError(
                f"merge {k} {(left, right)!r} makes {left + right!r}, which is not in the vocab"
            )
        if (left, right) in seen:
            raise ValueError(f"merge {k} {(left, right)!r} appears twice")
        seen.add((left, right))
        checked.append((left, right))
    return checked


def _made_by(merges: list) -> set[bytes]:
    """What the merges make, for those that look like merges (the rest fail their check later)."""
    made = set()
    for pair in merges:
        if isinstance(pair, (tuple, list)) and len(pair) == 2:
            left, right = pair
            if isinstance(left, (bytes, bytearray)) and isinstance(right, (bytes, bytearray)):
                made.add(bytes(left + right))
    return made


def _specials(
    vocab: dict[int, bytes],
    special_tokens: Iterable[str] | Mapping[str, int] | None,
    made: set[bytes],
) -> dict[str, int]:
    if special_tokens is None:
        return {}
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list or a dict, e.g. [{special_tokens!r}]")
    names = list(dict.fromkeys(special_tokens))
    for s in names:
        if not isinstance(s, str) or not s or not _encodable(s):
            raise ValueError(f"special tokens must be non-empty valid text, got {s!r}")
    if isinstance(special_tokens, Mapping):
        given = {s: _id(special_tokens[s], f"id of special token {s!r}") for s in names}
    else:
        # A special token's bytes may already have an id (as in GPT-2's vocab.json), unless a
        # byte or a merge needs that id for itself.
        by_bytes = {t: i for i, t in sorted(vocab.items()) if len(t) > 1 and t not in made}
        given, next_id = {}, max(vocab, default=-1) + 1
        for s in names:
            known = by_bytes.get(s.encode("utf-8"))
            given[s] = next_id if known is None else known
            next_id += known is None
    owner: dict[int, str] = {}
    for s, i in given.items():
        if owner.setdefault(i, s) != s:
            raise ValueError(f"special tokens {owner[i]!r} and {s!r} both have id {i}")
    return given


def _id(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative int, got {value!r}")
    return value


def _bytes(value: object, what: str) -> bytes:
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"{what} must be bytes, got {type(value).__name__} {value!r}")
    return bytes(value)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
