"""Everything the grader reads of a student's notebook before its kernel starts, as plain data.

`read` is the whole reading of one submission: the file (`read_notebook`), the written answers
and solutions opened, the lesson (`identify_lesson`), each exercise's code (`exercise_code`),
the own-code reading (`Notebook.borrowed`, then the programs graded) and the demonstrations a
first run may leave out (`demo_cells.left_out`). Each of these parses text the student wrote,
and red teams kept finding inputs that make one of them slow. So `read` runs in a process of its
own (`read_apart`), and what it returns is only JSON-ready data: strings, numbers, lists and
dicts, nothing the grader would have to unpickle, and the grader decodes it into fixed, typed
fields (`reading_reply`).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from lib.exercises import Exercise
from lib.exercises.own_code import Notebook
from lib.grading import demo_cells
from lib.grading.demo_cells import Handout
from lib.grading.exercise_code import exercise_code
from lib.grading.grading_job import Program, programs
from lib.grading.notebook import identify_lesson, solutions_opened, written_answers
from lib.grading.prepare import prepared
from lib.grading.submissions import Handed, UnreadableNotebook, read_notebook


def own_code_reasons(
    notebook: nbformat.NotebookNode, exercises: list[Exercise]
) -> tuple[dict[str, str], dict[str, str], list[Program]]:
    """Why each exercise whose code is not the student's own is not graded (`not_own`), why each
    that no readable cell defines is not (`missing`: deleted, or made where the grader cannot
    read it), and the programs graded: what was read and accepted of the others, one program
    per set of rules (`grading_job.programs`). The grader makes their rows
    (`Reading.skipped_rows`): a reader's answer names exercises and reasons, never scores."""
    code, not_own, missing = Notebook(notebook), {}, {}
    for e in exercises:
        found = code.borrowed(e.target, e.allowed_lib, e.forbidden, e.literal)
        if found:
            (not_own if e.target in code.units else missing)[e.name] = found
    skipped = not_own | missing
    return not_own, missing, programs(code, [e for e in exercises if e.name not in skipped])


def read(
    path: Path | Handed,
    catalog: dict[int, list[Exercise]],
    handouts: dict[int, set[str]],
    handout_code: dict[int, Handout],
) -> dict:
    """The reading of the notebook at `path` (in the reader: a descriptor the grader opened, see
    `reading_server`), as JSON-ready data (see the module's docstring):
    the reply `reading_reply.decoded` reads, with programs as `[exercises, {cell: code}]` pairs
    and cells as `[type, source]` pairs."""
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
    not_own, missing, graded = own_code_reasons(notebook, exercises)
    # A lesson whose exercises may touch files runs whole: a demonstration's file could reach
    # a graded function (the graded kernels run in the first run's folder).
    handout = None if demo_cells.files_allowed(exercises) else handout_code.get(lesson)
    return {
        **found,
        "not_own": not_own,
        "missing": missing,
        "programs": [[list(p.exercises), p.cells] for p in graded],
        "demos": sorted(demo_cells.left_out(notebook, handout)),
        # Each cell's type and source only: the student's metadata, nested as deep as they like,
        # would only cost the grader decoding it (`Reading.notebook` makes the notebook again).
        "cells": [[c.cell_type, c.source] for c in prepared(notebook).cells],
    }
