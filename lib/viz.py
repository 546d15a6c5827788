"""Pictures for the lessons: tokens as coloured spans, and plotly charts.

`show_tokens(text, tokenizer)` shows how a tokenizer cuts a text, as the tiktokenizer web app does:
one coloured span per token, whitespace made visible, and tokens that are not a whole UTF-8
character on their own shown as their bytes. It accepts our `lib.Tokenizer` (or anything with
`encode` and `decode_bytes`) and a `tiktoken.Encoding`.

The chart helpers return plotly figures (display one by making it a cell's last expression); each
needs a title and axis labels that say the unit, e.g. "UTF-8 bytes per character".

In a Jupyter kernel plotly stores a figure as its JSON only (JupyterLab, Notebook 7 and VS Code
draw it; Colab uses its own renderer). Readers without JavaScript (GitHub, nbviewer, HTML exports)
see the PNG that `python -m lib.notebooks regenerate` stores beside it (lib/static_figures.py).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

# Light colours that keep black text readable; neighbours always differ.
PALETTE = ("#c9e4f6", "#fde2b8", "#cdeccd", "#f7cfd8", "#e2d6f3", "#fff3b0", "#d3ecea", "#eadccc")
_VISIBLE = str.maketrans({" ": "·", "\n": "↵", "\t": "→", "\r": "␍"})
# Bytes that are not valid UTF-8 come back from "surrogateescape" as U+DC80..U+DCFF; other
# control characters would be invisible. Both are shown as hex bytes.
_UNPRINTABLE = re.compile(r"[\udc80-\udcff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")


def readable(piece: bytes) -> str:
    """How one token is written on screen: b" caf\\xc3\\xa9" -> "·café" (whitespace made
    visible), b"\\xe0\\xa4" -> "<e0 a4>" (bytes that are not a whole character)."""
    text = piece.decode("utf-8", errors="surrogateescape")

    def as_hex(match: re.Match[str]) -> str:
        return "<" + " ".join(f"{ord(c) & 0xFF:02x}" for c in match.group()) + ">"

    return _UNPRINTABLE.sub(as_hex, text.translate(_VISIBLE))


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
        spans = []
        for i, (token_id, piece) in enumerate(zip(self.ids, self.pieces, strict=True)):
            label = html.escape(readable(piece))
            if self.show_ids:  # the id in small print under the token
                label = (
                    f'<span style="display:inline-block;text-align:center">{label}<br>'
                    f'<small style="color:#555">{token_id}</small></span>'
                )
            tip = html.escape(f"id {token_id} · {piece!r}")
            colour = PALETTE[i % len(PALETTE)]
            spans.append(
                f'<span title="{tip}" style="background:{colour};border-radius:3px;'
                f'padding:1px 0;margin-right:1px">{label}</span>' + "\n" * piece.endswith(b"\n")
            )
        ids = ", ".join(map(str, self.ids))
        return (
            '<div style="font-family:ui-monospace,Menlo,Consolas,monospace;line-height:1.9">'
            f'<div style="font-family:sans-serif;font-size:90%"><b>{self.summary()}</b> '
            "(hover over a token to see its id)</div>"
            '<div style="white-space:pre-wrap;word-break:break-all;color:#111">'
            f"{''.join(spans)}</div>"
            f'<details><summary style="font-family:sans-serif;font-size:90%">token ids'
            f"</summary><code>[{ids}]</code></details></div>"
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


def text_table(rows: Sequence[Any], header: Sequence[str] | None = None) -> str:
    """An aligned plain-text table to print. `rows` are dicts (their keys are the header) or
    sequences with a `header`. Integers get thousands separators, floats two decimals; numbers
    are right-aligned, everything else left-aligned.

    Put any column holding emoji or CJK text last: those glyphs are wider than one monospace cell,
    so they would push the columns after them out of line.
    """
    if header is None:
        header = list(rows[0])
        rows = [[row[h] for h in header] for row in rows]
    cells = [[_cell_text(value) for value in row] for row in rows]
    numeric = [all(_is_number(row[i]) for row in rows) for i in range(len(header))]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(header)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    lines = [line(list(header)), "-" * len(line(list(header)))]
    return "\n".join(lines + [line(row) for row in cells])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _cell_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}" if _is_number(value) else str(value)


def _figure(
    traces: list[Any],
    title: str,
    x_label: str,
    y_label: str,
    log_x: bool = False,
    log_y: bool = False,
    legend_title: str = "",
) -> go.Figure:
    for what, value in (("title", title), ("x_label", x_label), ("y_label", y_label)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"a chart needs a {what} (axis labels should name the unit)")
    figure = go.Figure(traces)
    figure.update_layout(
        template="plotly_white",
        title=title,
        height=440,
        font_size=13,
        margin=dict(l=70, r=30, t=70, b=70),
        legend_title_text=legend_title,
    )
    figure.update_xaxes(title_text=x_label, type="log" if log_x else None)
    figure.update_yaxes(title_text=y_label, type="log" if log_y else None)
    return figure


def _check_lengths(xs: Sequence[Any], series: dict[str, Sequence[float]]) -> None:
    for name, values in series.items():
        if len(values) != len(xs):
            raise ValueError(f"series {name!r} has {len(values)} values for {len(xs)} x positions")


def bar_chart(
    labels: Sequence[Any],
    values: Sequence[float],
    title: str,
    x_label: str,
    y_label: str,
    *,
    log_y: bool = False,
) -> go.Figure:
    """One bar per label, e.g. the frequency of the 30 most common tokens."""
    _check_lengths(labels, {"values": values})
    return _figure([go.Bar(x=list(labels), y=list(values))], title, x_label, y_label, log_y=log_y)


def grouped_bar_chart(
    categories: Sequence[Any],
    series: dict[str, Sequence[float]],
    title: str,
    x_label: str,
    y_label: str,
    *,
    log_y: bool = False,
    legend_title: str = "",
) -> go.Figure:
    """Bars side by side per category, one colour per series, e.g. tokens per language for
    several tokenizers: `grouped_bar_chart(languages, {"GPT-2": [...], "GPT-4": [...]}, ...)`."""
    _check_lengths(categories, series)
    bars = [
        go.Bar(name=name, x=list(categories), y=list(values)) for name, values in series.items()
    ]
    figure = _figure(bars, title, x_label, y_label, log_y=log_y, legend_title=legend_title)
    return figure.update_layout(barmode="group")


def line_chart(
    xs: Sequence[float],
    series: dict[str, Sequence[float]],
    title: str,
    x_label: str,
    y_label: str,
    *,
    log_x: bool = False,
    log_y: bool = False,
    legend_title: str = "",
) -> go.Figure:
    """One line per series over the same x values, e.g. compression against number of merges
    for English and for Hindi."""
    _check_lengths(xs, series)
    lines = [
        go.Scatter(name=name, x=list(xs), y=list(values), mode="lines+markers")
        for name, values in series.items()
    ]
    return _figure(lines, title, x_label, y_label, log_x, log_y, legend_title)
