"""The lessons as a student who solved them would hand them in: each exercise cell's stub replaced
by the exercise's published solution. The self-test grades these whole notebooks, and the
grader's tests grade them solved, half solved and as shipped.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import nbformat

from lib.exercises import for_lesson


def solved(
    notebook: nbformat.NotebookNode, names: Iterable[str] | None = None
) -> nbformat.NotebookNode:
    """A copy of a lesson's handout with the exercise cells (marked by their `exercise` metadata)
    of `names` (default: every exercise) holding the published solution instead of the stub."""
    notebook = copy.deepcopy(notebook)
    solutions = {e.name: e.solution_code for e in for_lesson(notebook.metadata["course"]["lesson"])}
    wanted = set(solutions if names is None else names)
    for cell in notebook.cells:
        name = cell.metadata.get("exercise")
        if name in wanted and name in solutions:
            cell.source = solutions[name]
    return notebook
