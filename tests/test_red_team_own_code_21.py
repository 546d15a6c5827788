"""Red team on the grading rules, round 21: the rules fix27z added in round 20 (a class matched by
position is a plain `@dataclass`, `class_patterns`; a type hint names only builtins, what imports
alone bind, names no cell binds and plain classes, `hint_names.may_name`). Each open hole is
`xfail(strict=True)`, its reason saying what was measured and what would close it; each held
attack a plain test that, where it can, also runs the attack and sees it work. Measured with
round 20's harness: `verdict` (the reading, as `check()` and the grader read), `function_of`
and `scores` (the cells run in a plain namespace, compiled with `FUTURE` as the grader compiles
them, and judged on cases drawn as the grader draws them), and once per door the graded
program itself (`Notebook.program`, the units the grader keeps).

Doors found (one root, two rules). A and B are closed (the lead, after the round): `binds`
now counts a `:=` in a `def`'s or `class`'s decorators, defaults, annotations, bases and keywords
(`cell_reading._run_at_definition`), so `box` and `Enc` have a binding that is neither an import
nor a class statement, and both rules refuse them; their tests are plain now. C is open (xfail).

A. **A walrus in a `def`'s default makes an imported name the learner's, unseen by
   `may_name`.** `cell_reading.binds` does not walk into a `def` (its locals are its own), so a
   `:=` in a default value or a decorator, which runs at top level and binds a global, binds no
   name of the notebook's in the reading's eyes. With `from collections import Counter as box`
   in a cell, `def pick(x, seen=(box := Box()))` rebinds `box` to an instance of the learner's
   class while `box`'s units are the import alone: `may_name` trusts a name only imports bind,
   and the reading of the walrus follows `box` to that import. So round 20's door B is open
   again: `@pick.register def pick_int(x: box | bytes)` hands `bytes` to `Box.__or__`, and
   `box | getattr` hands on `getattr`, from which `train_bpe.__globals__["__builtins__"]`,
   `__import__` and `lib.bpe.train` follow. Measured: `utf8_encode` (where `.encode` and
   `bytes` as a value are forbidden) and `train_bpe` read as own code (verdict ""), the graded
   program (`Notebook.program`) keeps the import, the `def` with the walrus and the registered
   function, and run from it they score 2 / 2 on students 3000 and 3001 ("all 47 cases
   passed"; `train_bpe` "all 35" and "all 36 cases passed"). The real grader
   (`grade_submissions` from a scratch script, salt "red team 21", solved lessons 1 and 3 with
   the attack in the exercise's cell; 37 s and 38 s a batch) gave mallory's `utf8_encode` 2 / 2
   "all 47 cases passed" (an honest student beside: 2 / 2) and trent's `train_bpe`, which
   returns `lib.bpe.train(...)[1]` so reached, 2 / 2 "all 36 cases passed". A walrus in a decorator
   (`@(box := Box()) and keep or keep`) reads as own code too. Without the import the walrus
   alone is refused ("uses `box`, which no cell the grader can read defines"): held below.
   Fix: a name is the notebook's wherever a top-level statement binds it, a `def`'s or
   `class`'s decorators, defaults, bases and keywords included (`binds` walks them, as Python
   runs them at top level); then `box`'s units are not imports alone and `may_name` refuses it.

B. **The same walrus swaps a dataclass matched by position.** `class_patterns._only_dataclasses`
   looks at `Enc`'s units: one `@dataclasses.dataclass class Enc`. A `def swapped(seen=(Enc :=
   made()))` rebinds `Enc` to round 20's class (a named tuple of fields `["encode"]` and a
   `collections.abc.Sized`), so `swapped().register(str)` and `case Enc(method):` fetch
   `chr(cp).encode`: UTF-8 by the method lesson 1 forbids. Read as own code (verdict ""), run,
   `utf8_encode(0xE9) == b"\\xc3\\xa9"` and 2 / 2 on the judge's cases; the real grader (the
   batch with trent's) gave victor's `utf8_encode` 2 / 2 "all 47 cases passed".
   Fix: as A (the reading then sees two bindings of `Enc`, one no class statement).

C. **Below the gate, junk still pays better than the wanted error (unfair outcome).** fix27z
   closed round 20's door C above the half-right gate only: below it a wanted error raised on
   a value case still voids every error case's credit, while a wrong value returned there costs
   nothing more. A `uint16_bytes` draft that validates every id (the exercise's
   `ValueError`) and encodes lists of up to four ids, with the longer lists not written yet,
   scores on round 19's 10 students (`scores`) 0.63 to 0.80 / 1 returning `b""` for the long
   lists, but 0.05 to 0.20 / 1 on 8 of them (0.79 to 0.80 on the 2 whose draws put it above
   the gate) raising `ValueError` there, the honest "not written yet". The gate's aim (a table
   of the shown answers raising elsewhere earns no error credit) is as easily met by a table
   returning junk elsewhere beside a range check (`validate_only`, round 13's F: 0.53 to 0.57).
   Fix (a choice for the lead): count a wanted error raised on a value case as a wrong value on
   both sides of the gate, and gate the error credit by the share of value cases right
   (whatever the answer did on the others) for every answer; or say in the feedback that an
   unwritten branch should raise `NotImplementedError`.

Held (plain tests: refused, and each, run, does what the attack wants):
- classes a hint names, taken out of `functools.singledispatch` by its `.registry` ("uses
  `.registry`, where classes that type hints name come out");
- `__subclasshook__` on a class hinted and registered (`collections.abc.Sized` base), which
  `issubclass` in `singledispatch`'s dispatch would hand the argument's class (`bytes`): "binds
  `__subclasshook__`";
- a module's member replaced inside a function (`collections.Counter = Enc`), then matched by
  position as a module's class: "a module's names are used, never changed";
- the walrus of door A with no import of the name: "no cell the grader can read defines";
- the walrus rebinding `from dataclasses import dataclass` to a function of the learner's that
  returns a named tuple's ABC: "uses `dataclasses.dataclass` other than as the decorator".

Looked at, no door: `type` hints and `|` on a plain class reach `type.__or__`, and no allowed
module's base gives a metaclass with an operator of its own (`collections.abc`'s `ABCMeta` calls
only `__subclasshook__`, refused above); `typing.Union`/`Literal` hash and compare a plain class
with its metaclass's operators. Door D's rule (quote a value only a shown case returned) holds:
the shown cases of every exercise run before any hidden one (round 20's `rounds`), and values
cross from the kernel as `to_wire` data, so a list returned on a shown case cannot be filled by a
later hidden one. Door C's new scoring above the gate: a wanted error costs only its case
(door C here is below it).

Not tried (time): PEP 695 aliases and bounds (the course runs Python 3.11); `check()` in the
kernel, where hints are evaluated at `def` time without `FUTURE`.
"""

