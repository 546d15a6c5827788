"""Red team on the own-code reading, round 17 (after round 16's door A: an annotated attribute of
a decorated class is never read as `K().X`). Each open hole is `xfail(strict=True)`, its reason
saying what was measured and what would close it; each attack the reading held is a plain
test that, where it can, also runs the attack and sees it format the function's globals.
Measured with `verdict` (the reading's `Notebook.borrowed`, as `check()` and the grader read),
`function_of` and `reads_globals` (the cells run in a plain namespace), `_in_a_shell` (an
IPython shell of its own, what `check()` says there), and one real grader batch (`graded`).

Doors found:

1. **Another class's constructor stores the attribute `self.FMT` reads.** `self.FMT` in a
   method of a sealed `K` is read as `K().FMT`, the class's template, once nothing in the
   notebook stores an attribute named `FMT` (`sealed_classes`). But an ordinary dunder is read
   anywhere, and a method read off a class is a plain function that runs on whatever object
   it is handed: `D.__init__(k, '{0.__globals__}')`, with `D` a dataclass of the learner's
   whose field is `FMT`, stores the field into `k`, an instance of `K`, and no `.FMT =` is
   written anywhere (the generated `__init__` is text `dataclasses` runs). So do Python's own
   constructors of the allowed modules, naming their attributes in their own code:
   `collections.UserString.__init__(k, t)` sets `k.data`, `string.Template.__init__(k, t)`
   sets `k.template`, and the in-place `collections.UserList.__iadd__(k, t)` sets `k.data` to
   `k.data + t`. Measured before the fix: 10 spellings (`FOREIGN`: a plain, a frozen and an
   imported-alone dataclass, a private field `_K__FMT`, `D.__init__` kept in another class,
   `UserString` twice, `Template`, `UserList.__iadd__`, and `K`'s own `__init__` running
   `UserString.__init__(self, t)`) each read as own code (verdict ""), and each, run, formats
   the function's globals. The template's fields are never judged, so frames are open too:
   called as the grading cell calls it, `MARKER` hands back the caller's `marker`. Through the
   real, sandboxed grader, from a scratch script before the fix (mallory's lesson 1 with
   `MARKER` as `bytes_per_char` and `template_init` as `is_valid_utf8`, its class renamed `J`;
   olivia's honest notebook beside, full marks; one batch, 68 s): `bytes_per_char` 0 / 1, "it
   returns '54dd407b03501118c8c48b6f5774fdd3' whatever the input": the grading cell's secret
   `marker`; `is_valid_utf8` 0 / 2, "got:" the graded kernel's globals (`{'__name__':
   '__main__', ...` ending `_course_grader_54dd407b>}`, the marker's first 8 digits). No marks,
   but the secret that tells the grader's report from a forged one is in the learner's
   feedback, as in rounds 14 and 16. (`UserString.__init__` as `is_valid_utf8` was refused in
   lesson 1 only because the lesson imports a module named `data`.)
   Closed here, in `lib/exercises/sealed_classes.py`: `self.X` is read as `K().X` only where
   no code of the notebook reads a dunder that is a method (`x.__init__`, `x.__iadd__`...;
   `__name__` and `__doc__` are no methods). The 10 and `MARKER` are refused ("a template
   worked out at run time"); the grader refuses both of mallory's (`graded`, after the fix)
   and olivia keeps full marks. Cost, by design: a notebook that reads `super().__init__()`
   anywhere loses `self.FMT.format` (`K.FMT.format` still reads; `test_the_cost_of_door_1`).
   A scan of every public class of the allowed modules for methods storing into `self` found
   only dunders (`__init__`, `__iadd__`, `__imul__`, `__ior__`, `__set_name__`) and two that
   store what no template can be (`re.Scanner.scan`: a match; `UserDict.copy`: put back).

2. **A trusted magic's words were cut where a name goes on (`check()` only).** Round 15's
   door D normalised each word of a `%time` line NFKC, but the words were cut by `\\w`, which
   misses characters a name may hold: a fullwidth low line `＿` (or `︳`), which Python reads
   as `_`, and a combining mark (`e` + U+0301 is `é`). So `%time My＿T = str` binds `My_T`
   while its words are `My` and `T`: after `class My_T: pass`, `not_own` (what `check()` says)
   gave "" in an IPython shell and the target formatted its globals there; likewise a template
   name (`my＿fmt`), `︳` for `_`, and `Cafe\\u0301` for a class `Café` (four in a shell); a
   name ending in a mark no letter absorbs (`T\\u0301`) read as own code too (`verdict`; in a
   shell after the fix, the kernel's `T\\u0301` is `str`). The grader never runs the magic's
   cell, so no marks (as round 15).
   Closed here, in `lib/exercises/magics.py`: the text is NFKC-normalised first, then cut only
   at characters no name may hold (`("_" + c).isidentifier()`); the 5 are refused.

3. **A dataclass's generated `__repr__` reads its fields, which may be named as frames are
   (rule gap, text only).** A class body may bind `gi_frame` (only a read of `.gi_frame`
   is refused), and `D.__repr__(walk())` reads `walk().gi_frame` off a generator: verdict "",
   and it returns `generator(gi_frame=<frame at 0x..., file '<string>', line 8, code walk>)`.
   Only one level, as text (the frame's repr holds no namespace), so no secret comes of it.
   Closed (fix27x) in `python_itself.binds_reaching_in`: a class body, of a dataclass or any
   other, may not bind a name of `python_itself.REACHES_IN`; the verdict names `gi_frame`.

Safety fix (no door): `scopes._lookup` stopped at a class body's `global fmt` for a function
inside that class, where Python does not (round 16's "held by luck"); it now consults a class's
`global`s for the class body's own names only, as it does its other names, so `resolve` gives
Python's answer (`test_a_class_global_is_the_class_bodys_alone`, which fails without it).

Held (refused): the notebook's `K` rebound by a walrus in a top-level function's default, in
a decorator, in a class's bases, in a lambda default inside a default (each, run, formats the
globals); a star import in a `%%time` body and on a `%time` line continued by a backslash
(each, in a shell, makes `Formatter` `string`'s; measured once from a scratch script), and in
`%timeit -s` setup (which binds nothing in the notebook's namespace). Read, no door found: a
function's local chosen among written templates (`templates.local_templates`): every node
`cell_reading.bound_names` knows spoils the name unless an `=` gives it a written template,
nested functions and class bodies included, and an unpacking that is starred or of unequal
length gives none. Looked at, no door: `regex`'s `subf`/`expandf` take `str.format`
templates unjudged, but their arguments are `_regex.Capture` objects, whose attributes reach
no Python function or namespace.

The file runs in about 75 s, 61 of them the grader batch (`graded`).
"""

