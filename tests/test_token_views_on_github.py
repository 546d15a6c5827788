"""Every token view stored in the lessons, as GitHub shows it: with every style attribute and
<style> tag removed (GitHub strips both), the tokens must stay apart, one `│` between each."""

from __future__ import annotations

import re

import nbformat
import pytest

from lib.notebooks import notebook_paths
from tests.unstyled import token_rows


def stored_views() -> list[tuple[str, dict]]:
    """(lesson and cell, output) for each stored output that shows tokens as spans."""
    views = []
    for path in notebook_paths():
        for number, cell in enumerate(nbformat.read(path, as_version=4).cells):
            for output in cell.get("outputs", []):
                page = output.get("data", {}).get("text/html", "")
                if token_rows(page):
                    views.append((f"{path.name} cell {number}", output["data"]))
    return views


VIEWS = stored_views()


def test_the_lessons_store_token_views():
    # Lessons 4, 5 and 6 show 13 token views and a playground; a change that stopped finding
    # them would make the test below pass on nothing.
    assert len(VIEWS) >= 14


@pytest.mark.parametrize("where, data", VIEWS, ids=[where for where, _ in VIEWS])
def test_without_styles_the_stored_tokens_stay_apart(where, data):
    for shown, expected in token_rows(data["text/html"]):
        assert shown == expected
    plain = data["text/plain"]
    if re.match(r"\d+ tokens? ·", plain):  # a TokenView: its plain-text form lists the tokens too
        tokens = plain.split("\n", 1)[1].split("\nids:")[0]
        [(shown, _)] = token_rows(data["text/html"])
        assert re.sub(r" \(id \d+\)", "", shown) == tokens
