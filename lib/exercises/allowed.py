"""What a graded answer may use: a short list, so that whatever is not on it is out.

A graded function, and every function of the notebook it reaches, may use

- its parameters and local variables, and the notebook's own functions, classes and values
  (`own_code` reads what binds each of them by these same rules);
- Python's builtins, except the few that run or find code (`exec`, `open`, `globals`...);
- the standard-library modules below, which only compute, by their public names: an allowed
  module's attribute is allowed if it is public (no leading `_`), is not a module off the list,
  and is not a builtin that runs code (`reached`, which looks in the grader's own copy of the
  module, so `collections._sys`, `dataclasses.builtins` and `re.enum` are out whatever they hold);
  a module is used by its names (`collections.Counter`), never handed on as a value nor changed;
- what its exercise allows besides (`allowed_lib`: a course helper such as `lib.bpe.merge`, or
  a module such as `codecs`).

Anything else (another module, a method its exercise forbids, a dunder beyond the ordinary
ones, `getattr` with a name worked out at run time) is not own code, and the reason names it.
A list of what is allowed stays short and can be tested in both directions; a list of tricks
never ends.

>>> import ast
>>> outside(ast.parse("import json").body[0], set())
'imports `json`, which is not among what this exercise may use'
>>> outside(ast.parse("x.__globals__").body[0].value, set())
'uses `.__globals__`, which reaches into Python itself'
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
from collections.abc import Collection
from types import ModuleType

from lib.exercises.by_text import by_text
from lib.exercises.cell_reading import public_names
from lib.exercises.python_builtins import PYTHON_BUILTINS
from lib.exercises.python_itself import (
    ORDINARY_DUNDERS,
    REACHES_IN,
    attributes_read,
    named_by_text,
    private,
    reaching_in,
    type_outside,
    unusual_dunder,
)

# Standard-library modules that only compute (and `time`, to measure): none loads, runs or
# finds code.
COMPUTING = frozenset(
    {"collections", "itertools", "functools", "heapq", "bisect", "math", "unicodedata"}
    | {"re", "regex", "dataclasses", "string", "typing", "time", "__future__"}
)
# `typing` offers only its names for type hints: its others hand out `type` itself
# (`get_origin(Type)`, `class M(Type)` is a metaclass), run hints written as text
# (`get_type_hints`), or make classes from names as text (`TypedDict('T', {...})`).
MEMBERS = {
    "typing": frozenset(
        {"Any", "Callable", "ClassVar", "Collection", "Counter", "DefaultDict", "Deque", "Dict"}
        | {"Final", "FrozenSet", "Generator", "Hashable", "Iterable", "Iterator", "List"}
        | {"Literal", "Mapping", "MutableMapping", "Optional", "OrderedDict", "Sequence", "Set"}
        | {"Sized", "Tuple", "Union", "TYPE_CHECKING", "cast"}
    )
}
# The builtins that run code, find it, or reach the notebook's namespace or files.
RUNS_CODE = frozenset(
    {"exec", "eval", "compile", "__import__", "globals", "locals", "vars", "open", "input"}
    | {"breakpoint", "help", "setattr", "delattr", "__build_class__", "__loader__", "__spec__"}
)
# The builtins the reading judges wherever they are used: a name of the code's own may not be one.
JUDGED_BUILTINS = RUNS_CODE | {"getattr", "hasattr", "type"}
BUILTINS = PYTHON_BUILTINS - RUNS_CODE  # a fixed list: IPython adds names to `builtins`


@functools.cache
def python_private() -> frozenset[str]:
    """The private names (`_convert_`) that the builtin classes and the allowed modules' public
    classes, and their metaclasses, have: a notebook defining one does not make it its own."""
    values = [getattr(builtins, name, None) for name in BUILTINS]
    for module in COMPUTING:
        found = _module(module, set())
        values += [getattr(found, name, None) for name in public_names(module)] if found else []
    classes = {v if isinstance(v, type) else type(v) for v in values}
    kinds = [k for c in classes for k in (*c.__mro__, *type(c).__mro__)]
    return frozenset(name for k in set(kinds) for name in vars(k) if private(name))


def module_allowed(module: str, allowed: set[str]) -> bool:
    """May code import `module` (a listed module, or one its exercise allows)?"""
    return module.partition(".")[0] in COMPUTING or module in allowed


def outside(item: ast.AST, allowed: set[str], members: Collection[str] = ()) -> str:
    """ "" unless this one node uses something off the list; then what, in words. Names are
    judged by `own_code`, which knows what binds them; here: imports, attributes, calls.
    `members`: names bound by imports alone (`from dataclasses import field`), each use of which
    is judged as the module's (`by_text`), not the import."""
    if isinstance(item, ast.Import | ast.ImportFrom):
        if getattr(item, "level", 0):
            return "imports a module of its own folder, which the grader cannot read"
        modules = [item.module or ""] if isinstance(item, ast.ImportFrom) else []
        modules += [n.name for n in item.names] if isinstance(item, ast.Import) else []
        for module in modules:
            if module.partition(".")[0] != "lib" and not module_allowed(module, allowed):
                return f"imports `{module}`, which is not among what this exercise may use"
        names = [(n.name, n.asname) for n in item.names] if isinstance(item, ast.ImportFrom) else []
        if names == [("*", None)]:  # `from string import *` binds `Formatter` too
            names = [(name, None) for name in public_names(item.module or "")]
        for name, alias in names if getattr(item, "module", None) else []:
            found = reached(item.module, [name], allowed)  # `from re import enum`
            if (alias or name) not in members:
                found = found or by_text(f"{item.module}.{name}", item)
            if found:
                return found
        return ""
    if isinstance(item, ast.Name) and unusual_dunder(item.id):  # a class body's `__annotations__`
        return f"uses `{item.id}`, which reaches into Python itself"
    found = (reaching_in(name) for name in attributes_read(item))
    return next(filter(None, found), "") or type_outside(item)


