"""Code that hides what it calls: the deny-lists the own-code reading (`own_code`) checks each
node of a target's code against.

Reading cannot follow a call whose target is worked out as the code runs: a module or function
named in a string (`__import__`, `importlib`, `pickle`, `runpy`, `getattr` with a computed name),
a namespace reached by introspection (`__globals__`, `__subclasses__`, `sys.modules`), C calls
(`ctypes`), the kernel itself (`get_ipython`), or a module the notebook wrote to disk. No
exercise needs any of them, so a target that uses one is not read as the student's own code.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys

DYNAMIC = {"__import__", "importlib", "exec", "eval", "compile", "globals", "vars", "builtins"}
DYNAMIC |= {"__builtins__", "__loader__", "__spec__", "gc"}  # gc: objects found by search
# Modules and functions that load or call code named in a string or a file.
DYNAMIC |= {"pickle", "marshal", "runpy", "pkgutil", "inspect", "get_ipython", "__main__"}
DYNAMIC |= {"setattr", "modules"}  # `from sys import modules`
DYNAMIC |= {"ctypes", "IPython", "methodcaller", "attrgetter"}  # C calls, kernels, names as text
# Attributes that reach other objects' code and namespaces: no exercise needs them.
INTROSPECTION = {"__subclasses__", "__globals__", "__dict__", "__builtins__", "__code__"}
INTROSPECTION |= {"__closure__", "__base__", "__bases__", "__mro__", "__class__", "__self__"}
INTROSPECTION |= {"__func__", "__getattribute__", "__reduce__", "__reduce_ex__", "__import__"}
INTROSPECTION |= {"__loader__", "__spec__", "modules"}  # `sys.modules`, under any alias of sys
INTROSPECTION |= {"methodcaller", "attrgetter", "pythonapi"}
# Calls that can rebind any name of the notebook, wherever they are.
REBINDING = {"exec", "eval", "compile", "globals", "setattr", "vars"}


@functools.cache
def _installed(module: str) -> bool:
    """Is `module`'s top-level package in this environment (where the kernels run too)?"""
    top = module.partition(".")[0]
    try:
        return top in sys.builtin_module_names or importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def computed_attribute(item: ast.AST) -> str:
    """`getattr(x, "de" + "code")`: an attribute whose name is worked out at run time."""
    if not (isinstance(item, ast.Call) and isinstance(item.func, ast.Name)):
        return ""
    if item.func.id in {"getattr", "hasattr", "delattr"} and not (
        len(item.args) > 1 and isinstance(item.args[1], ast.Constant)
    ):
        return (
            f"uses `{item.func.id}` with a name worked out at run time, which hides what it calls"
        )
    return ""


def hidden_call(item: ast.AST) -> str:
    """ "" unless this one node loads or calls code in a way reading cannot follow; then how."""
    if isinstance(item, ast.Name) and item.id in DYNAMIC:
        return f"uses `{item.id}`, which hides what it calls"
    if isinstance(item, ast.Attribute) and item.attr in INTROSPECTION:
        return f"uses `.{item.attr}`, which hides what it calls"
    if isinstance(item, ast.Import | ast.ImportFrom):
        modules = [item.module or ""] if isinstance(item, ast.ImportFrom) else []
        modules += [n.name for n in item.names] if isinstance(item, ast.Import) else []
        hidden = [m for m in modules if m.partition(".")[0] in DYNAMIC]
        if hidden:
            return f"imports `{hidden[0]}`, which hides what it calls"
        unseen = [m for m in modules if not getattr(item, "level", 0) and not _installed(m)]
        if unseen:  # a module the notebook wrote itself, say: the grader cannot read it
            return f"imports `{unseen[0]}`, a module that is not part of the course or Python"
    return ""
