"""The rules that close red team round 4's doors (`tests/test_red_team_own_code_4.py`), each
tried beyond the spelling the red team used, and the honest code next to them kept passing."""

from __future__ import annotations

import ast
import subprocess
import sys
import time

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.exercises import for_lesson
from lib.exercises.allowed import BUILTINS, RUNS_CODE
from lib.exercises.own_code import Notebook
from lib.exercises.python_builtins import NEWER
from lib.exercises.scopes import resolve
from lib.grading.grading_job import Program, graded_program
from tests import test_red_team_own_code as harness
from tests.test_red_team_own_code import ROOT

shell = harness.shell  # a fresh IPython shell, as a fixture of this module too

UTF8_ENCODE = next(e for e in for_lesson(1) if e.name == "utf8_encode")
HONEST = UTF8_ENCODE.solution_code


def verdict(*cells: str) -> str:
    """What the grader says of these cells' `utf8_encode` ("" when it is own code)."""
    return Notebook(list(cells)).borrowed("utf8_encode", (), UTF8_ENCODE.forbidden)


def test_a_cell_too_deep_to_read_is_skipped_and_the_rest_is_graded():
    """A cell the parser or `ast.unparse` cannot follow is read as a syntax error would be:
    the honest answer in the next cell keeps its marks, and its program is written out."""
    for deep in ("x = " + "-" * 20000 + "1", "DEEP = " + "lambda cp: " * 500 + "cp"):
        code = Notebook([deep, HONEST])
        assert code.borrowed("utf8_encode", (), UTF8_ENCODE.forbidden) == ""
        assert code.program(["utf8_encode"]) == {1: code.text[(1, 0, 0)]}
        assert "DEEP" not in code.units and "x" not in code.units