from __future__ import annotations

import pytest

from tests.test_red_team_own_code_9 import function_of
from tests.test_red_team_own_code_13 import verdict
from tests.test_red_team_own_code_19 import scores
from tests.test_red_team_own_code_20 import EXERCISES, FUTURE, STUDENTS

# Door A: `box` is bound by an import, then, unseen, by a walrus in a default.
BOX = (
    "import functools\nfrom collections import Counter as box\n\n\nclass Box:\n"
    '    """Keeps what stands on the other side of `|` in a type hint."""\n\n'
    "    found = int\n\n    def __or__(self, other):\n        Box.found = other\n"
    "        return int\n\n\n"
)
IN_DEFAULT = "@functools.singledispatch\ndef pick(x, seen=(box := Box())):\n    return x\n\n\n"
IN_DECORATOR = (
    "def keep(f):\n    return f\n\n\n@functools.singledispatch\n"
    "@(box := Box()) and keep or keep\ndef pick(x):\n    return x\n\n\n"
)


def _registered(name: str) -> str:
    return f"@pick.register\ndef pick_int(x: box | {name}):\n    return x\n\n\n"


UTF8_ENCODE = (
    "def utf8_encode(cp: int) -> bytes:\n"
    "    pick(0)  # reaches `pick`'s units: the walrus and the registered function\n"
    '    return Box.found(chr(cp), "utf-8")\n'
)
TRAIN_BPE = (
    "def train_bpe(text: str, vocab_size: int) -> list[tuple[bytes, bytes]]:\n"
    "    pick(0)\n"
    "    reach = Box.found\n"
    '    space = reach(train_bpe, "__glob" + "als__")\n'
    '    kit = space["__builtins__"]\n'
    '    load = kit["__import__"] if isinstance(kit, dict) else reach(kit, "__imp" + "ort__")\n'
    '    module = load("lib.bpe", None, None, ["train"])\n'
    '    return reach(module, "tra" + "in")(text, vocab_size)[1]\n'
)
HANDED = {
    "utf8_encode": BOX + IN_DEFAULT + _registered("bytes") + UTF8_ENCODE,
    "train_bpe": BOX + IN_DEFAULT + _registered("getattr") + TRAIN_BPE,
}


