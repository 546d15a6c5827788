"""Which variable each name in a unit of code means, found as Python finds it: by scope.

A name used in a function is that function's local if the function binds it anywhere (as a
parameter, by `=`, `for`, `import`, `except ... as`, a `match` capture...) and does not declare
it `global` or `nonlocal`; else the enclosing function's, and so on out to the notebook's
globals and the builtins. A lambda and a comprehension are functions of their own; a class
body's names are seen by that body alone, not by the functions inside it. Reading a unit's
names as one set instead (every name it binds anywhere taken as its own) lets a lambda's
parameter `collections` hide the module `collections` used beside it: each use must be read in
its own scope.

`resolve` gives, for each `ast.Name` of a unit, the scope of the unit's own that binds it (no
entry: the name is the notebook's, or a builtin). A function's local is read as its own value:
Python never looks past it, even before it is bound (that raises `UnboundLocalError`). A class
body's name is not: where the class has none yet (used before it is bound, only annotated, or
deleted at the end of `except ... as`), Python looks in the notebook's globals and then the
builtins, skipping the functions around the class.
So `unit_reading` judges a name a class body reads as the class's and as the notebook's too, and
`bindings.binds_judged` refuses a class body binding a name the rules judge (`class_names`: all
it binds). `module_imports` gives the imports of a statement that bind the notebook's own names,
also inside `if` or `try`; `notebook_bindings` counts the bindings of those names, by scope
(`bindings.known`: a name bound once, whatever other scopes call their own variables).
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

from lib.exercises.cell_reading import bound_names

_FUNCTION = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_COMPREHENSION = ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp


@dataclass(eq=False)
class Scope:
    """A function's, a comprehension's or a class body's names."""

    kind: str  # "function", "comprehension", "class" (or "notebook", for `module_imports`)
    parent: Scope | None  # None: the notebook's globals
    bound: set[str] = field(default_factory=set)
    outer: set[str] = field(default_factory=set)  # declared `global` or `nonlocal`
    globals: set[str] = field(default_factory=set)
    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    node: ast.AST | None = None  # the `def`, `lambda`, comprehension or `class` it is of


def resolve(unit: ast.AST) -> dict[int, Scope]:
    """For each `ast.Name` in `unit` (by `id`) that names a variable of one of the unit's own
    scopes, that scope."""
    uses = [(node, scope) for node, scope in _scoped(unit) if isinstance(node, ast.Name)]
    owners = ((name, _lookup(name.id, scope)) for name, scope in uses)
    return {id(name): owner for name, owner in owners if owner is not None}


def notebook_bindings(unit: ast.AST) -> Counter[str]:
    """How many nodes of `unit` bind each of the notebook's own names (its globals), however
    (`cell_reading.bound_names`): `K = ...`, `class K`, `for K in`, `del K`, an import, and a
    binding inside a function or class that declares `global K`, whose `global` counts too.
    A parameter, a function's local or a class attribute named `K` is no binding of the
    notebook's `K`: Python finds it in its own scope, and the notebook's `K` is left alone."""
    found = ((n, scope) for node, scope in _scoped(unit) for n in bound_names(node))
    return Counter(name for name, scope in found if _lookup(name, scope) is None)


def _scoped(unit: ast.AST) -> list[tuple[ast.AST, Scope | None]]:
    """Every node of `unit` (its functions' parameters aside: `_children`) with the scope it
    is evaluated in, each scope knowing all it binds once the list is made."""
    found: list[tuple[ast.AST, Scope | None]] = []
    todo: list[tuple[ast.AST, Scope | None]] = [(unit, None)]
    while todo:  # without recursion: a unit may be deeply nested
        node, scope = todo.pop()
        found.append((node, scope))
        todo.extend(_children(node, scope))
    return found


def class_names(unit: ast.AST) -> set[str]:
    """Every name a class body of `unit` binds, however (`=`, `def`, `class`, `import`,
    `except ... as`, a `match` capture...): a class body looks it up outside where unbound."""
    classes = (node for node in ast.walk(unit) if isinstance(node, ast.ClassDef))
    return {name for node in classes for name in body_names(node)}


