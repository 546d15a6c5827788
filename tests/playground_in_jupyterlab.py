"""Type into the token playground in JupyterLab, in headless Chromium, and check the counts change.

    python tests/playground_in_jupyterlab.py --browser-python /var/tmp/pw/bin/python shot.png

Not collected by pytest: it starts a JupyterLab server (with this Python's packages) on a notebook
holding lesson 5's playground cell, then, in a second Python that has playwright (`pip install
playwright`; it drives the system's Chromium, so no browser download is needed), opens the
notebook, runs the cell, types into the text box like a person (one key at a time) and reads the
rows' summaries before and after. It prints them as JSON and keeps a screenshot for a person to
look at. Exit status 1 if the counts did not change.
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
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
CELL = """from lib import viz
viz.playground({"GPT-2": "gpt2", "GPT-4": "cl100k_base"}, text="hello")"""
TYPED = " world, EGG 1234567"

# Runs in the Python that has playwright; gets the URL, the screenshot path and what to type.
BROWSER = """
import json, sys
from playwright.sync_api import sync_playwright

url, shot, typed = sys.argv[1:4]
summaries = "els => els.map(e => e.textContent)"
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=120_000)
    page.wait_for_selector("text=| Idle", timeout=120_000)  # the status bar: the kernel is up
    page.click(".jp-Notebook .jp-Cell .cm-content")
    page.keyboard.press("Shift+Enter")
    try:
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
    page.click(".widget-checkbox input")
    page.wait_for_timeout(1000)
    page.screenshot(path=shot, full_page=True)
    browser.close()
print(json.dumps({"before": before, "after": after}))
"""


def wait_for(url: str, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            time.sleep(1)
    sys.exit(f"JupyterLab did not answer at {url} within {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser-python", required=True, help="a Python with playwright")
    parser.add_argument("screenshot", type=Path)
    parser.add_argument("--port", type=int, default=8931)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="playground-lab-"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    # Without a kernelspec JupyterLab asks which kernel to start, in a dialog over the page.
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "playground.ipynb")
    token = secrets.token_hex(16)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lab = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={args.port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{args.port}"
        wait_for(f"{base}/api/status?token={token}")
        url = f"{base}/lab/tree/playground.ipynb?token={token}"
        done = subprocess.run(
            [args.browser_python, "-c", BROWSER, url, str(args.screenshot.resolve()), TYPED],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if done.returncode:
            sys.exit(f"the browser run failed:\n{done.stderr[-3000:]}")
        seen = json.loads(done.stdout.splitlines()[-1])
    finally:
        lab.terminate()
        lab.wait(timeout=30)
    print(json.dumps(seen, ensure_ascii=False))
    sys.exit(0 if seen["before"] and seen["after"] and seen["before"] != seen["after"] else 1)


if __name__ == "__main__":
    main()
