"""Red team on the own-code reading, round 16 (after fix27r's widened templates: a function's
local every binding of which is an `=` giving a template written out; `self.FMT` in a method of
a sealed class read as `K.FMT`; `K`'s uses read by scope, type hints skipped). Each hole is
`xfail(strict=True)` until its door is closed, its reason saying what was measured and what
would fix it; each attack the reading held is a plain test that also runs the attack and sees it
format the function's globals. Measured with `verdict` (the reading's `Notebook.borrowed`) and
`function_of` (the cells run in a plain namespace); no grader batch in this file.

Door found:

A. **A dataclass's instance holds its fields' values, given to its constructor.** `self.FMT`
   in a method of `K` is read as `K().FMT`, the template `K`'s body binds, once nothing in the
   notebook stores an attribute named `FMT` (`sealed_classes`). `plain_class` lets `K` be
   decorated by `@dataclasses.dataclass`, whose generated `__init__` stores every field, an
   annotated name of the body, into the new instance: `K('{0.__globals__}' * 1)` gives an
   instance whose own `FMT` hides the class's, and no `.FMT =` is written anywhere. Measured:
   the field given by position, by keyword (`K(FMT=...)`), with `dataclass` imported alone,
   with `frozen=True` (its `__init__` stores through `object.__setattr__`) and as a private
   field (`__FMT`, the constructor's `_K__FMT`): each `verdict` "" (own code), and each, run,
   formats the function's globals. As in round 14's door A, the template's fields are never
   judged, so frames are open too: called as the grading cell calls it (`run_cases` under a
   caller holding `marker`), the attack hands back the caller's `marker`, the secret a report
   must carry to be taken as the grader's. Through the real, sandboxed grader, once, from a
   scratch script (mallory's lesson 1 with `MARKER` as `bytes_per_char` and
   `field_by_position` as `is_valid_utf8`, its class renamed `J` so that each class is bound
   once; olivia's honest notebook beside, full marks; one batch, 31 s): `bytes_per_char` 0 / 1,
   "it returns 'c4a9a02f3328382e03c04e0e9c9c518b' whatever the input", the grading cell's
   `marker`; `is_valid_utf8` 0 / 2, "got:" the graded kernel's globals (`{'__name__':
   '__main__', ...` ending `_course_grader_c4a9a02f>}`, the marker's first 8 digits). Both are
   graded as own code: no marks, but the secret is out in the learner's feedback, as in round
   14 before mangling. Both attacks run in this file too (`reads_globals` in a plain namespace
   and under the graded program's `FUTURE`, where hints are text and the fields the same).
   Fix (measured by patching `notebook_templates` in a scratch script, `lib` unchanged): for a
   class with a decorator (the only one `plain_class` allows is `dataclass`), do not read
   `self.X` as `K().X` where the body annotates `X` (`X: str = ...`, a field; `ClassVar` or
   not, the rule stays one a reader checks at a glance). All five attacks are then refused
   ("a template worked out at run time"), and `HONEST` still reads as own code: a dataclass's
   constant left unannotated read through `self`, a field's default read as `K.FMT`, and an
   annotated constant of an undecorated class read through `self`. Its one cost: an honest
   dataclass's `FMT: ClassVar[str] = '{:d}'` read through `self` would be refused too (write it
   unannotated, or read it as `K.FMT`); a field's default read through `self` is refused too,
   rightly: its value is the constructor's caller's to choose.

Held (refused; each, run, does format the globals), the brief's list tried one by one:
- `self` made another object: a method's `__func__` called on another instance (`.__func__`
  reaches into Python), `self` in a lambda given as a method's default (evaluated in the
  class body, so never a method's `self`), `super()` in a subclass (`class L(K)` hands `K` on);
- the class replaced or its body rewritten: a class decorator other than `dataclass`, a
  `metaclass=` keyword, `exec` in the class body, `K = K if 0 else Other`, `K = K` re-export
  (each a second binding of `K`, or a class that is not plain);
- `self.FMT` made something else by the class: `__getattribute__` (binding a dunder no
  learner's class may define);
- an instance's attribute stored unseen: `k.__FMT` in a class `_K` (read mangled as
  `_K__FMT`, the name `K`'s `__FMT` has too);
- a `match` class pattern (`case K()` hands `K` on);
- a function's local rebound otherwise: a walrus in a comprehension, `with ... as`, a nested
  unpacking with a starred target, an `if` expression whose arm is a name holding a template
  built at run time, `nonlocal` in a class body inside the function, and a nested function's
  `global` beside the local (each a binding other than `=`, which spoils the name);
- IPython's input history: `_i3 = '{}'` read as a template, while the kernel, on running its
  third cell, rebinds `_i3` to that cell's text (`# {0.__globals__}` in a comment): refused
  (run in an IPython shell, the function formats its globals).

- a trusted magic storing the attribute, `%time k.FMT = ...` and its fullwidth `ＦＭＴ`, beside
  `self.FMT`: refused by both readings (`verdict`, and `not_own` in an IPython shell; measured
  once from a scratch script, not in this file).

Held, but by luck: `scopes._lookup` stops at a class body's `global fmt` for a function inside
that class, where Python does not (a class passes its `global`s to no scope inside it): in
`def f(): fmt = <built>; class C: global fmt; def show(self, x): return fmt.format(x)`,
`resolve` gives `show`'s `fmt` as the notebook's, Python runs `f`'s local
(`class_global_beside_a_local`). It is refused only because the `global` counts as a second
binding of the notebook's `fmt` (`notebook_bindings`), so the notebook's `fmt` is no template.
Fix, for safety: in `_lookup`, consult a class scope's `globals` only when `first` (the class
body's own use), as its other names are. Done in round 17: `show`'s `fmt` is now `f`'s local,
no template, and refused so.

Not holes: `import *` in a class body is a `SyntaxError` (Python 3.11: module level only), so
it cannot put a name in a class's namespace unseen; a method's default `self=Evil()` is never
used, a bound method always receives its instance.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from lib.exercises.running import run_cases
from lib.grading.kernel_side import FUTURE
from tests.test_red_team_own_code_9 import function_of, verdict
from tests.test_red_team_own_code_14 import reads_globals

GLOBALS = "'{0.__globals__}'"
CLASS = "class K:\n    FMT = '{}'\n\n    def show(self, f):\n        return self.FMT.format(f)\n\n"
SHOW = "def bytes_per_char(s):\n    return K().show(bytes_per_char)\n"
EVIL = f"class Evil:\n    FMT = {GLOBALS} * 1\n\n"
USE = "    return fmt.format(bytes_per_char)\n"
USE_CLASS = "def bytes_per_char(s):\n    return K.FMT.format(bytes_per_char)\n"


def dataclass_attack(head: str, field: str, made: str, decorator: str) -> str:
    """A dataclass `K` with the field `field` (`FMT: str = '{}'`), read through `self` in
    `show`, the instance made as `made` (`K(...)`)."""
    name = field.partition(":")[0]
    return (
        f"{head}\n\n{decorator}\nclass K:\n    {field}\n\n    def show(self, f):\n"
        f"        return self.{name}.format(f)\n\n"
        f"def bytes_per_char(s):\n    return {made}.show(bytes_per_char)\n"
    )


IMPORT = "import dataclasses"
DECORATOR = "@dataclasses.dataclass"
FIELD = "FMT: str = '{}'"
BY_POSITION = f"K({GLOBALS} * 1)"

# Door A: a field given to the constructor hides the class's template.
DATACLASS = {
    "field_by_position": dataclass_attack(IMPORT, FIELD, BY_POSITION, DECORATOR),
    "field_by_keyword": dataclass_attack(IMPORT, FIELD, f"K(FMT={GLOBALS} * 1)", DECORATOR),
    "dataclass_imported_alone": dataclass_attack(
        "from dataclasses import dataclass", FIELD, BY_POSITION, "@dataclass"
    ),
    "frozen": dataclass_attack(IMPORT, FIELD, BY_POSITION, "@dataclasses.dataclass(frozen=True)"),
    "private_field": dataclass_attack(IMPORT, "__FMT: str = '{}'", BY_POSITION, DECORATOR),
}

# What the fix must keep: each reads as own code now, and did under the patched fix.
HONEST = {
    "dataclass_constant_unannotated": "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n"
    "    FMT = '{:d}'\n\n    def count(self, s):\n        return int(self.FMT.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
    "dataclass_field_read_on_the_class": "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n"
    "    FMT: str = '{:d}'\n\n    def count(self, s):\n        return int(K.FMT.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
    "plain_class_annotated_constant": "class K:\n    FMT: str = '{:d}'\n\n    def count(self, s):\n"
    "        return int(self.FMT.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
}

HELD = {
    "method_func_on_another_instance": f"{CLASS}{EVIL}def bytes_per_char(s):\n"
    "    return K().show.__func__(Evil(), bytes_per_char)\n",
    "self_of_a_lambda_default": f"{EVIL}class K:\n    FMT = '{{}}'\n\n"
    "    def show(self, f, g=lambda self, f: self.FMT.format(f)):\n        return g(Evil(), f)\n\n"
    + SHOW,
    "super_in_a_subclass": f"{CLASS}class L(K):\n    FMT = {GLOBALS} * 1\n\n"
    "    def shown(self, f):\n        return super().show(f)\n\n"
    "def bytes_per_char(s):\n    return L().shown(bytes_per_char)\n",
    "class_decorator_replaces_the_class": "def swap(cls):\n    return Evil\n\n"
    f"class Evil:\n    FMT = {GLOBALS} * 1\n\n    def show(self, f):\n"
    f"        return self.FMT.format(f)\n\n@swap\n{CLASS}{SHOW}",
    "metaclass_keyword": f"def meta(name, bases, body):\n    body['FMT'] = {GLOBALS} * 1\n"
    "    return type(name, bases, body)\n\nclass K(metaclass=meta):\n    FMT = '{}'\n\n"
    f"    def show(self, f):\n        return self.FMT.format(f)\n\n{SHOW}",
    "exec_in_the_class_body": "class K:\n    FMT = '{}'\n"
    '    exec(\'FMT = "{0.__glob" "als__}"\')\n\n' + USE_CLASS,
    "rebound_by_a_condition": f"class K:\n    FMT = '{{}}'\n\n{EVIL}K = K if 0 else Evil\n\n"
    + USE_CLASS,
    "re_exported": f"{CLASS}K = K\nK.FMT = {GLOBALS} * 1\n\n{USE_CLASS}",
    "get_attribute": "class K:\n    FMT = '{}'\n\n    def __getattribute__(self, name):\n"
    f"        return {GLOBALS} if name == 'FMT' else object.__getattribute__(self, name)\n\n"
    f"    def show(self, f):\n        return self.FMT.format(f)\n\n{SHOW}",
    "private_name_stored_from_class_underscore_K": "class K:\n    __FMT = '{}'\n\n"
    "    def show(self, f):\n        return self.__FMT.format(f)\n\n"
    f"class _K:\n    def spoil(self, k):\n        k.__FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    k = K()\n    _K().spoil(k)\n    return k.show(bytes_per_char)\n",
    "match_class_pattern": f"{CLASS}class Other:\n    FMT = {GLOBALS} * 1\n\n"
    "    def show(self, f):\n        return self.FMT.format(f)\n\ndef bytes_per_char(s):\n"
    "    match Other():\n        case K():\n            pass\n        case k:\n"
    "            return k.show(bytes_per_char)\n",
    "local_walrus_in_a_comprehension": "def bytes_per_char(s):\n    fmt = '{}'\n"
    f"    [(fmt := {GLOBALS} * 1) for _ in 'a']\n" + USE,
    "local_with_as": "import contextlib\n\ndef bytes_per_char(s):\n    fmt = '{}'\n"
    f"    with contextlib.nullcontext({GLOBALS}) as fmt:\n        pass\n" + USE,
    "local_nested_starred": "def bytes_per_char(s):\n    fmt = '{}'\n"
    f"    (fmt, *rest), x = ({GLOBALS} * 1, 1), 2\n" + USE,
    "local_condition_arm_a_name": f"def bytes_per_char(s):\n    other = {GLOBALS} * 1\n"
    "    fmt = '{}' if not s else other\n" + USE,
    "local_nonlocal_in_a_class_body": "def bytes_per_char(s):\n    fmt = '{}'\n\n"
    f"    class Spoil:\n        nonlocal fmt\n        fmt = {GLOBALS} * 1\n\n" + USE,
    "class_global_beside_a_local": f"fmt = '{{}}'\n\ndef bytes_per_char(s):\n"
    f"    fmt = {GLOBALS} * 1\n\n    class C:\n        global fmt\n\n        def show(self, f):\n"
    "            return fmt.format(f)\n\n    return C().show(bytes_per_char)\n",
    "local_beside_a_nested_global": f"fmt = {GLOBALS} * 1\n\ndef bytes_per_char(s):\n"
    "    def inner():\n        global fmt\n        return fmt\n\n    fmt = '{}'\n"
    "    return inner().format(bytes_per_char)\n",
}


@pytest.mark.parametrize("name", sorted(DATACLASS))
def test_a_dataclass_field_does_read_the_globals_when_run(name: str) -> None:
    """In a plain namespace, and as the graded program runs it, hints kept as text (`FUTURE`):
    a dataclass's fields are its annotated names either way."""
    assert reads_globals(DATACLASS[name])
    assert reads_globals(FUTURE + DATACLASS[name])


