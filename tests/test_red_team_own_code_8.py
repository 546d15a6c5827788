"""Red team on the own-code reading, round 8 (after round 7's fixes dc78a89, 3d13311, 089d28a,
8d6206f). Each hole is `xfail(strict=True)` until its door is closed; each attack the rules
held is a plain test. Read by `Notebook.borrowed`, as `check()` and the grader read it.

Door found:

1. round 7 accepts `isinstance(x, type)`, `issubclass(type(x), int)` and `type(x) == int` by the
   *names* `isinstance`, `issubclass` and `int`, yet in an exercise that forbids nothing a cell
   may bind those names itself (`def isinstance(value, kind)`, `int = Grab()`). Then the builtin
   `type`, or `type(C)` for a class (which is `type`), reaches a function of the learner's as a
   plain parameter, which the reading never judges. Called with three arguments it makes a class
   whose `__annotations__` are any text, and `dataclasses.dataclass(C)` (an allowed public
   function) writes each field's name into the code it `exec`s in the notebook's globals:
   `train_bpe` returns `lib.bpe.train(...)` through text. Read as own code; the real grader gave
   it full marks (2 of 2; the honest rest of lesson 3 too), 13 s.

Honest code refused:

2. `type(x)` shown rather than compared: `print(type(cp))` left from debugging, or an error
   message `f"expected an int, got {type(cp)}"`, `str(type(cp))`: formatting a class runs only
   Python's own `type.__repr__`;
3. `self._name` read in a method under `@property` (a read-only attribute, a common style for a
   class of lesson 8): round 7 accepts it only in an undecorated method.

Held: the same `isinstance` door where `.encode` is forbidden (the name is judged there);
`type(type(x))`, `(t := type(x)) is int`; no class of Python's the rules allow has a named
tuple's `_replace`/`_asdict`/`_make`/`_fields`, so accepting them on any value reaches nothing.
Not attacked (time): the demonstration cells left out of the first run (`demo_cells`).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from lib import bpe
from lib.exercises.own_code import Notebook
from lib.exercises.python_classes import python_kinds, python_values
from lib.exercises.python_itself import NAMED_TUPLE_API
from tests.test_red_team_own_code import EXERCISES, attacks_score_nothing
from tests.test_red_team_own_code_6 import trimmed


def verdict(name: str, *cells: str) -> str:
    """The reading's verdict on `name` in these cells, under its exercise's rules."""
    exercise = EXERCISES[name]
    return Notebook(list(cells)).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)


# What every route of door 1 ends with, once `maker` is `type`: a class whose one annotation is
# code, made a dataclass, whose generated `__eq__` returns the library's merges.
FROM_TEXT = (
    "    name = \"real)if 0 else __import__('lib.bpe').bpe.train(self.text, self.n)[1]#\"\n"
    "    C = maker('C', (), {'__annotations__': {name: int}})\n"
    "    C = dataclasses.dataclass(init=False, repr=False, match_args=False)(C)\n"
    "    one = C()\n    one.text, one.n = text, vocab_size\n    return one == one\n"
)
PLAIN = "class Plain:\n    pass\n\n"
GRAB = (
    "class Grab:\n    def __init__(self):\n        self.got = []\n"
    "    def __eq__(self, other):\n        self.got.append(other)\n        return False\n\n"
)
ROUTES = {  # how `type` reaches `maker`, a plain variable of the learner's
    "own isinstance": "def isinstance(value, kind):\n    return kind\n\n"
    "def train_bpe(text, vocab_size):\n    maker = isinstance(text, type)\n",
    "own issubclass": "def issubclass(value, kind):\n    return value\n\n"
    + PLAIN
    + "def train_bpe(text, vocab_size):\n    maker = issubclass(type(Plain), int)\n",
    "own int, ==": GRAB + PLAIN + "int = Grab()\n\n"
    "def train_bpe(text, vocab_size):\n    if type(Plain) == int:\n        pass\n"
    "    maker = int.got[-1]\n",
    "a parameter named int, in": GRAB + PLAIN + "def asked(int):\n"
    "    return type(Plain) in (int,)\n\n"
    "def train_bpe(text, vocab_size):\n    grab = Grab()\n    asked(grab)\n"
    "    maker = grab.got[-1]\n",
}


def attack(route: str) -> str:
    return "import dataclasses\n\n" + ROUTES[route] + FROM_TEXT


@pytest.mark.parametrize("route", ROUTES)
def test_each_route_really_gets_the_librarys_merges(route: str):
    """The attacks are real: run as a notebook runs them, each returns `lib.bpe.train`'s merges."""
    namespace: dict = {"__name__": "__main__"}
    exec(attack(route), namespace)
    text = "low lower lowest newer wider " * 3
    assert namespace["train_bpe"](text, 266) == bpe.train(text, 266)[1]


