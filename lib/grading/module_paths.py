"""Which of a notebook's names a change of a module reaches: each name a cell binds by importing
is known by the dotted path it binds (`from lib import fairness` binds `fairness` to
"lib.fairness"), so a change made through one name (`import lib; lib.fairness.X = 1`) reaches
the others bound to the same module, inside it or around it (`demo_cells`).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable


class Imports:
    """The names a notebook's cells bind by importing, each with the dotted paths bound."""

    def __init__(self, imports: Iterable[dict[str, str]]) -> None:
        self.bound: dict[str, set[str]] = {}
        for cell in imports:
            for name, path in cell.items():
                self.bound.setdefault(name, set()).add(path)

    def paths(self, names: set[str]) -> set[str]:
        """The dotted paths `names` are bound to (a name bound by no import has none)."""
        return {path for name in names & set(self.bound) for path in self.bound[name]}

    def reached(self, paths: set[str]) -> set[str]:
        """The names bound to one of `paths`, to something inside one (`lib.fairness.PUBLISHED`
        in "lib.fairness"), or to a package holding one ("lib" holds "lib.fairness").
        Each bound path is looked up by its prefixes, not compared with every path: linear in
        the names (a cell may import and use thousands)."""
        within = {prefix for b in paths for prefix in _prefixes(b)}  # `paths` and around them
        return {
            name
            for name, bound in self.bound.items()
            if any(a in within or not paths.isdisjoint(_prefixes(a)) for a in bound)
        }

    def of_modules(self, paths: set[str]) -> set[str]:
        """The names bound to one of `paths` or imported from one: what a call made for its
        effect on a module (`random.seed(1)`) changes."""
        return {
            name
            for name, bound in self.bound.items()
            if any(a in paths or a.rpartition(".")[0] in paths for a in bound)
        }

    def surely_modules(self, name: str) -> bool:
        """Is `name` bound only to modules? `import x` binds one; `from x import y` may bind a
        value (a dict `y.clear()` empties): looked up only under a package already imported
        here, so that no student's import runs in the grader."""
        for path in self.bound.get(name, ()):
            parent = path.rpartition(".")[0]
            if not parent:
                continue
            if parent not in sys.modules:
                return False
            try:
                if importlib.util.find_spec(path) is None:
                    return False
            except (ImportError, ValueError, AttributeError):
                return False
        return bool(self.bound.get(name))


def _prefixes(path: str) -> list[str]:
    """`path` and the packages holding it: "lib.bpe.merge" -> "lib", "lib.bpe", "lib.bpe.merge"."""
    parts = path.split(".")
    return [".".join(parts[: k + 1]) for k in range(len(parts))]
