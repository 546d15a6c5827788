"""Pre-tokenization: cutting text into chunks before BPE ever sees it.

A byte-level BPE tokenizer never merges across chunk boundaries, so the split pattern decides what
a token *can* be. GPT-2's pattern keeps letters, digits and punctuation apart, which is why "dog."
"dog!" and "dog?" share the token "dog" instead of becoming three unrelated tokens.

The patterns below are the ones tiktoken uses, character for character; they need the `regex`
package (possessive quantifiers `++`, Unicode classes `\\p{L}`), not the standard `re`.
"""

from __future__ import annotations

from functools import lru_cache

import regex

# GPT-2, r50k_base and p50k_base. Contractions, then letters, digits, other symbols (each with an
# optional leading space), then runs of whitespace.
GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)

# cl100k_base (GPT-4 and GPT-3.5): case-insensitive contractions, numbers in groups of at most three
# digits, and newlines kept apart from the spaces that indent the next line.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

# o200k_base (GPT-4o): words split at case changes (so "CamelCase" is two chunks), contractions
# glued to the word, and marks (\p{M}) kept with the letters they modify.
GPT4O_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

PATTERNS: dict[str, str] = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "gpt4o": GPT4O_PATTERN}


def resolve(pattern: str | None) -> str | None:
    """Turn a pattern name ("gpt2", "gpt4", "gpt4o") into its regex; pass regexes and None on."""
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        kind = type(pattern).__name__
        raise TypeError(f"pattern must be None, a name or a regex string, not {kind}")
    pattern = PATTERNS.get(pattern, pattern)
    compiled(pattern)  # fail early, with the regex error, if the string is not a valid pattern
    return pattern


@lru_cache(maxsize=32)
def compiled(pattern: str) -> regex.Pattern:
    """The compiled form of a pattern string (compiled once, then cached)."""
    try:
        return regex.compile(pattern)
    except regex.error as err:
        raise ValueError(f"invalid split pattern {pattern!r}: {err}") from None


def split_text(text: str, pattern: str | None) -> list[str]:
    """Cut `text` into the chunks BPE works on; with no pattern the whole text is one chunk.

    >>> split_text("dog. dog! dog?", "gpt2")
    ['dog', '.', ' dog', '!', ' dog', '?']
    """
    if pattern is None:
        return [text] if text else []
    return compiled(PATTERNS.get(pattern, pattern)).findall(text)


@lru_cache(maxsize=32)
def special_regex(specials: tuple[str, ...]) -> regex.Pattern:
    """The regex that finds the special tokens `specials` (a sorted tuple) in a text: the one used
    wherever text is cut at special tokens (training, encoding, reading files)."""
    # Longest first, so that "<|end|>" never wins over "<|endoftext|>" where both could match.
    ordered = sorted(specials, key=lambda s: (-len(s), s))
    return regex.compile("(" + "|".join(regex.escape(s) for s in ordered) + ")")


def split_on_special(text: str, specials) -> list[str]:
    """Split `text` around special tokens, keeping each special as a piece of its own.

    >>> split_on_special("a<|endoftext|>b", ["<|endoftext|>"])
    ['a', '<|endoftext|>', 'b']

    Empty pieces are dropped. With no specials the text comes back as one piece.
    """
    specials = tuple(sorted(set(specials)))
    if not specials:
        return [text] if text else []
    return [piece for piece in special_regex(specials).split(text) if piece]


def alternatives(pattern: str) -> list[str]:
    r"""The top-level alternatives of a regex, cut at each `|` outside (...) and [...].

    >>> alternatives(r"'s|(?:a|b)+|[|]|\|")
    ["'s", '(?:a|b)+', '[|]', '\\|']

    A split pattern is such a list, tried in order at each position: the first alternative that
    matches takes the next chunk. (A `]` right after `[` is not read as a literal here; the
    course's patterns never need that.)
    """
    pieces, current, depth, in_class, escaped = [], "", 0, False, False
    for char in pattern:
        if not escaped and not in_class and depth == 0 and char == "|":
            pieces.append(current)
            current = ""
            continue
        current += char
        if escaped:  # the character after a backslash is never syntax
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif not in_class and char in "()":
            depth += 1 if char == "(" else -1
    return pieces + [current]


def chunks_by_alternative(pattern: str, text: str) -> list[tuple[str, list[str]]]:
    r"""Which alternative of `pattern` (a name such as "gpt4", or a regex) cut each chunk of `text`:
    one `(alternative, its chunks in order)` pair per alternative, in the pattern's order.

    >>> for part, chunks in chunks_by_alternative("gpt2", "I'm 42!"):
    ...     print(chunks, part)
    ["'m"] '(?:[sdmt]|ll|ve|re)
    ['I']  ?\p{L}++
    [' 42']  ?\p{N}++
    ['!']  ?[^\s\p{L}\p{N}]++
    [] \s++$
    [] \s+(?!\S)
    [] \s

    Each alternative is wrapped in a named group, so the match says which one won; the chunks,
    all lists joined in the order found, are exactly `split_text(text, pattern)`.
    """
    parts = alternatives(resolve(pattern))
    labelled = compiled("|".join(f"(?P<p{k}>{part})" for k, part in enumerate(parts)))
    caught: list[list[str]] = [[] for _ in parts]
    for match in labelled.finditer(text):
        caught[int(match.lastgroup[1:])].append(match.group())
    return list(zip(parts, caught, strict=True))
