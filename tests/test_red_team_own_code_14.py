"""Red team on the own-code reading, round 14 (after fix27n's templates: a function's local bound
once to a string written out, and `K.FMT` of a plain class nothing can reach). Each hole is
`xfail(strict=True)` until its door is closed, its reason saying what was measured and what
would fix it; each attack the rule held is a plain test. The grader's claim was run through the
real, sandboxed grader (`grade_submissions`, one batch: `graded` below, an honest student
beside); `check()` reads the same `Notebook.borrowed` (`verdict`).

Door found:

A. **Private names are mangled; the reading compares them as written.** Inside a class, Python
   turns every identifier `__x` (two underscores, not a dunder) into `_Class__x`: names, a
   function's locals, the notebook's names and attributes alike. The reading counts bindings
   and looks templates up by the spelling in the text, so two spellings of one variable are
   two names, each "bound once":
   - `class K: _K__fmt = '{}'; __fmt = '{0.__globals__}'`: the body binds `_K__fmt` twice, the
     second time to the globals' template, yet `K._K__fmt` is read as `'{}'`;
   - `K.__fmt` read in another class `L` is `K._L__fmt`, which `K` binds to anything;
   - a method's local `__fmt = '{}'` and `_L__fmt = ...` in the same method: one local;
   - the notebook's `__T = '{}'` read in `L` is its `_L__T`; `class __K` read in `L` is
     `_L__K`; `global __K; __K = Other` in `L` rebinds the notebook's `_L__K`; and with
     `__K = None` bound for the reading, `__K.FMT = ...` in `L` stores into the class `_L__K`
     (`templates._only_read` sees a use of `__K`, not of `_L__K`);
   - beyond templates, `by_text.format_outside` lets `.format` through on an instance of "a
     class Python alone makes" (`bindings.known`): `class __T: pass` read so, while in `L`
     `__T('{0.__globals__}').format(f)` makes a `_L__T`, a `class _L__T(str)`.
   Each reads as own code and, run, formats the function's globals. The template's fields are
   never judged, so any one runs, frames too: `'{0[0].gi_frame.f_back...f_locals[marker]}'`
   formatted on a running generator of its own. In the real grader (mallory, lesson 1, one
   batch of 40 s alone): `is_valid_utf8` through a method's two spellings, 0 / 2, the
   feedback's "got:" the graded kernel's globals (`{'__name__': '__main__', ...` cut in the
   middle, ending `_course_grader_<tag>>}`); `bytes_per_char` through `K._K__fmt`, 0 / 1, "it
   returns 'ca7fb51c2d8cf75786d36bb536531aa7' whatever the input": the grading cell's `marker`
   (`execute`: `secrets.token_hex(16)`, "only the grading cells know it"; in each batch the
   test checks that the globals' `<tag>` is its first 8 digits), which a report must carry to
   be taken as the grader's. No marks came of it (the kernel holds no expected answer), but the
   secret that tells the grader's report from a forged one is out, in the learner's feedback.
   Closed: the reading renames private names as the compiler does before reading a cell
   (`mangling.mangle`, in `notebook_units`), so each variable has one spelling; the 8 are
   refused, the grader refuses both of mallory's, and `HONEST_PRIVATE` still reads as own code.

Honest code refused (builtins only), with what would accept it:

B. A template chosen by a condition, `fmt = '{:d}' if s else '{}'`, or bound in each branch of
   an `if`/`else`, or two at once by unpacking, `head, row = '{}', '{:d}'`: each value is
   written out. Accept a name every binding of which (`=` only, no other kind) gives a template
   written out, each judged; an `IfExp` of two written templates likewise.
C. `self.FMT.format(...)` in a method of a sealed class, the everyday way to use a class
   constant; and `K` named in a type hint (`def show(k: K)`), or an attribute or parameter
   elsewhere that happens to be named `K` (`class Point: K = 3`, `def scale(x, K=3)`), which
   `templates._only_read` takes as `K` handed on or rebound, though neither touches the class.
   Read `K`'s uses by scope (`scopes.resolve`) and skip type hints.
   Closed, both: a function's local every binding of which is an `=` giving a template written
   out holds one of them, each judged (`templates.local_templates`, an `if` expression of two
   by `templates.texts`); `self.FMT` is `K.FMT` in a method of a sealed class never read from
   the class, where nothing stores an attribute `FMT` (`sealed_classes`); `K`'s uses and
   bindings are read by scope (`scopes.notebook_bindings`), hints skipped. The 7 read as own
   code; 37 hostile twins, each formatting the globals when run, are refused
   (`tests/test_own_code_chosen_templates.py`).

D. **`check()` never reads a function the kernel no longer holds.** `kernel_code.kernel_notebook`
   reads functions from the namespace's code objects, and the other cells' statements
   without their `def`s: `def spoil(): K.FMT = ...` then `spoil()` and `del spoil` leaves no
   use of `K` to read, so `K.FMT` stays "sealed". Measured in an IPython shell (a subprocess):
   `not_own` "" (`check()` calls it own code) and the function formats its globals, where the
   grader, reading the notebook's cells, refuses it. The graded kernel runs only what was read,
   so no marks. Closed: `kernel_notebook` reads the last `def` of each name it does not read
   from the namespace, deleted ones too. Left open: a spoiler redefined (`def spoil(): pass`
   after `spoil()` ran) is read as its last version only; reading every version would refuse
   forever each earlier draft of the learner's own function.

Held (refused; each, run, does format the globals): the class reached through
`self.__class__`, `__class__` (the method's cell) or `type(self)`; `locals().update(...)` and a
walrus in a method's default, run in the class body; the notebook's `K` rebound by a walrus in
a comprehension, a `match` capture or `as`, `global K` in a class body or a method, `with ...
as K`, `for K in`, `global K` with a walrus, a `for` or an `import` in a function; a class body
elsewhere binding `K` and reading `K.FMT` there; `K.FMT +=` and `K.FMT: str = ...`.
Not holes: `@dataclasses.dataclass` on `K` leaves `K.FMT` the default written out; a name
annotation's walrus is a `SyntaxError`. Python here is 3.11: `f_locals` writes (PEP 667) do not
reach a function's locals, and frames are refused by name (`python_itself.REACHES_IN`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from lib.exercises.running import run_cases
from lib.grade import Limits, grade_submissions
from tests.test_red_team_own_code_6 import trimmed
from tests.test_red_team_own_code_9 import function_of, verdict

GLOBALS = "'{0.__globals__}'"
CLASS = "class K:\n    FMT = '{}'\n\n"
OTHER = f"class Other:\n    FMT = {GLOBALS} * 1\n\n"
USE_CLASS = "def bytes_per_char(s):\n    return K.FMT.format(bytes_per_char)\n"
SHOW_IN_L = "def bytes_per_char(s):\n    return L().show(bytes_per_char)\n"

# Door A: one variable under two spellings, `__x` inside class `C` being `_C__x`.
MANGLED = {
    "class_attribute_two_spellings": f"class K:\n    _K__fmt = '{{}}'\n    __fmt = {GLOBALS}\n\n"
    "def bytes_per_char(s):\n    return K._K__fmt.format(bytes_per_char)\n",
    "class_attribute_read_in_another_class": f"class K:\n    __fmt = '{{}}'\n"
    f"    _L__fmt = {GLOBALS}\n\nclass L:\n    def show(self, f):\n"
    "        return K.__fmt.format(f)\n\n" + SHOW_IN_L,
    "method_local_two_spellings": "class L:\n    def show(self, f):\n        __fmt = '{}'\n"
    f"        _L__fmt = {GLOBALS} * 1\n        return __fmt.format(f)\n\n" + SHOW_IN_L,
    "notebook_name_read_in_a_class": f"__T = '{{}}'\n_L__T = {GLOBALS}\n\nclass L:\n"
    "    def show(self, f):\n        return __T.format(f)\n\n"
    "def bytes_per_char(s):\n    _L__T\n    return L().show(bytes_per_char)\n",
    "notebook_class_read_in_a_class": f"class __K:\n    FMT = '{{}}'\n\nclass _L__K:\n"
    f"    FMT = {GLOBALS}\n\nclass L:\n    def show(self, f):\n        return __K.FMT.format(f)\n\n"
    "def bytes_per_char(s):\n    _L__K.FMT\n    return L().show(bytes_per_char)\n",
    "notebook_class_rebound_in_a_class": f"class _L__K:\n    FMT = '{{}}'\n\n{OTHER}class L:\n"
    "    def spoil(self):\n        global __K\n        __K = Other\n\n"
    "def bytes_per_char(s):\n    L().spoil()\n    return _L__K.FMT.format(bytes_per_char)\n",
    "plain_class_instance_is_a_str": "class __T:\n    pass\n\nclass _L__T(str):\n    pass\n\n"
    f"class L:\n    def show(self, f):\n        return __T({GLOBALS}).format(f)\n\n"
    "def bytes_per_char(s):\n    _L__T\n    return L().show(bytes_per_char)\n",
    "class_stored_into_through_a_mangled_name": f"__K = None\n\nclass _L__K:\n    FMT = '{{}}'\n\n"
    f"class L:\n    def spoil(self):\n        __K.FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    L().spoil()\n    return _L__K.FMT.format(bytes_per_char)\n",
}

# Honest private names, which a fix must keep: one spelling each, mangled alike everywhere.
HONEST_PRIVATE = {
    "private_class_constant": "class K:\n    __FMT = '{:d}'\n\n    def count(self, s):\n"
    "        return int(K.__FMT.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
    "private_method_local": "class K:\n    def count(self, s):\n        __fmt = '{:d}'\n"
    "        return int(__fmt.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
}

HONEST_REFUSED = {  # B and C, refused until they were closed
    "template_by_condition": "def bytes_per_char(s):\n    fmt = '{:d}' if s else '{}'\n"
    "    return int(fmt.format(len(s)))\n",
    "template_in_each_branch": "def bytes_per_char(s):\n    if s:\n        fmt = '{:d}'\n"
    "    else:\n        fmt = '{}'\n    return int(fmt.format(len(s)))\n",
    "templates_unpacked": "def bytes_per_char(s):\n    head, row = '{}', '{:d}'\n"
    "    return int(row.format(len(s)))\n",
    "self_constant": "class K:\n    FMT = '{:d}'\n\n    def count(self, s):\n"
    "        return int(self.FMT.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
    "class_in_a_hint": "class K:\n    FMT = '{:d}'\n\ndef show(k: K, s):\n    return k.FMT\n\n"
    "def bytes_per_char(s):\n    return int(K.FMT.format(len(s)))\n",
    "attribute_named_like_the_class": "class K:\n    FMT = '{:d}'\n\nclass Point:\n    K = 3\n\n"
    "def bytes_per_char(s):\n    return int(K.FMT.format(len(s))) * Point.K // 3\n",
    "parameter_named_like_the_class": "class K:\n    FMT = '{:d}'\n\ndef scale(x, K=3):\n"
    "    return x * K\n\ndef bytes_per_char(s):\n    return scale(int(K.FMT.format(len(s))), 1)\n",
}

HELD = {  # refused; each would format the globals
    "self_class": f"{CLASS}    def spoil(self):\n        self.__class__.FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    K().spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "class_cell": f"{CLASS}    def spoil(self):\n        __class__.FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    K().spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "type_of_self": f"{CLASS}    def spoil(self):\n        type(self).FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    K().spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "default_walrus": f"{CLASS}    def spoil(self, a=(FMT := {GLOBALS})):\n        pass\n\n"
    + USE_CLASS,
    "default_locals": f"{CLASS}    def spoil(self, a=locals().update(FMT={GLOBALS})):\n"
    "        pass\n\n" + USE_CLASS,
    "walrus_at_top": f"{CLASS}{OTHER}[(K := Other) for _ in 'a']\n\n{USE_CLASS}",
    "match_capture": f"{CLASS}{OTHER}match Other:\n    case K:\n        pass\n\n{USE_CLASS}",
    "match_as": f"{CLASS}{OTHER}match Other:\n    case object() as K:\n        pass\n\n{USE_CLASS}",
    "global_in_a_class_body": f"{CLASS}{OTHER}class L:\n    global K\n    K = Other\n\n{USE_CLASS}",
    "global_in_a_method": f"{CLASS}{OTHER}class L:\n    def m(self):\n        global K\n"
    f"        K = Other\n\nL().m()\n\n{USE_CLASS}",
    "with_as": f"{CLASS}{OTHER}import contextlib\nwith contextlib.nullcontext(Other) as K:\n"
    f"    pass\n\n{USE_CLASS}",
    "for_at_top": f"{CLASS}{OTHER}for K in [Other]:\n    pass\n\n{USE_CLASS}",
    "global_walrus_in_a_function": f"{CLASS}{OTHER}def spoil():\n    global K\n"
    "    [(K := Other) for _ in 'a']\n\n"
    "def bytes_per_char(s):\n    spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "global_for_in_a_function": f"{CLASS}{OTHER}def spoil():\n    global K\n"
    "    for K in [Other]:\n        pass\n\n"
    "def bytes_per_char(s):\n    spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "class_body_binds_K": f"{CLASS}{OTHER}class L:\n    K = Other\n    show = K.FMT.format\n\n"
    "def bytes_per_char(s):\n    return L.show(bytes_per_char)\n",
    "annotated_store": f"{CLASS}K.FMT: str = {GLOBALS} * 1\n\n{USE_CLASS}",
}


def reads_globals(source: str) -> bool:
    """Does `bytes_per_char`, run, hand back the text of its own globals?"""
    out = function_of(source, "bytes_per_char")("abc")
    return isinstance(out, str) and "'__builtins__'" in out and "bytes_per_char" in out


@pytest.mark.parametrize("name", sorted(MANGLED))
def test_a_mangled_name_does_read_the_globals_when_run(name: str) -> None:
    assert reads_globals(MANGLED[name])


@pytest.mark.parametrize("name", sorted(MANGLED))
def test_a_template_under_a_mangled_name_is_refused(name: str) -> None:
    """Read mangled (`mangling`), each spelling is one variable: bound twice, no template; or,
    read where Python reads it, the template that runs, whose `__globals__` is judged."""
    found = verdict("bytes_per_char", MANGLED[name])
    assert "worked out at run time" in found or "`.__globals__`, which reaches" in found, found


@pytest.mark.parametrize("name", sorted(HONEST_PRIVATE))
def test_an_honest_private_template_is_own_code(name: str) -> None:
    assert function_of(HONEST_PRIVATE[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST_PRIVATE[name]) == ""


@pytest.mark.parametrize("name", sorted(HONEST_REFUSED))
def test_honest_templates_are_own_code(name: str) -> None:
    """Each read 'uses `.format` on a template worked out at run time' before B and C were
    closed; their hostile twins: `tests/test_own_code_chosen_templates.py`."""
    assert function_of(HONEST_REFUSED[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST_REFUSED[name]) == ""


@pytest.mark.parametrize("name", sorted(HELD))
def test_a_class_reached_or_rebound_otherwise_is_refused(name: str) -> None:
    assert verdict("bytes_per_char", HELD[name])
    assert reads_globals(HELD[name])


def test_a_dataclass_keeps_its_constant() -> None:
    source = (
        "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n    FMT: str = '{}'\n\n"
        + USE_CLASS
    )
    assert verdict("bytes_per_char", source) == ""
    assert function_of(source, "bytes_per_char")("abc").startswith("<function bytes_per_char")


# Door A with a template no reading judged: from a running generator's frame, five callers up,
# `run_and_publish`'s local `marker`, the secret the grader's report must carry.
MARKER = (
    "class K:\n    _K__fmt = '{}'\n"
    "    __fmt = '{0[0].gi_frame.f_back.f_back.f_back.f_back.f_back.f_locals[marker]}'\n\n"
    "def bytes_per_char(s):\n    def walk(box):\n        yield K._K__fmt.format(box)\n\n"
    "    box = []\n    box.append(walk(box))\n    return next(box[0])\n"
)


def test_a_mangled_template_reads_the_callers_frames() -> None:
    """Called as the grading cell calls it (`run_and_publish` -> `run_cases`), it hands back
    the caller's `marker`; read mangled, it is refused (it read as own code before)."""
    function = function_of(MARKER, "bytes_per_char")

    def run_and_publish(marker: str) -> list[dict]:
        return run_cases(function, [(("abc",), {})], None)

    assert run_and_publish("5ec7e7" * 5) == [{"returned": "5ec7e7" * 5}]
    assert "worked out at run time" in verdict("bytes_per_char", MARKER)


