"""Red team on the own-code reading, round 9 (after round 8's fix27h: one `is_builtin` mark that
every name-based rule asks). Each hole was `xfail(strict=True)` until its door was closed; each
attack the rules held is a plain test. Read by `Notebook.borrowed`, as `check()` and the grader
read it.

Closed by fix27i, each by a rule: an allowed module's attribute is judged as the module it is or
hands out (`module_names.engines`: doors 1 and 2); a written-out format template is read field
by field, a computed one refused (`by_text.format_fields`); a 💡 hint quotes shown cases only
(`shown_only`); operator and container dunders are definable; `type(x) is bytes` only compares.

Doors found:

1. `string.Template` is `re` by another name. `string` is on the list and `Template` is public,
   so in `digit_groups` (lesson 5, which forbids `re` and `regex`) a subclass's class attribute
   `pattern = '[' + NUMBERS + ']{1,3}'` is compiled by `Template.__init_subclass__` with `re`,
   and `Groups.pattern.findall(text)` is the reference answer's `\\p{N}{1,3}` split, the numbers
   listed with `unicodedata`. Read as own code; equal to the reference on all 25 cases
   (shown and hidden); the real grader gave it full marks (1 of 1), 87 s.
2. `dataclasses.re` is the module `re` itself, a public attribute of an allowed module: in
   `digit_groups` `dataclasses.re.findall('[' + NUMBERS + ']{1,3}', text)` reads as own code
   (25 of 25 cases; the real grader: 1 of 1, 50 s), where `from dataclasses import re` is
   refused.

Rule gap (text only): a dunder or a frame read through a format string. `"{0.__globals__}"`,
`"{0.gi_frame.f_back.f_locals}"` in `str.format` / `format_map` name attributes as text, which
the reading never sees: a graded function can read any namespace it reaches *as text* (the
grading code's own frames included). No call can be made so (format only reads attributes and
items), and the kernel holds no expected answer, so no marks came of it.

Hidden case shown: `stream_decode`'s wrong-turn hint counts the '\ufffd' in the first wrong
answer's expected value, hidden or not: "your strings hold 2 '\ufffd' where 1 belong" on hidden
case 72 of 91, every shown case right. A number of a hidden expected answer, in the feedback.

Honest code refused: a helper class with the everyday operator dunders (`__add__`, `__bool__`,
`__call__`, `__setitem__`, `__le__`): `DEFINABLE` holds only a dozen. And `assert type(out) is
bytes` in `utf8_encode` (`type(ch) == str` in `utf8_decode_first`): "hands `bytes` on as a
value", though `isinstance(out, bytes)` is accepted and the rules' own message asks for
`type(x) is int`.

Held: `bytes`/`bytearray`/`str` reached as values (a default, a list, `or`, a walrus, a
subclass, `functools.partial`, `map`, a dataclass default, a class attribute) and called with
an encoding, starred or keyword encodings, `case str(encode=f)`, a full-width `.ｅncode` (Python
folds it); `type(x)` shown (`!r`, `print` with a label) and compared with a set of builtins; a
name-mangled `self.__seen`; `case int(n)`; `type` handed to `print`, `str`, `int` or `isinstance`
where a default, a top-level `for`, a class body or a `match` capture binds that name.

Demonstrations (`demo_cells`), read but not attacked by a test: a first run that leaves a cell
out grades nothing (`execute`: the first `_attempts` is given no exercise), and each graded
kernel runs only the units read, with the working folder off `sys.path`; so neither a cell left
out nor one run but unread reaches a grade.
"""

from __future__ import annotations

import string
from pathlib import Path

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.own_code import Notebook
from tests.test_red_team_own_code import attacks_score_nothing
from tests.test_red_team_own_code_6 import trimmed

EXERCISES = {e.name: e for lesson in (1, 3, 5) for e in for_lesson(lesson)}


def verdict(name: str, *cells: str) -> str:
    """The reading's verdict on `name` in these cells, under its exercise's rules."""
    exercise = EXERCISES[name]
    return Notebook(list(cells)).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)


