"""One unit of a notebook's code read by the rules of `allowed`, for `own_code.Notebook`.

Each name is read in its scope (`scopes.resolve`): a variable of the unit's own functions is
skipped, unless an import there binds it (then it is a module, or part of `lib`); any other name
is the notebook's or a builtin, and judged (a name a class body reads is judged as the class's
and, where the class has none yet, the notebook's: `scopes`): a name some cell binds is followed
(its units read in turn), a module's attributes are judged by `module_names.module_outside`, a
builtin by `allowed.builtin_outside`, every node by `outside` (imports, attributes, `type`).
Type hints are judged by `hints.hint_outside` alone.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass

from lib.exercises.allowed import BUILTINS, JUDGED_BUILTINS, builtin_outside, module_allowed
from lib.exercises.bindings import KERNEL_NAMES, binds_judged
from lib.exercises.by_text import by_text, format_outside
from lib.exercises.cell_reading import (
    is_import,
    lib_imports,
    public_names,
    type_hints,
)
from lib.exercises.class_patterns import pattern_outside
from lib.exercises.forbidden import forbidden_name, forbidden_names
from lib.exercises.hint_names import may_name
from lib.exercises.hints import hint_outside
from lib.exercises.module_names import imported, module_outside, reached
from lib.exercises.python_builtins import PYTHON_BUILTINS
from lib.exercises.python_classes import python_private
from lib.exercises.python_itself import (
    attributes_read,
    binds_reaching_in,
    computed_getattr,
    private_outside,
    reaching_in,
    unusual_dunder,
)
from lib.exercises.scopes import Scope, resolve
from lib.exercises.templates import Texts, seen_template
from lib.exercises.type_use import type_outside

# What a name no cell binds can still be in the kernel: a builtin (IPython's and `site`'s too).
KERNEL_HOLDS = PYTHON_BUILTINS | KERNEL_NAMES


@dataclass(frozen=True)
class Surroundings:
    """What a unit is read against: the exercise's `allowed` (its `allowed_lib`), the notebook's
    `units` by name, and the names its imports bind to `lib` and to allowed `modules`."""

    allowed: set[str]
    units: dict[str, list]
    lib: dict[str, str]
    modules: dict[str, str]
    members: dict[str, str]  # names only imports bind to an allowed module's member: full names
    defined: set[str]  # the private names the notebook's code defines (`self._seen`)
    known: dict[str, ast.stmt]  # names one statement alone binds, to what (`bindings.known`)
    templates: dict[str, Texts]  # names, `K.FMT`s... that surely hold one (`notebook_templates`)

    def subscriptable(self, name: str) -> bool:
        """May a type hint subscript `name`? A builtin no cell rebinds, or a name that only
        imports bind to an allowed module or its member (`Counter`, `List`): evaluating the
        hint then runs none of the code's."""
        if name in self.modules:
            return all(is_import(unit) for _, unit in self.units.get(name, []))
        return name in self.members or (name in BUILTINS and name not in self.units)

    def nameable(self, name: str, read_from: bool) -> bool:
        """May a type hint name `name` (read an attribute of it)? (`hint_names.may_name`)"""
        return may_name(name, read_from, self.units, (self.modules, self.members))