def reached(module: str, chain: list[str], allowed: set[str]) -> str:
    """ "" if `module.a.b...` (the names in `chain`) stays within what may be used, else why not.
    Each step is looked up in the grader's own import of the module: a step from a module must be
    public, and lead to an allowed module or to something that is no module and no builtin that
    runs code; a step from anything else (a class, a function) is judged by `outside`."""
    value: object = _module(module, allowed)
    where = module
    for name in chain:
        if not isinstance(value, ModuleType) or name == "*":
            return ""
        if name.startswith("_") and name not in ORDINARY_DUNDERS:
            return f"uses `{where}.{name}`, a private part of `{where}`"
        if name in REACHES_IN:  # `from string import Formatter`, however it is imported
            return f"uses `{where}.{name}`, which reaches into Python itself"
        if name not in MEMBERS.get(where, {name}):
            hints = "use only names for type hints (`List[int]`)"
            return f"uses `{where}.{name}`: from `{where}`, {hints}"
        value, where = getattr(value, name, None), f"{where}.{name}"
        if isinstance(value, ModuleType) and not module_allowed(value.__name__, allowed):
            return f"reaches the module `{value.__name__}` through `{where}`"
        if any(value is getattr(builtins, name, None) for name in RUNS_CODE):
            return f"reaches `{where}`, a builtin that runs or finds code"
    return ""


def module_outside(item: ast.AST, modules: dict[str, str], allowed: set[str]) -> str:
    """ "" unless this node, using a name bound to a module (`modules`: name -> module, from
    `imported`), reaches past its public names (see `reached`) or hands the module on as a value
    (`m = collections; m._sys` would read as a local `m`). Needs `parent` links."""
    if not isinstance(item, ast.Name) or item.id not in modules:
        return ""
    chain, node = [], item
    while isinstance(getattr(node, "parent", None), ast.Attribute):
        node = node.parent  # type: ignore[attr-defined]
        chain.append(node.attr)
    call = getattr(item, "parent", None)
    if named_by_text(call) and call.args[0] is item:  # `getattr(collections, "_sys")`
        chain.append(call.args[1].value)
        node = call
    elif not chain and not isinstance(item.ctx, ast.Store | ast.Del):
        return f"hands the module `{modules[item.id]}` on as a value: use its names instead"
    where = ".".join([modules[item.id], *chain])
    if chain and isinstance(getattr(node, "ctx", None), ast.Store | ast.Del):
        return f"changes `{where}`: a module's names are used, never changed"  # seen by all
    found = reached(modules[item.id], chain, allowed) or by_text(where, node)
    if not found and isinstance(_end(modules[item.id], chain, allowed), ModuleType):
        return f"hands the module `{where}` on as a value: use its names instead"  # `m = a.re`
    return found


def _end(module: str, chain: list[str], allowed: set[str]) -> object:
    """What `module.a.b...` is in the grader's own import of the module (None if not there)."""
    value: object = _module(module, allowed)
    for name in chain:
        value = getattr(value, name, None)
    return value


def imported(nodes: list[ast.AST], allowed: set[str]) -> dict[str, str]:
    """The names that the imports in `nodes` bind to allowed modules (`lib` is followed by
    `own_code` itself): `import a.b` binds a to a, `import a.b as c` c to a.b, `from a import b`
    b to the module `a.b` is, if it is one (`from re import functools` binds `functools`)."""
    bound = {}
    for node in nodes:
        for item in ast.walk(node):
            if isinstance(item, ast.Import):
                for name in item.names:
                    module = name.name if name.asname else name.name.partition(".")[0]
                    bound[name.asname or module] = module
            elif isinstance(item, ast.ImportFrom) and item.module and not item.level:
                for name in item.names:
                    value = _module(item.module, allowed)
                    value = getattr(value, name.name, None) if value else None
                    if isinstance(value, ModuleType):
                        bound[name.asname or name.name] = value.__name__
    return {name: module for name, module in bound.items() if module_allowed(module, allowed)}


def _module(module: str, allowed: set[str]) -> ModuleType | None:
    """The grader's own import of an allowed module (None for any other: it is not imported)."""
    if module.partition(".")[0] == "lib" or not module_allowed(module, allowed):
        return None
    try:
        return importlib.import_module(module)
    except Exception:  # not there: the kernel cannot import it either
        return None


def computed_getattr(item: ast.AST) -> str:
    """`getattr(x, "de" + "code")`, or `getattr` handed on (`map(getattr, ...)`): an attribute
    whose name is worked out at run time. Needs `parent` links (`own_code` sets them)."""
    if not (isinstance(item, ast.Name) and item.id in {"getattr", "hasattr"}):
        return ""
    call = getattr(item, "parent", None)
    if isinstance(call, ast.Call) and call.func is item and named_by_text(call):
        return ""
    return f"uses `{item.id}` with a name worked out at run time"


def builtin_outside(name: str) -> str:
    """ "" for a builtin the code may use; else why not."""
    if name in RUNS_CODE:
        return f"uses `{name}`, which runs or finds code"
    return "" if name in BUILTINS else f"uses `{name}`, which no cell the grader can read defines"
