"""A notebook cell read as Python, statement by statement, never run: the pieces `own_code`
builds its reading from.

`parse_cell` turns IPython's `!shell` and `%magic` lines into calls before parsing; the others
say what one node binds (`bound_names`), what one statement binds for the notebook (`binds`),
what it imports from `lib` (`lib_imports`), where its type hints are (`type_hints`), and whether
a value is written out (`is_literal`).
"""

from __future__ import annotations

import ast
import importlib


def parse_cell(source: str) -> ast.Module | None:
    """A cell as Python, IPython's `!shell` and `%magic` lines turned into calls first. A cell
    magic (`%%time`) is read without its first line: its body is usually Python."""
    if source.lstrip().startswith("%%"):
        source = source.lstrip().partition("\n")[2]
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except Exception:  # IPython missing or confused: parse what is there
        pass
    return parse_text(source)


def parse_text(source: str, mode: str = "exec") -> ast.AST | None:
    """`source` as Python, or None when it cannot be read: not Python, or nested so deeply that
    the parser runs out of memory or stack (`-` twenty thousand times). Such text is read as
    a syntax error would be, and the rest of the notebook is still graded."""
    try:
        return ast.parse(source, mode=mode)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def written_out(statement: ast.AST) -> str | None:
    """The statement as text (what the graded program runs), or None when it is nested too
    deeply for `ast.unparse`'s recursion: its cell is then read as unreadable."""
    try:
        return ast.unparse(statement)
    except (RecursionError, MemoryError):
        return None


def public_names(module: str) -> list[str]:
    try:
        found = importlib.import_module(module)
    except Exception:
        return []
    return list(getattr(found, "__all__", None) or [n for n in vars(found) if n[:1] != "_"])


def lib_imports(*nodes: ast.AST) -> dict[str, str]:
    """Names that `nodes` bind to something in `lib`: alias -> full dotted name."""
    bound = {}
    for item in (item for node in nodes for item in ast.walk(node)):
        if isinstance(item, ast.Import):
            for name in item.names:
                if name.name.partition(".")[0] == "lib":
                    alias = name.asname or name.name.partition(".")[0]
                    bound[alias] = name.name if name.asname else "lib"
        elif isinstance(item, ast.ImportFrom) and (item.module or "").partition(".")[0] == "lib":
            for name in item.names:
                bound[name.asname or name.name] = f"{item.module}.{name.name}"
    return bound


def bound_names(node: ast.AST) -> set[str]:
    """The names this one node binds: a store or `del`, a parameter, a `def` or `class`, an
    import's name, `except ... as`, what `global` or `nonlocal` declares, and what a `match`
    pattern captures (`case [a, *rest]`, `case {**rest}`: plain text in the tree, not `ast.Name`
    nodes, yet bound like an assignment)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return {node.id}
    if isinstance(node, ast.Global | ast.Nonlocal):
        return set(node.names)
    if isinstance(node, ast.alias):
        return {node.asname or node.name.partition(".")[0]}
    if isinstance(node, ast.MatchMapping):
        return {node.rest} if node.rest else set()
    name = node.arg if isinstance(node, ast.arg) else getattr(node, "name", None)
    return {name} if isinstance(name, str) else set()


def type_hints(node: ast.AST) -> list[ast.AST]:
    """The type hints in `node`."""
    found = [getattr(n, "annotation", None) or getattr(n, "returns", None) for n in ast.walk(node)]
    return [hint for hint in found if hint is not None]


def base_name(node: ast.AST) -> str:
    """`vocab` for vocab, vocab[i], vocab.x.y; "" for anything else."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def binds(statement: ast.stmt, registers: bool = True) -> tuple[set[str], set[str]]:
    """The notebook's names a top-level statement binds, stores into or registers with
    (`@f.register`; not when `registers` is False), not a function's locals (those are its own,
    except what it declares `global`); and the names whose methods it calls, which may change
    them (`d.update(...)`)."""
    names, called, todo = set(), set(), [statement]
    while todo:
        item = todo.pop()
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(item.name)
            names.update(n for i in ast.walk(item) if isinstance(i, ast.Global) for n in i.names)
            names.update(n.target.id for n in _run_at_definition(item) if _is_walrus(n))
            decorators = item.decorator_list if registers else []
            names.update(base_name(d) for d in decorators if isinstance(d, ast.Attribute))
            continue
        if isinstance(item, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp):
            item = ast.GeneratorExp(elt=item, generators=[])  # a scope of its own, as below
        if isinstance(item, ast.GeneratorExp):  # its loop variables are its own; `:=` is not
            inner = list(ast.walk(item))
            names.update(n.target.id for n in inner if isinstance(n, ast.NamedExpr))
            calls = [n.func for n in inner if isinstance(n, ast.Call)]
            called.update(base_name(f) for f in calls if isinstance(f, ast.Attribute))
            continue
        if isinstance(item, ast.Attribute | ast.Subscript) and type(item.ctx) is not ast.Load:
            names.add(base_name(item))
        elif isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute):
            called.add(base_name(item.func))
        names.update(bound_names(item))
        todo.extend(ast.iter_child_nodes(item))
    return names - {""}, called - {""}


def _run_at_definition(item: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list:
    """Every node of what a `def` or `class` statement runs where it stands, in the notebook's
    scope: decorators, defaults and annotations, bases and keywords (a `:=` there binds a
    global name, round 21's door)."""
    parts = list(item.decorator_list)
    if isinstance(item, ast.ClassDef):
        parts += item.bases + [keyword.value for keyword in item.keywords]
    else:
        every = item.args.posonlyargs + item.args.args + item.args.kwonlyargs
        every += [arg for arg in (item.args.vararg, item.args.kwarg) if arg]
        parts += item.args.defaults + [d for d in item.args.kw_defaults if d is not None]
        parts += [arg.annotation for arg in every if arg.annotation] + [item.returns] * bool(
            item.returns
        )
    return [node for part in parts for node in ast.walk(part)]


def _is_walrus(node: ast.AST) -> bool:
    return isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)


def is_literal(node: ast.AST) -> bool:
    """Does this binding give a value written out (`{"A": 1}`), which `ast.literal_eval` reads?"""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def is_import(unit: ast.AST) -> bool:
    return isinstance(unit, ast.Import | ast.ImportFrom)


def called_with_one(node: ast.AST) -> ast.Call | None:
    """The call `node(x)` of this node with one plain argument (no keywords, no `*`), if it is
    one: what `type(x)` and `functools.wraps(f)` may be. Needs `parent` links."""
    call = getattr(node, "parent", None)
    plain = (
        isinstance(call, ast.Call)
        and call.func is node
        and len(call.args) == 1
        and not isinstance(call.args[0], ast.Starred)
        and not call.keywords
    )
    return call if plain else None