from __future__ import annotations

import ast

import pytest

from lib.exercises.running import run_cases
from lib.exercises.scopes import resolve
from tests.test_red_team_own_code_9 import function_of, verdict
from tests.test_red_team_own_code_14 import _in_a_shell, olivia_and_mallory, reads_globals

GLOBALS = "'{0.__globals__}' * 1"
CLASS = "class K:\n    FMT = '{}'\n\n    def show(self, f):\n        return self.FMT.format(f)\n\n"
DATACLASS = "import dataclasses\n\n@dataclasses.dataclass\nclass D:\n    FMT: str = '{}'\n\n"
REFUSED = "worked out at run time"


def constructed(head: str, run: str, attribute: str = "FMT") -> str:
    """`head`, a sealed class `K` reading `self.<attribute>` as a template, and `bytes_per_char`
    running `run` (another class's method, given `k`, an instance of `K`) before `k.show`."""
    cls = CLASS.replace("FMT", attribute)
    return (
        f"{head}{cls}def bytes_per_char(s):\n    k = K()\n    {run}\n"
        "    return k.show(bytes_per_char)\n"
    )


# Door 1: another class's constructor (or in-place operator), read off that class and given an
# instance of `K`, stores the attribute its own code names: no `.FMT =` in the notebook.
FOREIGN = {
    "dataclass_init": constructed(DATACLASS, f"D.__init__(k, {GLOBALS})"),
    "frozen_dataclass_init": constructed(
        DATACLASS.replace("dataclass\n", "dataclass(frozen=True)\n"), f"D.__init__(k, {GLOBALS})"
    ),
    "dataclass_imported_alone": constructed(
        "from dataclasses import dataclass\n\n@dataclass\nclass D:\n    FMT: str = '{}'\n\n",
        f"D.__init__(k, FMT={GLOBALS})",
    ),
    "dataclass_private_field": constructed(
        DATACLASS.replace("FMT: str", "_K__FMT: str"), f"D.__init__(k, {GLOBALS})", "__FMT"
    ),
    "dataclass_init_in_a_holder": constructed(
        f"{DATACLASS}class H:\n    init = D.__init__\n\n", f"H.init(k, {GLOBALS})"
    ),
    "userstring_init": constructed(
        "import collections\n\n", f"collections.UserString.__init__(k, {GLOBALS})", "data"
    ),
    "userstring_imported_alone": constructed(
        "from collections import UserString\n\n", f"UserString.__init__(k, {GLOBALS})", "data"
    ),
    "template_init": constructed(
        "import string\n\n", f"string.Template.__init__(k, {GLOBALS})", "template"
    ),
    "userlist_in_place_add": constructed(
        "import collections\n\n", "collections.UserList.__iadd__(k, '0.__globals__}')", "data"
    ).replace("data = '{}'", "data = '{'"),
    "in_the_own_constructor": "import collections\n\nclass K:\n    data = '{}'\n\n"
    "    def __init__(self, t):\n        collections.UserString.__init__(self, t)\n\n"
    "    def show(self, f):\n        return self.data.format(f)\n\n"
    f"def bytes_per_char(s):\n    return K({GLOBALS}).show(bytes_per_char)\n",
}

