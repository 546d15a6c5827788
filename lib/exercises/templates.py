"""Names that surely hold a template written out, for `.format` (`by_text.template`).

`"{0.__globals__}".format(f)` reads an attribute named in text, so `.format` is allowed only on a
template the reading sees, whose fields it then judges one by one. A template is seen written
out in place, or through a name that can hold nothing else:

- a notebook's name that one statement alone binds, `TEMPLATE = "{}"` (`bindings.known`);
- a function's local bound by one statement of that function, `fmt = "{:d}"`, and by nothing
  else in it or in the functions inside it: no parameter, `for`, `+=`, `:=`, `del`, `import`,
  `except ... as`, no `nonlocal` declaring it elsewhere. A local is never looked up outside its
  function (before its binding it raises `UnboundLocalError`), and nothing outside can rebind
  it without reaching into frames, which the reading refuses;
- a class attribute read as `K.FMT`, where `K` is a plain class that one statement alone binds
  (`class_patterns.plain_class`: no bases, no metaclass) and its body binds `FMT` once, to the
  template. The class must not be reachable any other way, for `K.FMT = ...` could then
  rebind the attribute through another name: its body holds only values written out and
  undecorated `def`s (no `classmethod`, which hands its functions the class), and every use of
  `K` in the notebook reads one of those attributes or makes an instance (`K.FMT`, `K()`), never
  stores into one, hands `K` on (`c = K`, `f(K)`, `class L(K)`) or reads what Python adds
  (`K.mro()[0]`). A class body's own names are not followed: where the class has none yet, a
  body reads the notebook's (`scopes`).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable

from lib.exercises.cell_reading import bound_names, is_literal
from lib.exercises.scopes import Scope, body_names


def written(node: ast.AST | None) -> str | None:
    """The text of a string written out (`"{}"`), else None."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def notebook_templates(
    known: dict[str, ast.stmt], statements: Iterable[ast.stmt]
) -> dict[str, str]:
    """The notebook's names (`TEMPLATE`) and class attributes (`K.FMT`) that surely hold a
    template, with its text. `known`: the names one statement alone binds (`bindings.known`);
    `statements`: every statement of the notebook's code, where a class could be handed on."""
    found = {name: _assigned(unit) for name, unit in known.items()}
    found = {name: text for name, text in found.items() if text is not None}
    classes = {name: c for name, c in known.items() if isinstance(c, ast.ClassDef)}
    members = {name: body_names(c) for name, c in classes.items() if _sealed_body(c)}
    for statement in statements:
        for parent in ast.walk(statement):
            for child in ast.iter_child_nodes(parent):
                if isinstance(child, ast.Name) and child.id in members:
                    if not _only_read(parent, child, members[child.id]):
                        del members[child.id]
    for name in members:
        attributes = {t: _assigned(s) for s in classes[name].body for t in _names(s)}
        bindings = _bindings(classes[name].body)
        found |= {
            f"{name}.{attribute}": text
            for attribute, text in attributes.items()
            if text is not None and bindings[attribute] == 1
        }
    return found


def local_templates(function: ast.AST) -> dict[str, str]:
    """The names bound in `function` (or a function inside it) by one node alone, which is an
    assignment of a template written out. For its own locals (`scopes.resolve`) only: a name
    a function uses but binds nowhere is not its local."""
    bindings = _bindings([function])
    texts = {}
    for node in ast.walk(function):
        texts |= dict.fromkeys(_names(node), _assigned(node))
    return {name: text for name, text in texts.items() if text is not None and bindings[name] == 1}


def seen_template(
    item: ast.AST, scopes: dict[int, Scope], found: dict[str, str], done: dict[int, dict]
) -> str | None:
    """The template `item` surely holds, if any: a name or `K.FMT` among the notebook's
    templates (`found`, from `notebook_templates`), or a function's local among its
    `local_templates` (kept in `done` by scope, worked out once per function). `scopes`: the
    unit's own variables (`scopes.resolve`)."""
    if isinstance(item, ast.Name):
        scope = scopes.get(id(item))
        if scope is None:
            return found.get(item.id)
        if scope.kind != "function" or scope.node is None:
            return None
        if id(scope) not in done:
            done[id(scope)] = local_templates(scope.node)
        return done[id(scope)].get(item.id)
    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name):
        return None if id(item.value) in scopes else found.get(f"{item.value.id}.{item.attr}")
    return None


def _bindings(nodes: list[ast.AST]) -> Counter:
    """How many nodes under `nodes` bind each name, however (`cell_reading.bound_names`)."""
    return Counter(n for node in nodes for item in ast.walk(node) for n in bound_names(item))


def _names(node: ast.AST) -> list[str]:
    """The names an `=` or annotated `=` binds as whole targets (`a = b = "{}"`), else []."""
    targets = getattr(node, "targets", [getattr(node, "target", None)])
    plain = isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
    return (
        [t.id for t in targets] if plain and all(isinstance(t, ast.Name) for t in targets) else []
    )


def _assigned(node: ast.AST) -> str | None:
    """The template an assignment of whole names (`_names`) gives them, if it is one."""
    return written(getattr(node, "value", None)) if _names(node) else None


def _sealed_body(cls: ast.ClassDef) -> bool:
    """Does `cls`'s body hold only a docstring, `pass`, values written out and undecorated
    `def`s? Then none of its attributes is handed the class (a `classmethod`'s `cls`)."""
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        or (isinstance(s, ast.FunctionDef) and not s.decorator_list)
        or (bool(_names(s)) and is_literal(s.value))  # type: ignore[attr-defined]
        for s in cls.body
    )


def _only_read(parent: ast.AST, name: ast.Name, members: set[str]) -> bool:
    """Is this use of a class's `name` (in `parent`) a read of one of its body's `members`
    (`K.FMT`, not `K.FMT = ...`, `K.mro`) or a call that makes an instance (`K()`)?"""
    if not isinstance(name.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Call):
        return parent.func is name
    return (
        isinstance(parent, ast.Attribute)
        and isinstance(parent.ctx, ast.Load)
        and parent.attr in members
    )