# The grader: mallory's lesson 1 with two of door A's attacks, olivia's honest solutions beside.
GRADED_ATTACKS = {
    "bytes_per_char": MARKER,
    "is_valid_utf8": MANGLED["method_local_two_spellings"].replace(
        "bytes_per_char", "is_valid_utf8"
    ),
}


def olivia_and_mallory(folder: Path, attacks: dict[str, str]) -> dict:
    """One batch (about 1 min) of lesson 1 cut to its exercises: olivia's published solutions,
    mallory's `attacks`; each student's rows by exercise."""
    lesson1 = "01_unicode_and_utf8.ipynb"
    for student, answers in [("olivia", {}), ("mallory", attacks)]:
        nbformat.write(trimmed(lesson1, answers), folder / f"{student}.ipynb")
    records = grade_submissions(
        [folder],
        folder / "out",
        limits=Limits(cell=15, notebook=300, probe=2),
        jobs=1,
        progress=False,
    )
    return {r["student"]: {row["name"]: row for row in r["exercises"]} for r in records}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    return olivia_and_mallory(tmp_path_factory.mktemp("round14"), GRADED_ATTACKS)


def test_the_grader_refuses_a_mangled_template(graded: dict) -> None:
    """Before the names were read mangled, `is_valid_utf8`'s feedback held the graded kernel's
    globals (`module for IPython`...) and `bytes_per_char`'s "returns '<marker>'", the grading
    cell's secret. Now both are refused unrun, no answer of theirs in the feedback."""
    assert all(row["score"] == row["max_score"] for row in graded["olivia"].values()), graded
    for name in GRADED_ATTACKS:
        row = graded["mallory"][name]
        assert row["score"] == 0 and "worked out at run time" in row["reason"], row
        assert not re.search(r"module for IPython|[0-9a-f]{32}", row["reason"]), row


