"""The rules of issue 27's eighth red team: a builtin trusted by its name only where nothing
binds that name (`allowed.is_builtin`), and `dataclasses.dataclass` only as the decorator of a
`class` statement (`by_text`)."""

from __future__ import annotations

import pytest

from tests.test_red_team_own_code import EXERCISES
from tests.test_red_team_own_code_8 import BODY, verdict

STATS = EXERCISES["get_stats"].solution_code


def with_pair(made: str) -> str:
    """`get_stats` that makes and uses a class `Pair` as `made` says."""
    return made + STATS.replace("    counts = {}", "    assert Pair(1).a == 1\n    counts = {}")


ON_A_VALUE = {
    "called on the class": "import dataclasses\n\nclass Pair:\n    a: int\n\n"
    "Pair = dataclasses.dataclass(Pair)\n\n",
    "called, then on the class": "from dataclasses import dataclass\n\nclass Pair:\n    a: int\n\n"
    "Pair = dataclass(frozen=True)(Pair)\n\n",
    "a decorator given a class": "import dataclasses\n\nclass Base:\n    a: int\n\n"
    "@dataclasses.dataclass(Base)\nclass Pair:\n    a: int\n\n",
}


@pytest.mark.parametrize("made", ON_A_VALUE.values(), ids=list(ON_A_VALUE))
def test_dataclass_on_a_class_value_is_refused(made: str):
    """A class value may have been made by `type(...)` with field names of any text, which the
    dataclass writes into code it runs."""
    assert "other than as the decorator of a `class`" in verdict("get_stats", with_pair(made))


AS_DECORATOR = {
    "bare": "import dataclasses\n\n@dataclasses.dataclass\nclass Pair:\n    a: int\n\n",
    "called": "from dataclasses import dataclass\n\n@dataclass(frozen=True, order=True)\n"
    "class Pair:\n    a: int\n\n",
}


@pytest.mark.parametrize("made", AS_DECORATOR.values(), ids=list(AS_DECORATOR))
def test_dataclass_as_a_class_statements_decorator_is_own_code(made: str):
    assert verdict("get_stats", with_pair(made)) == ""


REBOUND = {
    "a cell's isinstance": "def isinstance(value, kind):\n    return True\n\n"
    "def get_stats(ids):\n    assert isinstance(ids, type)\n",
    "an enclosing function's int": "def get_stats(ids):\n    int = str\n"
    "    def kind(x):\n        return type(x) == int\n    assert kind(ids)\n",
    "a parameter named issubclass": "def get_stats(ids, issubclass=None):\n"
    "    assert issubclass(type(ids), list)\n",
    "a cell's list in a tuple": "list = 0\n\n"
    "def get_stats(ids):\n    assert type(ids) in (int, list)\n",
}


@pytest.mark.parametrize("code", REBOUND.values(), ids=list(REBOUND))
def test_a_rebound_builtins_name_is_not_trusted(code: str):
    """Where anything binds `isinstance`, `issubclass` or a class's name, `type` used with it is
    `type` handed on."""
    assert "uses `type` other than to ask" in verdict("get_stats", code + "    return {}\n")


def test_the_builtins_themselves_are_still_trusted():
    code = (
        "def get_stats(ids):\n    assert isinstance(ids, type) or type(ids) in (list, tuple)\n"
        "    assert issubclass(type(ids), object) and type(ids) == list\n    return {}\n"
    )
    assert verdict("get_stats", code) == ""


SHOWN = {
    "print, two arguments": "    print('got', type(cp))\n",
    "repr": "    assert repr(type(cp)) == \"<class 'int'>\"\n",
    "f-string, !r": "    assert f'{type(cp)!r}'\n",
}


@pytest.mark.parametrize("line", SHOWN.values(), ids=list(SHOWN))
def test_a_class_shown_is_own_code(line: str):
    assert verdict("utf8_encode", "def utf8_encode(cp):\n" + line + BODY) == ""


NOT_SHOWN = {
    "a cell's print": "def print(*values):\n    return values\n\n"
    "def utf8_encode(cp):\n    print(type(cp))\n",
    "a parameter named str": "def utf8_encode(cp, str=None):\n    str(type(cp))\n",
    "str with two arguments": "def utf8_encode(cp):\n    str(type(cp), 'ascii')\n",
    "print with a keyword": "def utf8_encode(cp):\n    print(type(cp), end=type)\n",
    "a format spec": "def utf8_encode(cp):\n    f'{type(cp):>10}'\n",
}


@pytest.mark.parametrize("code", NOT_SHOWN.values(), ids=list(NOT_SHOWN))
def test_a_class_handed_to_more_than_a_builtins_formatting_is_refused(code: str):
    assert "uses `type` other than to ask" in verdict("utf8_encode", code + BODY)


def with_property(decorators: str) -> str:
    pair = (
        "class Pair:\n    def __init__(self, name):\n        self._name = name\n\n"
        f"{decorators}    def name(self):\n        return self._name\n\n"
    )
    return pair + STATS.replace(
        "    counts = {}", "    assert Pair('ids').name == 'ids'\n    counts = {}"
    )


def test_a_propertys_setter_over_a_private_attribute_is_own_code():
    setter = "    @name.setter\n    def name(self, value):\n        self._name = value\n\n"
    code = with_property("    @property\n")
    code = code.replace(
        "        return self._name\n\n", "        return self._name\n\n" + setter, 1
    )
    assert verdict("get_stats", code) == ""


OTHER_DECORATORS = {  # what comes before the class, and the getter's decorators
    "a cell's property": ("property = staticmethod\n\n", "    @property\n"),
    "a setter of no @property": ("", "    size = property()\n\n    @size.setter\n"),
}


@pytest.mark.parametrize("before, decorator", OTHER_DECORATORS.values(), ids=list(OTHER_DECORATORS))
def test_a_private_attribute_under_another_decorator_is_refused(before: str, decorator: str):
    found = verdict("get_stats", before + with_property(decorator))
    assert "a private attribute that is not the notebook's own" in found
