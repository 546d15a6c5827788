"""What a graded answer may use: a short list, so that whatever is not on it is out.

A graded function, and every function of the notebook it reaches, may use

- its parameters and local variables, and the notebook's own functions, classes and values
  (`own_code` reads what binds each of them by these same rules);
- Python's builtins, except the few that run or find code (`exec`, `open`, `globals`...);
- the standard-library modules below, which only compute, by their public names: an allowed
  module's attribute is allowed if it is public (no leading `_`), is not a builtin that runs
  code, and is judged as whatever module it is or hands out (`module_names.reached` and
  `engines`, which look in the grader's own copy of the module: `collections._sys`,
  `dataclasses.builtins` and `re.enum` are out whatever they hold, and `dataclasses.re` and
  `string.Template`, whose `pattern` `re` compiles, are `re`, out where an exercise forbids it);
  a module is used by its names (`collections.Counter`), never handed on as a value nor changed;
- what its exercise allows besides (`allowed_lib`: a course helper such as `lib.bpe.merge`, or
  a module such as `codecs`).

Anything else (another module, a method its exercise forbids, a dunder beyond the ordinary
ones, `getattr` with a name worked out at run time) is not own code, and the reason names it.
A list of what is allowed stays short and can be tested in both directions; a list of tricks
never ends.

What each rule does is in its own module: `module_names` (an allowed module's names),
`python_itself` (dunders, frames, private attributes; `python_classes`: the private names
Python's classes have), `type_use` (`type`), `by_text` (functions that name attributes as text;
`templates`: what `.format` may be called on), `forbidden` (an exercise's shortcuts),
`unit_reading` (one unit by all).

>>> module_allowed("collections.abc", set()), module_allowed("json", set())
(True, False)
"""

from __future__ import annotations

import ast
import importlib
from types import ModuleType

from lib.exercises.python_builtins import PYTHON_BUILTINS

# Standard-library modules that only compute (and `time`, to measure): none loads, runs or
# finds code.
COMPUTING = frozenset(
    {"collections", "itertools", "functools", "heapq", "bisect", "math", "unicodedata"}
    | {"re", "regex", "dataclasses", "string", "typing", "time", "__future__"}
)
# `typing` offers only its names for type hints: its others hand out `type` itself
# (`get_origin(Type)`, `class M(Type)` is a metaclass), run hints written as text
# (`get_type_hints`), or make classes from names as text (`TypedDict('T', {...})`).
MEMBERS = {
    "typing": frozenset(
        {"Any", "Callable", "ClassVar", "Collection", "Counter", "DefaultDict", "Deque", "Dict"}
        | {"Final", "FrozenSet", "Generator", "Hashable", "Iterable", "Iterator", "List"}
        | {"Literal", "Mapping", "MutableMapping", "Optional", "OrderedDict", "Sequence", "Set"}
        | {"Sized", "Tuple", "Union", "TYPE_CHECKING", "cast"}
    )
}
# The builtins that run code, find it, or reach the notebook's namespace or files.
RUNS_CODE = frozenset(
    {"exec", "eval", "compile", "__import__", "globals", "locals", "vars", "open", "input"}
    | {"breakpoint", "help", "setattr", "delattr", "__build_class__", "__loader__", "__spec__"}
)
# The builtins the reading judges wherever they are used: a name of the code's own may not be one.
JUDGED_BUILTINS = RUNS_CODE | {"getattr", "hasattr", "type"}
BUILTINS = PYTHON_BUILTINS - RUNS_CODE  # a fixed list: IPython adds names to `builtins`


def is_builtin(node: ast.AST | None, name: str = "") -> bool:
    """Is `node` a name (`name`, if given) that means the builtin where it is read? A rule that
    trusts a builtin by its name (`isinstance(x, type)`, `type(x) == int`) asks here, never the
    name alone: a cell, an enclosing function or a parameter may bind `isinstance` or `int` to a
    function of the learner's, which `type` would then reach as a plain value. `unit_reading`
    marks each name (`.builtin`) from what binds it: nothing in the unit's scopes, nothing in
    the notebook."""
    named = isinstance(node, ast.Name) and (not name or node.id == name)
    return named and getattr(node, "builtin", False)


def module_allowed(module: str, allowed: set[str]) -> bool:
    """May code import `module` (a listed module, or one its exercise allows)?"""
    return module.partition(".")[0] in COMPUTING or module in allowed


def builtin_outside(name: str) -> str:
    """ "" for a builtin the code may use; else why not."""
    if name in RUNS_CODE:
        return f"uses `{name}`, which runs or finds code"
    return "" if name in BUILTINS else f"uses `{name}`, which no cell the grader can read defines"


def allowed_import(module: str, allowed: set[str]) -> ModuleType | None:
    """The grader's own import of an allowed module (None for any other: it is not imported)."""
    if module.partition(".")[0] == "lib" or not module_allowed(module, allowed):
        return None
    try:
        return importlib.import_module(module)
    except Exception:  # not there: the kernel cannot import it either
        return None
