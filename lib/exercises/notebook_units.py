"""A notebook's code cut into units, read and never run: what `own_code` judges, and what the
graded program is made of.

Each code cell is parsed (`cell_reading.parse_cell`) and cut into *units*: its top-level
statements, and each name of an `import` on its own. A name's units are those that bind it
(`def`, `class`, `=`, `for`, `with`, `:=`, `import`, `global` in a function, also inside `if`,
`for` and `try`) or store into it (`vocab[i] = ...`, `table.x = ...`). Each unit is kept
written out too, as the graded program runs it, and read with its private names mangled
(`mangling`), as Python runs them. A cell that cannot be read as Python, or is
nested too deeply to write out, has no units: the graded program never runs it.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from lib.exercises.allowed import module_allowed
from lib.exercises.cell_reading import (
    binds,
    is_import,
    lib_imports,
    parse_cell,
    public_names,
    written_out,
)
from lib.exercises.magics import unseen_names
from lib.exercises.mangling import mangle
from lib.exercises.python_itself import defines
from lib.exercises.scopes import module_imports

Where = tuple[int, int, int]  # cell, statement, name of an import: the order units run in


class NotebookUnits:
    """A notebook's code, read once into units. `cells`: a notebook, or the code of its cells.
    Cells are counted as in the notebook, markdown included, so units name their cells alike."""

    def __init__(self, cells: Any):
        self.units: dict[str, list[tuple[Where, ast.stmt]]] = {}  # in the order they run
        self.lib: dict[str, str] = {}  # names an import binds to `lib`: alias -> full name
        if hasattr(cells, "cells"):
            cells = [c.source if c.cell_type == "code" else "" for c in cells.cells]
        self.called: set[str] = set()  # names whose methods a statement calls: not predictions
        self.text: dict[Where, str] = {}  # each unit written out, as the graded program runs it
        self.imports: list[ast.Import | ast.ImportFrom] = []  # those binding the notebook's names
        self.defined: set[str] = set()  # the private names its code defines (`self._seen`)
        self.statements: dict[int, list[ast.stmt]] = {}  # each readable cell's, in order
        # Names IPython may bind out of the reading's sight (`magics`), None: any name.
        self.unseen: set[str] | None = set()
        for c, source in enumerate(cells):
            tree = parse_cell(source)
            unseen = unseen_names(str(source), tree)
            self.unseen = None if None in (self.unseen, unseen) else self.unseen | unseen
            body = tree.body if tree else []
            texts = [written_out(statement) for statement in body]
            if None in texts:  # too deep to write out: unreadable, as a syntax error would be
                self.unseen = None  # yet the kernel may run it
                continue
            body = [mangle(statement) for statement in body]  # read as Python runs it
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
