"""The grader's decoding of a reader's reply (`reading_reply`): a closed set of typed fields,
checked against the lesson, with the number of values counted before decoding."""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path

import nbformat
import pytest

from lib.grading import read_apart, reading_reply
from lib.grading.reading_reply import BadReply, checked, decoded
from lib.grading.submissions import UnreadableNotebook, read_notebook

sys.path.insert(0, str(Path(__file__).resolve().parent / "grading_fixtures"))
from toy_exercises import EXERCISES  # noqa: E402

CATALOG = {1: EXERCISES}
HONEST = {
    "lesson": 1,
    "label_note": "",
    "info": {"answers": {"why": "x + x"}, "solutions": [], "code": {}, "unparsable": []},
    "not_own": {"double": "uses `lib`"},
    "missing": {},
    "programs": [[["shout"], {"0": "def shout(s):\n    return s.upper()"}]],
    "demos": [1],
    "cells": [["code", "def shout(s):\n    return s.upper()"], ["markdown", "# Hi"]],
}


def test_an_honest_reply_is_decoded_and_rows_are_the_graders():
    read = checked(decoded(json.loads(json.dumps(HONEST))), CATALOG)
    rows = read.skipped_rows(EXERCISES)
    assert rows["double"]["score"] == 0.0 and rows["double"]["status"] == "not own code"
    assert [c.cell_type for c in read.notebook().cells] == ["code", "markdown"]
    assert set(read.record_fields()) == {"answers", "solutions", "code", "unparsable"}


@pytest.mark.parametrize(
    "lie",
    [
        {"student": "alice"},  # a key no reading has
        {"not_own": {"nosuch": "a name not of the lesson"}},
        {"programs": [[["nosuch"], {}]]},
        {"cells": [["script", "alert(1)"]]},  # no such cell type
        {"lesson": True},  # JSON's true is no lesson number
        {"demos": ["1"]},
        {"label_note": "x" * 81},  # a classmate's notebook, say (red team round 11)
    ],
)
def test_a_reply_with_a_field_not_of_the_reading_is_refused(lie):
    with pytest.raises(BadReply):
        checked(decoded(HONEST | lie), CATALOG)


def test_a_reply_at_the_cap_of_values_decodes_in_bounded_time_and_memory():
    """The most values a reply may hold (`MAX_VALUES`), all in one list: decoded, in well under
    the 13 s and 320 MB that 41.9 million values cost before the cap counted them."""
    values = read_apart.MAX_VALUES - 20
    body = b'{"lesson": 1, "demos": [' + b"0," * (values - 1) + b"0]}"
    assert not reading_reply.too_many_values(body, read_apart.MAX_VALUES)
    tracemalloc.start()
    started = time.process_time()
    try:
        read = decoded(json.loads(body))
        seconds = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.demos == frozenset({0})
    assert seconds < 5 and peak < 150 * 2**20, (seconds, peak / 2**20)


@pytest.mark.parametrize(
    ("body", "values"),
    [
        (b'["' + b"3," * 50 + b'"]', 1),  # a CSV pasted into a string: one value
        (b"[" + b"0," * 50 + b"0]", 51),
        (b'["a\\\\",' + b"0," * 10 + b'"\\n\\",x"]', 12),  # escapes: \\\\ and \\" end no string
    ],
)
def test_values_are_counted_outside_strings(body, values):
    assert len(json.loads(body)) <= values
    assert reading_reply.too_many_values(body, values - 1)
    assert not reading_reply.too_many_values(body, values)


def test_a_reply_with_a_4_mb_string_of_commas_is_counted_quickly():
    """An honest reader's reply for a notebook with 2,000,001 commas in one string (red team
    round 11's `erin`): under the cap, in well under a second."""
    body = json.dumps({"cells": [["code", "'" + "3," * 2_000_001 + "'"]]}).encode()
    started = time.process_time()
    assert not reading_reply.too_many_values(body, read_apart.MAX_VALUES)
    assert time.process_time() - started < 1


def test_a_long_reason_is_cut_visibly():
    read = decoded(HONEST | {"not_own": {"double": "y" * 1000}})
    assert len(read.not_own["double"]) < reading_reply.REASON_CHARS + 60
    assert "cut by the grader" in read.not_own["double"]


@pytest.mark.parametrize("kind", ["heading", "Markdown"])
def test_a_cell_of_an_unknown_type_makes_the_notebook_unreadable_naming_it(tmp_path, kind):
    """nbformat reads a v4 cell of type 'heading' with a warning only: the reading names the
    cell and what to do, rather than answer a cell the reply would refuse."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    notebook = json.loads(nbformat.writes(notebook))
    notebook["cells"].append({"cell_type": kind, "source": "Lesson 1", "metadata": {}})
    (tmp_path / "old.ipynb").write_text(json.dumps(notebook))
    with pytest.raises(UnreadableNotebook, match=f'cell 2 has an unknown type "{kind}".*Markdown'):
        read_notebook(tmp_path / "old.ipynb")
