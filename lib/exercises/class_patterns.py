"""Class patterns matched by position (`case Pair(a, b)`), for `unit_reading`.

A positional sub-pattern fetches `getattr(subject, name)` for a name of the class's
`__match_args__`: an attribute named as text, which the reading never sees. So a class is matched
by position only where those names are not the learner's to choose: a builtin type (`case
int(n)`, which matches the subject itself), a class reached through an allowed module's name
(its own code fixed them), or a class of the notebook's own `class` statement decorated
`@dataclass` (its fields, whose names the reading judges in the class body). Any other class may
have been made with `__match_args__` of any text; match it by keyword (`case Pair(first=a)`),
whose names the reading judges.
"""

from __future__ import annotations

import ast

from lib.exercises.allowed import is_builtin
from lib.exercises.cell_reading import bound_names


def pattern_outside(
    item: ast.AST, unit: ast.AST, scopes: dict, units: dict[str, list], names: tuple[dict, dict]
) -> str:
    """ "" unless `item` matches by position a class other than those above. `scopes`: the
    unit's own variables (`scopes.resolve`); `names`: the notebook's names bound to modules,
    and to members of modules (`from dataclasses import dataclass`)."""
    if not (isinstance(item, ast.MatchClass) and item.patterns):
        return ""
    cls, root = item.cls, item.cls
    while isinstance(root, ast.Attribute):
        root = root.value
    local = id(root) in scopes
    if isinstance(cls, ast.Attribute):
        fixed = isinstance(root, ast.Name) and not local and root.id in names[0]
    elif local:
        fixed = _only_dataclasses([(unit, b) for b in _bindings(unit, cls.id)], cls.id, names)
    else:
        fixed = is_builtin(cls) or _only_dataclasses(
            [(u, u) for _, u in units.get(cls.id, [])], cls.id, names
        )
    if fixed:
        return ""
    name = ast.unparse(cls)
    return (
        f"matches `{name}` by position, whose `__match_args__` could name any attribute as text:"
        f" match by keyword (`case {name}(first=a)`), or write `{name}` as a `class` under"
        " `@dataclass`"
    )


def _bindings(unit: ast.AST, name: str) -> list[ast.AST]:
    """Every node of `unit` that binds `name`, however."""
    return [node for node in ast.walk(unit) if name in bound_names(node)]


def plain_class(node: ast.AST, names: tuple[dict, dict]) -> bool:
    """Is `node` a `class` statement with no bases and no metaclass, decorated by nothing but
    `dataclass`? Python alone makes its class, so an instance's attributes are the class's or
    its own, never a `str`'s: `Table().format` is no `str.format`."""
    return (
        isinstance(node, ast.ClassDef)
        and not node.bases
        and not node.keywords
        and all(_dataclass(d, node, names) for d in node.decorator_list)
    )


def _only_dataclasses(bindings: list[tuple[ast.AST, ast.AST]], name: str, names: tuple) -> bool:
    """Is each binding (with the unit it is in) a `class name` statement decorated by the
    module's `dataclass` (`@dataclasses.dataclass`, `@dataclass` imported alone, or called)?"""
    return bool(bindings) and all(
        isinstance(node, ast.ClassDef)
        and node.name == name
        and any(_dataclass(d, unit, names) for d in node.decorator_list)
        for unit, node in bindings
    )


def _dataclass(decorator: ast.AST, unit: ast.AST, names: tuple[dict, dict]) -> bool:
    decorator = decorator.func if isinstance(decorator, ast.Call) else decorator
    root = decorator.value if isinstance(decorator, ast.Attribute) else decorator
    if not isinstance(root, ast.Name) or _bindings(unit, root.id):  # the unit's own `dataclass`
        return False
    if isinstance(decorator, ast.Name):
        return names[1].get(decorator.id) == "dataclasses.dataclass"
    return decorator.attr == "dataclass" and names[0].get(root.id) == "dataclasses"
