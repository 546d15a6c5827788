"""`type`, which code may use only to ask about a class, for `unit_reading.outside`.

Called with three arguments, subclassed or handed on, `type` makes classes whose members are
names given as text (`type('C', (), {'__match_args__': ('gi_frame',)})`), and a dataclass made of
such a class runs its field names as code. So `type` is called with one argument, and the class
it gives only asked about (`class_asked`), or given bare to `isinstance(x, type)`. The builtins
these rules name (`isinstance`, `issubclass`, `int`, `print`...) are trusted only where nothing
binds their names (`allowed.is_builtin`).
"""

from __future__ import annotations

import ast
import builtins

from lib.exercises.allowed import is_builtin
from lib.exercises.cell_reading import called_with_one

# The builtins that format what they are given as text. A class is formatted by its metaclass,
# `type` or an allowed module's (`collections.abc`'s `ABCMeta`), whose `__repr__` is `type`'s:
# a metaclass of the learner's would subclass `type`, which `type_outside` refuses.
SHOWING = frozenset({"print", "str", "repr"})


def shown(call: ast.Call, asked: ast.AST | None) -> bool:
    """`type(x)` only shown: an f-string's value (`f"got {type(x)}"`, no format spec), or an
    argument of `print`, `str` or `repr`, called without keywords."""
    if isinstance(asked, ast.FormattedValue):
        return asked.value is call and asked.format_spec is None
    return (
        isinstance(asked, ast.Call)
        and any(is_builtin(asked.func, name) for name in SHOWING)
        and call in asked.args
        and not asked.keywords
        and (len(asked.args) == 1 or is_builtin(asked.func, "print"))
    )


def builtin_classes(node: ast.AST | None) -> bool:
    """`int`, or a tuple (list, set) of such names: builtin classes where nothing binds their
    names (`is_builtin`), so comparing a class with them runs only Python's own `==`."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(builtin_classes(e) for e in node.elts)
    named = is_builtin(node) and node.id != "type"  # type: ignore[union-attr]
    return named and isinstance(getattr(builtins, node.id, None), type)  # type: ignore[union-attr]


def class_asked(call: ast.Call) -> bool:
    """`type(x)` only asked about: `is`, `==`, `in` a builtin class (or a tuple of them), its
    `__name__` read, `issubclass(type(x), int)`, or shown (`shown`). Needs `parent` links."""
    asked = getattr(call, "parent", None)
    if isinstance(asked, ast.Attribute):
        return asked.attr == "__name__"
    if shown(call, asked):
        return True
    if isinstance(asked, ast.Compare) and len(asked.ops) == 1:
        other = asked.comparators[0] if asked.left is call else asked.left
        if isinstance(asked.ops[0], ast.Is | ast.IsNot):
            return True
        return isinstance(asked.ops[0], ast.Eq | ast.NotEq | ast.In | ast.NotIn) and (
            builtin_classes(other)
        )
    return (
        two_args_call(asked, "issubclass")
        and asked.args[0] is call
        and (  # type: ignore[union-attr]
            builtin_classes(asked.args[1])  # type: ignore[union-attr]
        )
    )


def two_args_call(node: ast.AST | None, name: str) -> bool:
    """`name(a, b)`, a builtin called with two plain arguments."""
    return (
        isinstance(node, ast.Call)
        and is_builtin(node.func, name)
        and len(node.args) == 2
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    )


def type_outside(item: ast.AST) -> str:
    """ "" unless `item` is the builtin `type` used other than to ask about a class: called with
    one argument and the class it gives only asked about (`class_asked`), or the bare class
    given to `isinstance(x, type)`. `==` with a class of the learner's would call its method
    with the class, so only builtin classes are compared so. Needs `parent` links."""
    if not (isinstance(item, ast.Name) and item.id == "type" and isinstance(item.ctx, ast.Load)):
        return ""
    call = called_with_one(item)
    parent = getattr(item, "parent", None)
    if (call and class_asked(call)) or (
        two_args_call(parent, "isinstance") and parent.args[1] is item  # type: ignore[union-attr]
    ):
        return ""
    return (
        "uses `type` other than to ask about a class: write `type(x) is int`, `type(x) == int`"
        " or `type(x).__name__` (called otherwise, `type` makes classes from names as text)"
    )
