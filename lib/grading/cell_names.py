"""What one code cell touches, read without running it: the notebook's names it reads, binds and
changes, the modules it imports, and whether it names a file function. `demo_cells` decides from
these which of the handout's demonstrations a first run may leave out.

A cell no reading can follow raises `Unreadable`: code that reaches names by text (`eval`,
`globals()`), the kernel's own names (`__builtin__`, the output history `_`, `Out[3]`, whose
values shift when cells are left out), `import *`, and a student's one-line cell IPython runs as
a magic (`runs_as_magic`). So is a cell that cannot be parsed, or whose reading runs out of
stack or memory. What else a student's cell may use is the own-code reading's to say
(`demo_cells`: anything it does not allow runs the whole notebook).
"""

from __future__ import annotations

import ast
import symtable
from dataclasses import dataclass, field

from lib.exercises.magics import BY_TEXT, HISTORY, INSIDES, runs_as_magic

# Files and processes: a demonstration naming one of these always runs, since a kept cell (or,
# in a lesson whose exercises may use files, a graded function) could read what it writes.
FILES = {
    "open", "os", "io", "pathlib", "Path", "tempfile", "shutil", "subprocess", "write_text",
    "write_bytes", "mkdir", "makedirs", "touch", "unlink", "rmdir", "symlink_to", "chdir",
    "save", "savetxt", "savez", "tofile", "memmap", "dump", "to_file", "train_from_files",
}  # fmt: skip


class Unreadable(Exception):
    """A cell no reading can say the effects of."""


@dataclass
class CellNames:
    reads: set[str]  # names of the notebook the cell reads (not its functions' locals)
    binds: set[str]  # names it binds at the top level (or declared `global`)
    changes: set[str]  # names it changes through: `x.a = ...`, `x[k] = ...`, `del x.a`
    imports: dict[str, str]  # names it binds by importing, and the dotted path bound
    # Names used other than by calling them (`f(...)`) or a function of theirs (`m.f(...)`,
    # `methods`), or used at the cell's top level: for an imported name, a possible change.
    odd: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)  # names whose functions are called: `m.f()`
    # Names called at the top level for their effect, the value dropped (`random.seed(1)`).
    effects: set[str] = field(default_factory=set)
    files: bool = False  # names a file or process function (`FILES`)


def imports_of(tree: ast.AST) -> dict[str, str]:
    """The names `tree` binds by importing, each with the dotted path it binds (`from lib import
    data as d` binds `d` to "lib.data"; `import lib.data` binds `lib` to "lib")."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                bound[a.asname or a.name.partition(".")[0]] = (
                    a.name if a.asname else a.name.partition(".")[0]
                )
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for a in node.names:
                bound[a.asname or a.name] = f"{module}.{a.name}"
    return bound


def read_cell(source: str, student: bool) -> CellNames:
    """The names the cell touches; `Unreadable` if it uses anything no reading follows, or is
    a `student`'s cell IPython would run as a magic."""
    if not isinstance(source, str):  # a notebook not read by `read_notebook`: `source: {}`
        raise Unreadable
    if student and runs_as_magic(source):
        raise Unreadable
    try:
        tree = ast.parse(source)
        table = symtable.symtable(source, "<cell>", "exec")
        cell = CellNames(set(), set(), set(), imports_of(tree))
        _walk(tree, cell, student)
        _names(table, cell, top=True)
        # A function's parameters and locals are not the notebook's, but what it imports is
        # the module's, wherever it is bound.
        notebook = cell.reads | cell.binds | set(cell.imports)
        cell.odd &= notebook
        cell.methods &= notebook
        cell.changes &= notebook
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise Unreadable from None
    return cell


def _walk(tree: ast.AST, cell: CellNames, student: bool) -> None:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        name = getattr(node, "id", None) or getattr(node, "attr", None)
        modules = [a.name for a in getattr(node, "names", [])] + [getattr(node, "module", "")]
        cell.files |= name in FILES or any(_root(m or "") in FILES for m in modules)
        if isinstance(node, ast.Name) and (
            node.id in BY_TEXT or (HISTORY.fullmatch(node.id) and isinstance(node.ctx, ast.Load))
        ):
            raise Unreadable
        if isinstance(node, ast.Attribute) and node.attr in INSIDES:
            raise Unreadable
        if isinstance(node, (ast.Import, ast.ImportFrom)) and (
            any(_root(m or "") in BY_TEXT or m == "*" for m in modules)
        ):
            raise Unreadable
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            root = node
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                cell.changes.add(root.id)
        if isinstance(node, ast.Name):
            called = _called(node, parents)
            if called is None or _at_top(node, parents):
                cell.odd.add(node.id)
            elif called == "method":
                cell.methods.add(node.id)
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        root = call.func if isinstance(call, ast.Call) else None
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name):
            cell.effects.add(root.id)


def _called(node: ast.Name, parents: dict) -> str | None:
    """How `node` is called: "direct" (`f(...)`), "method" (`m.f(...)`), or None."""
    above, how = parents.get(node), "direct"
    if isinstance(above, ast.Attribute):
        node, above, how = above, parents.get(above), "method"
    return how if isinstance(above, ast.Call) and above.func is node else None


def _at_top(node: ast.AST, parents: dict) -> bool:
    """Does `node` run when the cell runs (not only when a function of it is called)?"""
    while node in parents:
        node, below = parents[node], node
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and (
            below is body or (isinstance(body, list) and below in body)
        ):
            return False
    return True


def _root(module: str) -> str:
    return module.partition(".")[0]


def _names(table: symtable.SymbolTable, cell: CellNames, top: bool) -> None:
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
