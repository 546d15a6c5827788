"""The reading of a notebook (the file, its lesson, its code) runs in a process of its own
(`read_apart`): a reading that runs past its deadline, exhausts its memory or crashes costs that
notebook's row, with a note, and never its neighbours' marks or the grader's memory.

The faults are made in the reader itself (`reading_faults`, the grader's helper with a reading
step replaced), graded by the real grader beside an honest notebook, two at a time.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from lib.grade import Limits, grade_submissions
from lib.grading import read_apart

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

pytestmark = pytest.mark.end_to_end  # a class graded: see pyproject's markers

TOY = {"registry": "toy_exercises", "import_paths": (str(ROOT), str(FIXTURES)), "progress": False}
LIMITS = Limits(cell=4, notebook=24, probe=2)  # a reading may take 12 s
# (12 s a notebook was tight: in containment_7, honest toy notebooks took 10-11.7 s at load 10)


def test_a_reading_past_its_deadline_memory_or_life_costs_one_row(tmp_path, monkeypatch):
    monkeypatch.setattr(read_apart, "_HELPER", read_apart._Helper("tests.reading_faults"))
    for name in ["honest", "slow", "hog", "crash"]:
        nbformat.write(toy(**SOLVED), tmp_path / f"{name}.ipynb")
    started = time.monotonic()
    records = grade_submissions([tmp_path], tmp_path / "out", limits=LIMITS, jobs=2, **TOY)
    by_name = {r["student"]: r for r in records}
    honest = by_name["honest"]
    assert honest["outcome"] == "graded"
    assert [e["score"] for e in honest["exercises"]] == [2.0, 1.0]
    notes = {
        "slow": "reading your notebook's code took longer than 12 s (half of the notebook's time "
        "limit), so it was not run; --retry-failed tries again",
        "hog": "reading your notebook's code needed more than 2048 MB of memory, so it was not run",
        "crash": "reading your notebook's code crashed (SIGSEGV), so it was not run",
    }
    for name, note in notes.items():
        assert (by_name[name]["outcome"], by_name[name]["note"]) == ("error", note)
    assert time.monotonic() - started < 60  # the slow one's reader killed at 6 s, not waited for
    # the hog's 2 GB were its reader's, never the grader's
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 1_500_000  # kB


def test_the_reading_gives_the_grader_plain_data_only():
    with pytest.raises(read_apart.ReadingFailed, match="an answer not understood"):
        framed = read_apart.LENGTH.pack(7) + b'{"a": ' + b"\x80" + read_apart.STATUS.pack(0)
        read_apart._decoded(framed, 6)
    pickled = b"\x80\x04\x95" + b"cos\nsystem\n"  # a pickle is refused as JSON, never loaded
    framed = read_apart.LENGTH.pack(len(pickled)) + pickled + read_apart.STATUS.pack(0)
    with pytest.raises(read_apart.ReadingFailed):
        read_apart._decoded(framed, 6)


def test_the_helper_reads_no_schema_file_once_it_serves():
    """A reader runs as a sandbox user, who may not reach the environment (a virtual environment
    in a private folder: CI's other Pythons read every notebook as "unreadable"). After
    `_load_schemas`, a notebook of any version is read with no file opened."""
    code = """
import builtins, io, json, nbformat
from lib.grading import reading_server
reading_server._load_schemas()
def refused(*args, **kwargs):
    raise PermissionError(13, "a reader opens no file", args[0])
builtins.open = io.open = refused
for minor in range(nbformat.v4.nbformat_minor + 1):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "hi"}]
    cells[0] |= {"id": "c1"} if minor >= 5 else {}
    text = json.dumps({"nbformat": 4, "nbformat_minor": minor, "metadata": {}, "cells": cells})
    print(minor, len(nbformat.reads(text, as_version=4).cells))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:-1] == [f"{minor} 1" for minor in range(6)]