def body_names(cls: ast.ClassDef) -> set[str]:
    """The names `cls`'s own body binds, its attributes: not its methods' locals, nor what a
    class inside it binds (read once each, so a unit's classes take time in proportion to it)."""
    return _own(cls.body, Scope("class", None)).bound


def module_imports(statement: ast.stmt) -> list[ast.Import | ast.ImportFrom]:
    """The imports of a top-level statement that bind the notebook's names (`try: import regex
    as re`), not those inside a function or class, which bind its locals."""
    return _own([statement], Scope("notebook", None)).imports


def _own(body: list[ast.AST], scope: Scope) -> Scope:
    """`scope` with what the nodes of `body` bind and import in it, not in a scope inside."""
    todo = list(body)
    while todo:
        todo += [child for child, inner in _children(todo.pop(), scope) if inner is scope]
    return scope


def _children(node: ast.AST, scope: Scope | None) -> list[tuple[ast.AST, Scope | None]]:
    """`node`'s children, each with the scope it is evaluated in; records what `node` binds."""
    if isinstance(node, _FUNCTION | ast.ClassDef):
        _record(node, scope)  # its name, if it has one
        outside = [*getattr(node, "decorator_list", []), *getattr(node, "bases", [])]
        outside += [k.value for k in getattr(node, "keywords", [])]
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        inner = Scope(kind, scope, node=node)
        inner.bound.update(p.name for p in getattr(node, "type_params", []))
        if isinstance(node, _FUNCTION):
            arguments = node.args
            outside += [*arguments.defaults, *filter(None, arguments.kw_defaults)]
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a]
            inner.bound.update(a.arg for a in every)
            outside += [a.annotation for a in every if a.annotation]  # hints: read as the
            outside += [node.returns] if getattr(node, "returns", None) else []  # notebook's
        body = node.body if isinstance(node.body, list) else [node.body]
        return [(n, scope) for n in outside] + [(n, inner) for n in body]
    if isinstance(node, _COMPREHENSION):
        inner = Scope("comprehension", scope, node=node)
        first, *rest = node.generators
        parts = [first.target, *first.ifs, *rest]
        parts += [getattr(node, n) for n in ("elt", "key", "value") if hasattr(node, n)]
        return [(first.iter, scope)] + [(n, inner) for n in parts]
    if isinstance(node, ast.comprehension):  # a later `for` of a comprehension
        return [(n, scope) for n in (node.target, node.iter, *node.ifs)]
    if isinstance(node, ast.NamedExpr):  # `:=` binds in the function around comprehensions
        around = scope
        while around is not None and around.kind == "comprehension":
            around = around.parent
        return [(node.target, around), (node.value, scope)]
    _record(node, scope)
    return [(child, scope) for child in ast.iter_child_nodes(node)]


def _record(node: ast.AST, scope: Scope | None) -> None:
    """What a node binds or declares in `scope` (None: the notebook's), a function or class its
    name: its parameters are its own scope's (`_children`)."""
    if scope is None:
        return
    if isinstance(node, ast.Global | ast.Nonlocal):
        scope.outer.update(node.names)
        scope.globals.update(node.names if isinstance(node, ast.Global) else [])
        return
    if isinstance(node, ast.Import | ast.ImportFrom):
        scope.imports.append(node)
    scope.bound.update(bound_names(node))


def _lookup(name: str, scope: Scope | None) -> Scope | None:
    """The scope whose variable `name` is, used in `scope`; None for the notebook's."""
    first = True
    while scope is not None:
        seen = scope.kind != "class" or first  # functions inside see nothing of a class's,
        if name in scope.globals and seen:  # its `global`s neither
            return None
        if seen and name in scope.bound and name not in scope.outer:
            return scope
        scope, first = scope.parent, False
    return None
