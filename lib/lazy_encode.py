"""Cutting a stream of text into pieces that encode exactly like the whole, in bounded memory.

`Tokenizer.encode_iterable` must give exactly `encode("".join(texts))` without ever holding the
whole text. The catch is where to cut. Cutting at newlines is wrong: GPT-2's pattern splits
"a\\n\\n\\nb" into "a", "\\n\\n", "\\n", "b", but "a\\n\\n\\n" alone ends in the chunk "\\n\\n\\n",
because a run of whitespace is split differently when a word follows it. So the cut goes where
the tokenizer cuts anyway, and only where more text cannot move that cut:

- at the start of a pre-token (a match of the split pattern) that is not the last one seen:
  the last match may still grow ("\\n\\n\\n" above), but the matches before it are settled, and
  matching from a settled start gives the same matches as before;
- never within the last `longest special token` characters, where a special token may still be
  arriving ("<|endof" + "text|>"), and never inside an allowed special token;
- never between the two halves of a surrogate pair, which encoding joins into one character.

>>> list(pieces(["a\\n\\n", "\\nb c"], "gpt2", {}, frozenset(), block=1))
['a', '\\n\\n\\nb', ' c']

With no split pattern the whole text is one chunk, so only special tokens can cut it.

Training from files needs the same guarantee and gets it by a cheaper rule that needs no split
(`lib.corpus_files`: a cut before " " after a non-space, for the named patterns only), because
there the splitting is the work it hands to other processes. Here the split is done anyway.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator
from itertools import accumulate

from lib import patterns, specials
from lib.bpe import replace_lone_surrogates

BLOCK = 1 << 16  # characters gathered before looking for a cut: big enough to be quick


def pieces(
    texts: Iterable[str],
    pattern: str | None,
    special_tokens: Collection[str],
    allowed: frozenset[str],
    disallowed: frozenset[str] = frozenset(),
    block: int | None = None,
) -> Iterator[str]:
    """Yield pieces whose concatenation is `texts` joined (lone surrogates replaced, as encode
    does) and whose separate encodings, concatenated, equal the encoding of the whole.

    A disallowed special token raises ValueError as `encode` does, but only once the stream
    reaches it: the pieces before it have been yielded by then.
    """
    if isinstance(texts, str):
        raise TypeError(
            "encode_iterable takes an iterable of str (such as an open file); use encode"
        )
    block = look_at = BLOCK if block is None else block
    held, high = "", ""  # text not yet settled; a high surrogate still waiting for its partner
    hold_back = max(map(len, [*special_tokens, *disallowed]), default=0)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"encode_iterable needs str pieces, got {type(text).__name__}")
        text, high = _hold_high_surrogate(high + text)
        held += replace_lone_surrogates(text)
        if len(held) >= look_at:
            # Every special token starting before the cut lies wholly inside `held` here.
            specials.check_disallowed(held, disallowed)
            cut = _safe_cut(held, len(held) - hold_back, pattern, special_tokens, allowed)
            if cut > 0:
                yield held[:cut]
                held = held[cut:]
            # Text with no place to cut (one huge pre-token) is looked at again only once it has
            # doubled, so that it costs linear time, not quadratic.
            look_at = max(block, 2 * len(held))
    held += replace_lone_surrogates(high)
    specials.check_disallowed(held, disallowed)
    if held:
        yield held


def _hold_high_surrogate(text: str) -> tuple[str, str]:
    if text and "\ud800" <= text[-1] <= "\udbff":
        return text[:-1], text[-1]
    return text, ""


def _safe_cut(
    text: str, limit: int, pattern: str | None, special_tokens: Collection[str], allowed
) -> int:
    """The last position at or before `limit` where cutting `text` changes nothing (0 if none)."""
    cut, start = 0, 0
    for piece, is_special in specials.split(text, special_tokens, allowed):
        end = start + len(piece)
        if start > limit:
            break
        if is_special:
            cut = end if end <= limit else start
        else:
            cut = max(cut, start, _last_settled_start(piece, limit - start, pattern) + start)
        start = end
    return cut


def _last_settled_start(text: str, limit: int, pattern: str | None) -> int:
    """The start of the last pre-token starting at or before `limit` (0 with no pattern)."""
    if pattern is None:
        return 0
    compiled = patterns.compiled(patterns.resolve(pattern))
    chunks = compiled.findall(text)  # in C; positions follow when the chunks cover the text
    if sum(map(len, chunks)) == len(text):
        starts = [0, *accumulate(map(len, chunks[:-1]))]
        return starts[bisect_right(starts, limit) - 1]
    starts = [match.start() for match in compiled.finditer(text)]  # a pattern that skips text
    return max((start for start in starts if start <= limit), default=0)