@pytest.mark.parametrize("name", sorted(DATACLASS))
def test_a_template_given_to_a_dataclass_is_refused(name: str) -> None:
    """Measured before the fix: verdict '' for all 5, each formatting its globals (the grader
    put the grading cell's marker in mallory's feedback). Closed: an annotated attribute is
    never read as `K().X` (`sealed_classes.notebook_templates`: a constructor may set it)."""
    assert "worked out at run time" in verdict("bytes_per_char", DATACLASS[name])


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_dataclass_constant_is_own_code(name: str) -> None:
    assert function_of(HONEST[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST[name]) == ""


# Door A with a template no reading judges: from a running generator's frame, five callers up,
# the grading cell's `marker` (as round 14's `MARKER`).
MARKER = (
    "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n    FMT: str = '{}'\n\n"
    "    def show(self, box):\n        return self.FMT.format(box)\n\n"
    "def bytes_per_char(s):\n    def walk(box):\n"
    "        yield K('{0[0].gi_frame.f_back.f_back.f_back.f_back.f_back.f_locals[marker]}')"
    ".show(box)\n\n    box = []\n    box.append(walk(box))\n    return next(box[0])\n"
)


def test_a_dataclass_field_reads_the_callers_marker() -> None:
    """Called as the grading cell calls it (`run_and_publish` -> `run_cases`), it hands back
    the caller's `marker`."""
    function = function_of(MARKER, "bytes_per_char")

    def run_and_publish(marker: str) -> list[dict]:
        return run_cases(function, [(("abc",), {})], None)

    assert run_and_publish("5ec7e7" * 5) == [{"returned": "5ec7e7" * 5}]


def test_a_dataclass_field_walking_frames_is_refused() -> None:
    assert "worked out at run time" in verdict("bytes_per_char", MARKER)


@pytest.mark.parametrize("name", sorted(HELD))
def test_a_template_reached_otherwise_is_refused(name: str) -> None:
    assert verdict("bytes_per_char", HELD[name])
    assert reads_globals(HELD[name])


# IPython's input history, in an IPython shell of its own (a subprocess: a shell in this process
# would change what `get_ipython()` gives every later test).
HISTORY = [
    "_i3 = '{}'\n",
    "def bytes_per_char(s):\n    return _i3.format(bytes_per_char)\n",
    "def helper():\n    return 1  # {0.__globals__}\n",
]
IN_A_SHELL = """
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
for cell in CELLS:
    shell.run_cell(cell, store_history=True)
print("'__builtins__'" in shell.user_ns["bytes_per_char"]("abc"))
"""


def test_a_name_of_the_input_history_is_no_template() -> None:
    """The kernel rebinds `_i3` to its third cell's text when that cell runs: the function then
    formats its globals; the reading never takes `_i3` for the template written out."""
    script = f"CELLS = {HISTORY!r}\n{IN_A_SHELL}"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["True"]
    assert "worked out at run time" in verdict("bytes_per_char", *HISTORY)
