"""Attributes and uses that reach into Python itself, for `unit_reading.outside`.

Code that computes reads the attributes it defines and the public ones of Python's values. Any
other attribute is Python's machinery: a dunder beyond the ordinary ones (`__globals__`), a
frame (`gi_frame`: `reaching_in`), or a private attribute (`re.RegexFlag._convert_` reads any
module's globals by its name as text: `private_outside`), however it is read (`x.name`,
`getattr(x, "name")`, `case C(name=x)`). A private one (`_seen`) is read only where the
notebook's own code defines that name (`defines`: a class body binds it, or `self._seen = ...`)
and no class of Python's or of an allowed module has one so named. `type` is judged by
`type_use`.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from lib.exercises.allowed import is_builtin
from lib.exercises.by_text import format_fields
from lib.exercises.cell_reading import bound_names
from lib.exercises.scopes import body_names, class_names

# The dunders a learner's own class defines or reads: those Python calls only with the values
# the code gave it (an operator's operands, a container's key). The others reach into Python
# itself: they are handed attribute names as text or classes (`__getattr__`, `__set_name__`,
# `__format__`, `__init_subclass__`, `__exit__`), or hold its machinery (`__globals__`).
_OPERATORS = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift")
_OPERATORS += ("rshift", "and", "xor", "or")
ORDINARY_DUNDERS = frozenset(
    {"__init__", "__name__", "__doc__", "__len__", "__iter__", "__next__", "__getitem__"}
    | {"__contains__", "__eq__", "__lt__", "__hash__", "__repr__", "__str__", "__post_init__"}
    | {"__ne__", "__le__", "__gt__", "__ge__", "__bool__", "__call__", "__setitem__"}
    | {"__delitem__", "__missing__", "__reversed__", "__slots__", "__neg__", "__pos__"}
    | {"__abs__", "__invert__", "__int__", "__float__", "__index__", "__round__", "__divmod__"}
    | {"__bytes__", "__enter__"}
    | {f"__{side}{name}__" for name in _OPERATORS for side in ("", "r", "i")}
)
# `string.Formatter().get_field("0.__globals__", ...)` is getattr with a name in a string; a
# running generator's or traceback's frame holds the namespaces of the code around it; its code
# object, its names replaced (`.replace(co_names=...)`), becomes another function.
REACHES_IN = frozenset({"Formatter", "get_field", "gi_frame", "cr_frame", "ag_frame", "tb_frame"})
REACHES_IN |= {"f_globals", "f_locals", "f_builtins", "f_back", "f_code"}
REACHES_IN |= {"gi_code", "cr_code", "ag_code"}
# `functools.singledispatch` keeps, in `.registry`, the classes its registered functions' type
# hints name, evaluated in the globals at the end of their `__wrapped__` chain, which
# `functools.update_wrapper` may point at another module's (`string.capwords`: `'Formatter'`
# is `string.Formatter`). The reading cannot know those globals, so nothing reads `.registry`:
# call the function, and it dispatches.
REACHES_IN |= {"registry"}
# A named tuple's documented methods start with `_` only so as not to clash with its fields.
NAMED_TUPLE_API = frozenset({"_replace", "_asdict", "_make", "_fields"})


def unusual_dunder(name: str) -> bool:
    """A dunder beyond the ordinary ones: Python itself gives it a meaning."""
    return name.startswith("__") and name.endswith("__") and name not in ORDINARY_DUNDERS


def private(name: str) -> bool:
    """`_seen`, `_convert_`: a name starting with `_` that is no dunder."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def attributes_read(item: ast.AST) -> list[str]:
    """The names of the attributes this one node reads: `x.name`, `getattr(x, "name")`, `case
    C(name=x)` (a class pattern's keywords), `"{0.name}".format` (`by_text.format_fields`)."""
    if isinstance(item, ast.Attribute):  # a written-out template's fields too
        return [item.attr, *format_fields(item)]
    if named_by_text(item):
        return [item.args[1].value]  # type: ignore[attr-defined]
    return list(item.kwd_attrs) if isinstance(item, ast.MatchClass) else []


def reaching_in(name: str) -> str:
    """ "" unless reading the attribute `name` reaches into Python itself; then why."""
    if name == "registry":  # a learner's own attribute may be named so: say why it is out
        return "uses `.registry`, where classes that type hints name come out: call the function"
    if unusual_dunder(name) or name in REACHES_IN:
        return f"uses `.{name}`, which reaches into Python itself"
    return ""


