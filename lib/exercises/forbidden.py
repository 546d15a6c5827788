"""What an exercise asks the learner not to use, found by reading their code.

An exercise like "encode a code point to UTF-8 by hand" is passed trivially by calling
`str.encode`. `Exercise(forbidden=(".encode", "bytes"))` names such shortcuts: an entry starting
with a dot is any attribute of that name (`chr(cp).encode()`), any other entry a plain name
(`bytes(...)`). A builtin that does a forbidden method's job with some arguments (`bytes`, when
`.encode` is) may only be called directly, its arguments written out (`restricted_use`): handed
on as a value, it could be called with any. `check()` reads the learner's function with `inspect`
and says so at once; the grader reads the notebook's cells (see `lib.exercises.own_code`) and
scores it `not own code`.

>>> import ast
>>> forbidden_use(ast.parse("def f(cp):\\n    return chr(cp).encode('utf-8')"), (".encode",))
'uses `.encode`, which this exercise asks you to do without'
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Collection, Iterable
from typing import Any

from lib.exercises.cell_reading import called_with_one, type_hints
from lib.exercises.python_itself import attributes_read
from lib.exercises.scopes import body_names

# The same conversions without the method's name: bytes(text, "utf-8") is text.encode("utf-8").
_SAME_AS = {".encode": ("bytes", "bytearray"), ".decode": ("str",)}


def forbidden_names(forbidden: Iterable[str]) -> set[str]:
    """The plain names an exercise judges: its forbidden names and modules, and the builtins
    that do a forbidden method's job (`bytes` when `.encode` is). Code may not bind them itself:
    `def f(cp, bytes=bytes)` would reach the builtin under a name the reading takes as its own."""
    forbidden = set(forbidden)
    restricted = {n for m, names in _SAME_AS.items() if m in forbidden for n in names}
    asking = {"isinstance", "issubclass"} if restricted else set()  # see `_only_asked_about`
    return restricted | asking | {name for name in forbidden if not name.startswith(".")}


def restricted_use(item: ast.AST, forbidden: Iterable[str]) -> str:
    """ "" unless `item` reaches a builtin that does a forbidden method's job with some arguments
    (`bytes` when `.encode` is forbidden) other than as the callee of a call whose arguments can
    all be read. Such a builtin may be called (`bytes([65])`), never handed on as a value: bound
    to another name, a default, passed to `map` or `functools.reduce`, whatever reaches it calls
    it with arguments no reading sees. Nor may the class be had from elsewhere: `type(b"")`
    only asks about it (`type_use.type_outside`), and nothing reads the `.registry` where
    `functools.singledispatch` keeps the classes its type hints name (`python_itself.REACHES_IN`).
    Type hints themselves are not judged here (the reader skips them). Needs `parent` links."""
    restricted = {n: m for m, names in _SAME_AS.items() if m in forbidden for n in names}
    if not isinstance(item, ast.Name) or isinstance(item.ctx, ast.Store | ast.Del):
        return ""
    method = restricted.get(item.id)
    if not method or _only_asked_about(item, restricted):
        return ""
    call = getattr(item, "parent", None)
    if not (isinstance(call, ast.Call) and call.func is item):
        return (
            f"hands `{item.id}` on as a value, which could run `{method}` by another name:"
            f" call `{item.id}(…)` directly, without an encoding"
        )
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return f"calls `{item.id}` with `*` or `**` arguments: write the arguments out"
    if len(call.args) >= 2 or any(k.arg in {"encoding", "errors"} for k in call.keywords):
        return f"uses `{item.id}(…, encoding)`, which is `{method}` by another name"
    return ""


def _only_asked_about(item: ast.Name, restricted: Collection[str]) -> bool:
    """`isinstance(x, bytes)`, `issubclass(t, (str, int))`, `type(x) is bytes`, `case bytes():`,
    `bytes.fromhex("e282ac")`: the class is asked about, or builds bytes from hex digits, and
    nothing there converts text. The code may not bind `isinstance` itself (`forbidden_names`),
    which could hand the class on. `isinstance(x, bytes | bytearray)` too, where every class in
    the `|` is `restricted`, so no code may bind its name: another operand's `__ror__` would be
    handed the class. Needs `parent` links."""
    parent = getattr(item, "parent", None)
    if isinstance(parent, ast.Attribute):
        return parent.attr == "fromhex"
    if isinstance(parent, ast.MatchClass):  # `isinstance` alone: its keywords are read elsewhere
        return parent.cls is item and not parent.patterns
    while isinstance(parent, ast.BinOp) and _union_of(parent, restricted):
        item, parent = parent, getattr(parent, "parent", None)
    if isinstance(parent, ast.Tuple | ast.List | ast.Set):  # `isinstance(x, (bytes, str))`
        item, parent = parent, getattr(parent, "parent", None)
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1:  # `type(out) is bytes`
        if parent.left is not item:  # `type(out) in (bytes, str)` too
            return _type_of_one(parent.left)
        compared = not isinstance(parent.ops[0], ast.In | ast.NotIn)
        return compared and _type_of_one(parent.comparators[0])
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in {"isinstance", "issubclass"}
        and len(parent.args) == 2
        and parent.args[1] is item
    )


def _made_again(item: ast.AST, forbidden: Iterable[str]) -> str:
    """ "" unless `item` reads `.__init__` where `.encode` is forbidden, other than to call it
    without an encoding: `out.__init__(chr(cp), 'utf-8')` makes a bytearray `out` again from
    text, as `bytearray(..., 'utf-8')` would, without naming the class; so would the method had
    as a value (`f = out.__init__`, `getattr`, a `match` keyword). `super().__init__(...)` is
    left to the class's bases, which are judged where they are named. Needs `parent` links."""
    if ".encode" not in forbidden or "__init__" not in attributes_read(item):
        return ""
    call = getattr(item, "parent", None)
    if not (isinstance(item, ast.Attribute) and isinstance(call, ast.Call) and call.func is item):
        return (
            "uses `.__init__` other than by calling it, which could run `.encode` by another name"
        )
    made = item.value
    if isinstance(made, ast.Call) and getattr(made.func, "id", None) == "super":
        return ""
    keywords = {k.arg for k in call.keywords}
    spread = any(isinstance(a, ast.Starred) for a in call.args)
    if spread or len(call.args) >= 2 or keywords & {"encoding", "errors", None}:
        return "calls `.__init__(…, encoding)`, which is `.encode` by another name"
    return ""


