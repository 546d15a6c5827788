"""Progress bars for long steps (training a tokenizer), shown only when someone is watching.

A progress bar is output that changes on every run (speeds, elapsed times), so a notebook that
stored one could never be compared with a fresh run by `pytest --nbval`. Batch runs of a notebook
(our `lib.notebooks regenerate`, nbval, `jupyter nbconvert --execute`, the grader) all execute
cells with `allow_stdin=False`: nobody can type into them, so nobody is watching either. In those
runs the bar stays hidden and the cell's stored output does not depend on it. A person running the
notebook in Jupyter, Colab or VS Code (whose cells may read input) gets tqdm's widget bar, and a
script in a terminal gets tqdm's text bar on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from tqdm import tqdm

T = TypeVar("T")


def someone_is_watching() -> bool:
    """False inside a Jupyter kernel that is running a cell without a person at a frontend."""
    ipython_module = sys.modules.get("IPython")
    shell = ipython_module.get_ipython() if ipython_module else None
    kernel = getattr(shell, "kernel", None)
    if kernel is None:  # plain Python or a terminal IPython: tqdm writes to stderr as usual
        return True
    # ipykernel records per cell whether the frontend that sent it can answer input();
    # it is a private attribute, so if it is ever missing we assume a person is there.
    return bool(getattr(kernel, "_allow_stdin", True))


def progress(
    iterable: Iterable[T] | None = None,
    total: int | None = None,
    desc: str = "",
    enabled: bool = True,
) -> tqdm:
    """Wrap `iterable` in a tqdm progress bar: `for merge in progress(range(n), desc="merges")`.

    Without an iterable, update it by hand: `bar = progress(total=n)`, `bar.update(1)`,
    `bar.close()`. With `enabled=False` (or in a batch run, see the module's docstring) it
    iterates just the same and prints nothing.
    """
    from tqdm import tqdm  # imported here, so that `import lib` does not pay for it

    if not (enabled and someone_is_watching()):
        return tqdm(iterable, total=total, desc=desc, disable=True)
    # Imported here: tqdm.auto picks the notebook widget when it can, and it warns on import
    # when ipywidgets is missing; that warning must not land in a batch run's output.
    from tqdm.auto import tqdm as auto_tqdm

    return auto_tqdm(iterable, total=total, desc=desc)
