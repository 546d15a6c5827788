"""The rules that closed red team round 6's doors (`tests/test_red_team_own_code_6.py`), each
pinned in both directions: what it refuses, with a reason that names what was used and says
what to write instead, and the honest code beside it that it keeps.

- `type` only asks about a class (`python_itself.type_outside`);
- `functools.update_wrapper` is out, `functools.wraps` only decorates a `def` (`by_text`);
- a private attribute only where the notebook defines it, and Python's classes do not
  (`python_itself.private_outside`);
- of `typing`, only the names for type hints (`allowed.MEMBERS`);
- a name imported alone from an allowed module (`from dataclasses import field`) is judged
  where it is used, as the module's would be (`own_code.Notebook._members`);
- a plain parameter or local may be named after a judged builtin (`bindings.binds_judged`);
- a class pattern matches by position only a builtin, a module's class or a `@dataclass` class
  statement's fields (`class_patterns`).
"""

from __future__ import annotations

import pytest

from lib.exercises.own_code import Notebook

ENCODE = (".encode", "bytes")
MATCH = "    match x:\n        case {}:\n            return a\n    return 0\n"


def verdict(*cells: str, forbidden: tuple[str, ...] = ()) -> str:
    return Notebook(list(cells)).borrowed("f", (), forbidden)


REFUSED = {  # name: (cells, what the reason says)
    "type with three arguments": (
        ["def f(x):\n    return type('C', (), {'__match_args__': ('gi_frame',)})"],
        "uses `type` other than to ask about a class: write `type(x) is int`",
    ),
    "type as a base": (
        ["class Meta(type):\n    pass\n\ndef f(x):\n    return Meta"],
        "uses `type` other than to ask about a class",
    ),
    "type(x)'s class handed on": (
        ["def f(x):\n    maker = type(int)\n    return maker('C', (), {})"],
        "uses `type` other than to ask about a class",
    ),
    "type(x) compared by == with a class of the notebook's": (  # `==` calls its method
        ["class Mine:\n    pass\n\ndef f(x):\n    return type(x) == Mine"],
        "write `type(x) is int`, `type(x) == int` or `type(x).__name__`",
    ),
    "type(x) in a tuple holding a class of the notebook's": (
        ["class Mine:\n    pass\n\ndef f(x):\n    return type(x) in (int, Mine)"],
        "uses `type` other than to ask about a class",
    ),
    "type handed to isinstance as the value": (
        ["def f(x):\n    return isinstance(type, x)"],
        "uses `type` other than to ask about a class",
    ),
    "update_wrapper": (
        ["import functools\n\ndef f(x):\n    return functools.update_wrapper(x, len)"],
        "uses `functools.update_wrapper`, which names attributes as text: decorate a `def`"
        " with `@functools.wraps(f)`",
    ),
    "wraps called on a class": (
        [
            "import functools\n\ndef f(x):\n    class C:\n        pass\n"
            "    return functools.wraps(len)(C)"
        ],
        "uses `functools.wraps` other than as a decorator, or with names of attributes as"
        " text: write `@functools.wraps(f)` above a `def`",
    ),
    "wraps decorating a class": (
        [
            "from functools import wraps\n\ndef f(x):\n    @wraps(len)\n    class C:\n"
            "        pass\n    return C"
        ],
        "write `@functools.wraps(f)` above a `def`",
    ),
    "a private attribute of an allowed module's class": (
        ["import re\n\ndef f(x):\n    return re.RegexFlag._convert_('F', 'os', bool)"],
        "uses `._convert_`, a private attribute that is not the notebook's own: use public names",
    ),
    "Python's private name defined in a class of the notebook": (
        [
            "import re\n\nclass Mine:\n    _convert_ = 0\n\n"
            "def f(x):\n    Mine\n    return re.RegexFlag._convert_('F', 'os', bool)"
        ],
        "uses `._convert_`, a private attribute that is not the notebook's own",
    ),
    "a private attribute by getattr": (
        ["import re\n\ndef f(x):\n    return getattr(re.RegexFlag, '_missing_')"],
        "uses `._missing_`, a private attribute",
    ),
    "typing's type itself": (
        ["import typing\n\ndef f(x):\n    return typing.get_origin(typing.Type)"],
        "uses `typing.get_origin`: from `typing`, use only names for type hints",
    ),
    "a metaclass from typing": (
        ["from typing import Type\n\nclass Meta(Type):\n    pass\n\ndef f(x):\n    return Meta"],
        "uses `typing.Type`: from `typing`, use only names for type hints",
    ),
    "hints run as code": (
        ["import typing\n\ndef f(x):\n    return typing.get_type_hints(f)"],
        "uses `typing.get_type_hints`",
    ),
    "fields named as text": (
        ["from typing import TypedDict\n\ndef f(x):\n    return TypedDict('T', {'a b': int})"],
        "uses `typing.TypedDict`",
    ),
    "field imported alone, kept": (
        ["from dataclasses import field\n\ndef f(x):\n    kept = field()\n    return kept"],
        "uses `dataclasses.field` other than as a field's value",
    ),
    "field imported alone, under a decorator of the notebook's": (
        [
            "from dataclasses import field\n\ndef dataclass(c):\n    return c\n\n"
            "@dataclass\nclass C:\n    rest: list = field(default_factory=list)\n\n"
            "def f(x):\n    return C"
        ],
        "uses `dataclasses.field` other than as a field's value",
    ),
    "a class matched by position, its __match_args__ unknown": (
        ["class P:\n    pass\n\ndef f(x):\n" + MATCH.format("P(a)")],
        "matches `P` by position, whose `__match_args__` could name any attribute as text:"
        " match by keyword (`case P(first=a)`), or write `P` as a `class` under `@dataclass`",
    ),
    "a dataclass made by a call, matched by position": (
        [
            "import dataclasses\n\ndef f(x):\n    class P:\n        a: int\n\n"
            "    P = dataclasses.dataclass(P)\n" + MATCH.format("P(a)")
        ],
        "matches `P` by position",
    ),
    "a class under a decorator of the notebook's, matched by position": (
        [
            "def dataclass(c):\n    return c\n\n@dataclass\nclass P:\n    a: int\n\n"
            "def f(x):\n" + MATCH.format("P(a)")
        ],
        "matches `P` by position",
    ),
    "a builtin's name with a default": (
        ["def f(x, type=type):\n    return type"],
        "binds `type`, a builtin's name: choose another name",
    ),
    "a builtin's name bound for the notebook": (
        ["if False:\n    type = 0\n\ndef f(x):\n    return type(x) is int"],
        "binds `type`, a builtin's name: choose another name",
    ),
}