def test_the_builtins_list_is_plain_pythons():
    """`allowed.BUILTINS` is written out, not read from a `builtins` IPython has added to: it
    is the running Python's own builtins (no `site`, no IPython), less those that run code."""
    plain = subprocess.run(
        [sys.executable, "-I", "-S", "-c", "import builtins; print(*dir(builtins))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    python_own = {name for name in plain if name[:1] != "_" or name[:2] == "__"}
    assert python_own - RUNS_CODE <= BUILTINS  # none missing
    assert BUILTINS - set(plain) <= NEWER  # nothing else
    assert not {"get_ipython", "display", "exit", "help"} & BUILTINS


def test_check_reads_the_code_that_runs_under_any_wrapper(shell):
    """`check()` reads a function from its code object and anything else callable (here a
    `functools.cache` wrapper whose `__wrapped__` names an honest function) from the cell that
    defines its name: never from the source `__wrapped__` leads to."""
    for cell in (
        "import functools\n\ndef honest(cp):\n    return bytes([cp])",
        "@functools.cache\n@functools.wraps(honest)\ndef utf8_encode(cp):\n"
        "    return chr(cp).encode()",
    ):
        shell.run_cell(cell, store_history=True)
    assert "uses `.encode`" in UTF8_ENCODE.not_own(shell.user_ns)


GRAB = "class Grab(F):\n    pass\n\ndef utf8_encode(cp):\n    Grab\n    return bytes([cp])\n"


@pytest.mark.parametrize(
    "imports",
    [
        "from string import Formatter as F",
        "from string import *\nF = Formatter",
        "if True:\n    from string import *\nF = Formatter",
        "import string\nF = getattr(string, 'Formatter')",
        "import string as s\nF = s.Formatter",
    ],
)
def test_string_formatter_is_refused_however_it_is_imported(imports):
    """`string.Formatter` fetches attributes named in a format string: it is refused as an
    attribute, an imported name, one of `*`'s names, or a known name handed to `getattr` (a `*`
    inside a statement binds names no reading sees: what uses them is refused for that)."""
    assert "Formatter`, which" in verdict(imports, GRAB)


KEPT_FIELD = (
    "import dataclasses\n\nLEAD = dataclasses.field(default=0)\n\n"
    "@dataclasses.dataclass\nclass Text:\n    lead: int = LEAD\n\n"
    "def utf8_encode(cp):\n    LEAD.name = 'en' 'code'\n"
)


@pytest.mark.parametrize(
    "cells",
    [
        [KEPT_FIELD + "    return dataclasses.astuple(Text())\n"],
        [KEPT_FIELD + "    return dataclasses.replace(Text(), lead=cp)\n"],
        ["from dataclasses import asdict\n\ndef utf8_encode(cp):\n    return asdict(cp)\n"],
        [
            "class Text:\n    lead: int\n    __annotations__['x'] = int\n\n"
            "def utf8_encode(cp):\n    Text\n    return bytes([cp])\n"
        ],
    ],
)
def test_dataclass_fields_are_read_by_their_names_only(cells):
    """A field's name may change after the class body is read (a `Field` kept in a variable,
    or `__annotations__` written to), so nothing that reads fields by the names their `Field`s
    hold (`astuple`, `asdict`, `replace`) is allowed, nor any use of `__annotations__`."""
    found = verdict(*cells)
    assert "read the fields by their names" in found or "`__annotations__`" in found, found


def test_an_honest_dataclass_keeps_its_marks():
    """`field(default_factory=...)`, `fields()` and fields read by name stay allowed."""
    honest = (
        "import dataclasses\n\n@dataclasses.dataclass\nclass Parts:\n    lead: int\n"
        "    rest: list = dataclasses.field(default_factory=list)\n\n"
        "def utf8_encode(cp):\n    names = [f.name for f in dataclasses.fields(Parts)]\n"
        "    parts = Parts(cp, [len(names)])\n    return bytes([parts.lead])\n"
    )
    assert verdict(honest) == ""


def test_the_graded_program_displays_nothing(shell):
    """IPython calls a displayed value's hooks (`_repr_pretty_` with its printer,
    `_ipython_display_`, `_repr_html_`); the graded program displays no value, so none runs."""
    cells = [
        "CALLS = []\n\nclass Shown:\n    def _repr_pretty_(self, printer, cycle):\n"
        "        CALLS.append(printer)\n\n    def _ipython_display_(self):\n"
        "        CALLS.append(0)\n\n    def _repr_html_(self):\n        CALLS.append(1)\n\n"
        "(shown := Shown())",
        "def utf8_encode(cp):\n    shown, CALLS\n    return bytes([cp])\n\nshown",
    ]
    code = Notebook(cells)
    assert code.borrowed("utf8_encode", (), UTF8_ENCODE.forbidden) == ""
    program = Program(("utf8_encode",), code.program(["utf8_encode"]))
    notebook = new_notebook(cells=[new_code_cell(cell) for cell in cells])
    for cell in graded_program(notebook, program, [str(ROOT)]).cells:
        assert shell.run_cell(cell.source).success
    assert shell.user_ns["CALLS"] == []


MODULE_USED = "    return collections._sys.modules['builtins'].eval('chr(cp).en' 'code()')\n"


PRIVATE = "uses `collections._sys`, a private part"


@pytest.mark.parametrize(
    "cells, found",
    [
        (
            [
                "import collections",
                "def utf8_encode(cp):\n    (lambda collections: 0)\n" + MODULE_USED,
            ],
            PRIVATE,
        ),
        (
            [
                "import collections",
                "def utf8_encode(cp):\n    class K:\n        def collections(self):\n"
                "            return 0\n" + MODULE_USED,
            ],
            "binds `collections`, the name of a module",  # a class body looks it up outside
        ),
        (
            [
                "import collections",
                "def utf8_encode(cp):\n    def inner():\n        global collections\n"
                "        collections = 0\n    return collections._sys\n",
            ],
            "binds `collections`, the name of a module",
        ),
        (
            [
                "try:\n    import collections\nexcept ImportError:\n    pass",
                "def utf8_encode(cp):\n" + MODULE_USED,
            ],
            PRIVATE,
        ),
        (["def utf8_encode(cp):\n    import collections\n" + MODULE_USED], PRIVATE),
        (
            [
                "import collections\ncollections.Counter = lambda x: 1",
                "def utf8_encode(cp):\n    return collections.Counter(cp)",
            ],
            "changes `collections.Counter`",
        ),
    ],
    ids=["lambda", "method", "global", "try", "inside", "module changed"],
)
def test_a_module_is_read_as_the_module_in_every_scope_it_reaches(cells, found):
    """Each name is read in its own scope: a name an inner scope binds does not hide the module
    elsewhere, a module imported inside `try` or a function is still one, and a module's
    names may not be changed (the program's other code would see the change)."""
    assert found in verdict(*cells)


@pytest.mark.parametrize(
    "source",
    [
        "def utf8_encode(cp):\n    counts = {}\n    def bump(collections):\n"
        "        return collections + 1\n    return bytes([bump(cp) - 1])\n",
        "def utf8_encode(cp):\n    out = [b for b in [cp]]\n    match out:\n"
        "        case [first, *rest]:\n            return bytes([first, *rest])\n    return b''\n",
        "import collections\n\ndef utf8_encode(cp):\n    seen = collections.Counter([cp])\n"
        "    return bytes(sorted(seen))\n",
    ],
    ids=["parameter named like a module", "comprehension and match", "module used"],
)
def test_honest_locals_and_modules_stay_own_code(source):
    assert verdict(source) == ""


BOX = "class Box:\n    def __getitem__(self, key):\n        return int\n\nbox = Box()\n\n"


@pytest.mark.parametrize(
    "hint, found",
    [
        ("'box[eval]'", "subscripts `box`"),
        ("list['box[bytes]']", "subscripts `box`"),
        ("Box[bytes]", "subscripts `Box`"),
        ("'eval'", "naming `eval`"),
        ("'int.__class__'", "reads `.__class__`"),
        ("'f()'", "written as code"),
    ],
)
def test_a_hint_that_would_run_code_when_evaluated_is_refused(hint, found):
    """`functools.singledispatch` evaluates hints (strings inside them too): a subscript of the
    notebook's own value runs its code, so a hint may subscript only Python's or a module's."""
    source = BOX + f"def utf8_encode(cp: {hint}):\n    box\n    return bytes([cp])\n"
    assert found in verdict(source)


def test_a_builtins_name_rebound_by_the_notebook_is_not_subscripted_in_a_hint():
    assert "subscripts `list`" in verdict(
        BOX + "list = box\n\ndef utf8_encode(cp: 'list[int]'):\n    return bytes([cp])\n"
    )


@pytest.mark.parametrize(
    "hint",
    [
        "int",
        "'int'",
        "list[int] | None",
        "dict[str, tuple[int, ...]]",
        "'collections.Counter[str]'",
    ],
)
def test_honest_hints_stay_own_code(hint):
    source = (
        f"import collections\n\ndef utf8_encode(cp: {hint}) -> bytes:\n    return bytes([cp])\n"
    )
    assert verdict(source) == ""


def test_each_name_is_found_in_the_scope_python_finds_it_in():
    """`scopes.resolve` as Python resolves: a lambda's parameter, a comprehension's variable and
    a class body's name stay where they are bound; `global` and `nonlocal` reach out."""
    unit = ast.parse(
        "def f(cp):\n    (lambda m: m)\n    [x for x in cp]\n    def g():\n        nonlocal cp\n"
        "        global h\n        cp = h = 1\n    class K:\n        k = 0\n        j = k\n"
        "        def m(self):\n            return k\n    return m, x, cp, k\n"
    ).body[0]
    scopes = resolve(unit)
    kinds: dict[str, set[str]] = {}
    for node in ast.walk(unit):
        if isinstance(node, ast.Name):
            found = scopes.get(id(node))
            kinds.setdefault(node.id, set()).add(found.kind if found else "notebook")
    assert kinds == {
        "m": {"function", "notebook"},  # the lambda's, then f's return: the notebook's
        "x": {"comprehension", "notebook"},
        "cp": {"function"},  # f's, also in g (nonlocal)
        "h": {"notebook"},
        "k": {"class", "notebook"},  # the class body's; not seen by its method nor by f
        "j": {"class"},
    }


def _one_big_function(n: int, imports_inside: bool) -> str:
    """A function with n imports of its own and n uses, or n locals named like the notebook's
    n modules: work per name that grew with the unit's size made these quadratic."""
    if imports_inside:
        body = "".join(f"    import math as m{i}\n    x{i} = m{i}.pi\n" for i in range(n))
        return f"def utf8_encode(cp):\n{body}    return bytes([cp])\n"
    imports = "".join(f"import math as m{i}\n" for i in range(n))
    body = "".join(f"    m{i} = {i}\n" for i in range(n))
    return f"{imports}def utf8_encode(cp):\n{body}    return bytes([cp])\n"


@pytest.mark.parametrize("imports_inside", [True, False], ids=["local imports", "locals"])
def test_reading_one_big_unit_grows_in_proportion_to_it(imports_inside):
    seconds = []
    for n in (200, 800):
        source, tries = _one_big_function(n, imports_inside), []
        for _ in range(3):  # the best of three: one slow moment on a loaded machine is noise
            started = time.process_time()
            assert verdict(source) == ""
            tries.append(time.process_time() - started)
        seconds.append(min(tries))
    assert seconds[1] < 8 * seconds[0] + 0.05, seconds  # four times the size: at most twice linear
