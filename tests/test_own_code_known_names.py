"""`.format` judged by what its receiver surely is (`unit_reading.Surroundings.known`).

A name the notebook binds once, by `TEMPLATE = "{}"`, is that string wherever no scope of the
unit binds it: its template is read field by field, as one written in place. A name bound once
by a plain `class` statement (no bases, no metaclass, decorated by nothing but `dataclass`) is a
class of the learner's, so `Table().format` is its own method or field, never `str.format`. Any
other receiver can be a `str` and stays refused: each door below ran a template that reads the
function's `__globals__`, had the reading let it through.
"""

from __future__ import annotations

import pytest

from tests.test_red_team_own_code_9 import function_of, verdict

GLOBALS = "'{0.__globals__}'"

HONEST = {
    "constant": "TEMPLATE = '{}'\n\ndef bytes_per_char(s):\n"
    "    return int(TEMPLATE.format(len(s)))\n",
    "annotated_constant": "TEMPLATE: str = '{:d}'\n\ndef bytes_per_char(s):\n"
    "    return int(TEMPLATE.format(len(s)))\n",
    "format_map": "TEMPLATE = '{n}'\n\ndef bytes_per_char(s):\n"
    "    return int(TEMPLATE.format_map({'n': len(s)}))\n",
    "class_itself": "class Table:\n    @staticmethod\n    def format(n):\n        return n\n\n"
    "def bytes_per_char(s):\n    return Table.format(len(s))\n",
}

DOORS = {
    # the constant's fields are read: the same template as in place
    "constant_globals": f"T = {GLOBALS}\n\ndef bytes_per_char(s):\n"
    "    return T.format(bytes_per_char)\n",
    # bound twice: which one holds when the function runs is not known
    "rebound": f"T = '{{}}'\nT = {GLOBALS}\n\ndef bytes_per_char(s):\n"
    "    return T.format(bytes_per_char)\n",
    "global_in_function": f"T = '{{}}'\n\ndef spoil():\n    global T\n    T = {GLOBALS}\n\n"
    "def bytes_per_char(s):\n    spoil()\n    return T.format(bytes_per_char)\n",
    "augmented": "T = '{'\nT += '0.__globals__}'\n\ndef bytes_per_char(s):\n"
    "    return T.format(bytes_per_char)\n",
    "conditional": f"if True:\n    T = {GLOBALS}\n\ndef bytes_per_char(s):\n"
    "    return T.format(bytes_per_char)\n",
    # the unit's own `T` is not the notebook's constant
    "local_shadow": f"T = '{{}}'\n\ndef bytes_per_char(s):\n    T = {GLOBALS} * 1\n"
    "    return T.format(bytes_per_char)\n",
    "parameter_shadow": f"T = '{{}}'\n\ndef bytes_per_char(s, T={GLOBALS} * 1):\n"
    "    return T.format(bytes_per_char)\n",
    "class_body_shadow": f"T = '{{}}'\n\nclass K:\n    T = {GLOBALS} * 1\n"
    "    f = T.format\n\ndef bytes_per_char(s):\n    return K.f(bytes_per_char)\n",
    # bound once, but not to a string written out
    "computed_constant": f"T = {GLOBALS} * 1\n\ndef bytes_per_char(s):\n"
    "    return T.format(bytes_per_char)\n",
    "unpacked": f"T, U = {GLOBALS}, ''\n\ndef bytes_per_char(s):\n"
    "    return T.format(bytes_per_char)\n",
    "getattr_on_constant": f"T = {GLOBALS}\n\ndef bytes_per_char(s):\n"
    "    return getattr(T, 'format')(bytes_per_char)\n",
    # classes that are, or can make, a `str`
    "str_subclass": "class T(str):\n    pass\n\ndef bytes_per_char(s):\n"
    f"    return T({GLOBALS}).format(bytes_per_char)\n",
    "userstring_subclass": "import collections\n\nclass T(collections.UserString):\n"
    "    pass\n\ndef bytes_per_char(s):\n"
    f"    return T({GLOBALS}).format(bytes_per_char)\n",
    "decorated": "def make_str(c):\n    return str\n\n@make_str\nclass T:\n    pass\n\n"
    f"def bytes_per_char(s):\n    return T({GLOBALS}).format(bytes_per_char)\n",
    "class_rebound": "class T:\n    pass\n\nT = str\n\ndef bytes_per_char(s):\n"
    f"    return T({GLOBALS}).format(bytes_per_char)\n",
    "class_in_if": "if True:\n    class T(str):\n        pass\n\ndef bytes_per_char(s):\n"
    f"    return T({GLOBALS}).format(bytes_per_char)\n",
    "local_class": "def bytes_per_char(s):\n    T = str\n"
    f"    return T({GLOBALS}).format(bytes_per_char)\n",
    # a method's `self` may be handed a `str`
    "self_handed_a_str": "class T:\n    def show(self, f):\n        return self.format(f)\n\n"
    f"def bytes_per_char(s):\n    return T.show({GLOBALS}, bytes_per_char)\n",
    # a fake `dataclasses` whose `dataclass` hands back `str`
    "fake_dataclasses": "import dataclasses\n\nclass Fake:\n    @staticmethod\n"
    "    def dataclass(c):\n        return str\n\ndataclasses = Fake\n\n"
    "@dataclasses.dataclass\nclass T:\n    pass\n\n"
    f"def bytes_per_char(s):\n    return T({GLOBALS}).format(bytes_per_char)\n",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_format_is_own_code(name: str) -> None:
    source = HONEST[name]
    assert function_of(source, "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", source) == ""


@pytest.mark.parametrize("name", sorted(DOORS))
def test_a_receiver_that_can_be_a_str_is_refused(name: str) -> None:
    assert verdict("bytes_per_char", DOORS[name])


KNOWN_TEMPLATE = (
    "TEMPLATE = '{}'\n\ndef bytes_per_char(s):\n    return int(TEMPLATE.format(len(s)))\n"
)


@pytest.mark.parametrize(
    "magic",
    [
        "%time TEMPLATE = 1\n",
        "%%capture out\nprint(1)\n",
        "get_ipython().run_line_magic('time', 'TEMPLATE = 2')\n",
        "get_ipython().run_line_magic('store', '-r')\n",
    ],
)
def test_no_name_is_known_that_a_magic_may_bind(magic: str) -> None:
    """A magic, or a call through `get_ipython`, can bind a name in text the reading does not
    see as Python (`%time TEMPLATE = ...`; red team 12, door A): a name a trusted magic's text
    mentions is not known, nor any name beside another magic (`magics.unseen_names`)."""
    assert verdict("bytes_per_char", KNOWN_TEMPLATE) == ""
    assert "template worked out at run time" in verdict("bytes_per_char", magic, KNOWN_TEMPLATE)
