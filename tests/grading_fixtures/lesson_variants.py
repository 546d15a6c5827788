"""The real lessons' notebooks as the grader's tests submit them: solved, as shipped, or half
solved. Unless GRADER_FULL_NOTEBOOKS is set, they are cut down to what grading needs (the set-up
cell, the imports and the exercise cells), so that all six lessons grade in seconds.
"""

from __future__ import annotations

import ast
import os

import nbformat
from nbformat.v4 import new_code_cell

from lib.grading.prepare import is_setup_cell
from lib.grading.solved import solved as solved_notebook

FULL = bool(os.environ.get("GRADER_FULL_NOTEBOOKS"))


def imports_without_plots(notebook: nbformat.NotebookNode) -> str:
    """Every top-level import of the notebook's code cells, minus plotly and lib.viz (by far the
    slowest to import, and no exercise needs them)."""
    lines = []
    for cell in notebook.cells:
        try:
            body = ast.parse(cell.source).body if cell.cell_type == "code" else []
        except SyntaxError:
            continue
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = getattr(node, "module", None) or ""
                node.names = [
                    a
                    for a in node.names
                    if "plotly" not in f"{module}.{a.name}" and "viz" not in (a.name, module)
                ]
                lines += [ast.unparse(node)] if node.names else []
    return "\n".join(lines)


def variant(notebook: nbformat.NotebookNode, solved: set[str]) -> nbformat.NotebookNode:
    """The notebook with the `solved` exercises' stubs replaced by their solutions (as the
    self-test does, `lib.grading.solved`); unless FULL, reduced to its set-up cell, its imports
    and its exercise cells."""
    notebook = solved_notebook(notebook, solved)
    if not FULL:
        setup = [c for c in notebook.cells if c.cell_type == "code" and is_setup_cell(c.source)]
        stubs = [c for c in notebook.cells if c.metadata.get("exercise")]
        notebook.cells = [*setup, new_code_cell(imports_without_plots(notebook)), *stubs]
    return notebook
