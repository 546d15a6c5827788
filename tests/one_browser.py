"""Pages visited in turn by one headless Chromium, driven over the DevTools protocol by
choreographer (kaleido's own browser driver, so installed already): what each page's scripts
left in the DOM, everything it said on the console, and a screenshot.

Starting Chromium once per page cost 6-10 s of CPU and 65-114 s of waiting for the site's 11
pages; one browser pays its start once.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass, field
from pathlib import Path

import choreographer

# Waits until the page's scripts are done: every figure drawn by plotly, and on the search page
# the results listed. Evaluated in the page; true when there is nothing left to wait for.
SETTLED = """(() => {
  const figures = [...document.querySelectorAll("figure.plotly-figure")];
  const results = document.querySelector("#search-results");
  return figures.every(f => f.classList.contains("drawn"))
    && (!results || !location.search || results.querySelector("li") !== null);
})()"""


@dataclass
class Visit:
    """One page as the browser left it."""

    dom: str
    console: list[str] = field(default_factory=list)  # console calls, errors, failed loads
    settled: bool = False  # its scripts finished within the deadline


async def _visit(chromium: str, pages: list[str], shots: list[Path], seconds: float) -> list[Visit]:
    async with choreographer.Browser(chromium, headless=True) as browser:
        tab = browser.get_tab()
        said: list[str] = []

        async def heard(message: dict) -> None:
            said.append(f"{message['method']}: {message.get('params')}")

        for event in ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"):
            tab.subscribe(event, heard)
        for domain in ("Page", "Runtime", "Log"):
            await tab.send_command(f"{domain}.enable")
        size = {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False}
        await tab.send_command("Emulation.setDeviceMetricsOverride", params=size)
        visits = []
        for url, shot in zip(pages, shots, strict=True):
            said.clear()
            loaded = tab.subscribe_once("Page.loadEventFired")
            await tab.send_command("Page.navigate", params={"url": url})
            await asyncio.wait_for(loaded, seconds)
            settled = False
            for _ in range(int(seconds * 10)):
                settled = await _evaluate(tab, SETTLED)
                if settled:
                    break
                await asyncio.sleep(0.1)
            picture = await tab.send_command("Page.captureScreenshot", params={"format": "png"})
            shot.write_bytes(base64.b64decode(picture["result"]["data"]))
            dom = await _evaluate(tab, "document.documentElement.outerHTML")
            visits.append(Visit(dom, list(said), settled))
        return visits


async def _evaluate(tab: choreographer.Tab, expression: str):
    answer = await tab.send_command(
        "Runtime.evaluate", params={"expression": expression, "returnByValue": True}
    )
    return answer["result"]["result"].get("value")


def visit(chromium: str, pages: list[str], shots: list[Path], seconds: float = 60) -> list[Visit]:
    """Open each address in turn in one `chromium` (a page's scripts get `seconds` to settle) and
    save its screenshot at the matching path."""
    return asyncio.run(_visit(chromium, pages, shots, seconds))
