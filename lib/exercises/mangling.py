"""Private names as Python compiles them: `mangle` rewrites a statement's names in place.

Inside a class `C`, in its body and in every function (or lambda, comprehension) within it,
Python renames each identifier `__x` (two leading underscores, not ending in two) to `_C__x`,
`C` stripped of its leading underscores: names, parameters, a `def`'s or `class`'s name,
`global` and `nonlocal` names, attributes (`obj.__x`, on any object), `except ... as`, `match`
captures, and what an import binds. So `__fmt` and `_C__fmt` in `C` are one variable, and `K.__x`
read in `C` is `K._C__x`. The reading compares names by their text, so it reads the names as
Python runs them: mangled first (`notebook_units`), each spelling of a variable then one.

What Python leaves alone, measured on Python 3.11 (`tests/test_own_code_mangling.py` compares
with the compiler): dunders (`__init__`), names with a dot (`import __a.b` imports `__a.b`, the
one case whose mangled binding, `_C__a`, no rewrite can spell: such a module is never allowed),
a class whose name is all underscores, keyword arguments (`f(__k=1)`), a class pattern's
keywords (`case P(__k=x)`), and type hints, kept as text under `from __future__ import
annotations` (as the graded program is compiled) and looked up unmangled where evaluated.
"""

from __future__ import annotations

import ast
from typing import TypeVar

Node = TypeVar("Node", bound=ast.AST)
_HINTS = {"annotation", "returns"}  # fields kept as text: never mangled


def mangled(name: str, private: str | None) -> str:
    """`name` as Python compiles it inside class `private` (None: outside any class)."""
    if private is None or name[:2] != "__" or name[-2:] == "__" or "." in name:
        return name
    stripped = private.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def mangle(tree: Node) -> Node:
    """`tree` (a statement of a notebook) with every private name inside a class mangled, in
    place. Returns `tree`."""
    todo: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while todo:  # without recursion: a statement may be deeply nested
        node, private = todo.pop()
        inner = node.name if isinstance(node, ast.ClassDef) else private  # as written
        _rename(node, private)
        for field, value in ast.iter_fields(node):
            if field in _HINTS:
                continue
            body = isinstance(node, ast.ClassDef) and field == "body"  # the rest is outside
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    todo.append((child, inner if body else private))
    return tree


def _rename(node: ast.AST, private: str | None) -> None:
    """Mangle the names `node` itself holds (not its children's)."""
    if private is None:
        return
    for field in ("id", "attr", "arg", "name", "asname", "rest"):
        value = getattr(node, field, None)
        if isinstance(value, str) and not isinstance(node, ast.keyword):
            setattr(node, field, mangled(value, private))
    if isinstance(node, ast.Global | ast.Nonlocal):
        node.names = [mangled(n, private) for n in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        node.module = mangled(node.module, private)
