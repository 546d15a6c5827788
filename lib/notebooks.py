"""Notebook tooling: the shared set-up cell, and regenerating the lessons' stored outputs.

The stored outputs of `notebooks/*.ipynb` are part of the lessons (people read them on GitHub)
and are what `pytest --nbval` compares against, so they are always made the same way:

    python -m lib.notebooks regenerate [NOTEBOOK ...]   # all notebooks/*.ipynb by default
    python -m lib.notebooks check [NOTEBOOK ...]        # stored as regenerate leaves them?
    python -m lib.notebooks set-repo OWNER/NAME         # where the course is published
    python -m lib.notebooks site --out _site            # the website, from the stored notebooks

`regenerate` puts the current `SETUP_CELL` in each notebook's second cell (replacing a `# SETUP`
placeholder too), runs the notebook top to bottom in a fresh kernel of this Python environment
with `PYTHONHASHSEED=0` (the rest of the environment, e.g. `COURSE_DATA_MIRROR`, is passed
through), then strips what changes on every run without meaning anything (per-cell timestamps
and widget state and views) and stores a static image beside each plotly figure
(`lib.static_figures`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from lib import __version__
from lib.setup_cell import setup_cell
from lib.static_figures import add_static_images, figures_without_image
from lib.website import build_site

# Where learners on Colab get the course from. A placeholder until the course is published:
# `python -m lib.notebooks set-repo OWNER/NAME` sets it everywhere (and `check --release` fails
# while it is still the placeholder).
PLACEHOLDER_URL = "https://github.com/YOUR-GITHUB-NAME/tokenization-course"
REPO_URL = PLACEHOLDER_URL
VERSION = __version__  # the set-up cell asks an existing clone for at least this version
ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT = 120  # seconds; a lesson runs in about a minute, so a hung cell fails fast

SETUP_CELL = setup_cell(REPO_URL, VERSION)

# Cell metadata that records one particular run (timing) or one particular editor's view.
_VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime", "colab", "outputId")
# A widget's view names a model that lives only in the kernel that made it: stored, it shows as
# a broken widget (and puts a new random id in every diff). The output's HTML stays in its place.
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Exactly what JupyterLab writes when it opens a notebook with ipykernel's `python3` kernel, so
# that opening a lesson does not mark it as modified.
_KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


class ThisPython(KernelSpecManager):
    """Kernel specs that always start the kernel with this interpreter (like nbval's
    --nbval-current-env), so a `python3` kernel registered elsewhere cannot change the outputs.
    `interrupt_mode` "message" is for kernels a signal cannot reach (the grader's sandbox)."""

    interrupt_mode = "signal"

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        import ipykernel.kernelspec

        spec = {**ipykernel.kernelspec.get_kernel_dict(), "interrupt_mode": self.interrupt_mode}
        return KernelSpec(resource_dir=ipykernel.kernelspec.RESOURCES, **spec)


def notebook_paths(paths: list[str] | None = None) -> list[Path]:
    """The notebooks to work on: the given paths, or every lesson in `notebooks/` in order."""
    return [Path(p) for p in paths] if paths else sorted(NOTEBOOKS.glob("*.ipynb"))


def install_setup_cell(nb: nbformat.NotebookNode) -> None:
    """Make the second cell the current SETUP_CELL (it may hold a `# SETUP` placeholder or an
    older version of the set-up cell)."""
    cell = nb.cells[1] if len(nb.cells) > 1 else None
    if not (cell and cell.cell_type == "code" and cell.source.startswith(("# SETUP", "# Set-up"))):
        raise ValueError("the second cell must be the set-up cell or a `# SETUP` placeholder")
    cell.source = SETUP_CELL


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = CELL_TIMEOUT) -> float:
    """Run every cell of `nb` in a fresh kernel started in `cwd`, store the outputs in `nb`, and
    return the run time in seconds. Raises nbclient's CellExecutionError if a cell fails (unless
    the cell is tagged `raises-exception`)."""
    kernel = KernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())
    client = NotebookClient(
        nb,
        km=kernel,
        timeout=timeout,
        record_timing=False,
        store_widget_state=False,
        coalesce_streams=True,
    )
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # set iteration order of str must not vary
    start = time.perf_counter()
    try:
        client.execute(cwd=str(cwd), env=env)
    finally:  # nbclient leaves a kernel it did not create running
        if kernel.has_kernel:
            kernel.shutdown_kernel(now=True)
    return time.perf_counter() - start


def normalize(nb: nbformat.NotebookNode) -> None:
    """Remove what differs between two clean runs of the same notebook, keeping what matters
    (outputs, tags, `exercise`/`answer` cell metadata, the notebook's `course` metadata)."""
    for cell in nb.cells:
        for key in _VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(_WIDGET_VIEW, None)
    language = {k: v for k, v in nb.metadata.get("language_info", {}).items() if k != "version"}
    kept = {key: nb.metadata[key] for key in ("course",) if key in nb.metadata}
    if "course" in kept:  # which version of the course this notebook was made with
        kept["course"] = {**kept["course"], "version": VERSION}
    nb.metadata = nbformat.NotebookNode(kernelspec=_KERNELSPEC, **kept)
    if language:
        nb.metadata.language_info = language


