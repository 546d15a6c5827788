"""What each refusal of issue 27's third red team says to the learner, and the kernel's names
pinned to a fresh IPython shell's (`bindings.KERNEL_NAMES`)."""

from __future__ import annotations

import pytest

from lib.exercises.allowed import JUDGED_BUILTINS
from lib.exercises.bindings import DEFINABLE, KERNEL_NAMES
from lib.exercises.python_builtins import PYTHON_BUILTINS
from tests import test_red_team_own_code as harness
from tests.test_own_code import reading

shell = harness.shell  # a fresh IPython shell, as a fixture of this module too

ENCODE = (".encode",)  # `utf8_encode`'s rule


def test_every_name_a_fresh_kernel_holds_may_not_be_bound(shell):
    """Each name IPython puts in a fresh shell's namespace, besides `_` and `_1`... (what the
    program's own code displayed) and `_i1`... (its text), is a kernel name or a dunder that no
    class of the learner's may define."""
    shell.run_cell("1", store_history=True)  # so that `_i`, `_ii`... exist too
    names = set(shell.user_ns) - {"_", "_1", "_i1"}
    assert {"get_ipython", "__builtins__", "__builtin__", "In", "_ih", "_ii"} <= names
    dunders = {n for n in names if n[:2] == n[-2:] == "__"}
    assert names - dunders <= KERNEL_NAMES
    assert not dunders & DEFINABLE


def test_every_name_a_fresh_kernel_adds_to_the_builtins_may_not_be_bound(shell):
    """IPython (`display`, `__IPYTHON__`) and `site` (`license`, `exit`...) add names to the
    builtins beyond Python's own (`python -I -S`): each is a kernel name, a builtin the reading
    judges, or a dunder no class of the learner's may define."""
    shell.run_cell("import builtins\nADDED = set(dir(builtins))", store_history=False)
    # `_`, the last value shown, is not the kernel's: Python's own display hook puts it among the
    # builtins once this process has shown a value (earlier tests do), and `_` stays a name anyone
    # may bind. The graded program shows nothing (each of its cells ends with `pass`).
    added = shell.user_ns["ADDED"] - PYTHON_BUILTINS - {"_"}
    assert {"display", "__IPYTHON__", "license"} <= added
    judged = {n for n in added if n[:2] == n[-2:] == "__" and n not in DEFINABLE}
    assert added - judged <= KERNEL_NAMES | JUDGED_BUILTINS


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (
            "def utf8_encode(cp):\n    global __builtins__\n    return __builtins__",
            "binds `__builtins__`, a name Python itself gives a meaning: choose another name",
        ),
        (
            "if False:\n    get_ipython = 0\nutf8_encode = get_ipython",
            "binds `get_ipython`, a name the notebook's kernel already holds: choose another",
        ),
        (
            "__name__ = 'utf8'\n\ndef utf8_encode(cp):\n    return __name__",
            "binds `__name__`, a name Python itself gives a meaning: choose another name",
        ),
        (
            "def utf8_encode(cp):\n    for In in [cp]:\n        return In",
            "binds `In`, a name the notebook's kernel already holds",
        ),
        (
            "class utf8_encode:\n    def __getattr__(self, name):\n        return name",
            "binds `__getattr__`, a name Python itself gives a meaning: choose another name"
            " (a class may define `__init__`, `__repr__`, operators such as `__add__`",
        ),
        (
            "import dataclasses\n\n@dataclasses.dataclass(init=False)\nclass utf8_encode(str):\n"
            "    encode: int",
            "defines `encode` in class `utf8_encode`, the name of `.encode`, which this exercise"
            " asks you to do without: give it another name",
        ),
        (
            "def utf8_encode(cp):\n    match chr(cp):\n        case str(encode=method):\n"
            "            return method()",
            "uses `.encode`, which this exercise asks you to do without",
        ),
        (
            "def utf8_encode(cp):\n    match cp:\n        case object(__class__=kind):\n"
            "            return kind",
            "uses `.__class__`, which reaches into Python itself",
        ),
        (
            "import functools\n\ndef utf8_encode(cp):\n"
            "    return functools.update_wrapper(cp, chr(cp), updated=('encode',))",
            "uses `functools.update_wrapper`, which names attributes as text: decorate a `def`"
            " with `@functools.wraps(f)`",
        ),
        (
            "import functools\n\ndef utf8_encode(cp):\n    return functools.wraps(cp, ('encode',))",
            "uses `functools.wraps` other than as a decorator, or with names of attributes as"
            " text: write `@functools.wraps(f)` above a `def`",
        ),
        (
            "import functools\n\ndef utf8_encode(cp):\n    return map(functools.wraps, [cp])",
            "uses `functools.wraps` other than as a decorator",
        ),
        (
            "from functools import wraps\n\ndef utf8_encode(cp):\n    return wraps(cp)",
            "uses `functools.wraps` other than as a decorator",
        ),
        (
            "import dataclasses\n\nutf8_encode = dataclasses.make_dataclass('T', ['encode'])",
            "uses `dataclasses.make_dataclass`, which names attributes as text: write the class"
            " out with `@dataclasses.dataclass`",
        ),
    ],
    ids=[
        "__builtins__",
        "get_ipython",
        "__name__",
        "In",
        "__getattr__",
        "field",
        "match keyword",
        "match dunder",
        "update_wrapper",
        "wraps",
        "wraps as a value",
        "wraps imported",
        "make_dataclass",
    ],
)
def test_each_refusal_says_what_to_write_instead(source, said):
    assert said in reading(source).borrowed("utf8_encode", forbidden=ENCODE)


@pytest.mark.parametrize(
    "source",
    [
        "import functools\n\ndef logged(f):\n    @functools.wraps(f)\n    def inner(cp):\n"
        "        return f(cp)\n    return inner\n\n@logged\ndef utf8_encode(cp):\n    return [cp]",
        "class Text:\n    def __init__(self, cp):\n        self.cp = cp\n\n"
        "    def __len__(self):\n        return 1\n\n"
        "    def encoded(self):\n        return [self.cp]\n\n"
        "def utf8_encode(cp):\n    return Text(cp).encoded()",
        "def utf8_encode(cp):\n    for _ in range(1):\n        pass\n    return [cp]",
    ],
    ids=["wraps(f)", "ordinary dunders", "underscore"],
)
def test_honest_patterns_stay_own_code(source):
    assert reading(source).borrowed("utf8_encode", forbidden=ENCODE) == ""
