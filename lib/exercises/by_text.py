"""Functions of allowed modules that read or write attributes by names given as text.

An allowed module's public functions are allowed by default because they only compute: they take
values and hand back values, and whatever attribute they read has a name fixed in their own
code, which the learner cannot choose. A function that takes attribute names as text is
`getattr`/`setattr` by another name, and the reading sees only a string. Among the allowed
modules (`allowed.COMPUTING`) these are:

- `functools.update_wrapper(wrapper, wrapped, assigned, updated)` and `functools.wraps`: each
  name of `assigned` is copied with getattr/setattr, each of `updated` read and `.update()`d,
  and even without them `__annotations__` is copied onto whatever `wrapper` is: a class made a
  dataclass then has a field for each of `wrapped`'s parameters, named as the learner likes.
  So `update_wrapper` is refused, and `wraps(f)` allowed only as a decorator of a `def`, whose
  function no dataclass can be made of;
- `dataclasses.make_dataclass`, whose field names are text: refused, a class can be written out;
- `dataclasses.asdict`, `astuple` and `replace`, which read each field with getattr by the name
  its `Field` holds. A class body's names are judged where it binds them
  (`forbidden._class_attributes`), but a `Field`'s name can be set later
  (`fields(C)[0].name = ...`, or a `field()` kept in a variable): refused, as the fields can be
  read by their names (`(t.lead, t.rest)`). A `Field` itself may be read, never held
  (`dataclass_fields`): a dataclass made later from a subclass writes its name into code.

`operator.attrgetter` and `methodcaller` would be two more, but `operator` is not allowed, and
`string.Formatter` is refused where it is named (`python_itself.REACHES_IN`).
"""

from __future__ import annotations

import ast

from lib.exercises.cell_reading import called_with_one
from lib.exercises.dataclass_fields import field_use

_REFUSED = {"dataclasses.make_dataclass": "write the class out with `@dataclasses.dataclass`"}
_REFUSED |= dict.fromkeys(
    ["dataclasses.asdict", "dataclasses.astuple", "dataclasses.replace"],
    "read the fields by their names (`item.count`)",
)
_REFUSED["functools.update_wrapper"] = "decorate a `def` with `@functools.wraps(f)`"


def by_text(where: str, node: ast.AST) -> str:
    """ "" unless `node` (the whole `functools.wraps`, or `wraps` imported on its own) uses one of
    the functions above that `where` names, other than `wraps` as a decorator. Needs `parent`
    links."""
    found = field_use(where, node)
    if found:
        return found
    if where in _REFUSED:
        return f"uses `{where}`, which names attributes as text: {_REFUSED[where]}"
    if where != "functools.wraps":
        return ""
    call = called_with_one(node)
    decorated = getattr(call, "parent", None)
    decorator = (
        isinstance(decorated, ast.FunctionDef | ast.AsyncFunctionDef)
        and call in decorated.decorator_list
    )
    if decorator:
        return ""
    return (
        f"uses `{where}` other than as a decorator, or with names of attributes as text: write"
        f" `@{where}(f)` above a `def`"
    )