def _union_of(node: ast.AST, names: Collection[str]) -> bool:
    """`bytes | bytearray`: a `|` of plain names, each one of `names`."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.BitOr) and all(
            _union_of(side, names) for side in (node.left, node.right)
        )
    return isinstance(node, ast.Name) and node.id in names


def _type_of_one(node: ast.AST) -> bool:
    """`type(x)`: a class, which `is`, `==` or `in` only compares with the one named beside it
    (`type_use.class_asked`), as Python's own `type.__eq__` does. The code may not bind `type`
    (`allowed.JUDGED_BUILTINS`)."""
    func = getattr(node, "func", None)
    return getattr(func, "id", None) == "type" and called_with_one(func) is node


def forbidden_name(item: ast.AST, forbidden: Iterable[str]) -> str:
    """ "" unless this one node is a use of a `forbidden` entry; then which, in words. Needs
    `parent` links, for `restricted_use`."""
    found = restricted_use(item, forbidden) or _made_again(item, forbidden)
    if found:
        return found
    methods = {name[1:] for name in forbidden if name[:1] == "."}
    # A class body's names are its attributes, which dataclasses, `match` and the like read by
    # name, as text (`dataclasses.astuple` reads a field).
    defined = body_names(item) & methods if isinstance(item, ast.ClassDef) else set()
    if defined:
        return (
            f"defines `{min(defined)}` in class `{item.name}`, the name of `.{min(defined)}`,"
            " which this exercise asks you to do without: give it another name"
        )
    read = [name for name in attributes_read(item) if name in methods]  # `case str(encode=m)`
    if read:
        how = " through getattr" if isinstance(item, ast.Call) else ""
        return f"uses `.{read[0]}`{how}, which this exercise asks you to do without"
    if isinstance(item, ast.Name) and item.id in forbidden:
        return f"uses `{item.id}`, which this exercise asks you to do without"
    if not isinstance(item, ast.Import | ast.ImportFrom):  # `import tiktoken as tk` counts too
        return ""
    modules = [item.module or ""] if isinstance(item, ast.ImportFrom) else []
    modules += [alias.name for alias in item.names]
    roots = {m: m.partition(".")[0].lstrip("_") for m in modules}  # `_codecs` is `codecs`
    found = [m for m in modules if m in forbidden or roots[m] in forbidden]
    return f"imports `{found[0]}`, which this exercise asks you to do without" if found else ""


def forbidden_use(node: ast.AST, forbidden: Iterable[str]) -> str:
    """ "" if `node` uses none of `forbidden`, else which one, in words."""
    forbidden = set(forbidden)
    hints = {id(n) for hint in type_hints(node) for n in ast.walk(hint)}  # `-> bytes` is no use
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            child.parent = parent  # type: ignore[attr-defined]
    found = (forbidden_name(item, forbidden) for item in ast.walk(node) if id(item) not in hints)
    return next(filter(None, found), "")


def forbidden_in_function(function: Any, forbidden: Iterable[str]) -> str:
    """The same for a live function, read from its source ("" when the source is not there:
    the grader, which reads the notebook itself, has the last word). A function's own code, as
    `__wrapped__` may name another one."""
    try:
        own = getattr(function, "__code__", function)
        tree = ast.parse(textwrap.dedent(inspect.getsource(own)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return ""
    return forbidden_use(tree, forbidden)
