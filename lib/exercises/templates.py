"""Names that surely hold a template written out, for `.format` (`by_text.template_texts`).

`"{0.__globals__}".format(f)` reads an attribute named in text, so `.format` is allowed only on a
template the reading sees, whose fields it then judges one by one. A template is seen written
out in place (`"{}"`, or `"{:d}" if s else "{}"`: either text), or through a name that can hold
nothing but templates written out, each of which is judged:

- a notebook's name that one statement alone binds, `TEMPLATE = "{}"` (`bindings.known`);
- a function's local every binding of which, in that function and the functions inside it, is
  an `=` giving it a template written out (`given`): `fmt = "{:d}"`, `fmt = "{:d}" if s else
  "{}"`, `fmt = "{}"` in one branch of an `if` and `fmt = "{:d}"` in the other, `head, row =
  "{}", "{:d}"`. Any other binding spoils it, however harmless (a parameter, `for`, `+=`, `:=`,
  `del`, `import`, `except ... as`, a `match` capture, a `nonlocal` declaring it elsewhere):
  the rule stays one a reader checks at a glance. A local is never looked up outside its
  function (before its binding it raises `UnboundLocalError`), and nothing outside can rebind
  it without reaching into frames, which the reading refuses;
- a class constant of a sealed class, `K.FMT`, or `self.FMT` in one of its methods
  (`sealed_classes`, which finds them: here they are looked up as `K.FMT` and `K().FMT`).
"""

from __future__ import annotations

import ast
from collections import Counter

from lib.exercises.cell_reading import bound_names
from lib.exercises.scopes import Scope

Texts = tuple[str, ...]  # every template a name may hold, each to be judged


def written(node: ast.AST | None) -> str | None:
    """The text of a string written out (`"{}"`), else None."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def texts(node: ast.AST | None) -> Texts | None:
    """The templates a value written out may be: `"{}"`, or either arm of an `if` expression of
    such values (`"{:d}" if s else "{}"`); else None."""
    if isinstance(node, ast.IfExp):
        either = [texts(node.body), texts(node.orelse)]
        return None if None in either else tuple(dict.fromkeys(t for arm in either for t in arm))
    text = written(node)
    return None if text is None else (text,)


def given(node: ast.AST) -> list[tuple[ast.Name, Texts | None]]:
    """The names an `=` (or annotated `=`) binds whole or by unpacking, each with the templates
    it gives that name (None: no template written out): `a = b = "{}"`, `head, row = "{}",
    "{:d}"`. [] for any other node; a name bound otherwise (`a, *rest = ...`) is left out."""
    if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
        return []
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [pair for target in targets for pair in _paired(target, node.value)]


def _paired(target: ast.AST, value: ast.AST) -> list[tuple[ast.Name, Texts | None]]:
    """The names of `target` with what `value` gives each, unpacking a tuple or list written
    out into one of the same length, element by element."""
    if isinstance(target, ast.Name):
        return [(target, texts(value))]
    sequences = ast.Tuple | ast.List
    if not (isinstance(target, sequences) and isinstance(value, sequences)):
        return []
    elements = [*target.elts, *value.elts]
    if len(target.elts) != len(value.elts) or any(isinstance(e, ast.Starred) for e in elements):
        return []
    return [pair for t, v in zip(target.elts, value.elts, strict=True) for pair in _paired(t, v)]


def local_templates(function: ast.AST) -> dict[str, Texts]:
    """The names bound in `function` (or a function inside it) only by `=`s that each give a
    template written out, with all those templates. For its own locals (`scopes.resolve`)
    only: a name a function uses but binds nowhere is not its local."""
    held: dict[str, dict[str, None]] = {}  # texts in order, without repeats
    spoiled: set[str] = set()
    accounted: dict[int, Texts | None] = {}  # the `ast.Name`s an `=` binds, to what
    for node in ast.walk(function):  # an `=` comes before its targets: breadth first
        accounted |= {id(name): given_texts for name, given_texts in given(node)}
        for name in bound_names(node):
            given_texts = accounted.get(id(node))
            if given_texts is None:
                spoiled.add(name)
            else:
                held.setdefault(name, {}).update(dict.fromkeys(given_texts))
    return {name: tuple(found) for name, found in held.items() if name not in spoiled}


def seen_template(
    item: ast.AST, scopes: dict[int, Scope], found: dict[str, Texts], done: dict[int, dict]
) -> Texts | None:
    """The templates `item` surely holds one of, if any: a name or `K.FMT` among the notebook's
    templates (`found`, from `sealed_classes.notebook_templates`), `self.FMT` in a method of
    `K` as its `K().FMT`, or a function's local among its `local_templates` (kept in `done` by
    scope, worked out once per function). `scopes`: the unit's own variables
    (`scopes.resolve`)."""
    if isinstance(item, ast.Name):
        scope = scopes.get(id(item))
        if scope is None:
            return found.get(item.id)
        if scope.kind != "function" or scope.node is None:
            return None
        if id(scope) not in done:
            done[id(scope)] = local_templates(scope.node)
        return done[id(scope)].get(item.id)
    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name):
        scope = scopes.get(id(item.value))
        if scope is None:
            return found.get(f"{item.value.id}.{item.attr}")
        owner = instance_of(item.value, scope)
        return found.get(f"{owner}().{item.attr}") if owner else None
    return None


def instance_of(name: ast.Name, scope: Scope) -> str:
    """The class `name` is an instance of, if it is `self` in a method of a class the notebook
    binds (`scope`: where `name` is bound): the method's first parameter, bound nowhere else
    in it. "" for anything else. That the method is only ever called on an instance of that
    class (never read as `K.method`, never handed on) is `sealed_classes`' to know."""
    method, cls = scope.node, scope.parent
    if cls is None or cls.kind != "class" or cls.parent is not None:
        return ""
    if not isinstance(method, ast.FunctionDef) or not isinstance(cls.node, ast.ClassDef):
        return ""
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or positional[0].arg != name.id or bindings_under([method])[name.id] != 1:
        return ""
    return cls.node.name


def bindings_under(nodes: list[ast.AST]) -> Counter:
    """How many nodes under `nodes` bind each name, however (`cell_reading.bound_names`)."""
    return Counter(n for node in nodes for item in ast.walk(node) for n in bound_names(item))