@pytest.mark.filterwarnings("ignore::UserWarning")  # lib.bpe.train on short texts
@pytest.mark.parametrize("name", sorted(HANDED))
def test_the_attack_earns_full_marks_had_it_been_read_as_own_code(name: str) -> None:
    """Before the fix the graded program (`Notebook.program`) held the import, the walrus and
    the registered function and earned 2 / 2; the cells run as the grader compiles them still
    do, which is why the reading must refuse them (below)."""
    points = EXERCISES[name].points
    assert scores(name, FUTURE + HANDED[name], STUDENTS[:2]) == [points, points]


@pytest.mark.parametrize("name", sorted(HANDED))
def test_a_walrus_in_a_default_does_not_make_an_imported_name_hintable(name: str) -> None:
    assert "has a type hint naming `box`" in verdict(name, HANDED[name])


def test_a_walrus_in_a_decorator_does_not_make_an_imported_name_hintable() -> None:
    source = BOX + IN_DECORATOR + _registered("bytes") + UTF8_ENCODE
    assert function_of(FUTURE + source, "utf8_encode")(0xE9) == b"\xc3\xa9"
    assert "has a type hint naming `box`" in verdict("utf8_encode", source)


def test_the_walrus_alone_binds_a_name_no_cell_defines() -> None:
    """Held: without the import, the reading follows the walrus's `box` to no binding."""
    source = HANDED["utf8_encode"].replace("from collections import Counter as box\n", "")
    assert function_of(FUTURE + source, "utf8_encode")(0xE9) == b"\xc3\xa9"
    said = verdict("utf8_encode", source)  # before `binds` saw the walrus: no cell defines it
    assert "which no cell the grader can read defines" in said or "naming `box`" in said


# Door B: the walrus swaps a `@dataclass` class for a named tuple's ABC, matched by position.
SWAPPED = (
    "import collections\nimport collections.abc\nimport dataclasses\n\n\n"
    '@dataclasses.dataclass\nclass Enc:\n    """Matched by position, the reading believes."""\n\n\n'
    "def made():\n"
    '    class Made(collections.namedtuple("Base", ["encode"]), collections.abc.Sized):\n'
    "        pass\n\n    return Made\n\n\n"
    "def swapped(seen=(Enc := made())):\n    return seen\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n"
    "    swapped().register(str)\n"
    "    match chr(cp):\n"
    "        case Enc(method):\n"
    '            return method("utf-8")\n'
)


def test_the_swapped_dataclass_encodes_by_str_encode() -> None:
    assert ".encode" not in SWAPPED
    assert function_of(FUTURE + SWAPPED, "utf8_encode")(0xE9) == b"\xc3\xa9"
    assert scores("utf8_encode", FUTURE + SWAPPED, STUDENTS[:2]) == [2, 2]


def test_a_dataclass_rebound_by_a_walrus_is_matched_by_keyword_only() -> None:
    assert "matches `Enc` by position" in verdict("utf8_encode", SWAPPED)


