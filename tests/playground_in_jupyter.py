"""Type into the token playground in JupyterLab and Notebook 7, in headless Chromium; check counts.

    python -m venv /var/tmp/pw && /var/tmp/pw/bin/pip install playwright   # once
    python tests/playground_in_jupyter.py --browser-python /var/tmp/pw/bin/python shots/
    python tests/playground_in_jupyter.py --browser-python ... --front-end notebook shots/

Not collected by pytest (under a minute per front end on an idle machine). For each front end
asked for (default: both) it starts that server (`jupyter lab` or `jupyter notebook`, with this
Python's packages) on a fresh folder holding a notebook with lesson 5's playground cell. Then a
second Python, one that has playwright (it drives the system's Chromium, so no browser download is
needed), opens the notebook, waits for its kernel, runs the cell, types into the text box like a
person (one key at a time), reads the rows' summaries before and after, and ticks the box that
marks whitespace and byte fragments. The two front ends share everything but the server's command
and the notebook's address.

It prints one JSON line per front end and keeps a screenshot of each, `<folder>/jupyterlab.png`
and `<folder>/notebook7.png`, for a person to look at. Exit status 1 if any front end's counts did
not change or the tick did not redraw its rows. VS Code's notebooks cannot be driven this way:
they run inside VS Code itself, which this check does not start.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
CELL = """from lib import viz
viz.playground({"GPT-2": "gpt2", "GPT-4": "cl100k_base"}, text="hello")"""
TYPED = " world, EGG 1234567"


@dataclass(frozen=True)
class FrontEnd:
    """What differs between two Jupyter front ends for this check: server, address, page."""

    shot: str  # the screenshot's file name
    module: str  # `python -m <module>` starts its server
    path: str  # where a notebook opens, under the server's address


FRONT_ENDS = {
    "lab": FrontEnd("jupyterlab.png", "jupyterlab", "lab/tree"),
    "notebook": FrontEnd("notebook7.png", "notebook", "notebooks"),
}

# Runs in the Python that has playwright. Notebook 7 is built from JupyterLab's components, so cells
# and widgets have the same classes in both; the status bars differ, so whether the notebook's
# kernel is idle is asked of the server instead.
BROWSER = """
import json, sys, time
from playwright.sync_api import sync_playwright

url, kernels, shot, typed = sys.argv[1:5]
cell = ".jp-Notebook .jp-Cell .cm-content"
summaries = "els => els.map(e => e.textContent)"
rows = "els => els.map(e => e.innerHTML).join('')"
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    page.goto(url)
    try:
        page.wait_for_selector(cell, timeout=120_000)
        end = time.monotonic() + 120
        while not [k for k in page.request.get(kernels).json() if k["execution_state"] == "idle"]:
            if time.monotonic() > end:
                raise TimeoutError("the notebook's kernel was not idle within 120 s")
            time.sleep(0.5)
        page.wait_for_timeout(1000)  # the page's own connection to the kernel
        page.click(cell)
        page.keyboard.press("Shift+Enter")
        box = page.wait_for_selector(".widget-textarea textarea", timeout=120_000)
    except Exception:
        page.screenshot(path=shot, full_page=True)  # what the page showed instead
        raise
    before = page.eval_on_selector_all(".widget-html b", summaries)
    box.click()
    page.keyboard.press("End")
    page.keyboard.type(typed, delay=40)
    page.wait_for_timeout(1500)  # the debounce, and the kernel's answer
    after = page.eval_on_selector_all(".widget-html b", summaries)
    unmarked = page.eval_on_selector_all(".widget-html", rows)
    page.click(".widget-checkbox input")
    page.wait_for_timeout(1000)
    marked = page.eval_on_selector_all(".widget-html", rows) != unmarked
    page.screenshot(path=shot, full_page=True)
    browser.close()
print(json.dumps({"before": before, "after": after, "toggle redrew the rows": marked}))
"""


def wait_for(url: str, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            time.sleep(1)
    sys.exit(f"the Jupyter server did not answer at {url} within {seconds:.0f} s")


def lesson_folder() -> Path:
    """A fresh folder with one notebook: the playground cell, and a kernel named up front."""
    folder = Path(tempfile.mkdtemp(prefix="playground-jupyter-"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    # Without a kernelspec the front end asks which kernel to start, in a dialog over the page.
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "playground.ipynb")
    return folder


def drive(front: FrontEnd, browser_python: str, shot: Path, port: int) -> dict[str, list[str]]:
    """Serve the notebook with `front`, type into its playground, and return the summaries seen."""
    token = secrets.token_hex(16)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", front.module, "--no-browser", "--allow-root", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={lesson_folder()}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/api/status?token={token}")
        url = f"{base}/{front.path}/playground.ipynb?token={token}"
        kernels = f"{base}/api/kernels?token={token}"
        done = subprocess.run(
            [browser_python, "-c", BROWSER, url, kernels, str(shot), TYPED],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if done.returncode:
            sys.exit(f"the browser run in {front.module} failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.splitlines()[-1])
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser-python", required=True, help="a Python with playwright")
    parser.add_argument("--front-end", choices=sorted(FRONT_ENDS), action="append")
    parser.add_argument("--port", type=int, default=8931)
    parser.add_argument("folder", type=Path, help="where the screenshots are kept")
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    changed = True
    for name in args.front_end or ["lab", "notebook"]:
        front = FRONT_ENDS[name]
        seen = drive(front, args.browser_python, (args.folder / front.shot).resolve(), args.port)
        typed = seen["before"] and seen["after"] and seen["before"] != seen["after"]
        changed &= bool(typed and seen["toggle redrew the rows"])
        print(json.dumps({"front end": front.module, **seen}, ensure_ascii=False))
    sys.exit(0 if changed else 1)


if __name__ == "__main__":
    main()