@pytest.mark.parametrize("cells, said", REFUSED.values(), ids=list(REFUSED))
def test_a_door_of_round_6s_kinds_is_refused_saying_what_to_write(cells, said):
    assert said in verdict(*cells)


HONEST = {
    "type(x) asked about": "def f(x):\n    if type(x) is not int:\n        return type(x).__name__"
    "\n    return x",
    "a class's own private attribute": (
        "class Seen:\n    def __init__(self):\n        self._seen = set()\n\n"
        "    def add(self, x):\n        self._seen.add(x)\n        return len(self._seen)\n\n"
        "def f(x):\n    return Seen().add(x)"
    ),
    "a private method": (
        "class Box:\n    def _twice(self, x):\n        return 2 * x\n\n"
        "    def run(self, x):\n        return self._twice(x)\n\ndef f(x):\n    return Box().run(x)"
    ),
    "wraps imported alone, on a def": (
        "from functools import wraps\n\ndef logged(g):\n    @wraps(g)\n    def inner(x):\n"
        "        return g(x)\n    return inner\n\n@logged\ndef f(x):\n    return [x]"
    ),
    "typing's hints": (
        "import typing\nfrom typing import Dict, List, Optional\n\n"
        "def f(x: List[int], y: Optional[Dict[str, int]] = None) -> typing.Tuple[int, ...]:\n"
        "    return tuple(typing.cast(List[int], x))"
    ),
    "field and dataclass imported alone": (
        "from dataclasses import dataclass, field, fields\n\n"
        "@dataclass(frozen=True)\nclass Pairs:\n    ids: list = field(default_factory=list)\n\n"
        "def f(x):\n    return [g.name for g in fields(Pairs)], Pairs([x])"
    ),
    "class patterns by position on builtins and dataclasses": (
        "import dataclasses\nfrom dataclasses import dataclass\n\n"
        "@dataclasses.dataclass\nclass P:\n    a: int\n\n"
        "@dataclass(frozen=True)\nclass Q:\n    a: int\n\n"
        "def f(x):\n    @dataclasses.dataclass\n    class R:\n        a: int\n\n"
        "    match x:\n        case int(a) | P(a) | Q(a) | R(a):\n            return a\n"
        "    return 0"
    ),
    "parameters and locals named after builtins": (
        "def describe(type, input):\n    return f'{type}: {input}'\n\n"
        "def f(x):\n    input = [x]\n    return describe('ids', input)"
    ),
}


@pytest.mark.parametrize("source", HONEST.values(), ids=list(HONEST))
def test_honest_code_beside_those_doors_is_own_code(source):
    assert verdict(source, forbidden=ENCODE) == ""
