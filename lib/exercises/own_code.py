"""Did the student write it? A static reading of the notebook's code, by the rules of `allowed`.

The course's library holds a reference answer to every exercise, and the notebooks import it, so
a function can pass by calling it: `def train_bpe(t, n): return bpe.train(t, n)[1]`. Before
grading, the grader reads the cells (never running them) and follows the exercise's target
through everything it uses: the notebook's functions, classes and values, by every statement
that binds them (`def`, `=`, unpacking, `for`, `with`, `:=`, `global`, also inside `if`, `for`,
`with` and `try` blocks), each read by the same rules. It is not own code when what it reaches

- is something `allowed` does not list: another module, a builtin that runs code, a dunder...;
- or is `lib`, other than the helpers the exercise allows (`bpe.merge` in `train_bpe`), or an
  allowed helper that a cell has replaced (`bpe.merge = bpe.train`);
- or may be replaced where reading cannot follow: `__main__.train_bpe = ...`, or `exec`,
  `globals()` or `setattr` anywhere in the notebook.

A prediction (`literal=True`) must be a value written out, which `ast.literal_eval` reads.
`check()` reads the kernel's own cells the same way (`Notebook.of_kernel`), so it gives the
grader's verdict at once. This is reading, not proof, which is why the README says what it
cannot see and the answers stay judged outside the kernel.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib
import inspect
import linecache
import sys
import textwrap
from collections.abc import Iterable
from typing import Any

from lib.exercises.allowed import (
    builtin_outside,
    computed_getattr,
    module_allowed,
    outside,
    plain_hint,
)
from lib.exercises.forbidden import forbidden_name

# Calls that can rebind any name of the notebook, wherever they are.
REBINDING = {"exec", "eval", "compile", "globals", "setattr", "vars"}


def _parse(source: str) -> ast.Module | None:
    """A cell as Python, IPython's `!shell` and `%magic` lines turned into calls first. A cell
    magic (`%%time`) is read without its first line: its body is usually Python."""
    if source.lstrip().startswith("%%"):
        source = source.lstrip().partition("\n")[2]
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except Exception:  # IPython missing or confused: parse what is there
        pass
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _dotted(node: ast.AST) -> str:
    """`bpe.merge` for the expression bpe.merge, "" for anything that is not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _public_names(module: str) -> list[str]:
    try:
        found = importlib.import_module(module)
    except Exception:
        return []
    return list(getattr(found, "__all__", None) or [n for n in vars(found) if n[:1] != "_"])


def _imports(node: ast.AST) -> dict[str, str]:
    """Names that `node` binds to something in `lib`: alias -> full dotted name."""
    bound = {}
    for item in ast.walk(node):
        if isinstance(item, ast.Import):
            for name in item.names:
                if name.name.partition(".")[0] == "lib":
                    alias = name.asname or name.name.partition(".")[0]
                    bound[alias] = name.name if name.asname else "lib"
        elif isinstance(item, ast.ImportFrom) and (item.module or "").partition(".")[0] == "lib":
            for name in item.names:
                if name.name == "*":
                    bound.update({n: f"{item.module}.{n}" for n in _public_names(item.module)})
                else:
                    bound[name.asname or name.name] = f"{item.module}.{name.name}"
    return bound


def _local_names(node: ast.AST) -> set[str]:
    """Parameters and variables a function (or lambda) assigns, its inner functions and classes,
    what it catches and imports: names that do not reach out (its imports are read themselves)."""
    names = set()
    for item in ast.walk(node):
        if isinstance(item, ast.arg):
            names.add(item.arg)
        elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
            names.add(item.id)
        elif item is not node and isinstance(item, ast.FunctionDef | ast.ClassDef):
            names.add(item.name)
        elif isinstance(item, ast.ExceptHandler) and item.name:
            names.add(item.name)
        elif item is not node and isinstance(item, ast.Import | ast.ImportFrom):
            names.update(a.asname or a.name.partition(".")[0] for a in item.names)
    return names - set(_imports(node))


def _annotations(node: ast.AST) -> list[ast.AST]:
    """The type hints in `node`: they name types, they do not compute answers."""
    found: list[ast.AST] = []
    for item in ast.walk(node):
        if isinstance(item, ast.arg | ast.AnnAssign) and item.annotation is not None:
            found.append(item.annotation)
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.returns:
            found.append(item.returns)
    return found


