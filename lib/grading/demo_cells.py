"""The handout's demonstration cells a submission's first run may leave out.

The first kernel runs the student's notebook only for what its cells do (the errors and time-outs
the feedback reports); the grade comes from the second kernel, which runs the program read of
the student's code (`execute`). Most of a lesson's cells are the instructor's demonstrations:
training tokenizers on corpora, loading GPT-4's vocabularies, counting tokens in 32 languages.
Run in a notebook no student changed, they report nothing, and they cost most of the grading
time (lesson 6's take 35 of its 38 CPU seconds).

So the first run leaves out a cell when all of these hold, and runs every cell otherwise:

- its text is the handout's, and the handout's cell is no exercise: the instructor wrote it;
- nothing of the student's reaches it: it reads no name that a student's cell (an exercise, a
  cell changed or added) binds, changes (`x.a = ...`, `x[k] = ...`) or reads (a read may change
  a list or dict in place), nor a name bound by a cell that is itself reached;
- nothing that runs needs it: no cell kept reads a name it binds or changes (`data.x = 1`);
- it names no file or process function (`FILES`): the graded kernel runs in the same folder,
  and a file written there could reach a graded function.

Names are read with `symtable`, so a function's parameters and locals are not the notebook's
names. A cell the grader cannot read (a magic, a syntax error) or one that reaches names by
text (`eval`, `globals()`, `getattr`...) makes the whole notebook run: no reading can say what
it touches. Leaving cells out changes no grade: the program graded is read from the notebook,
not from this run.
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Iterable
from dataclasses import dataclass

import nbformat

from lib.grading.prepare import is_setup_cell

# Reach the notebook's names or code by text: no reading of a cell using one says what it touches.
BY_TEXT = {
    "eval", "exec", "compile", "globals", "locals", "vars", "get_ipython", "__import__",
    "breakpoint", "__builtins__",
}  # fmt: skip
# In a student's cell, also what changes objects or modules by text or from below: the
# instructor's cells use some of them (`sys.path`, `getattr`) in ways known to be harmless.
DYNAMIC = BY_TEXT | {
    "getattr", "setattr", "delattr", "sys", "importlib", "builtins", "runpy", "inspect",
    "ctypes", "gc", "types",
}  # fmt: skip
# Files and processes: the graded kernel runs in the same folder, so a file a demonstration writes
# there could reach a graded function. A cell of the handout naming one of these always runs.
FILES = {
    "open", "os", "io", "pathlib", "Path", "tempfile", "shutil", "subprocess", "write_text",
    "write_bytes", "mkdir", "makedirs", "touch", "unlink", "rmdir", "symlink_to", "chdir",
    "save", "savetxt", "savez", "tofile", "memmap", "dump", "to_file", "train_from_files",
}  # fmt: skip
# Attributes that reach a namespace or code as objects (`f.__globals__["x"] = ...`).
INSIDES = {"__dict__", "__globals__", "__builtins__", "__code__", "__closure__", "f_globals"}


@dataclass(frozen=True)
class Handout:
    """A lesson's code cells as handed out: every code cell's text, the exercises' stubs, and
    the imports its cells make, as (name, what: `_imports`): a student's cell making the same
    binds the same object."""

    code: frozenset[str]
    exercises: frozenset[str]
    imports: frozenset[tuple]


def handout_code(lessons: Iterable[tuple[int, nbformat.NotebookNode]]) -> dict[int, Handout]:
    """Each lesson's `Handout`, from the instructor's lesson notebooks (`notebook.handouts`)."""
    found: dict[int, Handout] = {}
    for lesson, notebook in lessons:
        code = [c.source for c in notebook.cells if c.cell_type == "code"]
        stubs = {c.source for c in notebook.cells if c.metadata.get("exercise")}
        imports: set[tuple] = set()
        for source in code:
            try:
                imports |= set(_imports(ast.parse(source)).items())
            except (SyntaxError, ValueError, RecursionError):
                continue
        found[lesson] = Handout(frozenset(code), frozenset(stubs), frozenset(imports))
    return found


def _imports(tree: ast.AST) -> dict[str, tuple]:
    """The names `tree` binds by importing, each with what it imports (module, name, level)."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                name = a.asname or a.name.partition(".")[0]
                bound[name] = (a.name if a.asname else name, None, 0)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                bound[a.asname or a.name] = (node.module, a.name, node.level)
    return bound


