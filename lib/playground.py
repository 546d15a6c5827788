"""A token playground: type a text and see how several tokenizers cut it, side by side.

    from lib import viz
    viz.playground({"GPT-2": "gpt2", "GPT-4": gpt4}, text="Hello, tokenizers!")

One row per tokenizer: its name, the number of tokens, UTF-8 bytes per token (more bytes per token
is a shorter sequence for the model), and the tokens as coloured spans (lib/token_view.py), each
with its id on hover and the list of ids below. Tokenizers of any shape are welcome
(lib/token_cuts.py), and a tokenizer that fails on some text shows its error in its own row.

In a running notebook the playground is a widget (ipywidgets 7 on Colab, 8 in JupyterLab,
Notebook 7 and VS Code): the rows follow the text box as you type. Where no kernel runs (GitHub, an
HTML export, nbval) the cell's stored output is the same rows for the default text, as plain HTML,
so nothing shows as a broken widget.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lib.token_cuts import Cut, Cutter, cutter, name_of, specials
from lib.token_view import CARD, INK, readable, token_spans

DEBOUNCE_SECONDS = 0.15  # wait for a pause in typing before tokenizing again
MAX_SHOWN = 600  # tokens drawn per row; a pasted page is counted in full but drawn in part
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_CARD = (
    f"color:{INK};background:{CARD};padding:6px 8px;margin:4px 0;border-radius:4px;"
    "font-family:ui-monospace,Menlo,Consolas,monospace;line-height:1.7"
)
_SANS = "font-family:sans-serif;font-size:90%"


@dataclass
class Row:
    """How one tokenizer cut the text: its `cut`, or the `error` it raised."""

    name: str
    cut: Cut | None = None
    error: str = ""

    def summary(self, n_bytes: int) -> str:
        if self.cut is None:
            return f"{self.name} · error: {self.error}"
        n = len(self.cut.ids)
        per_token = f"{n_bytes / n:.2f}" if n else "–"
        return f"{self.name} · {n} token{'s' * (n != 1)} · {per_token} bytes per token"


class Playground:
    """Tokenizers side by side on one text; a widget in a live notebook, HTML anywhere else."""

    def __init__(self, tokenizers: Any, text: str = "", marks: bool = False) -> None:
        if isinstance(tokenizers, Mapping) and not _is_one_tokenizer(tokenizers):
            named = dict(tokenizers)
        else:
            many = isinstance(tokenizers, (list, tuple))
            named = {name_of(t): t for t in (tokenizers if many else [tokenizers])}
        self.cutters: dict[str, Cutter] = {name: cutter(t) for name, t in named.items()}
        self.specials = set().union(*(specials(t) for t in named.values()))
        self.text, self.marks = text, marks
        self._widget: Any = None  # the ipywidgets box, and its HTML of rows
        self._rows: Any = None
        self._pending: asyncio.TimerHandle | None = None

    def rows(self) -> list[Row]:
        """Cut the current text with every tokenizer; an error stays in its own row."""
        rows = []
        for name, cut in self.cutters.items():
            try:
                rows.append(Row(name, cut(self.text)))
            except Exception as error:  # noqa: BLE001 -- any failure belongs to its row only
                rows.append(Row(name, error=f"{type(error).__name__}: {error}"))
        return rows

    def notes(self) -> list[str]:
        """What the reader should know about this text (special-token strings in it)."""
        found = sorted(s for s in self.specials if s in self.text)
        if not found:
            return []
        return [
            f"{', '.join(found)} in the text is cut as ordinary text, not as a special token: "
            "text a person types must never become one (lesson 5)."
        ]

    def html(self) -> str:
        """The rows as HTML: what the widget shows under its text box, and the static view."""
        n_bytes = len(self.text.encode("utf-8", "surrogatepass"))
        parts = [f'<div style="{_SANS}">⚠️ {html.escape(n)}</div>' for n in self.notes()]
        for row in self.rows():
            parts.append(f'<div style="{_CARD}"><div style="{_SANS}">')
            parts.append(f"<b>{html.escape(row.summary(n_bytes))}</b></div>")
            if row.cut is not None:
                parts.append(_tokens_html(row.cut, self.marks))
            parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        n_bytes = len(self.text.encode("utf-8", "surrogatepass"))
        lines = [f"Token playground: {self.text[:60]!r}{'…' * (len(self.text) > 60)}"]
        lines += self.notes()
        for row in self.rows():
            lines.append(row.summary(n_bytes))
            if row.cut is not None:
                lines.append("".join(f"│{readable(p)}" for p in row.cut.pieces[:MAX_SHOWN]) + "│")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # Front ends that run widgets show the widget; the others (GitHub, nbconvert, nbval's
        # comparison, which skips the widget's random model id) show the HTML of the same rows.
        static = (
            f'<div style="{_SANS}">Token playground for the text {html.escape(repr(self.text))} '
            "(run the cell to type your own)</div>" + self.html()
        )
        bundle = {"text/plain": repr(self), "text/html": static}
        if _in_a_kernel() and (widget := self.widget()) is not None:
            bundle[WIDGET_VIEW] = {
                "version_major": 2,
                "version_minor": 0,
                "model_id": widget.model_id,
            }
        return bundle

    def widget(self) -> Any:
        """The ipywidgets box (text box, toggle, rows), made on first use; None without
        ipywidgets. Works with ipywidgets 7 (Colab) and 8: it uses only widgets both have."""
        if self._widget is not None:
            return self._widget
        try:
            import ipywidgets as w
        except ImportError:
            return None
        box = w.Textarea(value=self.text, placeholder="Type or paste a text here", rows=3)
        box.layout = w.Layout(width="100%")
        toggle = w.Checkbox(value=self.marks, description="show whitespace and byte fragments")
        toggle.indent, toggle.layout = False, w.Layout(width="auto")  # else its label is cut short
        self._rows = w.HTML(value=self.html())
        box.observe(self._typed, names="value")
        toggle.observe(self._toggled, names="value")
        self._widget = w.VBox([box, toggle, self._rows])
        return self._widget

    def set_text(self, text: str) -> None:
        """Show `text` now (the widget's text box calls `_typed`, which waits for a pause)."""
        self.text = text
        if self._widget is not None:
            self._rows.value = self.html()

    def _typed(self, change: dict[str, Any]) -> None:
        # Each keystroke would tokenize the whole text again: wait until typing pauses.
        if self._pending is not None:
            self._pending.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a script, a test): show it at once
            self.set_text(change["new"])
            return
        self._pending = loop.call_later(DEBOUNCE_SECONDS, self.set_text, change["new"])

    def _toggled(self, change: dict[str, Any]) -> None:
        self.marks = change["new"]
        self.set_text(self.text)


def playground(tokenizers: Any, text: str = "", marks: bool = False) -> Playground:
    """A token playground over `tokenizers` (one, a list, or a dict of name to tokenizer),
    starting from `text`; make it the last line of a cell. `marks=True` starts with whitespace
    and byte fragments marked (`·` for a space, `<e0 a4>` for part of a character)."""
    return Playground(tokenizers, text, marks)


def _tokens_html(cut: Cut, marks: bool) -> str:
    shown = token_spans(cut.pieces[:MAX_SHOWN], cut.ids[:MAX_SHOWN], marks=marks)
    more = len(cut.ids) - MAX_SHOWN
    if more > 0:
        shown += f' <i style="{_SANS}">… and {more:,} more tokens (counted, not drawn)</i>'
    ids = ", ".join("?" if i is None else str(i) for i in cut.ids)
    return (
        f"<div>{shown}</div>"
        f'<details><summary style="{_SANS}">token ids</summary>'
        f'<code style="color:{INK};background:{CARD}">[{ids}]</code></details>'
    )


def _is_one_tokenizer(mapping: Mapping) -> bool:
    # A WordPiece vocabulary is a dict too, but of piece to id, not of name to tokenizer.
    return all(isinstance(v, int) for v in mapping.values())


def _in_a_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