# What door 1's fix keeps: `self.FMT` with no dunder method read anywhere (`__name__` is none).
HONEST = {
    "self_constant": CLASS.replace("'{}'", "'{:d}'").replace("(f)", "(len(f))")
    + "def bytes_per_char(s):\n    return int(K().show(s))\n",
    "self_constant_beside_a_name_read": CLASS.replace("'{}'", "'{:d}'").replace("(f)", "(len(f))")
    + "def label(f):\n    return f.__name__\n\n"
    + "def bytes_per_char(s):\n    return int(K().show(s)) + len(label(label)) - 5\n",
}
# Its cost: `super().__init__()` anywhere (here in a class of its own) is a dunder method read.
COST = (
    CLASS.replace("'{}'", "'{:d}'").replace("(f)", "(len(f))")
    + "class Box(list):\n    def __init__(self):\n        super().__init__()\n\n"
    + "def bytes_per_char(s):\n    return int(K().show(s))\n"
)


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_a_foreign_constructor_does_read_the_globals_when_run(name: str) -> None:
    assert reads_globals(FOREIGN[name])


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_a_template_stored_by_a_foreign_constructor_is_refused(name: str) -> None:
    """Measured before the fix: verdict "" for all 10. Closed: `K().X` is no template where
    any dunder method is read (`sealed_classes._stores_unspelt`)."""
    assert REFUSED in verdict("bytes_per_char", FOREIGN[name])


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_self_constant_is_own_code(name: str) -> None:
    assert function_of(HONEST[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST[name]) == ""


def test_the_cost_of_door_1() -> None:
    assert function_of(COST, "bytes_per_char")("abc") == 3
    assert REFUSED in verdict("bytes_per_char", COST)
    assert verdict("bytes_per_char", COST.replace("self.FMT", "K.FMT")) == ""


# Door 1 with a template no reading judges: from a running generator's frame, five callers up,
# the grading cell's `marker` (as rounds 14 and 16).
MARKER = constructed(
    DATACLASS,
    "D.__init__(k, '{0[0].gi_frame.f_back.f_back.f_back.f_back.f_back.f_locals[marker]}')",
).replace(
    "    return k.show(bytes_per_char)\n",
    "\n    def walk(box):\n        yield k.show(box)\n\n"
    "    box = []\n    box.append(walk(box))\n    return next(box[0])\n",
)


def test_a_foreign_constructor_reads_the_callers_marker_and_is_refused() -> None:
    """Called as the grading cell calls it (`run_and_publish` -> `run_cases`)."""
    function = function_of(MARKER, "bytes_per_char")

    def run_and_publish(marker: str) -> list[dict]:
        return run_cases(function, [(("abc",), {})], None)

    assert run_and_publish("5ec7e7" * 5) == [{"returned": "5ec7e7" * 5}]
    assert REFUSED in verdict("bytes_per_char", MARKER)


# The grader: mallory's lesson 1 with two of door 1's attacks, olivia's honest solutions beside.
GRADED_ATTACKS = {
    "bytes_per_char": MARKER,
    "is_valid_utf8": FOREIGN["template_init"]
    .replace("K", "J")
    .replace("bytes_per_char", "is_valid_utf8"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    return olivia_and_mallory(tmp_path_factory.mktemp("round17"), GRADED_ATTACKS)


def test_the_grader_refuses_a_foreign_constructor(graded: dict) -> None:
    """Before the fix (a scratch run): the marker in `bytes_per_char`'s feedback, the kernel's
    globals in `is_valid_utf8`'s. Now both are refused unrun, nothing of theirs in it."""
    assert all(row["score"] == row["max_score"] for row in graded["olivia"].values()), graded
    for name in GRADED_ATTACKS:
        row = graded["mallory"][name]
        assert row["score"] == 0 and REFUSED in row["reason"], row
        assert "__main__" not in row["reason"] and "returns '" not in row["reason"], row


# Door 2: a trusted magic's words, cut where Python's names are.
USES = "def bytes_per_char(s):\n    return {}('{{0.__globals__}}').format(bytes_per_char)\n"


def uncut(name: str, spelt: str) -> list[str]:
    """A plain class `name`, a `%time` line binding it spelt `spelt`, and a target that formats
    its globals through `name(...).format` once the magic has made `name` the `str` class."""
    return [f"class {name}:\n    pass\n", f"%time {spelt} = str\n", USES.format(name)]


UNCUT = {
    "fullwidth_low_line": uncut("My_T", "My\uff3fT"),
    "vertical_low_line": uncut("My_T", "My\ufe33T"),
    "combining_acute": uncut("Caf\u00e9", "Cafe\u0301"),
    "a_mark_left_alone": uncut("T\u0301", "T\u0301"),
    "template_name": [
        "my_fmt = '{}'\n",
        "%time my\uff3ffmt = '{0.__glob' 'als__}'\n",
        "def bytes_per_char(s):\n    return my_fmt.format(bytes_per_char)\n",
    ],
}


@pytest.mark.parametrize("name", ["fullwidth_low_line", "template_name"])
def test_a_magic_binding_a_name_cut_apart_formats_the_globals_and_check_refuses_it(
    name: str,
) -> None:
    """Measured before the fix, for four of the 5: `not_own` "" in an IPython shell, and the
    target formatted its globals there. Two of them run here (an IPython shell each, ~3 s)."""
    said, formats_globals = _in_a_shell(UNCUT[name])
    assert REFUSED in said and formats_globals == "True"


@pytest.mark.parametrize("name", sorted(UNCUT))
def test_a_magic_binding_a_name_cut_apart_is_refused(name: str) -> None:
    assert REFUSED in verdict("bytes_per_char", *UNCUT[name])


# Rule gap 3: a dataclass's `__repr__`, read off it, reads a field named as frames are.
REPR_OF_A_FRAME = (
    "import dataclasses\n\n@dataclasses.dataclass\nclass D:\n    gi_frame: object = None\n\n"
    "def bytes_per_char(s):\n    def walk():\n        yield 1\n\n    return D.__repr__(walk())\n"
)


def test_a_generated_repr_reads_a_frame() -> None:
    assert "gi_frame=<frame at 0x" in function_of(REPR_OF_A_FRAME, "bytes_per_char")("abc")


def test_a_field_named_as_a_frame_is_refused() -> None:
    """Measured before the fix: verdict '' (the generator's frame's repr, text only, one level:
    no namespace)."""
    assert "defines `gi_frame` in class `D`" in verdict("bytes_per_char", REPR_OF_A_FRAME)


# The safety fix: a class body's `global` is its own, not its methods'.
CLASS_GLOBAL = (
    "def f():\n    fmt = 1\n\n    class C:\n        global fmt\n\n"
    "        def show(self):\n            return fmt\n"
)


def test_a_class_global_is_the_class_bodys_alone() -> None:
    """Python runs `show`'s `fmt` as `f`'s local (the class's `global` reaches no function in
    it): `resolve` said the notebook's before the fix."""
    unit = ast.parse(CLASS_GLOBAL).body[0]
    use = next(n for n in ast.walk(unit) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    scope = resolve(unit).get(id(use))
    assert scope is not None and scope.node is unit
    run = f"fmt = 2\n\n{CLASS_GLOBAL}    return C().show()\n"
    assert function_of(run, "f")() == 1


# Held: the notebook's `K` rebound where its uses and bindings are read by scope, and star
# imports that a trusted magic could hide.
OTHER = f"class Other:\n    FMT = {GLOBALS}\n\n"
USE_K = "def bytes_per_char(s):\n    return K.FMT.format(bytes_per_char)\n"
HELD = {
    "walrus_in_a_default": f"{CLASS}{OTHER}def spoil(x=(K := Other)):\n    return x\n\n{USE_K}",
    "walrus_in_a_decorator": f"{CLASS}{OTHER}@((K := Other) and (lambda f: f))\n"
    f"def spoil():\n    pass\n\n{USE_K}",
    "walrus_in_a_base": f"{CLASS}{OTHER}class Spoil((K := Other)):\n    pass\n\n{USE_K}",
    "walrus_in_a_lambda_default": f"{CLASS}{OTHER}def spoil(f=lambda y=(K := Other): y):\n"
    f"    return f\n\n{USE_K}",
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_a_class_rebound_by_scope_is_refused(name: str) -> None:
    assert reads_globals(HELD[name])
    assert REFUSED in verdict("bytes_per_char", HELD[name])


OWN_FORMATTER = "class Formatter:\n    def format(self, *args):\n        return 'x'\n"
USES_FORMATTER = (
    "def bytes_per_char(s):\n    return Formatter().format('{0.__globals__}', bytes_per_char)\n"
)
STARS = {
    "cell_magic_body": "%%time\nfrom string import *\n",
    "continued_line": "%time from string import \\\n*\n",
    "timeit_setup": "%timeit -n1 -r1 -s 'from string import *' pass\n",
}


@pytest.mark.parametrize("name", sorted(STARS))
def test_a_star_import_in_a_magic_is_refused(name: str) -> None:
    assert REFUSED in verdict("bytes_per_char", OWN_FORMATTER, STARS[name], USES_FORMATTER)
