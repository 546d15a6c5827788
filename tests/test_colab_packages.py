"""What the lessons import is on Colab: preinstalled there, or installed by the set-up cell.

Colab runs its own image, not requirements.txt: the set-up cell installs only what Colab lacks,
from a short list. A new third-party import in a module that a lesson uses (as `hypothesis` in
`lib.difftest` once was) would break that lesson on Colab alone; this finds it without Colab.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import nbformat
from colab_check import COLAB_ALSO, COLAB_PINS
from test_house import MODULES, imports_of, path_of

from lib.setup_cell import SETUP_TEMPLATE

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def top_level_imports(source: str) -> set[str]:
    """The absolute imports of some Python source, as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def lesson_imports(path: Path) -> set[str]:
    """What a lesson's own cells import (shell and magic lines left out)."""
    cells = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    lines = [
        line for cell in cells for line in cell.splitlines() if not line.startswith(("!", "%"))
    ]
    return top_level_imports("\n".join(lines))


def lib_closure(names: set[str]) -> set[str]:
    """The lib modules among `names`, and every lib module they import, `lib` itself included."""
    todo = {"lib"} | {name for name in names if name in MODULES}
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        seen.add(module)
        todo |= imports_of(module) - seen
    return seen


def third_party(names: set[str]) -> set[str]:
    """The distributions (as pip names them) that provide the non-stdlib modules of `names`."""
    tops = {name.split(".")[0] for name in names}
    tops = {top for top in tops if top not in sys.stdlib_module_names and top != "lib"}
    return {_normal(dist) for top in tops for dist in _provided_by().get(top, [top])}


@functools.cache
def _provided_by() -> dict[str, list[str]]:
    return packages_distributions()  # e.g. tiktoken_ext -> ["tiktoken"]; slow: read it once


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_package_a_lesson_imports_is_on_colab_or_installed_by_the_set_up_cell():
    installed = re.search(r"wanted = \[(.*?)\]", SETUP_TEMPLATE).group(1)
    on_colab = {pin.split("==")[0] for pin in COLAB_PINS} | set(COLAB_ALSO)
    allowed = {_normal(name) for name in on_colab | set(re.findall(r'"([\w.-]+)"', installed))}
    missing = {}
    for notebook in NOTEBOOKS:
        names = lesson_imports(notebook)
        modules = lib_closure(names)
        needed = third_party(names).union(
            *(third_party(top_level_imports(path_of(m).read_text())) for m in modules)
        )
        if needed - allowed:
            missing[notebook.name] = sorted(needed - allowed)
    assert not missing, f"not on Colab and not installed by the set-up cell: {missing}"
