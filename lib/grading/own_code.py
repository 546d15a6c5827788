"""Did the student write it? A static look at the notebook's code for answers borrowed from `lib`.

The course's library holds a reference answer to every exercise, and the notebooks import it, so
a function can pass by calling it: `def train_bpe(t, n): return bpe.train(t, n)[1]`. Before
grading, the grader reads the cells (never running them) and follows the exercise's target
through every notebook function it calls. It is not own code when that code

- uses a name bound to `lib` (`import lib`, `from lib import bpe`, `from lib.bpe import train`,
  `b = bpe`, `from lib.bpe import *`), other than the helpers the exercise allows (`bpe.merge` in
  `train_bpe`), or uses an allowed helper that a cell has replaced (`bpe.merge = bpe.train`);
- or reaches for code in a way reading cannot follow (`hidden_calls`: `__import__`, `pickle`,
  `sys.modules`, `__globals__`, `getattr` with a computed name, a module written to disk...);
- or may be replaced where reading cannot follow: `__main__.train_bpe = ...`, or `exec`,
  `globals()` or `setattr` anywhere in the notebook.

Every binding of a name is read, not only the last: `def`, `=`, tuple unpacking, `for`, `with`,
`:=`, `global` in a function, also inside `if`, `for`, `with` and `try` blocks.

This is reading, not proof: code determined to hide can still get past it, which is why the
README says so and the answers stay judged outside the kernel.
"""

from __future__ import annotations

import ast
import copy
import importlib
from collections.abc import Iterable

import nbformat

from lib.exercises.forbidden import forbidden_name
from lib.grading.hidden_calls import REBINDING, computed_attribute, hidden_call


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
    """Parameters and variables a function (or lambda) assigns: names that do not reach out."""
    names = set()
    for item in ast.walk(node):
        if isinstance(item, ast.arg):
            names.add(item.arg)
        elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
            names.add(item.id)
    return names


def _annotations(node: ast.AST) -> list[ast.AST]:
    """The type hints in `node`: they name types, they do not compute answers."""
    found: list[ast.AST] = []
    for item in ast.walk(node):
        if isinstance(item, ast.arg | ast.AnnAssign) and item.annotation is not None:
            found.append(item.annotation)
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.returns:
            found.append(item.returns)
    return found


def _stored_names(target: ast.AST) -> list[str]:
    """The plain names an assignment target binds: `f`, or `a` and `f` in `a, (b, f) = ...`."""
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and type(n.ctx) is ast.Store]


class Notebook:
    """A notebook's code, read once: top-level definitions, names bound to lib, patched names."""

    def __init__(self, notebook: nbformat.NotebookNode):
        self.definitions: dict[str, ast.AST] = {}  # the last definition of each name wins
        # Everything that binds a name anywhere in the notebook (`for f in [...]`, `a, f = ...`,
        # `with ... as f`, `(f := ...)`, `global f` in a function): each is read, not just the last.
        self.binders: dict[str, list[ast.AST]] = {}
        self.lib: dict[str, str] = {}
        self.patched: set[str] = set()  # full names of lib attributes that a cell reassigns
        self.set_elsewhere: set[str] = set()  # names stored as attributes: `__main__.f = ...`
        self.rebinding = ""  # a call anywhere that can rebind any name: `exec`, `globals()`...
        for cell in notebook.cells:
            tree = _parse(cell.source) if cell.cell_type == "code" else None
            for statement in tree.body if tree else []:
                self._read(statement)
            for item in ast.walk(tree) if tree else []:
                self._scan(item)

    def _bind(self, name: str, node: ast.AST) -> None:
        self.binders.setdefault(name, []).append(node)

    def _scan(self, item: ast.AST) -> None:
        """Whatever in a cell, at any depth, rebinds names in ways that reading cannot follow."""
        if isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store):
            self.set_elsewhere.add(item.attr)
        elif isinstance(item, ast.NamedExpr):
            self._bind(item.target.id, item.value)
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(item):  # `global f` there: the function may bind f
                for name in inner.names if isinstance(inner, ast.Global) else []:
                    self._bind(name, item)
        elif isinstance(item, ast.Call) and isinstance(item.func, ast.Name):
            if item.func.id in REBINDING and not self.rebinding:
                self.rebinding = item.func.id

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
        self, target: str, allowed: Iterable[str] = (), forbidden: Iterable[str] = ()
    ) -> str:
        """ "" when `target` looks like the student's own code, else what was found, in words.
        A target the cells never define where it can be read is reported as well (the kernel
        may still have it, from `exec` or a file: then it was not written in the notebook)."""
        allowed, forbidden = set(allowed), set(forbidden)
        if target not in self.definitions:
            return f"`{target}` is not defined in a code cell the grader can read"
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
            return f"the notebook calls `{self.rebinding}`, which can replace `{target}` unseen"
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
            found = self._lib_use(item, local, allowed) or hidden_call(item)
            found = found or forbidden_name(item, forbidden)
            if found:
                return found
            computed = computed or computed_attribute(item)
            if isinstance(item, ast.Name) and item.id not in {**self.lib, **local}:
                todo.append(item.id)  # a name of the notebook's: read what binds it too
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
