"""Python's own classes, and the private names they have, which no notebook makes its own.

A notebook that defines `_convert_` in a class of its own has not made `re.RegexFlag._convert_`
its own: `python_itself.private_outside` judges a private name against the names Python's
classes hold (`python_private`), found in the grader's own import of the builtins and the
allowed modules (`allowed.COMPUTING`).
"""

from __future__ import annotations

import builtins
import functools
from types import MemberDescriptorType

from lib.exercises.allowed import BUILTINS, COMPUTING, allowed_import
from lib.exercises.cell_reading import public_names
from lib.exercises.python_itself import private


@functools.cache
def python_values() -> tuple[object, ...]:
    """The builtins and the allowed modules' public names' values."""
    values = [getattr(builtins, name, None) for name in BUILTINS]
    for module in COMPUTING:
        found = allowed_import(module, set())
        values += [getattr(found, name, None) for name in public_names(module)] if found else []
    return tuple(values)


@functools.cache
def python_kinds() -> frozenset[type]:
    """Python's classes: those of `python_values`, their bases and metaclasses."""
    classes = {v if isinstance(v, type) else type(v) for v in python_values()}
    return frozenset(k for c in classes for k in (*c.__mro__, *type(c).__mro__))


@functools.cache
def python_private() -> dict[str, bool]:
    """The private names (`_convert_`) that Python's classes (`python_kinds`) have, which a
    notebook defining one does not make its own; each with whether some class of Python's holds
    it as code (a method, a property: `_convert_`; a slot whose value is one:
    `typing.Union._getitem`), not as data (`_name`): a method of the notebook's may be handed
    Python's class as `self` (`Table.label(re.RegexFlag)`), so those stay refused there too."""
    data = (MemberDescriptorType, str, int, bool, tuple, frozenset, type(None))
    found: dict[str, bool] = {}
    for name, value in ((n, v) for k in python_kinds() for n, v in vars(k).items()):
        if private(name) and not found.get(name):
            found[name] = not isinstance(value, data) or any(
                callable(getattr(v, name, None)) for v in python_values()
            )
    return found
