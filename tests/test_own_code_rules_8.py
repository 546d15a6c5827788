"""The rules of issue 27's eighth red team: a builtin trusted by its name only where nothing
binds that name (`allowed.is_builtin`), and `dataclasses.dataclass` only as the decorator of a
`class` statement (`by_text`)."""

from __future__ import annotations

import pytest

from tests.test_red_team_own_code import EXERCISES
from tests.test_red_team_own_code_8 import verdict

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
