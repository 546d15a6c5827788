"""Claims in lessons 7 and 8's prose, run: exercise 2's promise that its Viterbi cases have no
ties, and lesson 8's account of the cut that GPT-2's pattern, in both versions, gets wrong."""

from __future__ import annotations

from pathlib import Path

import nbformat
import regex

from lib import patterns
from lib.exercises import lesson7

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"


def markdown(name: str) -> str:
    cells = nbformat.read(NOTEBOOKS / name, as_version=4).cells
    return "\n".join(c.source for c in cells if c.cell_type == "markdown")


def test_the_viterbi_cases_have_one_best_segmentation_as_the_spec_says():
    """The spec says ties need no rule; every case the grader runs, hidden ones too, bears it out
    (the tie of `ab` + `c` with `abc` in the lesson's example is below the best)."""
    assert "(no\nties), so you need no rule for ties" in markdown("07_beyond_bpe.ipynb")
    texts = [case.args[0] for case in lesson7.viterbi.grading_cases()]
    assert len(texts) > 30 and not any(map(lesson7._has_tie, texts))


# OpenAI's GPT-2 encoder.py pattern, before tiktoken added `\s++$` and possessive quantifiers.
ORIGINAL_GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def test_both_versions_of_gpt2s_pattern_fall_into_lesson_8s_trap():
    """Lesson 8 says the course's GPT-2 pattern is tiktoken's, and that OpenAI's original, without
    `\\s++$`, cuts the left half the same way."""
    trap = "2024 was\n\nlong"
    prose = markdown("08_train_your_own.ipynb")
    assert "tiktoken's version of it" in prose and "OpenAI's original GPT-2 pattern" in prose
    assert r"\s++$" in patterns.GPT2_PATTERN and r"\s++$" not in ORIGINAL_GPT2
    for pattern in (patterns.GPT2_PATTERN, ORIGINAL_GPT2):
        assert regex.findall(pattern, trap)[-3:] == ["\n", "\n", "long"]
        assert regex.findall(pattern, trap[:10])[-1] == "\n\n"