def function_of(source: str, name: str):
    """`name` as these cells define it, run in a plain namespace."""
    namespace: dict = {}
    exec(source, namespace)
    return namespace[name]


# Door 1: the `re` engine through `string.Template`, where `re` and `regex` are forbidden.
TEMPLATE_REGEX = (
    "import string\nimport unicodedata\n\n"
    "NUMBERS = ''.join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c))[0] == 'N')"
    "\n\n\nclass Groups(string.Template):\n"
    "    pattern = '[' + NUMBERS + ']{1,3}'  # compiled by `re` when the class is made\n\n\n"
    "def digit_groups(text):\n    return Groups.pattern.findall(text)\n"
)


def test_the_template_door_gives_the_reference_answer_on_every_case():
    exercise = EXERCISES["digit_groups"]
    assert "re" in exercise.forbidden and "regex" in exercise.forbidden
    attack = function_of(TEMPLATE_REGEX, "digit_groups")
    reference = function_of(exercise.solution_code, "digit_groups")
    cases = exercise.cases() + exercise.secret_cases()
    assert len(cases) >= 25  # 25 when written; salted twins added since (fix27x)
    assert all(attack(*c.args) == reference(*c.args) for c in cases)
    assert type(string.Template.pattern).__module__ == "re"  # what `Template` hands out


@pytest.mark.parametrize(
    "cells",
    [
        TEMPLATE_REGEX,
        "from string import Template\n\nclass Groups(Template):\n    pattern = '[0-9]{1,3}'\n\n"
        "def digit_groups(text):\n    return Groups.pattern.findall(text)\n",
        "import string\n\ndef digit_groups(text):\n"
        "    return [m.group() for m in string.Template.pattern.finditer(text)]\n",
    ],
    ids=["subclass, numbers from unicodedata", "Template imported alone", "the class's own"],
)
def test_template_is_re_where_re_is_forbidden(cells: str):
    assert "`re`" in verdict("digit_groups", cells) or "Template" in verdict("digit_groups", cells)


def test_the_real_grader_gives_the_template_door_nothing(tmp_path: Path):
    """One batch (about 50 s): the grader reads by the same `module_names.reached` that refuses
    `dataclasses.re` below, so one door measured end to end shows the reading is the one used."""
    nbformat.write(
        trimmed("05_encoding.ipynb", {"digit_groups": TEMPLATE_REGEX}), tmp_path / "mallory_9.ipynb"
    )
    attacks_score_nothing(tmp_path, {"mallory_9": {"digit_groups": ""}})


# The rule gap: attributes named as text in a format string.
FORMAT_TEXT = {
    "__globals__ of the course's merge": "from lib import bpe\n\ndef train_bpe(text, vocab_size):"
    "\n    seen = '{0.__globals__}'.format(bpe.merge)\n    return []\n",
    "the caller's frame, from a generator": "def train_bpe(text, vocab_size):\n"
    "    def me():\n        yield '{0.gi_frame.f_back.f_locals}'.format(box[0])\n"
    "    box = [me()]\n    seen = next(box[0])\n    return []\n",
    "format_map with a computed template": "def train_bpe(text, vocab_size):\n"
    "    field = '{x.' + '__class__}'\n    seen = field.format_map({'x': text})\n    return []\n",
}


def test_a_format_string_really_reads_a_dunder_as_text():
    source = "def f():\n    return 1\n\nseen = '{0.__globals__[f].__name__}'.format(f)\n"
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["seen"] == "f"


@pytest.mark.parametrize("attack", FORMAT_TEXT)
def test_attributes_named_in_a_format_string_are_judged(attack: str):
    assert verdict("train_bpe", FORMAT_TEXT[attack])


