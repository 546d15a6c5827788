"""Progress bars for long steps (training a tokenizer) that leave one plain line in a notebook.

A moving bar is output that changes on every run (speeds, elapsed times), and a notebook widget
needs its live kernel: a stored widget bar reads "model not found" when the notebook is reopened,
and its text form says "0%". So in a notebook every bar ends as one line of plain text with the
final count, e.g. `merges: 2,000/2,000`, which is what gets saved and compared by `pytest --nbval`.

Batch runs of a notebook (our `lib.notebooks regenerate`, nbval, `jupyter nbconvert --execute`,
the grader) execute cells with `allow_stdin=False`: nobody can type into them, so nobody is
watching either, and they print only that final line. A person running the notebook in Jupyter,
Colab or VS Code (whose cells may read input) sees tqdm's widget bar until it finishes, and a
script in a terminal gets tqdm's text bar on stderr.
"""

from __future__ import annotations

import importlib.util
import io
import sys
from collections.abc import Iterable
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


def _kernel() -> object | None:
    """The Jupyter kernel running this code, or None in plain Python and terminal IPython."""
    ipython_module = sys.modules.get("IPython")
    shell = ipython_module.get_ipython() if ipython_module else None
    return getattr(shell, "kernel", None)


def someone_is_watching() -> bool:
    """False inside a Jupyter kernel that is running a cell without a person at a frontend."""
    kernel = _kernel()
    if kernel is None:  # plain Python or a terminal IPython: tqdm writes to stderr as usual
        return True
    # ipykernel records per cell whether the frontend that sent it can answer input();
    # it is a private attribute, so if it is ever missing we assume a person is there.
    return bool(getattr(kernel, "_allow_stdin", True))


def final_line(desc: str, n: int, total: int | None) -> str:
    """What a finished bar leaves behind: "merges: 2,000/2,000" ("2,000" without a total)."""
    count = f"{n:,}/{total:,}" if total is not None else f"{n:,}"
    return f"{desc or 'done'}: {count}"


class _OneLine(tqdm):
    """Counts like a bar but draws nothing; prints its final line when it closes."""

    def __init__(self, iterable: Iterable[T] | None, total: int | None, desc: str) -> None:
        super().__init__(iterable, total=total, desc=desc, file=io.StringIO(), mininterval=3600)

    def close(self) -> None:
        if self.disable:  # closed already
            return
        super().close()
        print(final_line(self.desc, self.n, self.total))


def _widget_bar(iterable: Iterable[T] | None, total: int | None, desc: str) -> tqdm:
    """tqdm's notebook widget, replaced by its final line (plain text) when it closes."""
    from IPython.display import display
    from tqdm.notebook import tqdm as notebook_tqdm

    class WidgetThenLine(notebook_tqdm):
        def close(self) -> None:
            if self.disable:
                return
            super().close()
            line = final_line(self.desc, self.n, self.total)
            handle.update({"text/plain": line}, raw=True)

    bar = WidgetThenLine(iterable, total=total, desc=desc, display=False)
    handle = display(bar.container, display_id=True)
    return bar


def progress(
    iterable: Iterable[T] | None = None,
    total: int | None = None,
    desc: str = "",
    enabled: bool = True,
) -> tqdm:
    """Wrap `iterable` in a tqdm progress bar: `for merge in progress(range(n), desc="merges")`.

    Without an iterable, update it by hand: `bar = progress(total=n)`, `bar.update(1)`,
    `bar.close()`. In a notebook the bar ends as one plain line, e.g. "merges: 2,000/2,000" (see
    the module's docstring); with `enabled=False` it iterates just the same and prints nothing.
    """
    if not enabled:
        return tqdm(iterable, total=total, desc=desc, disable=True)
    if _kernel() is None:
        return tqdm(iterable, total=total, desc=desc)
    if someone_is_watching() and importlib.util.find_spec("ipywidgets"):
        return _widget_bar(iterable, total, desc)
    return _OneLine(iterable, total, desc)