def read_unit(node: ast.AST, around: Surroundings, forbidden: set[str], todo: list) -> str:
    """What one unit uses that the target may not ("" if nothing); the notebook's names it
    reaches out to are added to `todo`."""
    allowed = around.allowed
    hints = type_hints(node)  # judged by `hint_outside` alone: `-> bytes` hands nothing on
    for hint in hints:
        found = hint_outside(hint, around.subscriptable, around.nameable)
        if found:
            return found
    in_hints = {id(n) for hint in hints for n in ast.walk(hint)}
    for parent in ast.walk(node):  # so a name knows the attributes read from it
        for child in ast.iter_child_nodes(parent):
            child.parent = parent  # type: ignore[attr-defined]
    judged = JUDGED_BUILTINS | forbidden_names(forbidden)
    found = binds_judged(node, judged, {*around.modules, *around.lib})
    if found:
        return found
    scopes = resolve(node)
    done: dict[int, dict] = {}  # each function's templates, worked out once
    for item in ast.walk(node):  # what a name means: a module's member, or the builtin
        item.template = seen_template(item, scopes, around.templates, done)  # type: ignore[attr-defined]
        if isinstance(item, ast.Name):
            mine = id(item) in scopes
            item.means = "" if mine else around.members.get(item.id, "")  # type: ignore[attr-defined]
            item.builtin = not mine and item.id in BUILTINS and item.id not in around.units  # type: ignore[attr-defined]
            item.known = None if mine else around.known.get(item.id)  # type: ignore[attr-defined]
    imports_of: dict[int, tuple[dict[str, str], dict[str, str]]] = {}  # by scope, worked out once
    later = ""  # said only if nothing more telling is found (`collections._sys` by its module)
    for item in ast.walk(node):
        if id(item) in in_hints:
            continue
        scope = scopes.get(id(item))
        if scope is not None:  # a parameter or local variable: a module if imported there
            if id(scope) not in imports_of:
                imports_of[id(scope)] = (
                    imported(scope.imports, allowed),
                    lib_imports(*scope.imports),
                )
            modules, lib = imports_of[id(scope)]
            found = module_outside(item, modules, allowed, forbidden) or lib_use(item, lib, allowed)
            if found:
                return found
            if not _falls_back(item, scope):
                continue
        found = module_outside(item, around.modules, allowed, forbidden)  # `m = re`
        found = found or lib_use(item, around.lib, allowed)
        found = found or outside(item, allowed, around.members, forbidden)
        if isinstance(item, ast.Name) and item.id in around.members:  # `field(...)`, `wraps(f)`
            found = found or by_text(around.members[item.id], item)
        found = found or forbidden_name(item, forbidden)
        names = (around.modules, around.members)  # `case Pair(a, b)`: a dataclass's fields
        found = found or pattern_outside(item, node, scopes, around.units, names)
        if isinstance(item, ast.Name):
            if item.id in around.units:
                todo.append(item.id)  # a name of the notebook's: read its units too
            elif item.id not in around.lib and (scope is None or item.id in KERNEL_HOLDS):
                found = found or builtin_outside(item.id)  # else unbound anywhere: NameError
        if found:
            return found
        later = later or private_outside(item, around.defined, python_private())
        later = later or computed_getattr(item)
    return later


def _falls_back(item: ast.AST, scope: Scope) -> bool:
    """Is `item` a name a class body reads, and binds? Where the class has none yet, Python
    looks in the notebook's globals and then the builtins: it is judged as theirs too."""
    return scope.kind == "class" and isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load)


def lib_use(item: ast.AST, lib: dict[str, str], allowed: set[str]) -> str:
    """`lib` as used by this node (`lib`: the names bound to it where the node is): only what
    the exercise allows, and the modules it is in."""
    if isinstance(item, ast.ImportFrom):
        for full in lib_imports(item).values():
            if not any(a == full or a.startswith(f"{full}.") for a in allowed):
                return f"imports `{full}` from the course's library"
        return ""
    if not isinstance(item, ast.Name) or not lib.get(item.id):
        return ""
    use, node = lib[item.id], item
    while use not in allowed and isinstance(getattr(node, "parent", None), ast.Attribute):
        node = node.parent  # type: ignore[attr-defined]
        use += f".{node.attr}"
    return "" if use in allowed else f"uses `{use}` from the course's library"


def outside(
    item: ast.AST, allowed: set[str], members: Collection[str] = (), forbidden: Collection[str] = ()
) -> str:
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
            found = reached(item.module, [name], allowed, forbidden)  # `from re import enum`
            if (alias or name) not in members:
                found = found or by_text(f"{item.module}.{name}", item)
            if found:
                return found
        return ""
    if isinstance(item, ast.Name) and unusual_dunder(item.id):  # a class body's `__annotations__`
        return f"uses `{item.id}`, which reaches into Python itself"
    read = attributes_read(item)
    found = next(filter(None, map(reaching_in, read)), "") or binds_reaching_in(item)
    return found or type_outside(item) or format_outside(item, read)