@pytest.mark.parametrize(
    "line",
    ["'{:>4} {}'.format(len(text), vocab_size)", "'{0[1]} {x.real:{w}}'.format(text, x=1, w=3)"]
    + ["'{n}'.format_map({'n': vocab_size})", "'{0.__class__}'.format(text)"],
)
def test_a_template_written_out_is_read_field_by_field(line: str):
    cells = f"def train_bpe(text, vocab_size):\n    seen = {line}\n    return []\n"
    assert bool(verdict("train_bpe", cells)) == ("__class__" in line)


# The honest refusal: everyday operator dunders on a helper class.
OPERATORS = (
    "class Count:\n    def __init__(self, n):\n        self.n = n\n"
    "    def __add__(self, other):\n        return Count(self.n + other.n)\n"
    "    def __bool__(self):\n        return self.n > 0\n"
    "    def __le__(self, other):\n        return self.n <= other.n\n\n\n"
    "def get_stats(ids):\n    counts = {}\n    for pair in zip(ids, ids[1:]):\n"
    "        counts[pair] = counts.get(pair, Count(0)) + Count(1)\n"
    "    return {pair: c.n for pair, c in counts.items() if c}\n"
)


def test_the_operator_class_is_a_right_answer():
    exercise = EXERCISES["get_stats"]
    answer = function_of(OPERATORS, "get_stats")
    reference = function_of(exercise.solution_code, "get_stats")
    assert all(answer(*c.args) == reference(*c.args) for c in exercise.cases())


def test_a_helper_class_with_operators_is_own_code():
    assert verdict("get_stats", OPERATORS) == ""
    more = "    __slots__ = ('n',)\n    def __call__(self):\n        return self.n\n"
    more += "    def __setitem__(self, key, value):\n        self.n = value\n"
    assert (
        verdict("get_stats", OPERATORS.replace("    def __add__", more + "    def __add__")) == ""
    )


@pytest.mark.parametrize(
    "method",
    ["__getattr__(self, name)", "__set_name__(self, owner, name)", "__format__(self, spec)"]
    + ["__init_subclass__(cls)", "__exit__(self, kind, error, trace)", "__get__(self, o, t)"],
)
def test_dunders_handed_names_or_classes_stay_out(method: str):
    """Python hands these attribute names as text, or classes: each reaches past the values."""
    cells = OPERATORS.replace(
        "    def __add__", f"    def {method}:\n        pass\n    def __add__"
    )
    assert "a name Python itself gives a meaning" in verdict("get_stats", cells)


# Held.
ENCODE_AS_A_VALUE = {
    "a default": "def utf8_encode(cp, maker=bytes):\n    return maker(chr(cp), 'utf-8')\n",
    "a list": "MAKERS = [bytes]\n\ndef utf8_encode(cp):\n    return MAKERS[0](chr(cp), 'utf-8')\n",
    "or": "def utf8_encode(cp):\n    return (None or bytes)(chr(cp), 'utf-8')\n",
    "a walrus": "def utf8_encode(cp):\n    (m := bytes)\n    return m(chr(cp), 'utf-8')\n",
    "a subclass": "class B(bytes):\n    pass\n\ndef utf8_encode(cp):\n"
    "    return bytes(B(chr(cp), 'utf-8'))\n",
    "partial": "import functools\n\ndef utf8_encode(cp):\n"
    "    return functools.partial(bytes)(chr(cp), 'utf-8')\n",
    "map": "def utf8_encode(cp):\n    return list(map(bytes, [chr(cp)], ['utf-8']))[0]\n",
    "a dataclass default": "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n"
    "    m: object = bytes\n\ndef utf8_encode(cp):\n    return K().m(chr(cp), 'utf-8')\n",
    "an attribute set in __init__": "class K:\n    def __init__(self):\n"
    "        self.m = bytearray\n\ndef utf8_encode(cp):\n    return bytes(K().m(chr(cp), 'u8'))\n",
    "starred": "def utf8_encode(cp):\n    args = [chr(cp), 'utf-8']\n    return bytes(*args)\n",
    "keywords": "def utf8_encode(cp):\n    kw = {'encoding': 'utf-8'}\n"
    "    return bytes(chr(cp), **kw)\n",
    "a class pattern's keyword": "def utf8_encode(cp):\n    match chr(cp):\n"
    "        case str(encode=f):\n            return f()\n",
    "a full-width name": "def utf8_encode(cp):\n    return chr(cp).\uff45ncode()\n",
}


