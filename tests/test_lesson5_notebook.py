"""Lesson 5's notebook says what its code prints: the English comparison of GPT-2 and GPT-4."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

NOTEBOOK = Path(__file__).parents[1] / "notebooks/05_encoding.ipynb"


def test_english_gpt2_and_gpt4_are_compared_on_sentences_without_digits_as_printed():
    """Review J4: "without their digits GPT-4 takes fewer tokens" held only on text with its
    digits deleted; on the 74 sentences with no digit GPT-4 takes 4 more. The cell prints both
    groups, and the prose quotes the digit-free one as it is printed."""
    cells = nbformat.read(NOTEBOOK, as_version=4).cells
    printed = "".join(
        output.get("text", "")
        for cell in cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    found = re.search(
        r"English, the (\d+) sentences with no digit: GPT-2 ([\d,]+), GPT-4 ([\d,]+)", printed
    )
    assert found, "the cell after the check against tiktoken prints the English groups"
    n, gpt2, gpt4 = found.groups()
    assert re.search(r"English, the \d+ sentences with digits: GPT-2 [\d,]+, GPT-4 [\d,]+", printed)
    prose = " ".join(c.source for c in cells if c.cell_type == "markdown")
    prose = " ".join(prose.split())
    assert (
        f"On the {n} sentences with no digit the two are about even, {gpt2} GPT-2 tokens "
        f"against {gpt4}" in prose
    )
    assert "Without their digits" not in prose
    gpt2_count, gpt4_count = (int(count.replace(",", "")) for count in (gpt2, gpt4))
    assert abs(gpt4_count - gpt2_count) <= 0.01 * gpt2_count  # "about even"
