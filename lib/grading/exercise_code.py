"""What a student wrote for each exercise, as text: the code the similarity report compares.

An exercise's code is the last top-level definition of its target (what the kernel would call),
preceded by the notebook's own functions and classes it uses, however deeply (a copied answer
usually brings its helpers along). It is found by reading the cells, never by running them, and
kept as the student wrote it, comments and all: the report shows it side by side, and the
comparison normalises it itself.
"""

from __future__ import annotations

import ast
import re

import nbformat

from lib.exercises import Exercise
from lib.exercises.cell_reading import parse_cell  # IPython's magics turned into calls first

MAX_CODE = 20_000  # characters of one exercise's code kept in the record


def _definitions(notebook: nbformat.NotebookNode) -> dict[str, tuple[ast.AST, str]]:
    """Top-level `def`, `class` and `name = ...` of every readable cell: name -> (node, the
    cell's source); a later definition replaces an earlier one, as when the cells run in order."""
    found: dict[str, tuple[ast.AST, str]] = {}
    for cell in notebook.cells:
        tree = parse_cell(cell.source) if cell.cell_type == "code" else None
        for node in tree.body if tree else []:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found[node.name] = (node, cell.source)
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = (node, cell.source)
    return found


def _text(node: ast.AST, source: str) -> str:
    """The node's lines as written (decorators included), or rebuilt when a magic moved them."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    lines = source.splitlines()[first - 1 : node.end_lineno]
    written = "\n".join(lines)
    try:
        same = ast.dump(ast.parse(written).body[-1]) == ast.dump(node)
    except SyntaxError:
        same = False
    return written if same else ast.unparse(node)


def _with_helpers(target: str, found: dict[str, tuple[ast.AST, str]]) -> str:
    """The target's definition after the notebook functions and classes it reaches, in order."""
    seen, todo = [], [target]
    while todo:
        name = todo.pop()
        if name in seen or name not in found:
            continue
        seen.append(name)
        node = found[name][0]
        if name == target or isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ):
            todo += [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    helpers = [n for n in seen[1:] if not isinstance(found[n][0], ast.Assign | ast.AnnAssign)]
    return "\n\n".join(_text(*found[name]) for name in [*reversed(helpers), target])


def exercise_code(
    notebook: nbformat.NotebookNode, exercises: list[Exercise]
) -> tuple[dict[str, str], list[str]]:
    """Each exercise's code (exercise name -> text; exercises with none left out), and the names
    of exercises whose cell cannot be parsed: for those the text is the cell as written."""
    found, code, unparsable = _definitions(notebook), {}, []
    for exercise in exercises:
        if exercise.target in found:
            code[exercise.name] = _with_helpers(exercise.target, found)[:MAX_CODE]
            continue
        defines = re.compile(
            rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(exercise.target)}\b", re.M
        )
        for cell in notebook.cells:
            if cell.cell_type != "code" or parse_cell(cell.source) is not None:
                continue
            if cell.metadata.get("exercise") == exercise.name or defines.search(cell.source):
                code[exercise.name] = cell.source[:MAX_CODE]
                unparsable.append(exercise.name)
                break
    return code, unparsable
