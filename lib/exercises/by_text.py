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
  (`forbidden.forbidden_name`), but a `Field`'s name can be set later
  (`fields(C)[0].name = ...`, or a `field()` kept in a variable): refused, as the fields can be
  read by their names (`(t.lead, t.rest)`). A `Field` itself may be read, never held
  (`dataclass_fields`): a dataclass made later from a subclass writes its name into code.

- `dataclasses.dataclass`, which writes each field's name into the methods it `exec`s: the
  names are read where a `class` statement's body binds them, but a class made any other way
  (`type('C', (), {'__annotations__': {text: int}})`) holds names as text the reading never
  saw. So `dataclass` is allowed only as the decorator (bare, or called with keywords) of a
  `class` statement, never called on a class value (`dataclass(frozen=True)(C)`).

Checked and left allowed: `collections.namedtuple` refuses a field or type name that is not an
identifier (or is a keyword, or starts with `_`; `rename=True` replaces them with `_1`), so what
it runs names only attributes, which a class pattern matches by keyword (`class_patterns`);
`string.Template` looks its keys up in a mapping, by `[]`; `functools`' others call what they
are given, and `singledispatch` evaluates hints, which `hints` judges. `typing.NamedTuple` and
`TypedDict` are not among `typing`'s allowed names (`allowed.MEMBERS`).

- `str.format` and `format_map`, whose template's fields name attributes (`"{0.__globals__}"`):
  a template written out (in place, or in a name that can hold nothing else: `templates`) is
  read field by field (`format_fields`, each attribute judged as `x.name` is); any other
  receiver that can be a `str` is refused (`format_outside`).

`operator.attrgetter` and `methodcaller` would be two more, but `operator` is not allowed, and
`string.Formatter` is refused where it is named (`python_itself.REACHES_IN`).
"""

from __future__ import annotations

import ast
import re
import string

from lib.exercises.cell_reading import called_with_one
from lib.exercises.dataclass_fields import field_use
from lib.exercises.templates import texts

_REFUSED = {"dataclasses.make_dataclass": "write the class out with `@dataclasses.dataclass`"}
_REFUSED |= dict.fromkeys(
    ["dataclasses.asdict", "dataclasses.astuple", "dataclasses.replace"],
    "read the fields by their names (`item.count`)",
)
_REFUSED["functools.update_wrapper"] = "decorate a `def` with `@functools.wraps(f)`"


def by_text(where: str, node: ast.AST) -> str:
    """ "" unless `node` (the whole `functools.wraps`, or `wraps` imported on its own) uses one of
    the functions above that `where` names, other than `wraps` and `dataclass` as decorators.
    Needs `parent` links."""
    found = field_use(where, node)
    if found:
        return found
    if where in _REFUSED:
        return f"uses `{where}`, which names attributes as text: {_REFUSED[where]}"
    if where == "functools.wraps" and not _decorates(called_with_one(node), ast.FunctionDef):
        return (
            f"uses `{where}` other than as a decorator, or with names of attributes as text:"
            f" write `@{where}(f)` above a `def`"
        )
    call = getattr(node, "parent", None)
    if isinstance(call, ast.Call) and call.func is node and not call.args:
        node = call  # `@dataclass(frozen=True)`
    if where == "dataclasses.dataclass" and not _decorates(node, ast.ClassDef):
        return (
            f"uses `{where}` other than as the decorator of a `class` statement, on a class"
            f" whose field names the reading cannot see: write `@{where}` above the `class`"
        )
    return ""


def _decorates(node: ast.AST | None, kind: type) -> bool:
    """Is `node` a decorator of a statement of this kind (`ast.FunctionDef`: of a `def`, `async`
    or not)?"""
    kinds = (kind, ast.AsyncFunctionDef) if kind is ast.FunctionDef else kind
    decorated = getattr(node, "parent", None)
    return isinstance(decorated, kinds) and node in decorated.decorator_list


FORMATS = frozenset({"format", "format_map"})


def format_fields(item: ast.AST) -> list[str]:
    """The attributes a written-out template's fields read (`"{0.x[k].y:{1.z}}".format`: x, y,
    z), for `python_itself.attributes_read`; [] for anything else."""
    if not (isinstance(item, ast.Attribute) and item.attr in FORMATS):
        return []
    found, todo = [], list(template_texts(item.value) or ())
    while todo:  # each template the receiver may be, and each format spec inside one
        try:  # field by field, as `format` reads them: those before a stray `{` are read too
            for _, field, spec, _ in string.Formatter().parse(todo.pop()):
                found += re.findall(r"\.([^.[]*)", re.sub(r"\[[^]]*\]", "", field or ""))
                todo += [spec] if spec else []
        except ValueError:  # `format` raises here, before reading the rest
            continue
    return found


def template_texts(node: ast.AST | None) -> tuple[str, ...] | None:
    """The templates the reading sees `node` is one of: written out in place (`"{}"`, `"{:d}"
    if s else "{}"`), or held by a name that can hold nothing else (`templates`, marked
    `.template` by `unit_reading`); else None."""
    return texts(node) or getattr(node, "template", None)


def format_outside(item: ast.AST, read: list[str]) -> str:
    """ "" unless `item` reaches `.format` or `.format_map` of something that can be a template
    the reading does not see. `read` is what the node reads by name
    (`python_itself.attributes_read`): the method reached any other way than `x.format`
    (`getattr(t, "format")`, `case str(format=f)`) may be `str`'s on any text. `x.format` is
    read where `x` is a template (`template_texts`), or a class Python alone makes
    (`bindings.known`), or one of its instances (`Table().format`), which no `str` is."""
    name = next((n for n in read if n in FORMATS), "")
    receiver = item.value if isinstance(item, ast.Attribute) else None
    if not name or template_texts(receiver) is not None:
        return ""
    made = receiver.func if isinstance(receiver, ast.Call) else receiver
    if isinstance(getattr(made, "known", None), ast.ClassDef):
        return ""
    return (
        f"uses `.{name}` on a template worked out at run time, whose fields can name any"
        f' attribute: write the template in place (`"{{}} {{}}".{name}(...)`) or an f-string'
        f" (a method `{name}` of your own class? call it on the class or a new instance,"
        f" `Table().{name}(...)`)"
    )
