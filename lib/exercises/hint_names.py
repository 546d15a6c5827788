"""Which of the notebook's names a type hint may name, for `hints.hint_outside`.

A hint's names are not uses of what they name, and the graded program keeps hints as text. But
`functools.singledispatch`'s `register` evaluates a registered function's hint in the notebook's
globals, and evaluating `box | bytes` calls `box.__or__(bytes)` (or `__ror__`, `__eq__` and
`__hash__` inside `typing.Union[...]`): the learner's code would be handed whatever the hint
names, `getattr` or `bytes`, unseen by the reading. So a hint names only what has no operator
of the learner's: a builtin, what imports alone bind (an allowed module or its member), a name
no cell binds (evaluating it fails), or a `class` statement's class, whose operators on the
class itself are its metaclass's. Such a class has no metaclass keyword, is decorated by
`dataclass` alone (a decorator of the learner's could return anything) and has no bases but
names a hint may name, so its metaclass is Python's or an allowed module's. An attribute is
read only from a builtin, a module or a name no cell binds, never from a class of the
notebook's, whose body binds what it likes. Names the kernel holds by itself (`_`, `Out`,
`get_ipython`...) may hold a value of the learner's, and are not named.
"""

from __future__ import annotations

import ast

from lib.exercises.bindings import KERNEL_NAMES
from lib.exercises.cell_reading import is_import
from lib.exercises.class_patterns import dataclass_decorator


def may_name(
    name: str,
    read_from: bool,
    units: dict[str, list],
    names: tuple[dict, dict],
    seen: frozenset[str] = frozenset(),
) -> bool:
    """May a type hint name `name`, or read an attribute of it if `read_from`? `units`: the
    notebook's units by name; `names`: its names bound to modules and to their members."""
    bound = [unit for _, unit in units.get(name, [])]
    if not bound:
        return name not in KERNEL_NAMES and not name.startswith("_")
    if all(is_import(unit) for unit in bound):
        return True
    return (
        not read_from
        and name not in seen
        and all(_hintable_class(unit, name, units, names, seen | {name}) for unit in bound)
    )


def _hintable_class(
    unit: ast.AST, name: str, units: dict[str, list], names: tuple[dict, dict], seen: frozenset
) -> bool:
    """Is `unit` a `class name` statement as above, its bases judged by `may_name`?"""
    if not (isinstance(unit, ast.ClassDef) and unit.name == name and not unit.keywords):
        return False
    if not all(dataclass_decorator(d, unit, names) for d in unit.decorator_list):
        return False
    for base in unit.bases:
        root = base
        while isinstance(root, ast.Attribute) and not root.attr.startswith("_"):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if not may_name(root.id, root is not base, units, names, seen):
            return False
    return True