# Held attacks on the hint and pattern rules.
REGISTRY = (
    "import functools\n\n\n@functools.singledispatch\ndef pick(x):\n    return x\n\n\n"
    "@pick.register\ndef pick_bytes(x: bytes):\n    return x\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n    kinds = list(pick.registry)\n"
    '    return kinds[-1](chr(cp), "utf-8")\n'
)
HOOK = (
    "import collections.abc\nimport functools\n\n\nclass K(collections.abc.Sized):\n"
    "    found = []\n\n    @classmethod\n    def __subclasshook__(cls, other):\n"
    "        K.found.append(other)\n        return NotImplemented\n\n\n"
    "@functools.singledispatch\ndef pick(x):\n    return x\n\n\n"
    "@pick.register\ndef pick_k(x: K):\n    return x\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n    pick(b'')\n"
    '    return K.found[-1](chr(cp), "utf-8")\n'
)
MODULE_MEMBER = (
    "import collections\n\n\nclass Enc:\n    __match_args__ = ('encode',)\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n    collections.Counter = Enc\n    match chr(cp):\n"
    "        case collections.Counter(m):\n"
    '            return m("utf-8")\n'
)
HELD = {
    "a hinted class out of .registry": (REGISTRY, "uses `.registry`", True),
    "__subclasshook__ on a hinted ABC": (HOOK, "binds `__subclasshook__`", True),
    "a module's class replaced": (MODULE_MEMBER, "a module's names are used, never changed", False),
}


@pytest.mark.parametrize("how", sorted(HELD))
def test_held_attacks_are_refused(how: str) -> None:
    source, refusal, runs = HELD[how]
    assert refusal in verdict("utf8_encode", source)
    if runs:  # what the attack wants, had it been read as own code
        assert function_of(FUTURE + source, "utf8_encode")(0xE9) == b"\xc3\xa9"


DATACLASS_REBOUND = (
    "import collections\nimport collections.abc\nfrom dataclasses import dataclass\n\n\n"
    "def made(cls):\n"
    '    class Made(collections.namedtuple("Base", ["encode"]), collections.abc.Sized):\n'
    "        pass\n\n    return Made\n\n\n"
    "def swapped(seen=(dataclass := made)):\n    return seen\n\n\n"
    "@dataclass\nclass Enc:\n    pass\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n    swapped()\n    Enc.register(str)\n"
    "    match chr(cp):\n        case Enc(method):\n"
    '            return method("utf-8")\n'
)


def test_a_walrus_rebinding_the_imported_dataclass_is_refused() -> None:
    assert function_of(FUTURE + DATACLASS_REBOUND, "utf8_encode")(0xE9) == b"\xc3\xa9"
    said = verdict("utf8_encode", DATACLASS_REBOUND)  # the walrus seen: matched by position
    assert "other than as the decorator" in said or "matches `Enc` by position" in said


# Door C: below the half-right gate, raising the wanted error where a branch is unwritten costs
# every error case's credit; returning junk there costs nothing more.
VALIDATES = (
    "def uint16_bytes(ids):\n    for i in ids:\n        if not 0 <= i < 65536:\n"
    "            raise ValueError(repr(ids))\n    if len(ids) > 4:  # not written yet\n"
)
SHORT = "    return b''.join(i.to_bytes(2, 'little') for i in ids)\n"
RAISES_WHERE_LONG = VALIDATES + "        raise ValueError('long lists: not written yet')\n" + SHORT
JUNK_WHERE_LONG = VALIDATES + "        return b''\n" + SHORT


def test_both_uint16_drafts_are_own_code() -> None:
    for source in (RAISES_WHERE_LONG, JUNK_WHERE_LONG):
        assert verdict("uint16_bytes", source) == ""


@pytest.mark.xfail(
    strict=True,
    reason="uint16_bytes over 10 students: raising ValueError where lists are long 0.05-0.20 / 1 "
    "on 8 (below the gate), returning b'' there 0.63-0.80. Fix: a wanted error on a value case "
    "counts as a wrong value on both sides of the gate, the error credit gated by the value "
    "share whatever the answer did on the rest",
)
def test_below_the_gate_raising_earns_no_less_than_junk() -> None:
    raising = scores("uint16_bytes", RAISES_WHERE_LONG, STUDENTS)
    junk = scores("uint16_bytes", JUNK_WHERE_LONG, STUDENTS)
    assert all(r >= j for r, j in zip(raising, junk, strict=True)), (raising, junk)
