"""Type hints, which the graded program keeps as text and which may be evaluated later.

The program graded starts with `from __future__ import annotations`, so a hint is never run
where it is written. But `functools.singledispatch`'s `register` (and anything that calls
`typing.get_type_hints`) evaluates it later, in the notebook's globals, strings inside it too
(`list['box[eval]']`). Evaluating names and public attributes runs nothing of the learner's; a
subscript does: `box[eval]` calls `box.__getitem__(eval)`, handing it a builtin the reading
never saw handed on. So a hint may be made only of names, public attributes, `|`, constants,
lists and tuples, and subscripts of what Python or an allowed module defines (`list[int]`,
`collections.Counter[str]`), never of a value of the notebook's. Its names are not uses of what
they name (`-> bytes` hands nothing on), except the builtins that run code, which no hint needs;
but `|` (or `typing.Union`'s `__eq__`) would hand them to a value of the learner's named beside
them, so a hint names no such value (`hint_names.may_name`).

>>> hint_outside(ast.parse("box['eval']", mode="eval").body, lambda name: name == "list",
...              lambda name, read_from: True)
'has a type hint that subscripts `box`: subscript only types of Python (`list[int]`) or of a module'
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from lib.exercises.allowed import RUNS_CODE
from lib.exercises.cell_reading import parse_text

_PLAIN = ast.Expression | ast.Name | ast.Attribute | ast.Subscript | ast.Tuple | ast.List
_PLAIN |= ast.Load | ast.Constant | ast.BinOp | ast.BitOr


def hint_outside(
    hint: ast.AST, subscriptable: Callable[[str], bool], nameable: Callable[[str, bool], bool]
) -> str:
    """ "" if evaluating `hint` runs none of the notebook's code, else why it may. A subscript's
    value must be a name, or attributes of one, for which `subscriptable` holds (a builtin or an
    allowed module the notebook does not rebind); every name one for which `nameable` holds,
    told whether an attribute is read from it."""
    todo = [hint]
    while todo:
        tree = todo.pop()
        read_from = {id(_root_node(n)) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                inner = parse_text(node.value, "eval")  # evaluated as code, as the rest is
                if inner is None:
                    return "has a type hint written as code"
                todo.append(inner)
            elif not isinstance(node, _PLAIN):
                return "has a type hint written as code"
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                return f"has a type hint that reads `.{node.attr}`: name a type"
            elif isinstance(node, ast.Name) and node.id in RUNS_CODE:
                return f"has a type hint naming `{node.id}`, which runs code: name a type"
            elif isinstance(node, ast.Name) and not nameable(node.id, id(node) in read_from):
                return (
                    f"has a type hint naming `{node.id}`, which may hold a value of the"
                    " notebook's: name only builtins, modules' types and plain `class`es"
                )
            elif isinstance(node, ast.Subscript) and not subscriptable(_root(node.value)):
                return (
                    f"has a type hint that subscripts `{_root(node.value) or '...'}`: subscript"
                    " only types of Python (`list[int]`) or of a module"
                )
    return ""


def _root(value: ast.AST) -> str:
    """`collections` for `collections.abc.Iterable`; "" unless names and attributes."""
    value = _root_node(value)
    return value.id if isinstance(value, ast.Name) else ""


def _root_node(value: ast.AST) -> ast.AST:
    """The `collections` node of `collections.abc.Iterable`."""
    while isinstance(value, ast.Attribute):
        value = value.value
    return value
