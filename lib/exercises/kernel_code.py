"""The learner's running kernel, as `check()` reads it: the cells it ran (`cells_run`), its code
read as the grader reads a notebook (`kernel_notebook`), and its type hints kept as text, as in
the program the grader runs (`hints_as_text`, `hint_as_value`).
"""

from __future__ import annotations
import __future__

import ast
import inspect
import linecache
import sys
import textwrap
from typing import Any

from lib.exercises.cell_reading import parse_cell, written_out
from lib.exercises.own_code import Notebook


def kernel_notebook(namespace: dict[str, Any]) -> Notebook | None:
    """The code of a running notebook, for `check()`: its functions as they are now, and every
    other statement of the cells it ran, in the order they ran. A function is read from its own
    code object: `inspect.getsource(function)` follows `__wrapped__`, which
    `functools.update_wrapper` points at any other function, so it would show honest code for a
    function that runs something else. A class, a wrapper a decorator made
    (`functools.cache`), or a function the kernel no longer holds (`del spoil`, after
    `spoil()` ran), is read from the last cell that defines its name."""
    history = cells_run(namespace)
    if history is None:
        return None
    sources, read, last = [], set(), {}
    for name, value in list(namespace.items()):
        if getattr(value, "__module__", None) != "__main__" or not callable(value):
            continue
        try:
            sources.append(textwrap.dedent(inspect.getsource(value.__code__)))
            read.add(name)
        except (AttributeError, OSError, TypeError):  # not a function, or not from a cell
            pass
    defined = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    for cell in history:
        tree = parse_cell(cell) if isinstance(cell, str) else None
        body = tree.body if tree else []
        last.update((s.name, s) for s in body if isinstance(s, defined))
        rest = [s for s in body if not isinstance(s, defined)]
        sources.append(written_out(ast.Module(body=rest, type_ignores=[])) or "")
    sources += [written_out(last[name]) or "" for name in sorted(set(last) - read)]
    return Notebook(sources)


def cells_run(namespace: dict[str, Any]) -> list[str] | None:
    """Every cell a kernel ran, in order: IPython caches each one's code for its tracebacks,
    whether or not it keeps a history (nbval does not); else the history `In`; None outside."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(names, dict):
        return ["".join(linecache.getlines(name)) for name in names]
    history = namespace.get("In")
    return history if isinstance(history, list) else None


def hints_as_text() -> None:
    """Make the running IPython compile every later cell with `from __future__ import
    annotations`, as the grader compiles the program it grades (`kernel_side.FUTURE`): type
    hints stay text in both, so `check()` sees what the grader sees. Else a hint would be a value
    only in the learner's kernel (`dataclasses.fields(D)[0].type` the class `bytes`)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    compiler = getattr(shell, "compile", None)
    if isinstance(getattr(compiler, "flags", None), int):
        compiler.flags |= __future__.annotations.compiler_flag  # type: ignore[union-attr]


def hint_as_value(namespace: dict[str, Any]) -> str:
    """The first of the notebook's functions and classes (and their methods) holding a type hint
    as a value, not text: its cell ran before `hints_as_text` (before the lesson's set-up cell)."""
    for name, value in list(namespace.items()):
        if getattr(value, "__module__", None) != "__main__":
            continue
        parts = [value, *vars(value).values()] if inspect.isclass(value) else [value]
        if any(not all(isinstance(h, str) for h in _hints(part).values()) for part in parts):
            return name
    return ""


def _hints(part: Any) -> dict:
    """A class's own hints, or a function's written in a cell (not made by `dataclasses`)."""
    if inspect.isclass(part):
        return vars(part).get("__annotations__", {})
    written = inspect.isfunction(part) and not part.__code__.co_filename.startswith("<")
    return part.__annotations__ if written else {}
