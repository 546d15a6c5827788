"""Did the student write it? A reading of the notebook's code by the rules of `allowed`, and
the program the grader runs: exactly what was read.

The course's library holds a reference answer to every exercise, and the notebooks import it, so
a function can pass by calling it: `def train_bpe(t, n): return bpe.train(t, n)[1]`. Before
grading, the grader reads the cells (never running them) and follows the exercise's target
through everything it uses. Each code cell is cut into *units*: its top-level statements, and
each name of an `import` on its own. A name's units are those that bind it (`def`, `class`, `=`,
`for`, `with`, `:=`, `import`, `global` in a function, also inside `if`, `for` and `try`) or
store into it (`vocab[i] = ...`, `table.x = ...`). Every unit of the target is read by the rules
of `allowed`, then every unit of every notebook name those units use, and so on. It is not own
code when a unit uses something `allowed` does not list (another module, a builtin that runs
code, a dunder...), or a part of `lib` the exercise does not allow (`bpe.merge` is allowed in
`train_bpe`, `bpe.train` is not). A prediction (`literal=True`) must be a value written out, in
its last unit, which `ast.literal_eval` reads: the last definition wins, as when the cells run.

**The program graded is the program read.** The grader does not call the function that the
student's kernel ends up holding: code in a cell that no graded function reaches can replace it
from a string (`cProfile.run("train_bpe = ...")`, `pdb.run`, `types.FunctionType`), or patch a
module it uses, unseen by any reading. Instead `program()` gives the units it read and accepted,
in the notebook's order, and the grader runs only those, in fresh kernels: one for each group
of exercises whose code reads as own code under each other's rules (`fits`; see
`lib.grading.grading_job.programs`). Whatever the other cells do, they do not run there. Honest
patterns keep working because they are units like any other: decorators (`@functools.cache`),
closures, classes, helpers, constants, a function redefined in a later cell (every version is
read and run, in order, so the last one wins). What no longer carries over is a value changed
only by a method call in another statement (`vocab.update(...)`): bind it where it is made.

`check()` reads the kernel's own cells the same way (`kernel_code.kernel_notebook`), so it gives
the grader's verdict at once; it runs the kernel's function, not a fresh program, since it
serves the learner, not the grade.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from typing import Any

from lib.exercises.allowed import (
    BUILTINS,
    JUDGED_BUILTINS,
    builtin_outside,
    computed_getattr,
    imported,
    module_allowed,
    module_outside,
    outside,
)
from lib.exercises.bindings import binds_judged
from lib.exercises.cell_reading import (
    binds,
    is_import,
    is_literal,
    lib_imports,
    local_names,
    parse_cell,
    public_names,
    type_hints,
    written_out,
)
from lib.exercises.forbidden import forbidden_name, forbidden_names
from lib.exercises.hints import hint_outside
from lib.exercises.scopes import module_imports, resolve

Where = tuple[int, int, int]  # cell, statement, name of an import: the order units run in


class Notebook:
    """A notebook's code, read once into units. `cells`: a notebook, or the code of its cells.
    Cells are counted as in the notebook, markdown included, so `program()` names them alike."""

    def __init__(self, cells: Any):
        self.units: dict[str, list[tuple[Where, ast.stmt]]] = {}  # in the order they run
        self.lib: dict[str, str] = {}  # names an import binds to `lib`: alias -> full name
        self.accepted: dict[str, list[tuple[Where, ast.stmt]]] = {}  # read and own, by target
        if hasattr(cells, "cells"):
            cells = [c.source if c.cell_type == "code" else "" for c in cells.cells]
        self.called: set[str] = set()  # names whose methods a statement calls: not predictions
        self.text: dict[Where, str] = {}  # each unit written out, as the graded program runs it
        self.imports: list[ast.Import | ast.ImportFrom] = []  # those binding the notebook's names
        self._by_rules: dict[frozenset[str], tuple[dict[str, str], set[str]]] = {}
        for c, source in enumerate(cells):
            tree = parse_cell(source)
            body = tree.body if tree else []
            texts = [written_out(statement) for statement in body]
            if None in texts:  # too deep to write out: unreadable, as a syntax error would be
                continue
            for s, statement in enumerate(body):
                self.text[(c, s, 0)] = texts[s]
                imports = module_imports(statement)  # also inside `if` and `try`
                self.imports += imports
                self.lib.update(lib_imports(*imports))
                if isinstance(statement, ast.Import | ast.ImportFrom):
                    self._read_import((c, s), statement)
                    continue
                names, called = binds(statement)
                self.called |= called
                for name in names:
                    self.units.setdefault(name, []).append(((c, s, 0), statement))

    def _read_import(self, where: tuple[int, int], statement: ast.Import | ast.ImportFrom) -> None:
        """Each name an import binds is a unit of its own: `import os, re` may use `re` alone."""
        names = statement.names
        module = getattr(statement, "module", None) or ""
        if [n.name for n in names] == ["*"] and (
            module_allowed(module, set()) or module[:4] == "lib."
        ):
            names = [ast.alias(name=n) for n in public_names(module)]  # `from math import *`
        for k, name in enumerate(names):
            alone = copy.copy(statement)
            alone.names = [name]
            self.lib.update(lib_imports(alone))  # `from lib.bpe import *`, each name
            bound = name.asname or name.name.partition(".")[0]
            self.units.setdefault(bound, []).append(((*where, k), alone))
            self.text[(*where, k)] = ast.unparse(alone)

    def borrowed(
        self,
        target: str,
        allowed: Iterable[str] = (),
        forbidden: Iterable[str] = (),
        literal: bool = False,
    ) -> str:
        """ "" when `target` is the student's own code, else what was found, in words.
        `literal`: the target is a prediction, which must be a value written out."""
        allowed, forbidden = set(allowed), set(forbidden)
        if target not in self.units:
            return f"`{target}` is not defined in a code cell the grader can read"
        if literal:
            where, last = self.units[target][-1]
            names = [getattr(t, "id", "") for t in getattr(last, "targets", [])]
            plain = names == [target] and is_literal(last.value)  # type: ignore[attr-defined]
            if target in self.called or not plain:
                return f"`{target}` is computed: write it out as a value, like {{'A': 1}}"
            self.accepted[target] = [(where, last)]
            return ""
        for _, unit in self.units[target]:  # `from lib.bpe import merge as f`, `f = bpe.merge`
            alias = self._alias(target, unit)
            if alias:
                return f"`{target}` is `{alias}` from the course's library"
        seen, todo, read = set(), [target], []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for unit in self.units.get(name, []):
                found = self._read_unit(unit[1], allowed, forbidden, todo)
                if found:
                    where = "" if name == target else f" (through `{name}`)"
                    return f"`{target}` {found}{where}"
                read.append(unit)
        self.accepted[target] = read
        return ""

    def _alias(self, target: str, unit: ast.stmt) -> str:
        """The `lib` function that this unit makes `target` another name for, if any: an
        allowed helper may be used, not handed in as the answer."""
        if isinstance(unit, ast.ImportFrom):
            return lib_imports(unit).get(target, "")
        value, parts = getattr(unit, "value", None), []
        while isinstance(value, ast.Attribute):
            parts.insert(0, value.attr)
            value = value.value
        if isinstance(unit, ast.Assign) and isinstance(value, ast.Name) and value.id in self.lib:
            return ".".join([self.lib[value.id], *parts])
        return ""

    def fits(self, target: str, allowed: Iterable[str], forbidden: Iterable[str]) -> bool:
        """Does every unit accepted for `target` (by `borrowed`) read as own code under these
        other rules too? Then it may run where an exercise with these rules is graded."""
        rules = set(allowed), set(forbidden)
        return not any(self._read_unit(unit, *rules, []) for _, unit in self.accepted[target])

    def program(self, targets: Iterable[str]) -> dict[int, str]:
        """The code the grader runs for `targets` (each accepted by `borrowed` first), by cell:
        only the units read, in the notebook's order."""
        units = {where for t in targets for where, _ in self.accepted.get(t, [])}
        cells: dict[int, list[str]] = {}
        for where in sorted(units):
            cells.setdefault(where[0], []).append(self.text[where])
        return {cell: "\n".join(code) for cell, code in cells.items()}

    def _read_unit(self, node: ast.AST, allowed: set[str], forbidden: set[str], todo: list) -> str:
        """What one unit uses that the target may not; the notebook's names it reaches out to
        are added to `todo`. Each name is read in its scope (`scopes.resolve`): a variable of
        the unit's own functions is skipped, unless an import there binds it; any other name is
        the notebook's or a builtin, and judged."""
        modules, aliases = self._rules(allowed)
        hints = type_hints(node)  # judged by `hint_outside` alone: `-> bytes` hands nothing on
        for hint in hints:
            found = hint_outside(hint, lambda name: self._subscriptable(name, modules))
            if found:
                return found
        in_hints = {id(n) for hint in hints for n in ast.walk(hint)}
        for parent in ast.walk(node):  # so a name knows the attributes read from it
            for child in ast.iter_child_nodes(parent):
                child.parent = parent  # type: ignore[attr-defined]
        judged = JUDGED_BUILTINS | forbidden_names(forbidden)
        found = binds_judged(node, local_names(node), judged, aliases)
        if found:
            return found
        scopes = resolve(node)
        computed = ""  # said only if nothing more telling is found
        for item in ast.walk(node):
            if id(item) in in_hints:
                continue
            scope = scopes.get(id(item))
            if scope is not None:  # a parameter or local variable: a module if imported there
                bound = imported(scope.imports, allowed) if scope.imports else {}
                found = module_outside(item, bound, allowed)
                found = found or self._lib_use(item, lib_imports(*scope.imports), allowed)
                if found:
                    return found
                continue
            found = module_outside(item, modules, allowed)  # `collections._sys`, `m = re`
            found = found or self._lib_use(item, self.lib, allowed) or outside(item, allowed)
            found = found or forbidden_name(item, forbidden)
            if isinstance(item, ast.Name):
                if item.id in self.units:
                    todo.append(item.id)  # a name of the notebook's: read its units too
                elif item.id not in self.lib:
                    found = found or builtin_outside(item.id)
            if found:
                return found
            computed = computed or computed_getattr(item)
        return computed

    def _rules(self, allowed: set[str]) -> tuple[dict[str, str], set[str]]:
        """The notebook's names bound to allowed modules (`allowed.imported`), and those with
        the names bound to `lib`: worked out once per set of rules, not once per unit read,
        so a reading takes time in proportion to the notebook's size."""
        key = frozenset(allowed)
        if key not in self._by_rules:
            modules = imported(self.imports, allowed)
            self._by_rules[key] = modules, set(modules) | set(self.lib)
        return self._by_rules[key]

    def _subscriptable(self, name: str, modules: dict[str, str]) -> bool:
        """May a type hint subscript `name`? A builtin no cell rebinds, or a name that only
        imports bind to an allowed module: evaluating the hint then runs none of the code's."""
        if name in modules:
            return all(is_import(unit) for _, unit in self.units.get(name, []))
        return name in BUILTINS and name not in self.units

    def _lib_use(self, item: ast.AST, lib: dict[str, str], allowed: set[str]) -> str:
        """`lib` as used by this node (`lib`: names bound to it where the node is): only what
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
