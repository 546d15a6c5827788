"""`dataclasses`' `Field`s, which the learner's code may read but never hold: for `by_text`.

A dataclass writes each field's name, as text, into the methods it generates (`__init__`,
`__eq__`, `__repr__`... are `exec`uted from text) and into `__match_args__` (a class pattern
`case Text(x)` fetches the attribute of that name). A class body's names are judged where it
binds them (`forbidden.forbidden_name`), but a `Field` is a plain object whose `.name` can be
set later, and a dataclass made later from a subclass takes its base's `Field`s as they are:
after `fields(Base)[0].name = 'lead,FOUND.append(eval)'` the subclass's `__eq__` runs that text.
Which object a variable holds is not known when reading, so no `Field` may reach one:

- `dataclasses.field(...)` only as a field's value in the class body of a dataclass
  (`rest: list = dataclasses.field(default_factory=list)` under `@dataclasses.dataclass`, its
  innermost decorator, which replaces it by its default), the body never reading it back;
- `dataclasses.fields(C)` only in a comprehension that reads attributes of each
  (`[f.name for f in dataclasses.fields(C)]`);
- `dataclasses.Field` not at all. Imported on its own (`from dataclasses import dataclass,
  field`), each use of a name is judged as the module's would be, where it is used.
"""

from __future__ import annotations

import ast
import weakref

from lib.exercises.scopes import resolve

# Each class body's reading, by the body's node: kept only as long as the node itself.
_READINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

HOW = {
    "dataclasses.field": "as a field's value under `@dataclasses.dataclass`"
    " (`rest: list = dataclasses.field(default_factory=list)`)",
    "dataclasses.fields": "in a comprehension reading each one"
    " (`[f.name for f in dataclasses.fields(C)]`)",
}


def field_use(where: str, node: ast.AST) -> str:
    """ "" unless `node` (the whole `dataclasses.field`, as `where` names it) hands out a `Field`
    otherwise than above; then why, in words. Needs `parent` links."""
    if where == "dataclasses.Field":
        return "uses `dataclasses.Field`: write `dataclasses.field(...)` as a field's value"
    if where not in HOW:
        return ""
    call = getattr(node, "parent", None)
    called = isinstance(call, ast.Call) and call.func is node
    kept = where == "dataclasses.field" and called and _a_fields_value(node, call)
    read = where == "dataclasses.fields" and called and _only_read(call)
    if kept or read:
        return ""
    return f"uses `{where}` other than {HOW[where]}: a `Field` may be read, never kept or changed"


def _a_fields_value(node: ast.AST, call: ast.Call) -> bool:
    """`rest: list = X.field(...)` in the body of a class whose innermost decorator is
    `X.dataclass` (or a call of it), or `field(...)` under `@dataclass`, each imported alone
    from `dataclasses` (what a name means is set by `unit_reading`), the body never reading
    `rest`: no code of the learner's holds that `Field`, and the dataclass replaces it by its
    default."""
    field = getattr(call, "parent", None)
    body = getattr(field, "parent", None)
    if not (
        isinstance(field, ast.AnnAssign)
        and field.value is call
        and isinstance(field.target, ast.Name)
        and isinstance(body, ast.ClassDef)
        and body.decorator_list
    ):
        return False
    innermost = body.decorator_list[-1]
    innermost = innermost.func if isinstance(innermost, ast.Call) else innermost
    scopes, read_back = _reading(body)  # the decorator's `X` is the body's if the body binds it
    if isinstance(node, ast.Name):
        own = id(node) not in scopes
        decorated = getattr(innermost, "means", "") == "dataclasses.dataclass"
    else:
        module = getattr(node, "value", None)
        own = isinstance(module, ast.Name) and id(module) not in scopes
        decorated = (
            own
            and isinstance(innermost, ast.Attribute)
            and innermost.attr == "dataclass"
            and isinstance(innermost.value, ast.Name)
            and innermost.value.id == module.id  # type: ignore[union-attr]
        )
    owner = scopes.get(id(field.target))
    read = (field.target.id, id(owner)) in read_back
    return own and decorated and not read


def _reading(body: ast.ClassDef) -> tuple[dict[int, object], set[tuple[str, int]]]:
    """The body's scopes (`scopes.resolve`: the decorator's `X` is the body's unless the body
    binds `X`) and each name it reads with the scope it is read in: worked out once per class,
    not once per field, so a dataclass is read in time in proportion to its size."""
    if body not in _READINGS:
        scopes = resolve(body)
        read = {
            (n.id, id(scopes.get(id(n))))
            for n in ast.walk(body)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        _READINGS[body] = (scopes, read)
    return _READINGS[body]


def _only_read(call: ast.Call) -> bool:
    """`[f.name for f in X.fields(C)]`: the first iterable of a comprehension whose variable is
    only ever read an attribute of, never handed on."""
    loop = getattr(call, "parent", None)
    around = getattr(loop, "parent", None)
    kinds = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    first = isinstance(around, kinds) and around.generators[0] is loop and loop.iter is call
    if not (first and isinstance(loop.target, ast.Name)):
        return False
    uses = [n for n in ast.walk(around) if isinstance(n, ast.Name) and n.id == loop.target.id]
    return all(n is loop.target or _an_attribute_read(n) for n in uses)


def _an_attribute_read(name: ast.Name) -> bool:
    """`f.name` read, not written (`for f.name in [...]`): the value itself goes nowhere."""
    parent = getattr(name, "parent", None)
    read = isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load)
    return isinstance(name.ctx, ast.Load) and read
