"""`.format` on a function's local or a class's attribute that surely holds a template
(`lib.exercises.templates`; red team 12, door D).

A function's local bound by one statement of the function to a string written out, and by
nothing else there, is that template; so is `K.FMT` where the plain class `K` binds `FMT` once
in its body and nothing can reach `K` to rebind it. Its fields are read as a template's written
in place. Each door below would change the template at run time and runs `'{0.__globals__}'`
(`test_each_door_does_read_the_globals_when_run`): the reading refuses every one.
"""

from __future__ import annotations

import pytest

from tests.test_red_team_own_code_9 import function_of, verdict

GLOBALS = "'{0.__globals__}'"
USE_LOCAL = "    return fmt.format(bytes_per_char)\n"
USE_CLASS = "def bytes_per_char(s):\n    return K.FMT.format(bytes_per_char)\n"
CLASS = "class K:\n    FMT = '{}'\n\n"

HONEST = {
    "local": "def bytes_per_char(s):\n    fmt = '{:d}'\n    return int(fmt.format(len(s)))\n",
    "annotated_local": "def bytes_per_char(s):\n    fmt: str = '{n}'\n"
    "    return int(fmt.format_map({'n': len(s)}))\n",
    "two_names_at_once": "def bytes_per_char(s):\n    fmt = short = '{:d}'\n"
    "    return int(fmt.format(len(s))) + len(short) - 4\n",
    "closure": "def bytes_per_char(s):\n    fmt = '{:d}'\n\n    def show(n):\n"
    "        return fmt.format(n)\n\n    return int(show(len(s)))\n",
    "in_a_branch": "def bytes_per_char(s):\n    if s:\n        fmt = '{:d}'\n"
    "        return int(fmt.format(len(s)))\n    return 0\n",
    "class_constant": "class K:\n    FMT = '{:d}'\n\ndef bytes_per_char(s):\n"
    "    return int(K.FMT.format(len(s)))\n",
    "class_with_methods": "class K:\n    '''Counts.'''\n\n    FMT = '{:d}'\n    SIZE = 3\n\n"
    "    def __init__(self, s):\n        self.s = s\n\n    def count(self):\n"
    "        return int(K.FMT.format(len(self.s)))\n\n"
    "def bytes_per_char(s):\n    return K(s).count() * K.SIZE // 3\n",
}