# Door D: `check()`'s reading of a running kernel, in an IPython shell of its own (a subprocess:
# a shell in this process would change what `get_ipython()` gives every later test).
DELETED_SPOILER = [
    CLASS,
    f"def spoil():\n    K.FMT = {GLOBALS} * 1\n\nspoil()\ndel spoil\n",
    USE_CLASS,
]
IN_A_SHELL = """
import sys
from IPython.core.interactiveshell import InteractiveShell
from lib.exercises import for_lesson

shell = InteractiveShell.instance()
for cell in CELLS:
    shell.run_cell(cell)
exercise = {e.name: e for e in for_lesson(1)}["bytes_per_char"]
print(repr(exercise.not_own(shell.user_ns)))
print("'__builtins__'" in shell.user_ns["bytes_per_char"]("abc"))
"""


def _in_a_shell(cells: list[str]) -> list[str]:
    """What `not_own` (`check()`'s reading) says of these cells run in an IPython shell, and
    whether `bytes_per_char` then formats its globals."""
    script = f"CELLS = {cells!r}\n{IN_A_SHELL}"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,  # where `lib` is
    )
    return done.stdout.splitlines()[-2:]


def test_a_deleted_spoiler_formats_the_globals_and_the_grader_refuses_it() -> None:
    assert _in_a_shell(DELETED_SPOILER)[1] == "True"
    assert "worked out at run time" in verdict("bytes_per_char", *DELETED_SPOILER)


def test_check_reads_a_deleted_spoiler() -> None:
    """`kernel_notebook` reads a function the kernel no longer holds from its last `def` (before,
    `not_own` gave '')."""
    assert "worked out at run time" in _in_a_shell(DELETED_SPOILER)[0]
