"""Red team on the own-code reading, round 18 (after round 17 closed a foreign constructor
storing `self.FMT`'s attribute, and cut a trusted magic's words only where no name goes on).
Each open hole is `xfail(strict=True)`, its reason saying what was measured and what would
close it; each attack the reading held is a plain test that, where it can, also runs the
attack and sees it format the function's globals. Measured with `verdict` (the reading's
`Notebook.borrowed`, as `check()` and the grader read), `function_of` and `reads_globals` (the
cells run in a plain namespace), `_in_a_shell` (an IPython shell of its own, what `check()`
says there) and `Notebook.program` (the code the grader runs). No grader batch: every door
found lives in a cell the graded program leaves out.

Doors found (both `check()` only, both closed here):

1. **A cell no graded function reaches stores into the instance `self.FMT` reads.** Round 17
   made `self.FMT` in a method of a sealed `K` the class's template only where nothing in the
   notebook spells `.FMT =` or reads a dunder method. But `setattr`, `object.__setattr__` and
   `getattr` with a computed name are refused only in what a graded function reaches, and a
   top-level cell nobody calls is reached by nothing, while `check()` reads the learner's
   kernel, where that cell has run. So with `k = K()` and `bytes_per_char` returning
   `k.show(bytes_per_char)`, a cell `setattr(k, 'FMT', '{0.__glob' 'als__}')` (or
   `object.__setattr__(k, ...)`, or `getattr(D, '__in' + 'it__')(k, ...)` with `D` a dataclass
   whose field is `FMT`): `verdict` "" for all three, and in a shell `not_own` "" for the first
   two (the third there met an unrelated refusal: `D`'s hints before the set-up cell), each
   formatting the function's globals. The grader leaves the cell out (`Notebook.program`: only
   `K`, `k = K()` and the target), so no marks.
2. **A trusted magic's text stores into it.** `%time k.FMT = '{0.__glob' 'als__}'` and `%time
   setattr(k, 'FM' 'T', ...)`: the text is a string to the reading, whose words name `k` (then
   not known) but whose store no `stored` saw; `verdict` "" and, in a shell, `not_own` "" and
   the globals formatted. The grader never runs a magic's cell (as round 17's door 2).
   Doors 1 and 2 closed in `lib/exercises/sealed_classes.py` (`_stores_unspelt`): `K().X` is no
   template where any of the notebook's code reads a dunder beyond `__name__` and `__doc__`
   (round 17's dunder methods, now `__setattr__`, `__dict__`, `__class__` too), names
   `setattr`, `delattr` or `getattr` (but for `getattr(x, "name")`, written out), or where a
   trusted magic's words (`magics.unseen_names`) name any of these or the attribute. The 7 are
   refused ("a template worked out at run time").
3. **A trusted magic runs another magic.** `%time` and `%timeit` run their text as a cell of
   its own (IPython's `transform_cell`), so `%time %run x.py` runs `%run`, which binds every
   name `x.py` binds, none of them a word of the text. The file needs no word either:
   `!printf 'My\\137T = str' > x.py` (a trusted shell command, nothing to expand) writes
   `My_T = str`. After `class My_T: pass`, `verdict` "" and, in a shell, `not_own` "" with the
   target (`My_T('{0.__globals__}').format(...)`) formatting its globals (`check()` only, as
   door 2). Closed in `lib/exercises/magics.py` (`_rewritten`): a `%time`/`%timeit` text that
   IPython would rewrite (a magic, `!`, `?`, a prompt) makes any name possible; so is `%time T
   = %run x.py`.

Held (refused): in the graded function itself, `vars(k).update(FMT=...)`,
`functools.wraps(Other)(k)` and `functools.update_wrapper(k, Other)` (which copy `Other`'s
class dictionary into `k`: each, run, formats the globals); the mangled spelling stored from
outside (`k._K__FMT = ...` for a class attribute `__FMT`); a class decorator of the learner's
that returns a subclass whose `FMT` is the globals (`plain_class` takes `dataclass` alone); a
dataclass whose field `_K__FMT` is the same variable as its plain `__FMT`; a class defining
`__getattribute__`; and, in a cell nobody reaches, `vars(k).update(...)` and `k.__dict__[...]`.
Looked at, no door: `functools.cached_property` stores into an instance's `__dict__` under the
name its class body gave it, but only from its `__get__`, which only a dunder read (or the
instance's own class) reaches; `collections.UserDict.copy(k)` sets `k.data` and puts it back;
a trusted magic's words cut where Python's tokenizer cuts them (a combining mark after `=`
composes with it under NFKC, but Python refuses a name starting with a mark, so no binding
hides there); numbers glued to names (`1if`) glue only keywords.
"""

