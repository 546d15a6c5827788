"""What IPython itself may bind in a cell, where the reading sees no Python binding it.

The reading parses a cell after IPython's own rewriting (`cell_reading.parse_cell`), so a
magic's text is a string to it: `%time T = str` is `get_ipython().run_line_magic('time', 'T =
str')`, which binds nothing the reading counts, yet binds `T` in the kernel. So are `%%capture
T`, `%store -r`, `%run`, a one-line cell `store -r` (IPython's automagic: no `%` needed), and
anything that reaches the kernel itself (`get_ipython()`, `In`, `_`, `exec`). `unseen_names`
says which names a cell may so bind: only a few magics are trusted to bind none but what
their text names (`%time`, `%timeit`, `%matplotlib inline`, `f?`, `!ls`); any other makes
every name possible. `bindings.known` trusts no such name.

Python code of a cell no graded function reaches can still rebind a name by other dynamic
means (`sys.modules["__main__"].T = str`); it never runs in the graded program (`own_code`),
so only the learner's own kernel sees it.
"""

from __future__ import annotations

import ast
import functools
import re
import unicodedata

from IPython.core.splitinput import LineInfo

from lib.exercises.cell_reading import parse_text

# Reach the notebook's names or code by text, or the kernel's own namespace.
BY_TEXT = {
    "eval", "exec", "compile", "globals", "locals", "vars", "get_ipython", "__import__",
    "breakpoint", "__builtins__", "__builtin__", "In", "Out",
}  # fmt: skip
# IPython's output and input history: `_`, `__`, `___`, `_3`, `_i`, `_ii`, `_i3`, `_oh`...
HISTORY = re.compile(r"_{1,3}|_\d+|_i+|_i\d+|_[ido]h")
# Attributes that reach a namespace or code as objects (`f.__globals__["x"] = ...`).
INSIDES = {"__dict__", "__globals__", "__builtins__", "__code__", "__closure__", "f_globals"}
# Modules that hand out the kernel or the notebook's namespace (`from IPython import
# get_ipython`, `import __main__`); `IPython.display` only shows values.
KERNEL_MODULES = {"IPython", "ipykernel", "__main__", "builtins", "__builtin__"}

# Magics whose text is Python run as written (no `{x}` expansion): it binds what it names.
AS_WRITTEN = {"time", "timeit"}
# Magics and shell commands trusted when their text expands nothing (no `{` or `$`).
PLAIN = {"matplotlib", "pinfo", "pinfo2", "system", "getoutput"}
_KERNEL_CALLS = {"run_line_magic", "run_cell_magic", "system", "getoutput"}
STAR_IMPORT = re.compile(r"\bimport\s*\(?\s*\*")  # binds whatever the module has


def unseen_names(source: str, tree: ast.AST | None = None) -> set[str] | None:
    """The names IPython may bind when this cell runs, in text the reading does not read as
    Python: every name a trusted magic's text mentions; None when it may bind any. `tree`: the
    cell as `cell_reading.parse_cell` reads it, if read already (it is not read twice)."""
    start = source.lstrip()
    if start.startswith("%%"):  # a cell magic: the body runs under it, read as a cell
        head, _, body = start.partition("\n")
        name = (head[2:].split() or [""])[0]
        inner = unseen_names(body, tree)
        trusted = name in AS_WRITTEN and inner is not None and not _reaches_kernel(head)
        trusted = trusted and not _binds_unnamed(head)
        return _mentioned(head) | inner if trusted else None  # type: ignore[operator]
    one_line = len(source.strip().splitlines()) == 1
    if tree is None or one_line:
        try:
            from IPython.core.inputtransformer2 import TransformerManager

            code = TransformerManager().transform_cell(source)
            if runs_as_magic(code):  # IPython's prefilter: a one-line `store -r` is `%store -r`
                code = TransformerManager().transform_cell("%" + code.strip())
        except Exception:  # IPython confused: the kernel may run anything
            return None
        tree = parse_text(code)
    if tree is None:  # a syntax error: nothing runs, unless IPython rewrites a one-line cell
        return None if one_line else set()
    return _kernel_calls(tree)


def _kernel_calls(tree: ast.AST) -> set[str] | None:
    """What the magics IPython wrote into `tree` mention (`get_ipython().run_line_magic('time',
    'T = str')`: T); None if any is not trusted, or the code reaches the kernel otherwise."""
    found, theirs = set(), set()
    for node in ast.walk(tree):
        call = _call_on_the_kernel(node)
        if call is None:
            continue
        method, texts = call
        name, rest = (texts[0], texts[1:]) if "magic" in method else (method, texts)
        expands = re.search(r"[{$]", "".join(rest))
        if not (name in AS_WRITTEN or (name in PLAIN and not expands)):
            return None
        if any(_reaches_kernel(text) or _binds_unnamed(text) for text in rest):
            return None
        if name in AS_WRITTEN and any(_rewritten(text) for text in rest):
            return None
        if method == "run_cell_magic":  # written by hand: its body is a cell of its own
            inner = unseen_names(rest[-1])
            if inner is None:
                return None
            found |= inner
        found |= _mentioned(" ".join(rest))
        theirs.add(node.func.value.func)  # type: ignore[attr-defined]
    return None if _reaches_kernel(tree, theirs) else found