@pytest.mark.parametrize("attack", ENCODE_AS_A_VALUE)
def test_encoding_by_another_route_stays_refused(attack: str):
    assert function_of(ENCODE_AS_A_VALUE[attack], "utf8_encode")(233) == b"\xc3\xa9"
    assert verdict("utf8_encode", ENCODE_AS_A_VALUE[attack])


BODY = (
    "def get_stats(ids):\n    counts = {}\n    for pair in zip(ids, ids[1:]):\n"
    "        counts[pair] = counts.get(pair, 0) + 1\n{extra}    return counts\n"
)
HONEST = {
    "type shown with !r": "    assert type(ids) is list, f'got {type(ids)!r}'\n",
    "print with a label": "    print('ids is', type(ids))\n",
    "type in a set": "    assert type(ids) in {list, tuple}\n",
    "isinstance with a union": "    assert isinstance(ids, list | tuple)\n",
    "a name-mangled attribute": "    Seen().add(1)\n",
    "a match capture by class": "    match len(ids):\n        case int(n) if n < 2:\n"
    "            return {}\n",
}
MANGLED = (
    "class Seen:\n    def __init__(self):\n        self.__seen = set()\n"
    "    def add(self, x):\n        self.__seen.add(x)\n\n"
)


@pytest.mark.parametrize("case", HONEST)
def test_honest_checks_stay_own_code(case: str):
    cells = [MANGLED, BODY.replace("{extra}", HONEST[case])]
    assert verdict("get_stats", *cells) == ""


# Round 8's mark, where a builtin's name is bound beside the use: never trusted.
GRAB = (
    "class Grab:\n    def __init__(self):\n        self.got = []\n"
    "    def __eq__(self, other):\n        self.got.append(other)\n        return False\n"
    "\ndef grab(*args):\n    return args\n\n"
)
SHADOWED = {
    "a parameter named print, with a default": "def train_bpe(text, vocab_size, print=grab):"
    "\n    print(type(text))\n    return []\n",
    "str bound by a top-level for": "for str in [grab]:\n    pass\n\n"
    "def train_bpe(text, vocab_size):\n    str(type(text))\n    return []\n",
    "int bound in a class body": "class Asks:\n    int = Grab()\n    same = type(1) == int\n\n"
    "def train_bpe(text, vocab_size):\n    Asks()\n    return []\n",
    "isinstance bound by a match capture": "match grab:\n    case isinstance:\n        pass\n\n"
    "def train_bpe(text, vocab_size):\n    isinstance(text, type)\n    return []\n",
}


@pytest.mark.parametrize("route", SHADOWED)
def test_type_reaching_a_shadowed_builtins_name_stays_refused(route: str):
    assert "`type`" in verdict("train_bpe", GRAB, SHADOWED[route])


# Hidden cases: a wrong-turn hint that counts what a hidden case's expected answer holds.
def test_a_wrong_turn_on_a_hidden_case_quotes_nothing_of_it():
    from lib.exercises.plain import to_wire

    exercise = next(e for e in for_lesson(4) if e.name == "stream_decode")
    cases = exercise.cases() + exercise.secret_cases()
    bad = "\ufffd"
    k = next(i for i, c in enumerate(cases) if c.hidden and any(bad in s for s in c.expected))
    answers = [list(c.expected) for c in cases]
    answers[k] = [s.replace(bad, bad * 2) for s in answers[k]]
    result = exercise.judge(cases, [{"returned": to_wire(a)} for a in answers])
    assert result.score < exercise.points and "a hidden case failed" in result.reason
    wanted = sum(s.count(bad) for s in cases[k].expected)
    assert f"where {wanted} belong" not in result.reason


