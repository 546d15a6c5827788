"""Did the student write it? A reading of the notebook's code by the rules of `allowed`, and
the program the grader runs: exactly what was read.

The course's library holds a reference answer to every exercise, and the notebooks import it, so
a function can pass by calling it: `def train_bpe(t, n): return bpe.train(t, n)[1]`. Before
grading, the grader reads the cells (never running them) and follows the exercise's target
through everything it uses, unit by unit (`notebook_units`: a unit is a top-level statement,
or one name of an `import`; a name's units are those that bind it or store into it). Every unit
of the target is read by the rules of `allowed` (`unit_reading`, each name in its own scope),
then every unit of every notebook name those units use, and so on. It is not own code when a
unit uses something `allowed` does not list (another module, a builtin that runs code, a
dunder...), or a part of `lib` the exercise does not allow (`bpe.merge` is allowed in
`train_bpe`, `bpe.train` is not). A prediction (`literal=True`) must be a value written out,
in its last unit, which `ast.literal_eval` reads: the last definition wins, as when the cells
run.

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
from collections.abc import Iterable
from typing import Any

from lib.exercises.bindings import known as known_names
from lib.exercises.cell_reading import is_literal, lib_imports
from lib.exercises.module_names import imported, members_of
from lib.exercises.notebook_units import NotebookUnits, Where
from lib.exercises.sealed_classes import notebook_templates
from lib.exercises.unit_reading import Surroundings, read_unit


class Notebook(NotebookUnits):
    """A notebook's code, read once into units (`NotebookUnits`), judged as own code or not
    under each exercise's rules. Cells are counted as in the notebook, markdown included, so
    `program()` names them alike."""

    def __init__(self, cells: Any):
        super().__init__(cells)
        self.accepted: dict[str, list[tuple[Where, ast.stmt]]] = {}  # read and own, by target
        self._around: dict[frozenset[str], Surroundings] = {}  # by the rules read under

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
            everything = [s for body in self.statements.values() for s in body]
            known = known_names(self.units, (modules, members), everything, self.unseen)
            templates = notebook_templates(known, everything, self.unseen or set())
            around = Surroundings(
                allowed, self.units, self.lib, modules, members, self.defined, known, templates
            )
            self._around[key] = around
        return self._around[key]
