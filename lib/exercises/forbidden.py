"""What an exercise asks the learner not to use, found by reading their code.

An exercise like "encode a code point to UTF-8 by hand" is passed trivially by calling
`str.encode`. `Exercise(forbidden=(".encode", "bytes"))` names such shortcuts: an entry starting
with a dot is any attribute of that name (`chr(cp).encode()`), any other entry a plain name
(`bytes(...)`). `check()` reads the learner's function with `inspect` and says so at once; the
grader reads the notebook's cells (see `lib.exercises.own_code`) and scores it `not own code`.

>>> import ast
>>> forbidden_use(ast.parse("def f(cp):\\n    return chr(cp).encode('utf-8')"), (".encode",))
'uses `.encode`, which this exercise asks you to do without'
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterable
from typing import Any

# The same conversions without the method's name: bytes(text, "utf-8") is text.encode("utf-8").
_SAME_AS = {".encode": ("bytes", "bytearray"), ".decode": ("str",)}


def forbidden_name(item: ast.AST, forbidden: Iterable[str]) -> str:
    """ "" unless this one node is a use of a `forbidden` entry; then which, in words."""
    if isinstance(item, ast.Call) and isinstance(item.func, ast.Name):
        converts = len(item.args) >= 2 or any(k.arg == "encoding" for k in item.keywords)
        for method, names in _SAME_AS.items():
            if converts and method in forbidden and item.func.id in names:
                return f"uses `{item.func.id}(…, encoding)`, which is `{method}` by another name"
        attribute = item.args[1] if item.func.id == "getattr" and len(item.args) > 1 else None
        if isinstance(attribute, ast.Constant) and f".{attribute.value}" in forbidden:
            name = f".{attribute.value}"
            return f"uses `{name}` through getattr, which this exercise asks you to do without"
    if isinstance(item, ast.Attribute) and f".{item.attr}" in forbidden:
        name = f".{item.attr}"
    elif isinstance(item, ast.Name) and item.id in forbidden:
        name = item.id
    elif isinstance(item, ast.Import | ast.ImportFrom):  # `import tiktoken as tk` counts too
        modules = [item.module or ""] if isinstance(item, ast.ImportFrom) else []
        modules += [alias.name for alias in item.names]
        roots = {m: m.partition(".")[0].lstrip("_") for m in modules}  # `_codecs` is `codecs`
        found = [m for m in modules if m in forbidden or roots[m] in forbidden]
        if not found:
            return ""
        return f"imports `{found[0]}`, which this exercise asks you to do without"
    else:
        return ""
    return f"uses `{name}`, which this exercise asks you to do without"


def forbidden_use(node: ast.AST, forbidden: Iterable[str]) -> str:
    """ "" if `node` uses none of `forbidden`, else which one, in words."""
    forbidden = set(forbidden)
    return next(filter(None, (forbidden_name(item, forbidden) for item in ast.walk(node))), "")


def forbidden_in_function(function: Any, forbidden: Iterable[str]) -> str:
    """The same for a live function, read from its source ("" when the source is not there:
    the grader, which reads the notebook itself, has the last word)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return ""
    return forbidden_use(tree, forbidden)