def problems(nb: nbformat.NotebookNode) -> list[str]:
    """What keeps `nb` from being stored exactly as `regenerate` leaves it (empty list if none)."""
    found = []
    if len(nb.cells) < 2 or nb.cells[1].source != SETUP_CELL:
        found.append("the second cell is not lib.notebooks.SETUP_CELL")
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    if counts != list(range(1, len(counts) + 1)):
        found.append(f"execution counts are {counts}, not 1..{len(counts)} from one clean run")
    if any(key in c.metadata for c in nb.cells for key in _VOLATILE_CELL_METADATA):
        found.append("cells carry run or editor metadata (timestamps, scroll state)")
    if "widgets" in nb.metadata:
        found.append("the notebook stores widget state")
    if any(c.cell_type == "code" and c.source.endswith("\n") for c in nb.cells):
        found.append("a code cell ends in a newline (ruff format's layout has none)")
    if any(_WIDGET_VIEW in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])):
        found.append("a cell stores a widget's view (run `regenerate`: it keeps the HTML)")
    if (nb.metadata.get("course") or {}).get("version", VERSION) != VERSION:
        found.append(f"the course version in its metadata is not {VERSION}")
    if nb.metadata.get("kernelspec") != _KERNELSPEC:
        found.append(f"the kernelspec is not {_KERNELSPEC}")
    if missing := figures_without_image(nb):
        found.append(f"{missing} plotly figure(s) without a static image")
    return found


def regenerate(path: Path) -> float:
    """Install the set-up cell, run the notebook from `notebooks/` and store it; return seconds."""
    nb = nbformat.read(path, as_version=4)
    install_setup_cell(nb)
    for cell in nb.cells:  # as ruff format lays a cell out (it would rewrite the outputs' floats)
        if cell.cell_type == "code":
            cell.source = cell.source.rstrip("\n")
    seconds = execute(nb, cwd=path.resolve().parent)
    normalize(nb)
    add_static_images(nb)
    nbformat.write(nb, path)
    return seconds


def set_repo(slug: str, root: Path = ROOT) -> list[Path]:
    """Point the course at github.com/OWNER/NAME: this module's `REPO_URL`, the README's Colab
    badges and site address (GitHub Pages': OWNER.github.io/NAME) and every lesson's set-up cell
    (no re-run needed: the cell prints nothing locally). Returns the files changed."""
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", slug):
        raise ValueError(f"{slug!r} is not OWNER/NAME (e.g. ada/tokenization-course)")
    new_url, old_url = f"https://github.com/{slug}", REPO_URL
    old_slug = old_url.removeprefix("https://github.com/")
    replacements = {
        root / "lib" / "notebooks.py": [
            (f"REPO_URL = {_repo_url_source()}", f'REPO_URL = "{new_url}"')
        ],
        root / "README.md": [
            (f"/github/{old_slug}/", f"/github/{slug}/"),
            (_site_url(old_slug), _site_url(slug)),
        ],
    }
    for notebook in sorted((root / "notebooks").glob("*.ipynb")):
        replacements[notebook] = [(old_url, new_url)]
    changed = []
    for path, pairs in replacements.items():
        text = original = path.read_text(encoding="utf-8")
        for old, new in pairs:
            text = text.replace(old, new)
        if text != original:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def _site_url(slug: str) -> str:
    """Where GitHub Pages publishes the website of the repository OWNER/NAME."""
    owner, name = slug.split("/")
    return f"https://{owner}.github.io/{name}/"


def _repo_url_source() -> str:
    """How `REPO_URL` is written in this file: the placeholder's name, or a quoted address."""
    return "PLACEHOLDER_URL" if REPO_URL == PLACEHOLDER_URL else f'"{REPO_URL}"'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lib.notebooks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=["regenerate", "check", "set-repo", "site"])
    parser.add_argument(
        "notebooks", nargs="*", help="default: notebooks/*.ipynb (set-repo: OWNER/NAME)"
    )
    parser.add_argument(
        "--release", action="store_true", help="check: also fail while the address is a placeholder"
    )
    parser.add_argument("--out", type=Path, default=Path("_site"), help="site: its folder")
    args = parser.parse_intermixed_args(argv)
    if args.command == "set-repo":
        if len(args.notebooks) != 1:
            parser.error("set-repo takes one OWNER/NAME, e.g. ada/tokenization-course")
        try:
            changed = set_repo(args.notebooks[0])
        except ValueError as error:
            parser.error(str(error))
        print(*(f"updated {path}" for path in changed), sep="\n")
        return 0
    if args.command == "site":
        for warning in build_site(
            args.out, notebook_paths(args.notebooks), ROOT / "README.md", REPO_URL
        ):
            print("warning:", warning)
        print(f"The site is in {args.out}: open {args.out / 'index.html'}")
        return 0
    failed = 0
    if args.command == "check" and args.release and REPO_URL == PLACEHOLDER_URL:
        print(
            f"The course's address is still the placeholder {PLACEHOLDER_URL}: run "
            "`python -m lib.notebooks set-repo OWNER/NAME` before publishing."
        )
        failed = 1
    for path in notebook_paths(args.notebooks):
        if args.command == "regenerate":
            try:
                print(f"{path.name}: ran in {regenerate(path):.1f} s", flush=True)
            except Exception as error:  # report it, then go on with the other notebooks
                print(f"{path.name}: FAILED, stored file unchanged\n{error}", flush=True)
                failed = 1
            continue
        for problem in problems(nbformat.read(path, as_version=4)):
            print(f"{path.name}: {problem}")
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