DOORS = {
    # a local bound more than once, or by more than `=`
    "local_parameter": f"def bytes_per_char(s, fmt={GLOBALS}):\n{USE_LOCAL}",
    "local_augmented": "def bytes_per_char(s):\n    fmt = '{'\n    fmt += '0.__globals__}'\n"
    + USE_LOCAL,
    "local_loop": f"def bytes_per_char(s):\n    fmt = '{{}}'\n    for fmt in [{GLOBALS}]:\n"
    "        pass\n" + USE_LOCAL,
    "local_rebound": f"def bytes_per_char(s):\n    fmt = '{{}}'\n    if s:\n"
    f"        fmt = {GLOBALS} * 1\n" + USE_LOCAL,
    "local_nonlocal": "def bytes_per_char(s):\n    fmt = '{}'\n\n    def spoil():\n"
    f"        nonlocal fmt\n        fmt = {GLOBALS} * 1\n\n    spoil()\n" + USE_LOCAL,
    "local_walrus": f"def bytes_per_char(s):\n    fmt = '{{}}'\n    [fmt := {GLOBALS} * 1"
    " for _ in 'a']\n" + USE_LOCAL,
    "local_match": f"def bytes_per_char(s):\n    fmt = '{{}}'\n    match {GLOBALS} * 1:\n"
    "        case str(fmt):\n            pass\n" + USE_LOCAL,
    "local_comprehension": "def bytes_per_char(s):\n"
    f"    return [fmt.format(bytes_per_char) for fmt in [{GLOBALS} * 1]][0]\n",
    "local_lambda_default": "def bytes_per_char(s):\n    fmt = '{}'\n"
    f"    return (lambda fmt={GLOBALS} * 1: fmt.format(bytes_per_char))()\n",
    "local_global": f"def spoil():\n    global fmt\n    fmt = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    global fmt\n    fmt = '{}'\n    spoil()\n" + USE_LOCAL,
    "local_template_read": f"def bytes_per_char(s):\n    fmt = {GLOBALS}\n" + USE_LOCAL,
    # a class attribute that can be rebound, or is no plain class's own
    "class_template_read": f"class K:\n    FMT = {GLOBALS}\n\n" + USE_CLASS,
    "class_rebound_later": f"{CLASS}K.FMT = {GLOBALS} * 1\n\n{USE_CLASS}",
    "class_rebound_in_a_function": f"{CLASS}def bytes_per_char(s):\n"
    f"    K.FMT = {GLOBALS} * 1\n    return K.FMT.format(bytes_per_char)\n",
    "class_alias": f"{CLASS}def bytes_per_char(s):\n    c = K\n    c.FMT = {GLOBALS} * 1\n"
    "    return K.FMT.format(bytes_per_char)\n",
    "class_handed_on": f"{CLASS}def spoil(c):\n    c.FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    spoil(K)\n    return K.FMT.format(bytes_per_char)\n",
    "class_in_a_list": f"{CLASS}def bytes_per_char(s):\n    for c in [K]:\n"
    f"        c.FMT = {GLOBALS} * 1\n    return K.FMT.format(bytes_per_char)\n",
    "class_mro": f"{CLASS}def bytes_per_char(s):\n    K.mro()[0].FMT = {GLOBALS} * 1\n"
    "    return K.FMT.format(bytes_per_char)\n",
    "classmethod": "class K:\n    FMT = '{}'\n\n    @classmethod\n    def spoil(cls):\n"
    f"        cls.FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    K.spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "classmethod_called": f"def _spoil(cls):\n    cls.FMT = {GLOBALS} * 1\n\n"
    "class K:\n    FMT = '{}'\n    spoil = classmethod(_spoil)\n\n"
    "def bytes_per_char(s):\n    K.spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "subclass_template": f"{CLASS}class L(K):\n    FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    return L.FMT.format(bytes_per_char)\n",
    "inherited_template": f"class B:\n    FMT = {GLOBALS} * 1\n\nclass K(B):\n    pass\n\n"
    + USE_CLASS,
    "class_rebound": f"{CLASS}class Other:\n    FMT = {GLOBALS} * 1\n\nK = Other\n\n{USE_CLASS}",
    "class_body_rebinds": f"class K:\n    FMT = '{{}}'\n    FMT = {GLOBALS} * 1\n\n{USE_CLASS}",
    "local_shadows_class": f"{CLASS}class Other:\n    FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s, K=Other):\n    return K.FMT.format(bytes_per_char)\n",
}

# Refused though they cannot change the template: the rule stays simple, and strict.
STRICT = {
    "local_deleted": "def bytes_per_char(s):\n    fmt = '{:d}'\n    result = fmt.format(len(s))\n"
    "    del fmt\n    return int(result)\n",
    "class_asked_about": "class K:\n    FMT = '{:d}'\n\ndef bytes_per_char(s):\n"
    "    assert not isinstance(s, K)\n    return int(K.FMT.format(len(s)))\n",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_a_template_that_cannot_change_is_own_code(name: str) -> None:
    assert function_of(HONEST[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST[name]) == ""


@pytest.mark.parametrize("name", sorted(DOORS))
def test_a_template_that_can_change_is_refused(name: str) -> None:
    assert verdict("bytes_per_char", DOORS[name])


@pytest.mark.parametrize("name", sorted(DOORS))
def test_each_door_does_read_the_globals_when_run(name: str) -> None:
    assert "bytes_per_char" in function_of(DOORS[name], "bytes_per_char")("abc")


@pytest.mark.parametrize("name", sorted(STRICT))
def test_a_template_bound_or_used_otherwise_is_refused(name: str) -> None:
    assert function_of(STRICT[name], "bytes_per_char")("abc") == 3
    assert "worked out at run time" in verdict("bytes_per_char", STRICT[name])


def test_a_class_handed_on_in_another_cell_is_refused() -> None:
    """`K` is followed into every cell, read by the target or not: any one could rebind
    `K.FMT` when it runs."""
    cells = [CLASS, "ALIAS = K\n", USE_CLASS]
    assert "worked out at run time" in verdict("bytes_per_char", *cells)
    assert verdict("bytes_per_char", CLASS, USE_CLASS) == ""
