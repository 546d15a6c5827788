"""Special tokens inside text: which ones count, which are forbidden, and where text is cut.

The rules are tiktoken's, so `Tokenizer.encode` and `tiktoken.Encoding.encode` agree:

- `allowed_special` is "all" or a collection of strings. A string that is not one of the
  tokenizer's special tokens is ignored.
- `disallowed_special` is "all" (every special token that is not allowed) or a collection of
  strings, searched for as they are, unknown strings included. If the text contains one, encoding
  raises ValueError: text from a user that smuggles in "<|endoftext|>" must not end a document.
- Cutting scans left to right for any special token. Where one starts, the longest special
  token found there counts; if it is not allowed, the scan moves on by one character and that
  text stays ordinary text.

One difference remains: where two special tokens start at the same place ("<|a" and "<|a|>"),
tiktoken takes whichever its hash map lists first; we always take the longest.

>>> list(split("a<|end|>b<|x|>", ["<|end|>", "<|x|>"], {"<|end|>"}))
[('a', False), ('<|end|>', True), ('b<|x|>', False)]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Literal

from lib.patterns import special_regex

Specials = Literal["all"] | Collection[str]


def resolve(
    allowed_special: Specials, disallowed_special: Specials, specials: Collection[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """The sets of allowed and disallowed strings, from encode's two arguments."""
    allowed = _as_set(allowed_special, specials, "allowed_special") & frozenset(specials)
    if disallowed_special == "all":
        return allowed, frozenset(specials) - allowed
    return allowed, _as_set(disallowed_special, specials, "disallowed_special")


def check_disallowed(text: str, disallowed: frozenset[str]) -> None:
    """Raise ValueError naming the first disallowed special token in `text`, if there is one."""
    if not disallowed:
        return
    found = special_regex(tuple(sorted(disallowed))).search(text)
    if found:
        special = found.group()
        raise ValueError(
            f"the text contains the special token {special!r}, which is disallowed. To encode it "
            f'as its special id, pass allowed_special={{{special!r}}} (or "all"); to encode it '
            f"as plain text, pass disallowed_special=() or use encode_ordinary()."
        )


def split(
    text: str, specials: Iterable[str], allowed: Collection[str]
) -> Iterator[tuple[str, bool]]:
    """Cut `text` into (piece, is_special) pairs by the rules above; empty pieces are skipped."""
    if not allowed:
        if text:
            yield text, False
        return
    pattern = special_regex(tuple(sorted(specials)))
    start = pos = 0
    while (found := pattern.search(text, pos)) is not None:
        if found.group() not in allowed:
            pos = found.start() + 1
            continue
        if found.start() > start:
            yield text[start : found.start()], False
        yield found.group(), True
        start = pos = found.end()
    if start < len(text):
        yield text[start:], False


def _as_set(value: Specials, specials: Collection[str], argument: str) -> frozenset[str]:
    if value == "all":
        return frozenset(specials)
    if isinstance(value, str) or not all(isinstance(s, str) for s in value):
        raise TypeError(f'{argument} must be "all" or a collection of strings, e.g. {{{value!r}}}')
    return frozenset(value)
