"""Names a unit of the learner's code may not bind itself, because every check skips a name the
unit binds (its parameters, locals, loop variables...) while the value bound there can still be
the builtin or module the rules judge: `def f(cp, eval=eval)`, `[bytes(...) for bytes in
[bytes]]`, `global eval`, `bpe=bpe`. `own_code` refuses such a unit with `binds_judged`'s reason.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter

from lib.exercises.allowed import JUDGED_BUILTINS
from lib.exercises.cell_reading import binds, bound_names
from lib.exercises.class_patterns import plain_class
from lib.exercises.python_itself import ORDINARY_DUNDERS
from lib.exercises.scopes import class_names, notebook_bindings

# What a notebook's IPython kernel holds before any cell runs, besides the builtins and dunders
# (`__builtins__`, `__builtin__`, `__name__`...): its `user_ns_hidden`, and `_i`, `_ii`, `_iii`,
# the last cells' text. A unit that binds one anywhere (`if False: get_ipython = 0`, `global
# In`) reads every use as its own, yet where the binding never runs the use reaches the kernel's:
# `get_ipython()` runs any text. `_`, `__`... and `_1`... are left to the learner (`for _ in`):
# they hold only what the program's own read code displayed. A fresh shell's names are pinned
# to this set by `tests/test_own_code_bindings.py`.
KERNEL_NAMES = frozenset({"In", "Out", "_ih", "_oh", "_dh", "_i", "_ii", "_iii"})
KERNEL_NAMES |= {"get_ipython", "exit", "quit", "open"}
# And what IPython and `site` add to `builtins` (`tests/test_own_code_bindings.py` pins them to a
# fresh shell's): a unit that binds or declares `display` (`global display`, `if False: display =
# 0`) makes it a notebook name, read through that unit instead of judged, yet IPython's `display`
# calls a value's `_repr_pretty_` with its printer, which holds `bytes`. `__IPYTHON__` is a dunder.
KERNEL_NAMES |= {"display", "copyright", "credits", "license"}
# The dunders a class of the learner's may define (`__getattr__`, `__setattr__`... would catch
# or hand over attributes by name); `__name__` and `__doc__`, the kernel's, are only read.
DEFINABLE = ORDINARY_DUNDERS - {"__name__", "__doc__"}


def binds_judged(node: ast.AST, judged: set[str], aliases: set[str]) -> str:
    """ "" unless the unit binds a name the rules judge (`judged`: a builtin that runs or finds
    code, `getattr`, `type`, what the exercise forbids; `aliases`: a module's name the notebook
    imports). Every check skips a name the unit binds, yet a default, a loop's iterable or a
    class attribute's value is looked up outside: `def f(cp, eval=eval)`, `for bytes in
    [bytes]`, `global eval`, `bpe=bpe` would each reach the real one unread. A builtin's name
    that the reading judges wherever it is used (`type`, `eval`...) is refused only so, or
    bound for the notebook (`if False: eval = 0`): a plain parameter or a function's local
    variable named `type` holds what its caller or its assignment gives, read there."""
    every = [(item, n) for item in ast.walk(node) for n in bound_names(item)]
    imports = {n for item, n in every if isinstance(item, ast.alias)}
    declared = {n for item, n in every if isinstance(item, ast.Global | ast.Nonlocal)}
    outside = _looked_up_outside(node) | declared  # once: a unit may bind many names
    notebooks = binds(node)[0] | imports  # bound where other units look them up
    for name in sorted({n for _, n in every}):
        if name[:2] == name[-2:] == "__" and name not in DEFINABLE:
            return (
                f"binds `{name}`, a name Python itself gives a meaning: choose another name"
                " (a class may define `__init__`, `__repr__`, operators such as `__add__` and"
                " `__eq__`, and container methods such as `__getitem__`)"
            )
        if name in KERNEL_NAMES:
            return f"binds `{name}`, a name the notebook's kernel already holds: choose another"
        plain = name in JUDGED_BUILTINS and name not in outside | notebooks  # `def f(type)`
        if not plain and (name in JUDGED_BUILTINS or (name in judged and hasattr(builtins, name))):
            return f"binds `{name}`, a builtin's name: choose another name"
        if plain:  # every use of the builtin itself, as the caller's argument, is judged
            continue
        if name in imports:  # an import is judged as one (`outside`, `forbidden_name`)
            continue
        if name in judged:
            return f"binds `{name}`, a name this exercise asks you to do without: choose another"
        if name in aliases and name in outside:
            return f"binds `{name}`, the name of a module the notebook imports: choose another"
    return ""


def _looked_up_outside(node: ast.AST) -> set[str]:
    """The names this unit binds whose value is looked up in the scope around the binding: a
    parameter with a default (`bpe=bpe`), a comprehension's variable (`for m in [bpe]`), any
    name a class body binds (`bpe = bpe`; `s = bpe.train` before `def bpe`, read as the
    notebook's `bpe` where the class has none yet). A plain parameter or a function's local
    variable holds no module (`def f(data)` beside `from lib import data` is fine): its uses are
    read as its own."""
    names = set()
    for item in ast.walk(node):
        if isinstance(item, ast.arguments):
            positional = [*item.posonlyargs, *item.args]
            with_default = positional[len(positional) - len(item.defaults) :]
            with_default += [a for a, d in zip(item.kwonlyargs, item.kw_defaults, strict=True) if d]
            names.update(a.arg for a in with_default)
        elif isinstance(item, ast.comprehension):
            names.update(n.id for n in ast.walk(item.target) if isinstance(n, ast.Name))
    return names | class_names(node)


def known(
    units: dict[str, list],
    names: tuple[dict, dict],
    statements: list[ast.stmt],
    unseen: set[str] | None,
) -> dict[str, ast.stmt]:
    """The notebook's names (`units`: each name's units) that one statement alone binds, with
    it: `name = value` (names only as targets: `TEMPLATE = "{}"`, which
    `by_text.template_texts` reads as that text), or a class Python alone makes
    (`class_patterns.plain_class`; `names`: the names bound to modules and to their members).
    Where no scope of a unit binds the name, it holds that value, or that class. That statement
    must be the only one in the notebook's code (`statements`) that binds the name in the
    notebook's globals (`scopes.notebook_bindings`): a method's `global T; T = str` is inside
    the class it rebinds, and a walrus, `for`, `del`, import or `except ... as` count too, while
    a parameter, a local or a class attribute of the same name is another variable. No name
    IPython may bind unseen (`unseen`, from `magics.unseen_names`; None: any) is known."""
    if unseen is None:
        return {}
    bindings: Counter[str] = Counter()
    for statement in statements:
        bindings.update(notebook_bindings(statement))
    found = {}
    for name, bound in units.items():
        if name in unseen or bindings[name] != 1 or len(bound) != 1:
            continue
        statement = bound[0][1]
        targets = getattr(statement, "targets", [getattr(statement, "target", None)])
        assigned = isinstance(statement, ast.Assign | ast.AnnAssign)
        if (assigned and all(isinstance(t, ast.Name) for t in targets)) or plain_class(
            statement, names
        ):
            found[name] = statement
    return found