# Honest refusal: the comparison the rules themselves recommend, with the class the exercise judges.
ASKED = {
    "utf8_encode": "def utf8_encode(cp):\n    out = bytes([cp])\n    assert type(out) is bytes\n"
    "    return out\n",
    "utf8_decode_first": "def utf8_decode_first(data):\n    ch = chr(data[0])\n"
    "    assert type(ch) == str\n    return ch\n",
}


def test_isinstance_with_the_judged_class_is_own_code():
    for name, cells in ASKED.items():
        honest = cells.replace("type(out) is bytes", "isinstance(out, bytes)")
        honest = honest.replace("type(ch) == str", "isinstance(ch, str)")
        assert verdict(name, honest) == ""


@pytest.mark.parametrize("name", ASKED)
def test_type_compared_with_the_judged_class_is_own_code(name: str):
    assert verdict(name, ASKED[name]) == ""
    assert (
        verdict(name, ASKED[name].replace("type(out) is bytes", "type(out) in (bytes, str)")) == ""
    )


@pytest.mark.parametrize(
    "use",
    ["type(out) in [bytes, grab]", "type(out) == grab(bytes)", "(bytes, grab) == type(out)"]
    + ["type(out) is bytes is grab", "bytes in type(out).mro()"],
)
def test_the_judged_class_beside_anything_else_stays_refused(use: str):
    cells = ASKED["utf8_encode"].replace("type(out) is bytes", use)
    assert verdict("utf8_encode", "def grab(*a):\n    return a\n", cells)


# Door 2: `re` itself, as a public attribute of an allowed module, where `re` is forbidden.
RE_THROUGH_DATACLASSES = (
    "import dataclasses\nimport unicodedata\n\n"
    "NUMBERS = ''.join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c))[0] == 'N')"
    "\n\n\ndef digit_groups(text):\n"
    "    return dataclasses.re.findall('[' + NUMBERS + ']{1,3}', text)\n"
)


def test_re_through_dataclasses_gives_the_reference_answer():
    exercise = EXERCISES["digit_groups"]
    attack = function_of(RE_THROUGH_DATACLASSES, "digit_groups")
    reference = function_of(exercise.solution_code, "digit_groups")
    cases = exercise.cases() + exercise.secret_cases()
    assert all(attack(*c.args) == reference(*c.args) for c in cases)
    # imported by name, or from a star-import, the same module is refused: only the attribute is not
    for cells in (
        "from dataclasses import re as r\n\ndef digit_groups(text):\n"
        "    return r.findall('1', text)\n",
        "from dataclasses import *\n\ndef digit_groups(text):\n    return re.findall('1', text)\n",
    ):
        assert "`re`" in verdict("digit_groups", cells)


def test_re_as_an_attribute_of_dataclasses_is_forbidden_re():
    assert "`re`" in verdict("digit_groups", RE_THROUGH_DATACLASSES)


def test_each_listed_modules_member_is_judged_by_what_it_is():
    """`engines` reads the objects themselves: among the listed modules' public members only
    `string.Template` hands out another module's engine (its `pattern`, compiled by `re`), and
    `dataclasses.re` is `re`. Where `re` is allowed, both stay usable."""
    from lib.exercises.allowed import COMPUTING, MEMBERS, allowed_import
    from lib.exercises.cell_reading import public_names
    from lib.exercises.module_names import engines

    handing = {
        f"{module}.{name}": engines(getattr(allowed_import(module, set()), name, None), module)
        for module in COMPUTING
        if allowed_import(module, set())
        for name in public_names(module)
        if name in MEMBERS.get(module, {name})
    }
    handing = {k: v for k, v in handing.items() if v and not k.startswith("dataclasses.")}
    assert handing == {"string.Template": {"re"}}
    assert (
        verdict(
            "get_stats",
            "import dataclasses, string\n\nT = string.Template\n\n"
            "def get_stats(ids):\n    dataclasses.re.compile('a')\n    T('x')\n    return {}\n",
        )
        == ""
    )
