"""Pictures for the lessons: tokens as coloured spans, and plotly charts.

`show_tokens(text, tokenizer)` shows how a tokenizer cuts a text, as the tiktokenizer web app does
(it lives in lib/token_view.py and is re-exported here, where the lessons look for pictures).
`playground(tokenizers, text=...)` puts several tokenizers side by side under a text box that the
learner types into (lib/playground.py).

The chart helpers return plotly figures (display one by making it a cell's last expression); each
needs a title and axis labels that say the unit, e.g. "UTF-8 bytes per character".

In a Jupyter kernel plotly stores a figure as its JSON only (JupyterLab, Notebook 7 and VS Code
draw it; Colab uses its own renderer). Readers without JavaScript (GitHub, nbviewer, HTML exports)
see the PNG that `python -m lib.notebooks regenerate` stores beside it (lib/static_figures.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from lib.playground import Playground, playground
from lib.token_view import TokenView, readable, show_tokens, token_bytes

# Series colours, in order: Okabe and Ito's palette, told apart by readers with any common
# colour-vision deficiency (plotly's default puts red next to green).
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")

__all__ = [
    "Playground",
    "TokenView",
    "bar_chart",
    "grouped_bar_chart",
    "line_chart",
    "line_panels",
    "playground",
    "readable",
    "show_tokens",
    "text_table",
    "token_bytes",
]


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
    figure = _styled(go.Figure(traces), title, legend_title, x_label, y_label)
    figure.update_xaxes(title_text=x_label, type="log" if log_x else None)
    figure.update_yaxes(title_text=y_label, type="log" if log_y else None)
    return figure


def _styled(figure: go.Figure, title: str, legend_title: str, *labels: str) -> go.Figure:
    """The house style, after checking that the title and every axis label are given."""
    names = ["title", "x_label"] + ["y_label"] * (len(labels) - 1)
    for what, value in zip(names, (title, *labels), strict=True):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"a chart needs a {what} (axis labels should name the unit)")
    figure.update_layout(
        template="plotly_white",
        colorway=COLOURS,
        title=title,
        height=440,
        font_size=13,
        margin=dict(l=70, r=30, t=70, b=70),
        legend_title_text=legend_title,
    )
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
    from_value: float | None = None,
    legend_below: bool = False,
) -> go.Figure:
    """Bars side by side per category, one colour per series, e.g. tokens per language for
    several tokenizers: `grouped_bar_chart(languages, {"GPT-2": [...], "GPT-4": [...]}, ...)`.

    `from_value` makes every bar start there instead of at the axis's floor, e.g. 1 for ratios on
    a log axis, so that a bar's length means something and one below 1 points down.
    `legend_below` puts the legend in a row under the plot, which leaves a phone's narrow screen
    to the bars."""
    _check_lengths(categories, series)
    bars = [
        go.Bar(name=name, x=list(categories), y=list(values)) for name, values in series.items()
    ]
    if from_value is not None:
        for bar in bars:  # plotly draws a bar from `base` to `base + y`; hover shows the value
            values = list(bar.y)
            bar.update(
                base=from_value,
                y=[value - from_value for value in values],
                customdata=values,
                hovertemplate="%{x}: %{customdata:.3g}",
            )
    figure = _figure(bars, title, x_label, y_label, log_y=log_y, legend_title=legend_title)
    if legend_below:
        # at the figure's foot, below the axis title, however many rows a narrow screen needs
        # (the caller leaves room for them with the bottom margin)
        legend = dict(orientation="h", x=0, y=0, yref="container", yanchor="bottom")
        figure.update_layout(legend=legend)
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


def line_panels(
    xs: Sequence[float],
    panels: dict[str, dict[str, Sequence[float]]],
    title: str,
    x_label: str,
    *,
    log_x: bool = False,
    legend_title: str = "",
) -> go.Figure:
    """Line charts side by side over the same x values and series, one panel per measure, each
    keyed by its y-axis label (with the unit): `line_panels(sizes, {"bytes per token":
    {"standard": [...], "parity": [...]}, "Gini": {...}}, ...)`. A series keeps its colour."""
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=len(panels), horizontal_spacing=0.1)
    for column, (y_label, series) in enumerate(panels.items(), start=1):
        _check_lengths(xs, series)
        for k, (name, values) in enumerate(series.items()):
            line = go.Scatter(name=name, x=list(xs), y=list(values), mode="lines+markers")
            line.update(line_color=COLOURS[k % len(COLOURS)], legendgroup=name)
            line.update(showlegend=column == 1)
            figure.add_trace(line, row=1, col=column)
        figure.update_yaxes(title_text=y_label, row=1, col=column)
    _styled(figure, title, legend_title, x_label, *panels)
    figure.update_xaxes(title_text=x_label, type="log" if log_x else None, tickvals=list(xs))
    return figure
