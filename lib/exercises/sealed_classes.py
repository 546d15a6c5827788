"""The notebook's templates (`templates`): its names, and the constants of its sealed classes.

A class attribute read as `K.FMT` is a template where `K` is a plain class that one statement
alone binds (`class_patterns.plain_class`: no bases, no metaclass) and its body binds `FMT`
once, to the template. The class must not be reachable any other way, for `K.FMT = ...` could
then rebind the attribute through another name: its body holds only values written out and
undecorated `def`s (no `classmethod`, which hands its functions the class), and every use of
the notebook's `K` reads one of those attributes or makes an instance (`K.FMT`, `K()`), never
stores into one, hands `K` on (`c = K`, `f(K)`, `class L(K)`) or reads what Python adds
(`K.mro()[0]`). Uses are read by scope (`scopes.resolve`), as Python finds them: a parameter,
a function's local or a class attribute that happens to be named `K` (`def scale(x, K=3)`,
`class Point: K = 3`) is another variable. A class body's read of `K` is the notebook's too,
where that class has none yet. Type hints are skipped: the graded program keeps them as text,
and what evaluates them keeps the class out of reach (`hints`).

`self.FMT` in a method of such a class is `K.FMT` too when, besides:
- `self` is an instance of `K`: the method's first parameter, bound nowhere else in it
  (`templates.instance_of`), and the method is only ever called on an instance, never read
  from the class (`K.count(other, s)`) nor named in a method's default (`def m(self,
  f=count)`), either of which hands it any `self`. No subclass can exist: `K` is never handed
  on, so never a base;
- nothing in the notebook stores an attribute named `FMT` into anything (`self.FMT = ...`,
  `obj.FMT += ...`, `del x.FMT`): an instance's own attribute hides the class's;
- nothing in the notebook can store one without spelling `.FMT =`: no dunder beyond `__name__`
  and `__doc__` is read, for a method read off a class is a plain function run on whatever
  object it is handed, storing the attributes its own code names
  (`collections.UserString.__init__(k, t)` sets `k.data`, a dataclass's `D.__init__(k, t)` its
  fields, `object.__setattr__(k, "FMT", t)` any), and `k.__dict__` holds them; and neither
  `setattr`, `delattr` nor `getattr` with a name worked out at run time is named. What a graded
  function reaches may use none of these anyway, but a cell it does not reach runs in the
  learner's kernel, which `check()` reads: `setattr(k, "FMT", t)` there changes the instance
  the target uses. `super().__init__()` counts too: the rule stays one a reader checks at a
  glance;
- no trusted magic's words (`magics.unseen_names`) name the attribute or such a way: `%time
  k.FMT = t` is a string to the reading, yet stores into `k` in the kernel.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from lib.exercises.cell_reading import is_literal, type_hints
from lib.exercises.python_itself import attributes_read, named_by_text
from lib.exercises.scopes import Scope, body_names, resolve
from lib.exercises.templates import Texts, bindings_under, given


def notebook_templates(
    known: dict[str, ast.stmt], statements: Iterable[ast.stmt], magic_words: set[str]
) -> dict[str, Texts]:
    """The notebook's names (`TEMPLATE`), class attributes (`K.FMT`) and attributes read on an
    instance in the class's methods (`K().FMT`, for `self.FMT`) that surely hold a template,
    with its texts. `known`: the names one statement alone binds (`bindings.known`);
    `statements`: every statement of the notebook's code, where a class could be handed on;
    `magic_words`: the words of the trusted magics' texts (`magics.unseen_names`)."""
    statements = list(statements)
    found = {
        name: held
        for name, unit in known.items()
        for n, held in given(unit)
        if n.id == name and held
    }
    classes = {name: c for name, c in known.items() if isinstance(c, ast.ClassDef)}
    classes = {name: c for name, c in classes.items() if _sealed_body(c)}
    handed, methods_read = _uses(statements, classes)
    stored = magic_words | {
        node.attr
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
    }
    unbound = _stores_unspelt(statements, magic_words)
    for name, cls in classes.items():
        if name in handed:
            continue
        bindings = bindings_under(cls.body)
        attributes = {
            n.id: held for s in cls.body for n, held in given(s) if held and bindings[n.id] == 1
        }
        found |= {f"{name}.{attribute}": held for attribute, held in attributes.items()}
        if name not in methods_read and _methods_kept(cls) and not unbound:
            kept = {a: held for a, held in attributes.items() if a not in stored | _fields(cls)}
            found |= {f"{name}().{a}": held for a, held in kept.items()}
    return found