from __future__ import annotations

import pytest

from lib.exercises.own_code import Notebook
from tests.test_red_team_own_code_9 import function_of, verdict
from tests.test_red_team_own_code_14 import _in_a_shell, reads_globals

GLOBALS = "'{0.__glob' 'als__}'"
CLASS = "class K:\n    FMT = '{}'\n\n    def show(self, f):\n        return self.FMT.format(f)\n\n"
DATACLASS = "import dataclasses\n\n@dataclasses.dataclass\nclass D:\n    FMT: str = '{}'\n\n"
USE = "def bytes_per_char(s):\n    return k.show(bytes_per_char)\n"
REFUSED = "worked out at run time"


def spoiled(*spoilers: str, head: str = "") -> list[str]:
    """Cells: `head` and `K`, an instance `k`, the `spoilers` (cells no graded function
    reaches), and `bytes_per_char` formatting its globals through `k.show` once one has run."""
    return [head + CLASS, "k = K()\n", *spoilers, USE]


# Door 1: a cell the graded program leaves out, run in the learner's kernel.
UNREACHED = {
    "setattr": spoiled(f"setattr(k, 'FMT', {GLOBALS})\n"),
    "object_setattr": spoiled(f"object.__setattr__(k, 'FMT', {GLOBALS})\n"),
    "getattr_computed": spoiled(f"getattr(D, '__in' + 'it__')(k, {GLOBALS})\n", head=DATACLASS),
}
# Door 2: a trusted magic's text.
MAGIC = {
    "magic_store": spoiled(f"%time k.FMT = {GLOBALS}\n"),
    "magic_setattr": spoiled(f"%time setattr(k, 'FM' 'T', {GLOBALS})\n"),
}
DOORS = UNREACHED | MAGIC


@pytest.mark.parametrize("name", sorted(DOORS))
def test_a_store_out_of_sight_is_refused(name: str) -> None:
    """Measured before the fix: verdict "" for all 5."""
    assert REFUSED in verdict("bytes_per_char", *DOORS[name])


@pytest.mark.parametrize("name", ["setattr", "magic_store"])
def test_a_store_out_of_sight_formats_the_globals_and_check_refuses_it(name: str) -> None:
    """Measured before the fix, for the 4 but `getattr_computed`: `not_own` "" in an IPython
    shell, and the target formatted its globals there. Two run here (a shell each, ~3 s)."""
    said, formats_globals = _in_a_shell(DOORS[name])
    assert REFUSED in said and formats_globals == "True"


def test_the_grader_leaves_the_unreached_cell_out() -> None:
    """Why door 1 is `check()`'s alone: the graded program holds `K`, `k` and the target, not
    the spoiling cell. Made part of a unit the target reaches, `setattr` is refused itself."""
    notebook = Notebook(UNREACHED["setattr"])
    notebook.borrowed("bytes_per_char", set(), set())
    assert "setattr" not in "".join(notebook.program(["bytes_per_char"]).values())
    reached = [CLASS, f"k = K()\nk = [k, setattr(k, 'FMT', {GLOBALS})][0]\n", USE]
    assert reads_globals("\n".join(reached))
    assert "`setattr`" in verdict("bytes_per_char", *reached)


# Door 3: a magic inside a trusted magic's text.
def nested_run(path: str) -> list[str]:
    """A plain class `My_T`, a shell command writing `My_T = str` into `path` (the low line as
    `printf`'s octal escape), `%time %run path`, and a target formatting its globals through
    `My_T(...).format` once the run has made `My_T` the `str` class."""
    return [
        "class My_T:\n    pass\n",
        f"!printf 'My\\137T = str' > {path}\n",
        f"%time %run {path}\n",
        "def bytes_per_char(s):\n    return My_T('{0.__globals__}').format(bytes_per_char)\n",
    ]


@pytest.mark.parametrize(
    "run",
    ["%time %run x.py", "%time T = %run x.py", "%timeit %run x.py"]
    + ["%timeit -n1 -r1 %run x.py", "%timeit -n 1 -q %run x.py"],
)
def test_a_magic_in_a_trusted_magic_is_refused(run: str) -> None:
    """Measured before the fix: verdict "" for all 5; the two with options also after a first
    fix that tried the text whole. In a shell, `%timeit -n1 -r1 %run y.py` (`y.py` written by
    Python) made an unbound `My_T` the `str` class; in the four cells of `nested_run` it left
    the class alone, for a reason not found in the time."""
    cells = nested_run("x.py")
    cells[2] = run + "\n"
    assert REFUSED in verdict("bytes_per_char", *cells)


