"""What an allowed module offers: its public names, each looked up in the grader's own import.

`reached` follows a chain of names from a module (`collections.abc.Iterable`): each step from a
module must be public, and lead to an allowed module or to something that is no module and no
builtin that runs code; `allowed.MEMBERS` lists a module's names one by one where its public
names are too many (`typing`). `module_outside` judges a use of a name bound to a module (never
handed on as a value, never changed), `imported` finds those names, and `members_of` the names an
import binds to a module's member (`from dataclasses import field`).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Collection
from types import ModuleType

from lib.exercises.allowed import MEMBERS, RUNS_CODE, allowed_import, module_allowed
from lib.exercises.by_text import by_text
from lib.exercises.cell_reading import is_import
from lib.exercises.python_itself import (
    ORDINARY_DUNDERS,
    REACHES_IN,
    named_by_text,
)


def reached(
    module: str, chain: list[str], allowed: set[str], forbidden: Collection[str] = ()
) -> str:
    """ "" if `module.a.b...` (the names in `chain`) stays within what may be used, else why not.
    Each step is looked up in the grader's own import of the module: a step from a module must be
    public, and lead to something that is no builtin that runs code and whose `engines` are
    allowed and not `forbidden` (a module reached so is judged as itself from there on:
    `dataclasses.re` is `re`); a step from anything else (a class, a function) is judged by
    `outside`."""
    value: object = allowed_import(module, allowed)
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
        if any(value is getattr(builtins, name, None) for name in RUNS_CODE):
            return f"reaches `{where}`, a builtin that runs or finds code"
        for engine in engines(value, where.rpartition(".")[0]):
            if not module_allowed(engine, allowed):
                return f"reaches the module `{engine}` through `{where}`"
            if _root(engine) in forbidden or engine in forbidden:
                return f"reaches `{engine}` through `{where}`: this exercise asks you to do without"
        where = value.__name__ if isinstance(value, ModuleType) else where
    return ""


def engines(value: object, home: str) -> set[str]:
    """The modules besides `home` (where `value` was found) and Python's builtins whose machinery
    `value` is or hands out: a module itself, or the module of each object it holds as data,
    where it is one (`re.IGNORECASE`) or a class's public attribute (`string.Template.pattern`
    is compiled by `re`, so `Template` is `re`'s too). Classes and functions held are code, each
    read where it is used."""
    if isinstance(value, ModuleType):
        return {value.__name__}
    held = (
        [v for k, v in vars(value).items() if k[:1] != "_"] if isinstance(value, type) else [value]
    )
    found = {type(v).__module__ for v in held if not hasattr(type(v), "__get__")}
    return {m for m in found if _root(m) not in {"builtins", _root(home)}}


def _root(module: str) -> str:
    """A module's top package, as code names it: `_regex` is `regex`'s engine."""
    return module.partition(".")[0].strip("_")


def module_outside(
    item: ast.AST, modules: dict[str, str], allowed: set[str], forbidden: Collection[str] = ()
) -> str:
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
    found = reached(modules[item.id], chain, allowed, forbidden) or by_text(where, node)
    if not found and isinstance(_end(modules[item.id], chain, allowed), ModuleType):
        return f"hands the module `{where}` on as a value: use its names instead"  # `m = a.re`
    return found


def _end(module: str, chain: list[str], allowed: set[str]) -> object:
    """What `module.a.b...` is in the grader's own import of the module (None if not there)."""
    value: object = allowed_import(module, allowed)
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
                    value = allowed_import(item.module, allowed)
                    value = getattr(value, name.name, None) if value else None
                    if isinstance(value, ModuleType):
                        bound[name.asname or name.name] = value.__name__
    return {name: module for name, module in bound.items() if module_allowed(module, allowed)}


def members_of(
    imports: list[ast.Import | ast.ImportFrom],
    units: dict[str, list],
    allowed: set[str],
    modules: set[str],
) -> dict[str, str]:
    """The names that only imports (`imports`, of the notebook's `units`) bind, each to one
    member (no module: not in `modules`) of an allowed module: `from dataclasses import field`
    binds `field` to `dataclasses.field`. Each use of such a name is judged as the module's."""
    found: dict[str, set[str]] = {}
    for item in imports:
        if isinstance(item, ast.ImportFrom) and item.module and not item.level:
            for alias in item.names:
                name = alias.asname or alias.name
                found.setdefault(name, set()).add(f"{item.module}.{alias.name}")
    return {
        name: full.pop()
        for name, full in found.items()
        if len(full) == 1
        and name not in modules
        and not next(iter(full)).startswith("lib.")
        and module_allowed(next(iter(full)).rpartition(".")[0], allowed)
        and all(is_import(unit) for _, unit in units.get(name, []))
    }
