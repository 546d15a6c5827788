"""A static picture beside every stored plotly figure, for readers without JavaScript.

A plotly figure is stored in a notebook as its JSON (mime type `application/vnd.plotly.v1+json`),
which only a JavaScript front end draws: JupyterLab, Notebook 7, VS Code. GitHub, nbviewer and
`jupyter nbconvert --to html` do not know that mime type and fall back to the next one in the same
output, so `python -m lib.notebooks regenerate` adds a PNG of each figure to its output (made with
plotly's static export, kaleido, which drives a headless Chromium). Jupyter front ends still draw
the interactive figure from the JSON; a live kernel on Colab or JupyterLab makes its own outputs
and never sees these images. Chromium draws text only in the scripts it has fonts for: on Debian,
install `fonts-noto-core` before regenerating, or Devanagari labels come out as empty boxes.

`pytest --nbval` does not compare `image/png` outputs (pixels may differ between Chromium builds),
so a fresh run, which has no PNG, still matches the stored notebook.
"""

from __future__ import annotations

import base64
import warnings
from collections.abc import Iterator

import nbformat

PLOTLY = "application/vnd.plotly.v1+json"
PNG = "image/png"
WIDTH = 900  # pixels; about the width of a notebook's output area on a laptop
DEFAULT_HEIGHT = 440  # lib.viz's charts; a figure that sets its own height keeps it


def figure_outputs(nb: nbformat.NotebookNode) -> Iterator[nbformat.NotebookNode]:
    """Every output of `nb` that holds a plotly figure."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if PLOTLY in output.get("data", {}):
                yield output


def figures_without_image(nb: nbformat.NotebookNode) -> int:
    """How many stored figures in `nb` have no static image."""
    return sum(PNG not in output.data for output in figure_outputs(nb))


def add_static_images(nb: nbformat.NotebookNode) -> int:
    """Store a PNG beside each plotly figure of `nb` (replacing an older one); return how many.

    Starting Chromium takes seconds, so it starts once for all of a notebook's figures.
    """
    outputs = list(figure_outputs(nb))
    if not outputs:
        return 0
    import kaleido  # only needed here, and slow to import
    import plotly.io as pio

    with warnings.catch_warnings():
        # plotly warns that the options it passes are ignored by an already started server.
        warnings.simplefilter("ignore", UserWarning)
        kaleido.start_sync_server(silence_warnings=True)
        try:
            for output in outputs:
                figure = output.data[PLOTLY]
                height = figure.get("layout", {}).get("height", DEFAULT_HEIGHT)
                png = pio.to_image(figure, format="png", width=WIDTH, height=height)
                output.data[PNG] = base64.b64encode(png).decode("ascii")
        finally:
            kaleido.stop_sync_server(silence_warnings=True)
    return len(outputs)
