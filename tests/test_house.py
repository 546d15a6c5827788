"""The library's house rules, checked: imports flow one way, doctests hold, ruff is clean."""

import ast
import doctest
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "lib"
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for path in LIB.rglob("*.py")
)


def path_of(module: str) -> Path:
    """The file of a lib module: `lib/x.py`, or `lib/x/__init__.py` for a package."""
    path = LIB.parent / (module.replace(".", "/") + ".py")
    return path if path.exists() else path.with_suffix("") / "__init__.py"


def imports_of(module: str) -> set[str]:
    """The lib modules `module` imports anywhere in its code (functions and TYPE_CHECKING too).

    `from lib import x` counts as importing `lib.x` when that is a module; the package `lib`
    itself is left out, because every submodule's import runs it first by design.
    """
    path = path_of(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}".rstrip(".")
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES and name not in ("lib", module)}


def test_every_module_imports():
    for module in MODULES:
        importlib.import_module(module)
    assert {"lib.tokenizer", "lib.bpe", "lib.specials", "lib.hf_files"} <= set(MODULES)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in {module: modules it imports}, as a path back to its start, or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        for imported in sorted(graph[module]):
            if cycle := visit(imported, [*path, module]):
                return cycle
        done.add(module)
        return None

    return next(filter(None, (visit(module, []) for module in sorted(graph))), None)


def test_the_import_graph_has_no_cycles():
    graph = {module: imports_of(module) for module in MODULES}
    assert (
        "lib.bpe_fast" in graph["lib.bpe"]
        and "lib.tiktoken_files" in graph["lib.tokenizer_formats"]
    )
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))
    graph["lib.bpe_fast"].add("lib.bpe")  # the circle there used to be: it would be found
    assert find_cycle(graph) == ["lib.bpe", "lib.bpe_fast", "lib.bpe"]


@pytest.mark.parametrize("module", MODULES)
def test_doctests(module):
    """The examples in lib's docstrings are run, so a reader can trust them."""
    result = doctest.testmod(importlib.import_module(module), report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed"


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(command):
    assert shutil.which("ruff") or importlib.util.find_spec("ruff"), "ruff is in requirements.txt"
    run = subprocess.run(
        [sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


# The project's layout: what a clone holds at the top. Anything else tracked is a stray.
LAYOUT = {".ci", ".gitignore", "README.md", "conftest.py", "datasets", "lib", "notebooks"}
LAYOUT |= {".github", "pyproject.toml", "requirements.txt", "tests"}
TEXT_ONLY = 1_000_000  # bytes: a notebook with its figures' PNGs stays well under this


def test_only_the_projects_own_files_are_tracked():
    """No wheel, archive, download or stray file is committed (third-party files never are):
    every tracked path is in the layout, is text, and only notebooks come near a megabyte."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    tracked = [ROOT / name for name in listed.split("\0") if name]
    assert {path.relative_to(ROOT).parts[0] for path in tracked} <= LAYOUT
    for path in tracked:
        content = path.read_bytes()
        assert b"\0" not in content, f"{path.relative_to(ROOT)} is binary"
        assert len(content) < TEXT_ONLY, f"{path.relative_to(ROOT)} is {len(content):,} bytes"
