"""Did the student write it? A reading of the notebook's code by the rules of `allowed`, and
the program the grader runs: exactly what was read.

The course's library holds a reference answer to every exercise, and the notebooks import it, so
a function can pass by calling it: `def train_bpe(t, n): return bpe.train(t, n)[1]`. Before
grading, the grader reads the cells (never running them) and follows the exercise's target
through everything it uses. Each code cell is cut into *units*: its top-level statements, and
each name of an `import` on its own. A name's units are those that bind it (`def`, `class`, `=`,
`for`, `with`, `:=`, `import`, `global` in a function, also inside `if`, `for` and `try`) or
store into it (`vocab[i] = ...`, `table.x = ...`). Every unit of the target is read by the rules
of `allowed` (`unit_reading`, each name in its own scope), then every unit of every notebook
name those units use, and so on. It is not own code when a unit uses something `allowed` does
not list (another module, a builtin that runs code, a dunder...), or a part of `lib` the
exercise does not allow (`bpe.merge` is allowed in `train_bpe`, `bpe.train` is not). A
prediction (`literal=True`) must be a value written out, in its last unit, which
`ast.literal_eval` reads: the last definition wins, as when the cells run.

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

from lib.exercises.allowed import module_allowed
from lib.exercises.bindings import known as known_names
from lib.exercises.cell_reading import (
    binds,
    is_import,
    is_literal,
    lib_imports,
    parse_cell,
    public_names,
    written_out,
)
from lib.exercises.module_names import imported, members_of
from lib.exercises.python_itself import defines
from lib.exercises.scopes import module_imports
from lib.exercises.templates import notebook_templates
from lib.exercises.unit_reading import Surroundings, read_unit

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
        self._around: dict[frozenset[str], Surroundings] = {}  # by the rules read under
        self.defined: set[str] = set()  # the private names its code defines (`self._seen`)
        self.statements: dict[int, list[ast.stmt]] = {}  # each readable cell's, in order
        # A magic (`%time T = str`, `%%capture T`) or any other call through `get_ipython` can
        # bind a name inside text the reading never sees as Python: then no name is `known`.
        self.magic = False
        for c, source in enumerate(cells):
            tree = parse_cell(source)
            self.magic |= str(source).lstrip().startswith("%%") or any(
                isinstance(n, ast.Name) and n.id == "get_ipython"
                for n in (ast.walk(tree) if tree else ())
            )
            body = tree.body if tree else []
            texts = [written_out(statement) for statement in body]
            if None in texts:  # too deep to write out: unreadable, as a syntax error would be
                continue
            self.statements[c] = body
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
                self.defined |= defines(statement)
        for name, units in self.units.items():  # `@functools.cache` is no unit of `functools`
            if any(is_import(unit) for _, unit in units):
                plain = [(w, u) for w, u in units if is_import(u) or name in binds(u, False)[0]]
                self.units[name] = plain if all(is_import(u) for _, u in plain) else units

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
        found, name, read = self._follow([target], self._surroundings(allowed), forbidden)
        if found:
            return f"`{target}` {found}" + ("" if name == target else f" (through `{name}`)")
        self.accepted[target] = read
        return ""

    def cell_outside(self, cell: int, allowed: Iterable[str], forbidden: Iterable[str]) -> str:
        """What any statement of `cell` (not only a target's units: `spoil()`, an import) or
        anything of the notebook's it uses reads as not own code under these rules; "" if
        nothing, or that the cell cannot be read."""
        if cell not in self.statements:
            return "the cell cannot be read"
        around, forbidden, todo = self._surroundings(set(allowed)), set(forbidden), []
        for statement in self.statements[cell]:
            found = read_unit(statement, around, forbidden, todo)
            if found:
                return found
        return self._follow(todo, around, forbidden)[0]

    def _follow(
        self, todo: list[str], around: Surroundings, forbidden: set[str]
    ) -> tuple[str, str, list[tuple[Where, ast.stmt]]]:
        """Read the units of the names in `todo`, and of every name they use in turn: what was
        found ("" if nothing), through which name, and the units read."""
        seen, read, done = set(), [], set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for unit in self.units.get(name, []):
                if unit[0] in done:  # `a0, a1, ... = ...`: read once, not once per name
                    continue
                done.add(unit[0])
                found = read_unit(unit[1], around, forbidden, todo)
                if found:
                    return found, name, read
                read.append(unit)
        return "", "", read

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
        around, forbidden = self._surroundings(set(allowed)), set(forbidden)
        return not any(read_unit(unit, around, forbidden, []) for _, unit in self.accepted[target])

    def program(self, targets: Iterable[str]) -> dict[int, str]:
        """The code the grader runs for `targets` (each accepted by `borrowed` first), by cell:
        only the units read, in the notebook's order."""
        units = {where for t in targets for where, _ in self.accepted.get(t, [])}
        cells: dict[int, list[str]] = {}
        for where in sorted(units):
            cells.setdefault(where[0], []).append(self.text[where])
        return {cell: "\n".join(code) for cell, code in cells.items()}

    def _surroundings(self, allowed: set[str]) -> Surroundings:
        """What a unit is read against under these rules: worked out once per set of rules, not
        once per unit read, so a reading takes time in proportion to the notebook's size."""
        key = frozenset(allowed)
        if key not in self._around:
            modules = imported(self.imports, allowed)
            members = members_of(self.imports, self.units, allowed, set(modules))
            known = {} if self.magic else known_names(self.units, (modules, members))
            everything = (s for body in self.statements.values() for s in body)
            templates = notebook_templates(known, everything)
            around = Surroundings(
                allowed, self.units, self.lib, modules, members, self.defined, known, templates
            )
            self._around[key] = around
        return self._around[key]