def _uses(statements: list[ast.stmt], classes: dict[str, ast.ClassDef]) -> tuple[set, set]:
    """The classes some use of their name hands on or stores into (not `_only_read`), and those
    a use reads a method of (`K.count`), in the notebook's code; type hints skipped."""
    members = {name: body_names(c) for name, c in classes.items()}
    handed: set[str] = set()
    methods_read: set[str] = set()
    for statement in statements:
        uses = [
            (parent, child)
            for parent in ast.walk(statement)
            for child in ast.iter_child_nodes(parent)
            if isinstance(child, ast.Name) and child.id in members
        ]
        if not uses:
            continue
        scopes = resolve(statement)
        hints = {id(n) for hint in type_hints(statement) for n in ast.walk(hint)}
        for parent, name in uses:
            if id(name) in hints or not _notebooks(name, scopes.get(id(name))):
                continue
            if not _only_read(parent, name, members[name.id]):
                handed.add(name.id)
            elif isinstance(parent, ast.Attribute) and parent.attr in _methods(classes[name.id]):
                methods_read.add(name.id)
    return handed, methods_read


# Builtins that store an attribute named as text, or read one (a dunder method, say) so named.
_BY_TEXT = {"setattr", "delattr", "getattr"}


def _stores_unspelt(statements: list[ast.stmt], magic_words: set[str]) -> bool:
    """Could some code of the notebook store an attribute without spelling `.X =`? It does if
    it, or a trusted magic's words, reads a dunder beyond `__name__` and `__doc__`: a method
    read off a class (`D.__init__`, `super().__init__`, a template's `{0.__init__}`,
    `object.__setattr__`) runs on whatever object it is handed, and `k.__dict__` is the
    instance's own attributes; or if it names `setattr`, `delattr` or `getattr` (but for
    `getattr(x, "count")`, a name written out)."""
    nodes = [node for statement in statements for node in ast.walk(statement)]
    named = {id(node.func) for node in nodes if named_by_text(node)}
    words = set(magic_words)
    words |= {name for node in nodes for name in attributes_read(node)}
    words |= {
        n.id
        for n in nodes
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in named
    }
    return any(w in _BY_TEXT or _dunder(w) for w in words)


def _dunder(name: str) -> bool:
    """Is `name` a dunder other than `__name__` and `__doc__`, which are no methods?"""
    return len(name) > 4 and name[:2] == name[-2:] == "__" and name not in {"__name__", "__doc__"}


def _notebooks(name: ast.Name, scope: Scope | None) -> bool:
    """Can this use of `name` (bound in `scope`, from `scopes.resolve`) be the notebook's
    variable? Yes where no scope of the unit binds it, and for a class body's read, which
    falls back to the notebook's where the class has none yet; a function's (or a
    comprehension's) own variable is never the notebook's, nor what a class body binds."""
    return scope is None or (scope.kind == "class" and isinstance(name.ctx, ast.Load))


def _sealed_body(cls: ast.ClassDef) -> bool:
    """Does `cls`'s body hold only a docstring, `pass`, names bound to values written out and
    undecorated `def`s? Then none of its attributes is handed the class (a `classmethod`'s
    `cls`)."""
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        or (isinstance(s, ast.FunctionDef) and not s.decorator_list)
        or (_whole_names(s) and is_literal(s.value))  # type: ignore[attr-defined]
        for s in cls.body
    )


def _fields(cls: ast.ClassDef) -> set[str]:
    """The annotated names of a decorated class or one with bases: fields a constructor it did
    not write may set on the instance (a dataclass's or a NamedTuple's `__init__`), hiding the
    class's value (`K('{0.__globals__}').FMT`)."""
    if not (cls.decorator_list or cls.bases or cls.keywords):
        return set()
    return {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign)}  # type: ignore[union-attr]


def _whole_names(node: ast.stmt) -> bool:
    """Is `node` an `=` or annotated `=` whose every target is a name (`a = b = 1`)?"""
    if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return all(isinstance(t, ast.Name) for t in targets)


def _methods(cls: ast.ClassDef) -> set[str]:
    """The names of the functions `cls`'s body defines."""
    return {s.name for s in cls.body if isinstance(s, ast.FunctionDef)}


def _methods_kept(cls: ast.ClassDef) -> bool:
    """Does no default of a method name a method of `cls` (`def m(self, f=count)`), which
    would hand the plain function on, to be called with any `self`?"""
    methods = _methods(cls)
    defaults = [
        default
        for s in cls.body
        if isinstance(s, ast.FunctionDef)
        for default in [*s.args.defaults, *s.args.kw_defaults]
        if default is not None
    ]
    return not any(
        isinstance(n, ast.Name) and n.id in methods for d in defaults for n in ast.walk(d)
    )


def _only_read(parent: ast.AST, name: ast.Name, members: set[str]) -> bool:
    """Is this use of a class's `name` (in `parent`) a read of one of its body's `members`
    (`K.FMT`, not `K.FMT = ...`, `K.mro`) or a call that makes an instance (`K()`)?"""
    if not isinstance(name.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Call):
        return parent.func is name
    return (
        isinstance(parent, ast.Attribute)
        and isinstance(parent.ctx, ast.Load)
        and parent.attr in members
    )
