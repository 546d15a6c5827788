"""Class patterns matched by position (`case Pair(a, b)`), for `unit_reading`.

A positional sub-pattern fetches `getattr(subject, name)` for a name of the class's
`__match_args__`: an attribute named as text, which the reading never sees. So a class is matched
by position only where those names are not the learner's to choose: a builtin type (`case
int(n)`, which matches the subject itself), a class reached through an allowed module's name
(its own code fixed them), or a class of the notebook's own `class` statement decorated
`@dataclass` and by nothing else, whose bases are such classes only, and which leaves
`match_args` on: then `__match_args__` holds its fields and its bases' fields, names the reading
judges in the class bodies. (A dataclass with `match_args=False`, or under a decorator of the
learner's, keeps whatever `__match_args__` a base or the decorator gives it: a named tuple's of
names as text.) Any other class may have been made with `__match_args__` of any text; match it
by keyword (`case Pair(first=a)`), whose names the reading judges.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

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
    else:

        def notebooks(name: str) -> list[tuple[ast.AST, ast.AST]]:
            return [(u, u) for _, u in units.get(name, [])]

        def units_or_notebooks(name: str) -> list[tuple[ast.AST, ast.AST]]:
            """A base of a class in `unit` may be the unit's or the notebook's: both must do."""
            return [(unit, b) for b in _bindings(unit, name)] + notebooks(name)

        bindings = units_or_notebooks if local else notebooks
        fixed = (not local and is_builtin(cls)) or _only_dataclasses(cls.id, bindings, names)
    if fixed:
        return ""
    name = ast.unparse(cls)
    return (
        f"matches `{name}` by position, whose `__match_args__` could name any attribute as text:"
        f" match by keyword (`case {name}(first=a)`), or write `{name}` as a `class` under"
        " `@dataclass`, with no bases but such classes"
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
        and all(dataclass_decorator(d, node, names) for d in node.decorator_list)
    )


def _only_dataclasses(
    name: str,
    bindings: Callable[[str], list],
    names: tuple[dict, dict],
    seen: frozenset = frozenset(),
) -> bool:
    """Is each binding of `name` (with the unit it is in, as `bindings` finds them) a `class
    name` statement decorated only by the module's `dataclass` (`@dataclasses.dataclass`,
    `@dataclass` imported alone, or called, but never with `match_args`), with no metaclass and
    no bases but classes of this kind themselves, found the same way? `seen`: the names asked
    about on the way here, so that a class naming itself as its base ends the search."""
    found = bindings(name)
    return (
        bool(found)
        and name not in seen
        and all(
            isinstance(node, ast.ClassDef)
            and node.name == name
            and not node.keywords
            and node.decorator_list
            and all(dataclass_decorator(d, unit, names) for d in node.decorator_list)
            and not any(_sets_match_args(d) for d in node.decorator_list)
            and all(
                isinstance(base, ast.Name)
                and _only_dataclasses(base.id, bindings, names, seen | {name})
                for base in node.bases
            )
            for unit, node in found
        )
    )


def _sets_match_args(decorator: ast.AST) -> bool:
    """`@dataclass(match_args=...)`, or keywords unpacked (`**options`): whatever it says, the
    reading does not trust a `__match_args__` it did not see the dataclass make."""
    return isinstance(decorator, ast.Call) and any(
        k.arg in (None, "match_args") for k in decorator.keywords
    )


def dataclass_decorator(decorator: ast.AST, unit: ast.AST, names: tuple[dict, dict]) -> bool:
    """Is `decorator` the module's `dataclass` (`@dataclasses.dataclass`, `@dataclass` imported
    alone, or either called), not a name `unit` binds itself?"""
    decorator = decorator.func if isinstance(decorator, ast.Call) else decorator
    root = decorator.value if isinstance(decorator, ast.Attribute) else decorator
    if not isinstance(root, ast.Name) or _bindings(unit, root.id):  # the unit's own `dataclass`
        return False
    if isinstance(decorator, ast.Name):
        return names[1].get(decorator.id) == "dataclasses.dataclass"
    return decorator.attr == "dataclass" and names[0].get(root.id) == "dataclasses"
