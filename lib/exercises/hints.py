"""Type hints, which the graded program keeps as text and which may be evaluated later.

The program graded starts with `from __future__ import annotations`, so a hint is never run
where it is written. But `functools.singledispatch`'s `register` (and anything that calls
`typing.get_type_hints`) evaluates it later, in the notebook's globals, strings inside it too
(`list['box[eval]']`). Evaluating names and public attributes runs nothing of the learner's; a
subscript does: `box[eval]` calls `box.__getitem__(eval)`, handing it a builtin the reading
never saw handed on. So a hint may be made only of names, public attributes, `|`, constants,
lists and tuples, and subscripts of what Python or an allowed module defines (`list[int]`,
`collections.Counter[str]`), never of a value of the notebook's. Its names are not uses of what
they name (`-> bytes` hands nothing on), except the builtins that run code, which no hint needs.

>>> hint_outside(ast.parse("box['eval']", mode="eval").body, lambda name: name == "list")
'has a type hint that subscripts `box`: subscript only types of Python (`list[int]`) or of a module'
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from lib.exercises.allowed import RUNS_CODE
from lib.exercises.cell_reading import parse_text

_PLAIN = ast.Expression | ast.Name | ast.Attribute | ast.Subscript | ast.Tuple | ast.List
_PLAIN |= ast.Load | ast.Constant | ast.BinOp | ast.BitOr


def hint_outside(hint: ast.AST, subscriptable: Callable[[str], bool]) -> str:
    """ "" if evaluating `hint` runs none of the notebook's code, else why it may. A subscript's
    value must be a name, or attributes of one, for which `subscriptable` holds (a builtin or an
    allowed module the notebook does not rebind)."""
    todo = [hint]
    while todo:
        for node in ast.walk(todo.pop()):
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
            elif isinstance(node, ast.Subscript) and not subscriptable(_root(node.value)):
                return (
                    f"has a type hint that subscripts `{_root(node.value) or '...'}`: subscript"
                    " only types of Python (`list[int]`) or of a module"
                )
    return ""


def _root(value: ast.AST) -> str:
    """`collections` for `collections.abc.Iterable`; "" unless names and attributes."""
    while isinstance(value, ast.Attribute):
        value = value.value
    return value.id if isinstance(value, ast.Name) else ""