@dataclass
class _Cell:
    reads: set[str]  # names of the notebook the cell reads (not its functions' locals)
    binds: set[str]  # names it binds at the top level (or declared `global`)
    changes: set[str]  # names it changes through: `x.a = ...`, `x[k] = ...`, `del x.a`
    imports: dict[str, tuple]  # names it binds by importing, and what
    files: bool = False  # names a file or process function (`FILES`)


class _Unreadable(Exception):
    """A cell no reading can say the names of."""


def _read(source: str, dynamic: set[str]) -> _Cell:
    """The names the cell touches; `_Unreadable` if it uses any of `dynamic`."""
    try:
        tree = ast.parse(source)
        table = symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        raise _Unreadable from None
    cell = _Cell(set(), set(), set(), _imports(tree))
    for node in ast.walk(tree):
        name = getattr(node, "id", None) or getattr(node, "attr", None)
        modules = [_root(a.name) for a in getattr(node, "names", [])] + [
            _root(getattr(node, "module", None) or "")
        ]
        cell.files |= name in FILES or any(m in FILES for m in modules)
        if isinstance(node, ast.Name) and node.id in dynamic:
            raise _Unreadable
        if isinstance(node, ast.Attribute) and node.attr in INSIDES:
            raise _Unreadable
        if isinstance(node, ast.Import) and any(_root(a.name) in dynamic for a in node.names):
            raise _Unreadable
        if isinstance(node, ast.ImportFrom) and (
            _root(node.module or "") in dynamic
            or any(a.name == "*" or a.name in dynamic for a in node.names)
        ):
            raise _Unreadable
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            root = node
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                cell.changes.add(root.id)
    _names(table, cell, top=True)
    return cell


def _root(module: str) -> str:
    return module.partition(".")[0]


def _names(table: symtable.SymbolTable, cell: _Cell, top: bool) -> None:
    """The notebook's names `table` (and the scopes inside it) reads and binds."""
    for symbol in table.get_symbols():
        name = symbol.get_name()
        if top or symbol.is_global():
            if symbol.is_referenced():
                cell.reads.add(name)
            if symbol.is_assigned() or symbol.is_imported() or (top and symbol.is_namespace()):
                cell.binds.add(name)
    for child in table.get_children():
        _names(child, cell, top=False)


def left_out(notebook: nbformat.NotebookNode, handout: Handout | None) -> frozenset[int]:
    """The indices of `notebook`'s code cells its first run may leave out (see the module's
    docstring); none without the lesson's `handout`."""
    if handout is None:
        return frozenset()
    cells: dict[int, _Cell] = {}
    students: set[int] = set()
    always: set[int] = set()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or not isinstance(cell.source, str):
            continue
        student = cell.source not in handout.code or cell.source in handout.exercises
        try:
            cells[index] = _read(cell.source, DYNAMIC if student else BY_TEXT)
        except _Unreadable:
            return frozenset()
        if student:
            students.add(index)
        # The grader's own set-up runs in its place; files may reach the graded kernel: kept.
        if is_setup_cell(cell.source) or cells[index].files:
            always.add(index)
    # Reached by the student: read what a student's (or reached) cell binds, changes or reads.
    # A module, or what was imported from one, is changed only through `x.a = ...` (a change)
    # or by text (unreadable): reading it changes nothing, and importing what the handout
    # imports binds the same object again.
    imported = set().union(*(c.imports for c in cells.values()))
    values = set().union(*(c.binds - set(c.imports) for c in cells.values()))
    reached = set(students)
    while True:
        touched = set().union(*(_touched(cells[i], values, imported, handout) for i in reached))
        more = {i for i, c in cells.items() if i not in reached and c.reads & touched}
        if not more:
            break
        reached |= more
    # Needed: every cell binding or changing (`data.x = 1`) a name a kept cell reads.
    kept = reached | always
    while True:
        wanted = set().union(*(cells[i].reads for i in kept))
        more = {i for i, c in cells.items() if i not in kept and (c.binds | c.changes) & wanted}
        if not more:
            break
        kept |= more
    return frozenset(cells) - kept


def _touched(cell: _Cell, values: set[str], imported: set[str], handout: Handout) -> set[str]:
    """The names whose value `cell`, once reached, may have made differ from the handout's:
    what it binds (but an import the handout makes too), the values it reads (a list or dict
    may change in place) and the modules it changes (`x.a = ...`: a value changed so reads it)."""
    same = {name for name, what in cell.imports.items() if (name, what) in handout.imports}
    return (cell.binds - same) | (cell.reads & values) | (cell.changes & imported)