def binds_reaching_in(item: ast.AST) -> str:
    """ "" unless `item` is a class whose body binds a name of `REACHES_IN`; then why. A class's
    names are its attributes, which a dataclass's generated methods read on any object they are
    handed: `D.__repr__(walk())`, with a field `gi_frame`, shows a generator's frame."""
    if not isinstance(item, ast.ClassDef):
        return ""
    named = sorted(body_names(item) & REACHES_IN)
    return (
        f"defines `{named[0]}` in class `{item.name}`, an attribute that reaches into Python"
        " itself: give it another name"
        if named
        else ""
    )


def private_outside(item: ast.AST, defined: Collection[str], pythons: Mapping[str, bool]) -> str:
    """ "" unless this node reads a private attribute the notebook's code does not define
    (`defined`), or one that Python's or an allowed module's classes have (`pythons`) other than
    on `self` in its own class (`own_attribute`), where only those they hold as code."""
    for name in attributes_read(item):
        if name in NAMED_TUPLE_API or not private(name):
            continue
        if own_attribute(item) and not pythons.get(name):
            continue
        if name not in defined or name in pythons:
            return (
                f"uses `.{name}`, a private attribute that is not the notebook's own: use public"
                f" names, or read `self.{name}` in a class whose code sets it"
            )
    return ""


def own_attribute(item: ast.AST) -> bool:
    """`self._name` in a method (plain, or a property's `accessor`) of a class of the notebook's
    with no bases or metaclass whose own code defines `_name`, `self` (the first parameter)
    bound nowhere else in the method. Needs `parent` links."""
    if not (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name)):
        return False
    method = getattr(item, "parent", None)
    while method is not None and not isinstance(method, ast.FunctionDef | ast.Lambda):
        method = getattr(method, "parent", None)
    owner = getattr(method, "parent", None)
    if not (isinstance(method, ast.FunctionDef) and isinstance(owner, ast.ClassDef)):
        return False
    params = method.args.posonlyargs + method.args.args
    plain = all(accessor(d, owner) for d in method.decorator_list)
    if owner.bases or owner.keywords or not plain or not params:
        return False
    self = params[0].arg
    rebound = [n for n in ast.walk(method) if self in bound_names(n)]
    return item.value.id == self and rebound == [params[0]] and item.attr in defines(owner)


def accessor(decorator: ast.AST, owner: ast.ClassDef) -> bool:
    """`@property`, or `@name.setter` (`.getter`, `.deleter`) for a `name` the class body defines
    under `@property` alone, the builtin `property` (`is_builtin`): a getter or setter is a plain
    method that may be handed any `self` (`Pair.name.fget(obj)`), as `Pair.label(obj)` may."""
    if is_builtin(decorator, "property"):
        return True
    if not (isinstance(decorator, ast.Attribute) and isinstance(decorator.value, ast.Name)):
        return False
    getters = [
        s.name
        for s in owner.body
        if isinstance(s, ast.FunctionDef)
        and [is_builtin(d, "property") for d in s.decorator_list] == [True]
    ]
    return decorator.attr in {"setter", "getter", "deleter"} and decorator.value.id in getters


def named_by_text(item: ast.AST) -> bool:
    """`getattr(x, "name")`: the name is known, so it is read like `x.name`."""
    return (
        isinstance(item, ast.Call)
        and isinstance(item.func, ast.Name)
        and item.func.id in {"getattr", "hasattr"}
        and len(item.args) > 1
        and isinstance(item.args[1], ast.Constant)
        and isinstance(item.args[1].value, str)
    )


def defines(statement: ast.AST) -> set[str]:
    """The private names a statement defines as attributes: what a class body binds, and what
    it stores on a value (`self._seen = ...`)."""
    stored = {
        n.attr
        for n in ast.walk(statement)
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)
    }
    return {name for name in stored | class_names(statement) if private(name)}


def computed_getattr(item: ast.AST) -> str:
    """`getattr(x, "de" + "code")`, or `getattr` handed on (`map(getattr, ...)`): an attribute
    whose name is worked out at run time. Needs `parent` links (`own_code` sets them)."""
    if not (isinstance(item, ast.Name) and item.id in {"getattr", "hasattr"}):
        return ""
    call = getattr(item, "parent", None)
    if isinstance(call, ast.Call) and call.func is item and named_by_text(call):
        return ""
    return f"uses `{item.id}` with a name worked out at run time"
