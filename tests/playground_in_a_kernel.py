"""Type into the token playground in a live kernel, as a front end would, and report what it shows.

    python tests/playground_in_a_kernel.py          # with this Python's ipykernel and ipywidgets

It starts a kernel, runs a cell that shows a playground, then sends the widget messages a browser
sends while someone types: three quick changes of the text box, then a click on the toggle. It
prints JSON: the ipywidgets version, the output's formats, the rows' summaries after typing, how
many times the rows were redrawn for the three keystrokes (the debounce makes it one) and whether
the toggle marked the spaces. tests/test_playground.py runs it with the course's packages; run it
with the Colab-like venv's Python (tests/colab_check.py) for ipywidgets 7.7.1. Only the standard
library and jupyter_client are imported, so it runs in that venv, where pytest is absent.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parent.parent
CELL = """\
import ipywidgets
from lib import viz
pg = viz.playground({"GPT-2": "gpt2", "GPT-4": "cl100k_base"}, text="hello")
pg
"""
TYPED = ["hello wor", "hello world", "hello world!  Egg"]


def messages(client, seconds: float, until_idle: str = "") -> list[dict]:
    """Every iopub message that arrives within `seconds`, or until the request `until_idle`
    is done."""
    found, end = [], time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            found.append(msg := client.get_iopub_msg(timeout=left))
        except Exception:  # queue.Empty: nothing more in time
            break
        done = msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"
        if done and until_idle and msg["parent_header"].get("msg_id") == until_idle:
            break
    return found


def send_update(client, comm_id: str, state: dict) -> None:
    """What a front end sends when the user changes a widget (both widget protocols)."""
    data = {"method": "update", "state": state, "buffer_paths": []}
    client.shell_channel.send(client.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))


def html_updates(found: list[dict], comm_id: str) -> list[str]:
    values = []
    for msg in found:
        content = msg["content"]
        if msg["msg_type"] == "comm_msg" and content["comm_id"] == comm_id:
            if "value" in content["data"].get("state", {}):
                values.append(content["data"]["state"]["value"])
    return values


def summaries(page: str) -> list[str]:
    return re.findall(r"<b>([^<]*)</b>", page)


def main() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(ROOT), env=env)
    try:
        found = messages(client, 120, until_idle=client.execute(CELL))
        models = {}  # model name -> comm id
        for msg in found:
            if msg["msg_type"] == "comm_open":
                state = msg["content"]["data"]["state"]
                models[state["_model_name"]] = msg["content"]["comm_id"]
        errors = [m["content"]["evalue"] for m in found if m["msg_type"] == "error"]
        result = next(m["content"] for m in found if m["msg_type"] == "execute_result")
        for text in TYPED:  # three keystrokes, faster than the debounce
            send_update(client, models["TextareaModel"], {"value": text})
        typed = html_updates(messages(client, 3), models["HTMLModel"])
        send_update(client, models["CheckboxModel"], {"value": True})
        toggled = html_updates(messages(client, 3), models["HTMLModel"])
        return {
            "errors": errors,
            "formats": sorted(result["data"]),
            "static": summaries(result["data"]["text/html"]),
            "redraws_for_three_keystrokes": len(typed),
            "after_typing": summaries(typed[-1]) if typed else [],
            "marked_after_toggle": bool(toggled) and "·world" in toggled[-1],
            "ipywidgets": _widgets_version(client),
        }
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _widgets_version(client) -> str:
    lines = []
    client.execute_interactive(
        "print(ipywidgets.__version__)",
        output_hook=lambda m: lines.append(m["content"].get("text", "")),
        timeout=30,
    )
    return "".join(lines).strip()


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.exit(0)