# 1. Fix: a name the rules trust as a builtin (`isinstance`, `issubclass`, the builtin classes
# `builtin_classes` compares with) is trusted only where no cell and no enclosing scope binds
# it: add them to the names no unit may bind (`allowed.JUDGED_BUILTINS`), or check
# `around.units` and `scopes` in `type_outside`. And refuse `dataclasses.dataclass` other than
# as the decorator of a `class` statement (`by_text`): called on a class value, it writes
# annotations the reading never saw into code it runs.
@pytest.mark.parametrize("route", ROUTES)
def test_type_handed_to_the_learners_code_is_not_own_code(route: str):
    assert verdict("train_bpe", attack(route)) != ""


def test_the_same_isinstance_is_refused_where_encode_is_forbidden():
    answer = (
        "def isinstance(value, kind):\n    return kind\n\n"
        "def utf8_encode(cp):\n    return isinstance(cp, type)\n"
    )
    # Refused where it is used: `isinstance` bound by a cell is no builtin (`allowed.is_builtin`),
    # so `type` handed to it is `type` used other than to ask about a class.
    assert "uses `type` other than to ask" in verdict("utf8_encode", answer)


TYPE_HELD = {
    "type of type": "    assert type(type(text)) == int\n",
    "walrus": "    assert (t := type(text)) is str\n",
    "type handed on": "    kinds = [type]\n",
}


@pytest.mark.parametrize("line", TYPE_HELD.values(), ids=list(TYPE_HELD))
def test_type_other_than_asked_stays_refused(line: str):
    answer = "def get_stats(ids):\n" + line + "    return {}\n"
    assert "uses `type` other than to ask about a class" in verdict("get_stats", answer)


def test_no_class_of_pythons_has_a_named_tuples_methods():
    """Round 7 accepts `_replace`, `_asdict`, `_make`, `_fields` on any value: none of the
    allowed modules' classes or values has them, so only the notebook's named tuples answer."""
    kinds = {k for k in python_kinds() if NAMED_TUPLE_API & set(dir(k))}
    values = [v for v in python_values() if any(hasattr(v, n) for n in NAMED_TUPLE_API)]
    assert kinds == set() and [v for v in values if not isinstance(v, type)] == []


UTF8 = EXERCISES["utf8_encode"].solution_code
BODY = UTF8.replace("def utf8_encode(cp: int) -> bytes:\n", "")
SHOWN = {
    "print": "    print(type(cp))\n",
    "f-string": "    if not isinstance(cp, int):\n"
    "        raise TypeError(f'expected an int, got {type(cp)}')\n",
    "str": "    if type(cp) is not int:\n        raise TypeError('not an int: ' + str(type(cp)))\n",
}


# 2. Fix: in `python_itself.class_asked`, accept `type(x)` as the one argument of `print`,
# `str` or `repr` and as an f-string's value (no format spec), where the notebook binds none of
# those names: formatting a class runs only `type.__repr__`.
@pytest.mark.parametrize("check", SHOWN.values(), ids=list(SHOWN))
def test_a_class_shown_in_a_message_is_own_code(check: str):
    assert verdict("utf8_encode", "def utf8_encode(cp):\n" + check + BODY) == ""


PROPERTY = (
    "class Pair:\n    def __init__(self, name):\n        self._name = name\n\n"
    "    @property\n    def name(self):\n        return self._name\n\n"
)
STATS = EXERCISES["get_stats"].solution_code.replace(
    "    counts = {}", "    assert Pair('ids').name == 'ids'\n    counts = {}"
)


# 3. Fix: in `python_itself.own_attribute`, accept a method decorated only `@property` (or
# `@<prop>.setter`, the builtin `property` not rebound): its getter can be handed any `self`
# (`Pair.name.fget(obj)`) exactly as an undecorated method can (`Table.label(obj)`), so it
# reaches no more than round 7 already allows.
def test_a_private_attribute_behind_a_property_is_own_code():
    assert verdict("get_stats", PROPERTY + STATS) == ""


# 1 through the real, sandboxed grader: lesson 3 cut to its set-up and exercise cells, solved,
# `train_bpe` replaced by the `own isinstance` route.
@pytest.mark.end_to_end
def test_the_real_grader_gives_the_text_door_nothing(tmp_path: Path):
    notebook = trimmed("03_training_bpe.ipynb", {"train_bpe": attack("own isinstance")})
    nbformat.write(notebook, tmp_path / "mallory_8.ipynb")
    attacks_score_nothing(tmp_path, {"mallory_8": {"train_bpe": ""}})
