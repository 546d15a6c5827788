"""Red team on the own-code reading, round 7 (after round 6's fixes, main 4dc9f71). Each test
is a notebook whose reading stalls the grader, or honest code the rules refuse, each
`xfail(strict=True)` until its door is closed. Each was read by `Notebook.borrowed`, as
`check()` and the grader read it.

Door found:

1. the reading is quadratic in the names one statement binds: `Notebook.borrowed` reads every
   unit of every name it reaches, and a unit that binds N names (`a0, a1, ... = range(N)`) is
   read again for each of them, each reading walking the whole statement. A `get_stats` that
   sums those names (`sum([a0, a1, ...])`) is honest and correct. Measured on 4dc9f71 (one
   target, CPU s): 125 names (1.4 KB) 0.9, 250 (2.9 KB) 3.5, 500 (5.9 KB) 15, 1,000 (12 KB) 65.
   Every target that reaches the names reads them again, `check()` too, and the grader's
   readings take turns, so one such notebook stalls every other one's reading (red team 2 found
   the same shape in the imports; this is the units). Through the real grader (`grade_submissions`,
   jobs=1, machine loaded to 3.5-4.9) a batch of lesson 1 and a lesson 3 whose `get_stats` uses
   400 such names took 80 s wall; with 1,200 names (14 KB) 476 s, all of it graded (full marks).

Honest code refused (each costs a learner the exercise's marks, in `check()` and the grader):

2. `type` compared with `==`, `!=` or `in`, handed to `isinstance` or `issubclass`:
   `if type(cp) == str: cp = ord(cp)`, `isinstance(x, type)`, `issubclass(type(cp), int)`,
   `type(cp) not in (int,)`: the forms a beginner writes first; only `is` and `.__name__` pass;
3. a private attribute of the learner's own class whose name some class of Python's has:
   `self._name = name` (the `typing` forms have `_name`), also `_invalid`, `_evaluate`,
   `_getitem`... (44 names on 3.12, and which ones depends on the Python version);
4. a named tuple's documented methods, `_replace`, `_asdict`, `_make` and `_fields`: they start
   with `_` only so as not to clash with field names, and the notebook never defines them.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest

from lib.exercises.own_code import Notebook
from tests.test_red_team_own_code import EXERCISES, attacks_score_nothing
from tests.test_red_team_own_code_6 import trimmed


def verdict(name: str, *cells: str) -> str:
    """The reading's verdict on `name` in these cells, under its exercise's rules."""
    exercise = EXERCISES[name]
    return Notebook(list(cells)).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)


def many_names(count: int) -> list[str]:
    """Cells binding `count` names in one statement, and a `get_stats` that uses them all."""
    names = [f"a{i}" for i in range(count)]
    return [
        f"{', '.join(names)} = [0] * {count}\n",
        f"def get_stats(ids):\n    offset = sum([{', '.join(names)}])\n    counts = {{}}\n"
        "    for pair in zip(ids, ids[1:]):\n"
        "        counts[pair] = counts.get(pair, 0) + 1 + offset\n    return counts\n",
    ]


# 1. Fix: in `Notebook.borrowed`, read each unit once (keep the `Where`s read, skip a unit seen
# through another of the names it binds); the reading is then linear in the statement's size.
def test_a_statement_binding_many_names_is_read_once():
    cells = many_names(200)  # 2.3 KB
    start = time.process_time()
    assert verdict("get_stats", *cells) == ""
    assert time.process_time() - start < 0.5  # 2.3 s on 4dc9f71; a few hundredths once fixed


UTF8 = EXERCISES["utf8_encode"].solution_code
BODY = UTF8.replace("def utf8_encode(cp: int) -> bytes:\n", "")
TYPE_ASKED = {
    "type(cp) == str": "    if type(cp) == str:\n        cp = ord(cp)\n",
    "type(cp) != int": "    if type(cp) != int:\n        raise TypeError('an int')\n",
    "type(cp) not in (int,)": "    if type(cp) not in (int,):\n        raise TypeError('an int')\n",
    "isinstance(cp, type)": "    if isinstance(cp, type):\n        raise TypeError('an int')\n",
    "issubclass(type(cp), int)": (
        "    if not issubclass(type(cp), int):\n        raise TypeError('an int')\n"
    ),
}


# 2. Fix: in `python_itself.type_outside`, accept `type(x)` compared (`==`, `!=`, `in`, `not
# in`) with builtin names or a tuple of them, or given to `issubclass`, and the bare name `type`
# as `isinstance`'s second argument: none of these hands the class to code of the learner's.
@pytest.mark.parametrize("check", TYPE_ASKED.values(), ids=list(TYPE_ASKED))
def test_type_asked_about_as_a_beginner_writes_it_is_own_code(check: str):
    assert verdict("utf8_encode", f"def utf8_encode(cp):\n{check}{BODY}") == ""


TABLE = (
    "class Table:\n    def __init__(self, name):\n        self._name = name\n"
    "    def label(self):\n        return self._name\n\n"
)
OWN_PRIVATE = TABLE + "def utf8_encode(cp):\n    assert Table('utf-8').label()\n" + BODY


# 3. Fix: in `python_itself.private_outside`, judge a private name against `python_private`
# only where the value could be Python's: `self._name` inside a method of a class whose body or
# methods store `_name` is the class's own (or keep `python_private` to the names that reach
# code: `_convert_`, `_getitem`..., not `_name`).
def test_a_private_attribute_of_the_learners_own_class_is_own_code():
    assert verdict("utf8_encode", OWN_PRIVATE) == ""


SELF_REFUSED = {  # `self` may be Python's class: `Table.run(re.RegexFlag)`
    "code of Python's on self": "class Table:\n    def __init__(self):\n        self._convert_ = 0"
    "\n    def run(self):\n        return self._convert_('F', 'os', bool)\n\n",
    "self rebound": "import re\n\nclass Table:\n    def __init__(self):\n        self._name = 0"
    "\n    def run(self):\n        self = re.RegexFlag\n        return self._name\n\n",
    "a class with a base": "import re\n\nclass Table(re.RegexFlag):\n    def run(self):\n"
    "        self._name = 0\n        return self._name\n\n",
    "not set by the class": "class Table:\n    def run(self):\n        return self._name\n\n",
}


@pytest.mark.parametrize("cells", SELF_REFUSED.values(), ids=list(SELF_REFUSED))
def test_a_private_attribute_on_self_stays_refused_where_it_may_be_pythons(cells: str):
    answer = cells + "def utf8_encode(cp):\n    assert Table\n" + BODY
    assert "a private attribute that is not the notebook's own" in verdict("utf8_encode", answer)


NAMED_TUPLE = "import collections\nStep = collections.namedtuple('Step', 'limit lead')\n"
NAMED_TUPLE_USES = {
    "_replace": "    assert Step(0x80, 0)._replace(lead=0xC0).lead == 0xC0\n",
    "_asdict": "    assert Step(0x80, 0)._asdict()['limit'] == 0x80\n",
    "_make": "    assert Step._make([0x80, 0]).limit == 0x80\n",
    "_fields": "    assert Step._fields == ('limit', 'lead')\n",
}


# 4. Fix: in `python_classes.python_private`'s counterpart for reading, allow `_replace`,
# `_asdict`, `_make`, `_fields` and `_field_defaults` on any value (a named tuple's public API,
# harmless on every other value that has them), or where a class is made by
# `collections.namedtuple`.
@pytest.mark.parametrize("use", NAMED_TUPLE_USES.values(), ids=list(NAMED_TUPLE_USES))
def test_a_named_tuples_documented_methods_are_own_code(use: str):
    answer = NAMED_TUPLE + "def utf8_encode(cp):\n" + use + BODY
    assert verdict("utf8_encode", answer) == ""


# 2 and 3 through the real, sandboxed grader: lesson 1 with only its set-up and exercise cells,
# `utf8_encode` and `bytes_per_char` answered honestly as above. Measured on 4dc9f71: both
# scored 0, `not own code` (the other three exercises full marks). Same fixes.
@pytest.mark.end_to_end
def test_the_real_grader_gives_this_honest_code_its_marks(tmp_path: Path):
    honest = {
        "utf8_encode": f"def utf8_encode(cp):\n{TYPE_ASKED['type(cp) == str']}{BODY}",
        "bytes_per_char": TABLE
        + "def bytes_per_char(text):\n    assert Table('utf-8').label()\n"
        + EXERCISES["bytes_per_char"].solution_code.split("\n", 1)[1],
    }
    nbformat.write(trimmed("01_unicode_and_utf8.ipynb", honest), tmp_path / "mallory_1.ipynb")
    attacks_score_nothing(tmp_path, {"mallory_1": {}})  # no attack: every exercise must score