def _call_on_the_kernel(node: ast.AST) -> tuple[str, list[str]] | None:
    """`("run_line_magic", ["time", "T = str"])` for `get_ipython().run_line_magic("time", "T =
    str")`, as IPython writes a magic or a shell command (`system`, `getoutput`); ("", []) for
    any other call of a method of `get_ipython()`; None for any other node."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    shell, method = node.func.value, node.func.attr
    if not (isinstance(shell, ast.Call) and getattr(shell.func, "id", "") == "get_ipython"):
        return None
    texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
    strings = [t for t in texts if isinstance(t, str)]
    written = strings and len(strings) == len(node.args) and not node.keywords
    return (method, strings) if written and method in _KERNEL_CALLS else ("", [])


def _reaches_kernel(code: str | ast.AST, skip: set[ast.AST] = frozenset()) -> bool:
    """Does this code (text: every word of it) name what reaches the kernel or the notebook's
    namespace (`BY_TEXT`, `HISTORY` read, `INSIDES`, `KERNEL_MODULES`)? `skip`: the
    `get_ipython` IPython itself wrote for a trusted magic."""
    if isinstance(code, str):
        words = _mentioned(code)
        return bool(words & (BY_TEXT | INSIDES | KERNEL_MODULES)) or any(
            HISTORY.fullmatch(w) for w in words
        )
    for node in ast.walk(code):
        if isinstance(node, ast.Name) and node not in skip:
            read = isinstance(node.ctx, ast.Load)
            if node.id in BY_TEXT or (read and HISTORY.fullmatch(node.id)):
                return True
        if isinstance(node, ast.Attribute) and node.attr in INSIDES:
            return True
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [getattr(node, "module", None) or "", *(a.name for a in node.names)]
            if getattr(node, "module", None) == "IPython.display":
                continue
            if any(m.partition(".")[0] in KERNEL_MODULES for m in modules):
                return True
    return False


def _mentioned(text: str) -> set[str]:
    """Every word of `text` that could be a name, as Python reads it: NFKC-normalised (a
    fullwidth `Ｔ` binds `T`; `e` and a combining acute, `é`), cut only at characters no name
    may hold, not at every one `\\w` misses (`My＿T`, with a fullwidth low line, binds `My_T`)."""
    normal = unicodedata.normalize("NFKC", text)
    words = "".join(c if ("_" + c).isidentifier() else " " for c in normal).split()
    return {word for word in words if word.isidentifier()}


def _rewritten(text: str) -> bool:
    """Would IPython rewrite the statement of this `%time`/`%timeit` text before running it?
    Each runs its statement, after its options, as a cell of its own, so a magic in it runs
    too, out of the reading's sight: `%time %run x.py` binds whatever `x.py` does, and so do
    `%timeit -n1 %run x.py` and `%time T = %run x.py`. The statement is tried after each
    leading option and its value (`-n 1`), as the magic's own parser may cut there."""
    from IPython.core.inputtransformer2 import TransformerManager  # heavy: when first needed

    starts, previous = [0], "-"  # the text may start with an option
    for word in re.finditer(r"\S+", text):
        if not (word.group().startswith("-") or previous.startswith("-")):
            break  # neither an option nor an option's value: the statement has begun
        starts.append(word.end())
        previous = word.group()
    try:
        return any(
            TransformerManager().transform_cell(text[at:]).strip() != text[at:].strip()
            for at in starts
        )
    except Exception:  # IPython confused: the kernel may run anything
        return True


def _binds_unnamed(text: str) -> bool:
    """Could running `text` bind a name it does not spell (`from string import *`)?"""
    return STAR_IMPORT.search(text) is not None


def runs_as_magic(source: str) -> bool:
    """Would IPython run this cell as a line magic, although it parses as Python (`reset -f`,
    `ls -la`, a bare `rerun`)? As its prefilter decides for a one-line cell with automagic on:
    the first name, split off by IPython's own `LineInfo`, is one of IPython's or the kernel's
    line magics or aliases, and what follows does not make it an assignment (`ls = 1`). A name
    the notebook binds would shadow the magic; whether it is bound yet is not read, so the
    cell counts as a magic (everything then runs)."""
    lines = source.strip().splitlines()
    if len(lines) != 1:
        return False
    line = LineInfo(lines[0])
    return line.ifun in _magics() and not line.the_rest.startswith(("=", ","))


@functools.cache
def _magics() -> frozenset[str]:
    """The names of IPython's line magics and default aliases, and the kernel's magics
    (imported when first asked: the kernel's module is heavy)."""
    from ipykernel.zmqshell import KernelMagics
    from IPython.core import magics
    from IPython.core.alias import default_aliases
    from IPython.core.magic import Magics
    from IPython.extensions.storemagic import StoreMagics  # loaded by every kernel

    members = (getattr(magics, name) for name in dir(magics))  # loaded lazily: not in `vars`
    classes = [c for c in members if isinstance(c, type) and issubclass(c, Magics)]
    found = {
        name
        for c in [*classes, KernelMagics, StoreMagics]
        for name in (c.magics or {}).get("line", ())
    }
    return frozenset(found | {name for name, _ in default_aliases()})
