"""Everything the grader reads of a student's notebook before its kernel starts, as plain data.

`read` is the whole reading of one submission: the file (`read_notebook`), the written answers
and solutions opened, the lesson (`identify_lesson`), each exercise's code (`exercise_code`),
the own-code reading (`Notebook.borrowed`, then the programs graded) and the demonstrations a
first run may leave out (`demo_cells.left_out`). Each of these parses text the student wrote,
and red teams kept finding inputs that make one of them slow. So `read` runs in a process of its
own (`read_apart`), and what it returns is only JSON-ready data: strings, numbers, lists and
dicts, nothing the grader would have to unpickle. `Reading` is that data, decoded again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from lib.exercises import Exercise
from lib.exercises.own_code import Notebook
from lib.grading import demo_cells
from lib.grading.demo_cells import Handout
from lib.grading.exercise_code import exercise_code
from lib.grading.grading_job import Program, programs, result_row
from lib.grading.notebook import identify_lesson, solutions_opened, written_answers
from lib.grading.prepare import prepared
from lib.grading.submissions import UnreadableNotebook, read_notebook


@dataclass
class Reading:
    """What the grader needs of one notebook to run and grade it: `unreadable` (why, or ""), its
    lesson (None when its cells match none), a note about its label, `info` (answers, solutions
    opened, each exercise's code), rows for exercises not graded (`not_own`), the programs graded,
    the cells a first run may leave out (`demos`) and the notebook as it will run (`notebook`)."""

    unreadable: str = ""
    lesson: int | None = None
    label_note: str = ""
    info: dict = field(default_factory=dict)
    not_own: dict[str, dict] = field(default_factory=dict)
    programs: list[Program] = field(default_factory=list)
    demos: frozenset[int] = frozenset()
    notebook: dict = field(default_factory=dict)


def own_code_rows(
    notebook: nbformat.NotebookNode, exercises: list[Exercise]
) -> tuple[dict, list[Program]]:
    """Rows for exercises whose code is not the student's own, or that no readable cell defines,
    and the programs graded: what was read and accepted of the others, one program per set of
    rules (`grading_job.programs`)."""
    code, rows = Notebook(notebook), {}
    for e in exercises:
        found = code.borrowed(e.target, e.allowed_lib, e.forbidden, e.literal)
        if found and e.target in code.units:
            rows[e.name] = result_row(e, "not own code", found)
        elif found:  # deleted, or made where the grader cannot read it (exec, a file...)
            rows[e.name] = result_row(e, "missing", found + " (exec, a cell magic, a file?)")
    return rows, programs(code, [e for e in exercises if e.name not in rows])


def read(
    path: Path,
    catalog: dict[int, list[Exercise]],
    handouts: dict[int, set[str]],
    handout_code: dict[int, Handout],
) -> dict:
    """The reading of the notebook at `path` (see the module's docstring), as JSON-ready data:
    `Reading`'s fields, with programs as `[exercises, {cell index: code}]` pairs."""
    try:
        notebook = read_notebook(path)
    except UnreadableNotebook as error:
        return {"unreadable": str(error)}
    info = {"answers": written_answers(notebook), "solutions": solutions_opened(notebook)}
    lesson, label_note = identify_lesson(notebook, catalog, handouts)
    found = {"lesson": lesson, "label_note": label_note, "info": info}
    if lesson is None:
        return found
    exercises = catalog[lesson]
    info["code"], info["unparsable"] = exercise_code(notebook, exercises)
    not_own, graded = own_code_rows(notebook, exercises)
    # A lesson whose exercises may touch files runs whole: a demonstration's file could reach
    # a graded function (the graded kernels run in the first run's folder).
    handout = None if demo_cells.files_allowed(exercises) else handout_code.get(lesson)
    return {
        **found,
        "not_own": not_own,
        "programs": [[list(p.exercises), p.cells] for p in graded],
        "demos": sorted(demo_cells.left_out(notebook, handout)),
        "notebook": _as_run(prepared(notebook)),
    }


def _as_run(notebook: nbformat.NotebookNode) -> dict:
    """The notebook as its kernels are given it: each cell's type and source, no metadata (the
    student's, nested as deep as they like, would only cost the grader decoding it)."""
    ran = {"outputs": [], "execution_count": None}
    cells = [
        {"cell_type": c.cell_type, "source": c.source, "metadata": {}}
        | (ran if c.cell_type == "code" else {})
        for c in notebook.cells
    ]
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