def _cells_run(namespace: dict[str, Any]) -> list[str] | None:
    """Every cell a kernel ran: IPython caches each one's code for its tracebacks, whether or not
    it keeps a history (nbval does not); else the history `In`; None outside IPython."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(names, dict):
        return ["".join(linecache.getlines(name)) for name in names]
    history = namespace.get("In")
    return history if isinstance(history, list) else None


def _is_literal(node: ast.AST) -> bool:
    """Does this binding give a value written out (`{"A": 1}`), which `ast.literal_eval` reads?"""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _stored_names(target: ast.AST) -> list[str]:
    """The plain names an assignment target binds: `f`, or `a` and `f` in `a, (b, f) = ...`."""
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and type(n.ctx) is ast.Store]


class Notebook:
    """A notebook's code, read once: top-level definitions, names bound to lib, patched names.
    `cells`: a notebook (its code cells are read) or the code of its cells."""

    def __init__(self, cells: Any):
        self.definitions: dict[str, ast.AST] = {}  # the last definition of each name wins
        # Everything that binds a name anywhere in the notebook (`for f in [...]`, `a, f = ...`,
        # `with ... as f`, `(f := ...)`, `global f` in a function): each is read, not just the last.
        self.binders: dict[str, list[ast.AST]] = {}
        self.lib: dict[str, str] = {}
        self.patched: set[str] = set()  # full names of lib attributes that a cell reassigns
        self.set_elsewhere: set[str] = set()  # names stored as attributes: `__main__.f = ...`
        self.rebinding = ""  # a call anywhere that can rebind any name: `exec`, `globals()`...
        self.changed: set[str] = set()  # names whose value a cell may change in place
        if hasattr(cells, "cells"):
            cells = [cell.source for cell in cells.cells if cell.cell_type == "code"]
        for source in cells:
            tree = _parse(source)
            for statement in tree.body if tree else []:
                self._read(statement)
            for item in ast.walk(tree) if tree else []:
                self._scan(item)

    @classmethod
    def of_kernel(cls, namespace: dict[str, Any]) -> Notebook | None:
        """The code of a running notebook, for `check()`: its functions and classes as they are
        now, and every other statement of the cells it ran. None outside one."""
        history = _cells_run(namespace)
        if history is None:
            return None
        sources = []
        for value in list(namespace.values()):
            if getattr(value, "__module__", None) == "__main__" and callable(value):
                with contextlib.suppress(OSError, TypeError):
                    sources.append(textwrap.dedent(inspect.getsource(value)))
        for cell in history:
            tree = _parse(cell) if isinstance(cell, str) else None
            defined = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            rest = [s for s in tree.body if not isinstance(s, defined)] if tree else []
            sources.append(ast.unparse(ast.Module(body=rest, type_ignores=[])))
        return cls(sources)

    def _bind(self, name: str, node: ast.AST) -> None:
        self.binders.setdefault(name, []).append(node)

    def _scan(self, item: ast.AST) -> None:
        """Whatever in a cell, at any depth, rebinds names in ways that reading cannot follow."""
        hint = getattr(item, "annotation", None) or getattr(item, "returns", None)
        if hint is not None and not plain_hint(hint):  # `functools.singledispatch` runs it
            self.rebinding = self.rebinding or "has a type hint written as code"
        if isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store):
            self.set_elsewhere.add(item.attr)
        elif isinstance(item, ast.NamedExpr):
            self._bind(item.target.id, item.value)
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(item):  # `global f` there: the function may bind f
                for name in inner.names if isinstance(inner, ast.Global) else []:
                    self._bind(name, item)
        elif isinstance(item, ast.Call) and isinstance(item.func, ast.Name):
            if item.func.id in REBINDING:
                self.rebinding = self.rebinding or f"calls `{item.func.id}`"
        if isinstance(item, ast.Attribute | ast.Subscript) and isinstance(item.value, ast.Name):
            if isinstance(item, ast.Attribute) or not isinstance(item.ctx, ast.Load):
                self.changed.add(item.value.id)  # `d["A"] = ...`, `d.update(...)`: maybe changed

    def _read(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.For | ast.AsyncFor):
            for name in _stored_names(statement.target):
                self._bind(name, statement.iter)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                for name in _stored_names(item.optional_vars) if item.optional_vars else []:
                    self._bind(name, item.context_expr)
        if isinstance(statement, ast.If | ast.For | ast.While | ast.With | ast.Try):
            # Still the cell's top level: `if True: def f...` defines f like `def f...` does.
            for block in ("body", "orelse", "handlers", "finalbody"):
                for inner in getattr(statement, block, []):
                    if isinstance(inner, ast.ExceptHandler):
                        for handled in inner.body:
                            self._read(handled)
                    else:
                        self._read(inner)
            return
        if isinstance(statement, ast.Import | ast.ImportFrom):
            self.lib.update(_imports(statement))
            for name in statement.names:  # `from lib.bpe import merge as double` defines double
                self.definitions[name.asname or name.name.partition(".")[0]] = statement
                alone = copy.copy(statement)  # `import os, importlib`: only what binds this name
                alone.names = [name]
                self._bind(name.asname or name.name.partition(".")[0], alone)
                module = getattr(statement, "module", None) or ""
                if name.name == "*" and module_allowed(module, set()):  # `from math import *`
                    for public in _public_names(module):
                        self._bind(public, alone)
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.definitions[statement.name] = statement
            self._bind(statement.name, statement)
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if statement.value is not None:  # `a, f = x, y` binds f to (part of) the value
                    for bound in _stored_names(target):
                        self._bind(bound, statement.value)
                name = _dotted(target)
                root = name.partition(".")[0]
                if isinstance(target, ast.Name) and statement.value is not None:
                    self.definitions[name] = statement.value
                    source = self.lib.get(_dotted(statement.value).partition(".")[0])
                    if source:  # `b = bpe` makes b another name for lib.bpe
                        rest = _dotted(statement.value).partition(".")[2]
                        self.lib[name] = f"{source}.{rest}".rstrip(".")
                elif root in self.lib:
                    self.patched.add(self._full(name))

    def _alias(self, name: str) -> str:
        """The lib function `name` is just another name for, if it is one."""
        node = self.definitions[name]
        if isinstance(node, ast.Import | ast.ImportFrom):
            return _imports(node).get(name, "")
        dotted = _dotted(node)
        return self._full(dotted) if dotted.partition(".")[0] in self.lib else ""

    def _full(self, dotted: str) -> str:
        root, _, rest = dotted.partition(".")
        return f"{self.lib[root]}.{rest}".rstrip(".")

    def borrowed(
        self,
        target: str,
        allowed: Iterable[str] = (),
        forbidden: Iterable[str] = (),
        literal: bool = False,
    ) -> str:
        """ "" when `target` looks like the student's own code, else what was found, in words.
        A target the cells never define where it can be read is reported as well (the kernel
        may still have it, from `exec` or a file: then it was not written in the notebook).
        `literal`: the target is a prediction, which must be a value written out."""
        allowed, forbidden = set(allowed), set(forbidden)
        if target not in self.definitions:
            return f"`{target}` is not defined in a code cell the grader can read"
        binders = self.binders.get(target, [])
        if literal and (target in self.changed or not all(map(_is_literal, binders))):
            return f"`{target}` is computed: write your prediction out as a value, like {{'A': 1}}"
        if target in self.set_elsewhere:
            return f"`{target}` is replaced by an attribute assignment (`….{target} = …`)"
        alias = self._alias(target)
        if alias:  # `from lib.bpe import merge as f`, `f = bpe.merge`: the course's own function
            return f"`{target}` is `{alias}` from the course's library"
        seen, todo = set(), [target]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for node in self.binders.get(name, []):
                found = self._read_binder(node, allowed, forbidden, todo)
                if found:
                    where = "" if name == target else f" (through `{name}`)"
                    return f"`{target}` {found}{where}"
        if self.rebinding:
            return f"the notebook {self.rebinding}, which can replace `{target}` unseen"
        return ""

    def _read_binder(
        self, node: ast.AST, allowed: set[str], forbidden: set[str], todo: list[str]
    ) -> str:
        """What one binding of a name (a definition, or what a statement binds it to) uses that
        the target may not; the notebook's names it reaches out to are added to `todo`."""
        local = _imports(node)
        own = _local_names(node)
        hints = {id(n) for a in _annotations(node) for n in ast.walk(a)}  # `tok: Tokenizer`
        for parent in ast.walk(node):  # so a name knows the attributes read from it
            for child in ast.iter_child_nodes(parent):
                child.parent = parent  # type: ignore[attr-defined]
        computed = ""  # said only if nothing more telling is found
        for item in ast.walk(node):
            if id(item) in hints or (isinstance(item, ast.Name) and item.id in own):
                continue  # a type hint, or a parameter or local variable
            found = self._lib_use(item, local, allowed) or outside(item, allowed)
            found = found or forbidden_name(item, forbidden)
            if isinstance(item, ast.Name) and item.id not in {**self.lib, **local}:
                if item.id in self.binders:
                    todo.append(item.id)  # a name of the notebook's: read what binds it too
                else:
                    found = found or builtin_outside(item.id)
            if found:
                return found
            computed = computed or computed_getattr(item)
        return computed

    def _lib_use(self, item: ast.AST, local: dict[str, str], allowed: set[str]) -> str:
        if isinstance(item, ast.ImportFrom | ast.Import):
            for full in _imports(item).values():
                if full not in allowed:
                    return f"imports `{full}` from the course's library"
            return ""
        if not isinstance(item, ast.Name) or not ({**self.lib, **local}.get(item.id)):
            return ""
        use, node = {**self.lib, **local}[item.id], item
        while isinstance(getattr(node, "parent", None), ast.Attribute):
            node = node.parent  # type: ignore[attr-defined]
            use += f".{node.attr}"
        if use in allowed and use not in self.patched:
            return ""
        if use in allowed:
            return f"uses `{use}`, which a cell of the notebook replaced"
        return f"uses `{use}` from the course's library"
