"""Tokens as coloured spans: `show_tokens(text, tokenizer)`, as the tiktokenizer web app shows them.

One span per token, whitespace made visible (`·` for a space, `↵` for a newline), and tokens that
are not a whole UTF-8 character on their own shown as their bytes. It accepts our
`lib.Tokenizer` (or anything with `encode` and `decode_bytes`) and a `tiktoken.Encoding`.

The view has to work for every reader, so:
- it sets its text and background colours together (a light card), which keeps it readable in
  light and dark themes alike: a dark theme changes the page's colours, never the card's;
- its colours are light tints of the Okabe-Ito palette, chosen to stay distinct for colour-blind
  readers, and a thin border between tokens marks the boundaries without relying on colour;
- a token never breaks across two lines (`white-space: pre` per token, breaks only between);
- its plain-text form (`print(view)`, and the `text/plain` output stored beside the HTML) lists
  the same tokens between `│` bars, for screen readers, terminals and static views;
- the HTML has those `│` bars too, hidden by an inline `display:none`. Wherever styles apply
  (JupyterLab, VS Code, Colab, an nbconvert page) the borders mark the boundaries and the bars
  stay hidden; where a renderer strips every style, as GitHub does, the bars appear and the
  tokens read `│न│म│स│्<e0 a4>│<a4>│े│!│` instead of running together.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Okabe-Ito orange, sky blue, bluish green, yellow, blue, vermillion and reddish purple, mixed
# with 65% white: text in INK keeps a contrast ratio of at least 11:1 on each (WCAG asks 4.5).
PALETTE = ("#f6dda6", "#c4e5f7", "#a6ddce", "#faf6bd", "#a6cee4", "#f0c7a6", "#edd0e0")
INK, ID_INK, CARD = "#111111", "#444444", "#ffffff"
_VISIBLE = str.maketrans({" ": "·", "\n": "↵", "\t": "→", "\r": "␍"})
# Bytes that are not valid UTF-8 come back from "surrogateescape" as U+DC80..U+DCFF; other
# control characters would be invisible. Both are shown as hex bytes.
_UNPRINTABLE = re.compile(r"[\udc80-\udcff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")
_TOKEN_STYLE = (
    "white-space:pre;display:inline-block;border:1px solid #8a8a8a;border-radius:3px;"
    f"padding:0 1px;margin:1px 1px 1px 0;color:{INK};background:"
)
_UNDER_EACH_OTHER = ";text-align:center;vertical-align:top"  # a token above its id
# Shown only by a renderer that drops styles; the `style` attribute is what such renderers strip,
# so it is the switch (the `hidden` attribute might survive them and keep the text hidden).


def _unstyled(text: str) -> str:
    """`text` that only a renderer without styles shows."""
    return f'<span style="display:none">{text}</span>'


_BAR = _unstyled("│")  # between two tokens, and at each end


def readable(piece: bytes, marks: bool = True) -> str:
    """How one token is written on screen: b" caf\\xc3\\xa9" -> "·café" (whitespace made
    visible), b"\\xe0\\xa4" -> "<e0 a4>" (bytes that are not a whole character). With
    `marks=False` it is the plain text a decoder prints: " café", and "�" for the fragment."""
    if not marks:
        return piece.decode("utf-8", errors="replace")
    text = piece.decode("utf-8", errors="surrogateescape")

    def as_hex(match: re.Match[str]) -> str:
        return "<" + " ".join(f"{ord(c) & 0xFF:02x}" for c in match.group()) + ">"

    return _UNPRINTABLE.sub(as_hex, text.translate(_VISIBLE))


def token_spans(
    pieces: Sequence[bytes],
    ids: Sequence[int | None],
    show_ids: bool = False,
    marks: bool = True,
) -> str:
    """The HTML of tokens side by side, one coloured, bordered span each, its id in a tooltip
    (and under it with `show_ids`). An id of None means the tokenizer gives no ids.

    Hidden `│` bars stand between the tokens for renderers that strip styles; there
    the ids of `show_ids` read "token (id 123)"."""
    spans = []
    stacked = _UNDER_EACH_OTHER if show_ids else ""
    for i, (token_id, piece) in enumerate(zip(ids, pieces, strict=True)):
        label = html.escape(readable(piece, marks))
        if show_ids:  # the id in small print under the token (a block, not a <br>, so that
            # without styles it stays on the token's line)
            label += (
                f'<small style="display:block;color:{ID_INK}">'
                f"{_unstyled(' (id ')}{token_id}{_unstyled(')')}</small>"
            )
        tip = html.escape(f"id {token_id} · {piece!r}" if token_id is not None else repr(piece))
        style = _TOKEN_STYLE + PALETTE[i % len(PALETTE)] + stacked
        # <wbr>: a line may break between two tokens (and only there).
        spans.append(
            f'{_BAR}<span title="{tip}" style="{style}">{label}</span><wbr>'
            + "<br>" * piece.endswith(b"\n")
        )
    return "".join(spans) + _BAR * bool(spans)


@dataclass
class TokenView:
    """A text cut into tokens; Jupyter shows it as coloured HTML, `print` as plain text."""

    text: str
    ids: list[int]
    pieces: list[bytes]  # the bytes of each token; b"".join(pieces) == text.encode()
    show_ids: bool = False

    def summary(self) -> str:
        n, n_bytes = len(self.ids), len(self.text.encode("utf-8"))
        per_token = f" · {n_bytes / n:.2f} bytes per token" if n else ""
        return (
            f"{n} token{'s' * (n != 1)} · {len(self.text)} characters · {n_bytes} bytes{per_token}"
        )

    def __repr__(self) -> str:
        # One "│" between tokens; a new line after each token that ends a line of the text.
        shown = "".join(f"│{readable(p)}" + "\n" * p.endswith(b"\n") for p in self.pieces)
        ids = f"\nids: {self.ids}" if self.show_ids else ""
        return f"{self.summary()}\n{shown}│{ids}"

    def _repr_html_(self) -> str:
        ids = ", ".join(map(str, self.ids))
        return (
            f'<div style="color:{INK};background:{CARD};padding:6px 8px;border-radius:4px;'
            'font-family:ui-monospace,Menlo,Consolas,monospace;line-height:1.7">'
            f'<div style="font-family:sans-serif;font-size:90%"><b>{self.summary()}</b> '
            "(hover over a token to see its id)</div>"
            f"<div>{token_spans(self.pieces, self.ids, self.show_ids)}</div>"
            '<details><summary style="font-family:sans-serif;font-size:90%">token ids</summary>'
            # Themes restyle <code>, so it gets its colours set again.
            f'<code style="color:{INK};background:{CARD}">[{ids}]</code></details></div>'
        )


def token_bytes(tokenizer: Any, token_id: int) -> bytes:
    """The bytes of one token, for tiktoken encodings and for our tokenizers."""
    if hasattr(tokenizer, "decode_single_token_bytes"):  # tiktoken.Encoding
        return tokenizer.decode_single_token_bytes(token_id)
    if hasattr(tokenizer, "decode_bytes"):  # lib.Tokenizer
        return tokenizer.decode_bytes([token_id])
    return tokenizer.decode([token_id]).encode("utf-8")  # e.g. a character-level tokenizer


def show_tokens(text: str, tokenizer: Any, show_ids: bool = False) -> TokenView:
    """Show how `tokenizer` cuts `text` into tokens (special tokens in the text are allowed).

    Make it the last line of a cell to see coloured tokens; `show_ids=True` also prints each id
    under its token.
    """
    try:
        ids = list(tokenizer.encode(text, allowed_special="all"))
    except TypeError:  # a tokenizer without special tokens
        ids = list(tokenizer.encode(text))
    return TokenView(text, ids, [token_bytes(tokenizer, i) for i in ids], show_ids)