def test_a_magic_in_a_trusted_magic_formats_the_globals_and_check_refuses_it(tmp_path) -> None:
    """Measured before the fix: `not_own` "" in a shell, and the globals formatted (~3 s)."""
    said, formats_globals = _in_a_shell(nested_run(str(tmp_path / "x.py")))
    assert REFUSED in said and formats_globals == "True"


# What the fix keeps: `self.FMT` beside a `getattr` whose name is written out, and beside a
# trusted magic that times the target.
HONEST_CLASS = CLASS.replace("'{}'", "'{:d}'").replace("(f)", "(len(f))")
HONEST = {
    "beside_getattr_written_out": HONEST_CLASS
    + "def bytes_per_char(s):\n    return int(K().show(s)) + len(getattr(s, 'upper')()) * 0\n",
    "beside_a_magic_timing_it": HONEST_CLASS
    + "def bytes_per_char(s):\n    return int(K().show(s))\n",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_self_constant_is_own_code(name: str) -> None:
    assert function_of(HONEST[name], "bytes_per_char")("abc") == 3
    timed = ["%time bytes_per_char('abc')\n", "%timeit -n1 -r1 bytes_per_char('abc')\n"]
    assert verdict("bytes_per_char", HONEST[name], *timed) == ""


def test_the_cost_a_dunder_read_anywhere() -> None:
    """By design: `x.__class__` read in any cell (here one of its own) spoils `self.FMT`;
    `K.FMT` still reads."""
    cells = [HONEST["beside_a_magic_timing_it"], "print(K().__class__.__name__)\n"]
    assert REFUSED in verdict("bytes_per_char", *cells)
    cells[0] = cells[0].replace("self.FMT", "K.FMT")
    assert verdict("bytes_per_char", *cells) == ""


# Held: other ways into the instance, refused already. Each, run, formats the globals.
OTHER = f"import functools\n\nclass Other:\n    FMT = {GLOBALS} * 1\n\n"
MANGLED = CLASS.replace("FMT", "__FMT")


def in_the_target(head: str, run: str, cls: str = CLASS) -> str:
    """`head`, `cls` and `bytes_per_char` running `run` on its own `k = K()` first."""
    return f"{head}{cls}def bytes_per_char(s):\n    k = K()\n    {run}\n" + USE.split("\n", 1)[1]


PICK = f"def pick(c):\n    class L(c):\n        FMT = {GLOBALS} * 1\n\n    return L\n\n@pick\n"
FIELD = (
    "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n    __FMT = '{}'\n"
    "    _K__FMT: str = '{}'\n\n    def show(self, f):\n        return self.__FMT.format(f)\n\n"
)
HELD = {
    "vars_update": in_the_target("", f"vars(k).update(FMT={GLOBALS})"),
    "wraps_a_class": in_the_target(OTHER, "functools.wraps(Other)(k)"),
    "update_wrapper": in_the_target(OTHER, "functools.update_wrapper(k, Other)"),
    "mangled_from_outside": in_the_target("", f"k._K__FMT = {GLOBALS}", MANGLED),
    "decorator_subclass": PICK + CLASS + USE.replace("k.show", "K().show"),
    "dataclass_mangled_field": FIELD + USE.replace("k.show", f"K({GLOBALS}).show"),
    "unreached_vars": "\n".join(spoiled(f"vars(k).update(FMT={GLOBALS})\n")),
    "unreached_dict": "\n".join(spoiled(f"k.__dict__['FMT'] = {GLOBALS}\n")),
}
GETATTRIBUTE = (
    "class K:\n    FMT = '{}'\n\n"
    f"    def __getattribute__(self, n):\n        return {GLOBALS}\n\n"
    "    def show(self, f):\n        return self.FMT.format(f)\n\n"
    + USE.replace("k.show", "K().show")
)


@pytest.mark.parametrize("name", sorted(HELD))
def test_another_way_into_the_instance_is_refused(name: str) -> None:
    assert reads_globals(HELD[name])
    assert verdict("bytes_per_char", HELD[name])


def test_a_class_of_its_own_attribute_lookup_is_refused() -> None:
    assert "`__getattribute__`" in verdict("bytes_per_char", GETATTRIBUTE)
