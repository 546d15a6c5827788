"""Templates chosen among several written out, and class constants read through `self`
(`lib.exercises.templates`, `lib.exercises.sealed_classes`; red team 14, B and C).

A function's local every `=` of which gives a template written out (`'{:d}' if s else '{}'`,
one per branch of an `if`, `head, row = '{}', '{:d}'`) holds one of them: each is judged as a
template written in place. `self.FMT` in a method of a sealed class is the class's constant
when the method is only ever called on an instance and nothing stores an attribute `FMT`.
The class's uses are read by scope, type hints skipped. Each twin below changes one thing so
that the template can be another at run time, and does run `'{0.__globals__}'`
(`test_each_twin_does_read_the_globals_when_run`): the reading refuses every one.
"""

from __future__ import annotations

import pytest

from tests.test_red_team_own_code_9 import function_of, verdict
from tests.test_red_team_own_code_14 import reads_globals

GLOBALS = "'{0.__globals__}'"
USE = "    return fmt.format(bytes_per_char)\n"
CLASS = "class K:\n    FMT = '{}'\n\n    def show(self, f):\n        return self.FMT.format(f)\n\n"
SHOW = "def bytes_per_char(s):\n    return K().show(bytes_per_char)\n"
EVIL = f"class Evil:\n    FMT = {GLOBALS} * 1\n\n"
OTHER = f"class Other:\n    FMT = {GLOBALS} * 1\n\n"
USE_CLASS = "def bytes_per_char(s):\n    return K.FMT.format(bytes_per_char)\n"
K_ONLY = "class K:\n    FMT = '{}'\n\n"

HONEST = {
    "condition_in_place": "def bytes_per_char(s):\n    return int(('{:d}' if s else '{}')"
    ".format(len(s)))\n",
    "conditions_nested": "def bytes_per_char(s):\n    fmt = '{:d}' if s else ('{}' if s is None"
    " else '{0}')\n    return int(fmt.format(len(s)))\n",
    "branches_annotated": "def bytes_per_char(s):\n    if s:\n        fmt: str = '{:d}'\n"
    "    else:\n        fmt: str = '{}'\n    return int(fmt.format(len(s)))\n",
    "notebook_name_by_condition": "WIDE = True\nFMT = '{:d}' if WIDE else '{}'\n\n"
    "def bytes_per_char(s):\n    return int(FMT.format(len(s)))\n",
    "self_in_a_closure": "class K:\n    FMT = '{:d}'\n\n    def count(self, s):\n"
    "        def show(n):\n            return self.FMT.format(n)\n\n"
    "        return int(show(len(s)))\n\ndef bytes_per_char(s):\n    return K().count(s)\n",
    "self_private_constant": "class K:\n    __FMT = '{:d}'\n\n    def count(self, s):\n"
    "        return int(self.__FMT.format(len(s)))\n\n"
    "def bytes_per_char(s):\n    return K().count(s)\n",
    "class_local_named_K": "class K:\n    FMT = '{:d}'\n\ndef twice(x):\n    K = 2\n"
    "    return x * K\n\ndef bytes_per_char(s):\n"
    "    return twice(int(K.FMT.format(len(s)))) // 2\n",
}

TWINS = {
    # B: a name bound to several templates, one of which is not written out or reads the globals
    "condition_arm_reads_globals": f"def bytes_per_char(s):\n    fmt = {GLOBALS} if s else '{{}}'\n"
    + USE,
    "condition_arm_worked_out": f"def bytes_per_char(s):\n    fmt = '{{}}' if not s else {GLOBALS}"
    " * 1\n" + USE,
    "condition_nested_arm_worked_out": "def bytes_per_char(s):\n    fmt = '{}' if not s else"
    f" ('{{}}' if not s else {GLOBALS} * 1)\n" + USE,
    "condition_other_arm_unreadable": f"def bytes_per_char(s):\n    fmt = {GLOBALS} if s else"
    " '{'\n" + USE,
    "condition_in_place_reads_globals": "def bytes_per_char(s):\n"
    f"    return ({GLOBALS} if s else '{{}}').format(bytes_per_char)\n",
    "branch_worked_out": f"def bytes_per_char(s):\n    if s:\n        fmt = {GLOBALS} * 1\n"
    "    else:\n        fmt = '{}'\n" + USE,
    "branch_reads_globals": f"def bytes_per_char(s):\n    if s:\n        fmt = {GLOBALS}\n"
    "    else:\n        fmt = '{}'\n" + USE,
    "branch_then_augmented": "def bytes_per_char(s):\n    if s:\n        fmt = '{'\n    else:\n"
    "        fmt = '{}'\n    fmt += '0.__globals__}'\n" + USE,
    "branch_then_loop": "def bytes_per_char(s):\n    if not s:\n        fmt = '{}'\n    else:\n"
    f"        for fmt in [{GLOBALS}]:\n            pass\n" + USE,
    "branch_global_spoiled": f"def spoil():\n    global fmt\n    fmt = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    global fmt\n    if s:\n        fmt = '{}'\n    else:\n"
    "        fmt = '{:d}'\n    spoil()\n" + USE,
    "unpacked_reads_globals": f"def bytes_per_char(s):\n    head, fmt = '{{}}', {GLOBALS}\n" + USE,
    "unpacked_from_a_name": f"def bytes_per_char(s):\n    pair = '{{}}', {GLOBALS} * 1\n"
    "    head, fmt = pair\n" + USE,
    "unpacked_starred": f"def bytes_per_char(s):\n    fmt = '{{}}'\n"
    f"    fmt, *rest = {GLOBALS} * 1, 1\n" + USE,
    "unpacked_after_a_starred_value": "def bytes_per_char(s):\n"
    f"    x, fmt, y = *[1, {GLOBALS}], '{{}}', *[]\n" + USE,
    "unpacked_swapped": f"def bytes_per_char(s):\n    fmt, other = '{{}}', '{{:d}}'\n"
    f"    other = {GLOBALS} * 1\n    fmt, other = other, fmt\n" + USE,
    # C: `self.FMT` where `self` may hold another `FMT`
    "self_stored_in_init": "class K:\n    FMT = '{}'\n\n    def __init__(self):\n"
    f"        self.FMT = {GLOBALS} * 1\n\n    def show(self, f):\n"
    "        return self.FMT.format(f)\n\n" + SHOW,
    "instance_stored_outside": f"{CLASS}def bytes_per_char(s):\n    k = K()\n"
    f"    k.FMT = {GLOBALS} * 1\n    return k.show(bytes_per_char)\n",
    "instance_stored_by_a_loop": f"{CLASS}def bytes_per_char(s):\n    k = K()\n"
    f"    for k.FMT in [{GLOBALS}]:\n        pass\n    return k.show(bytes_per_char)\n",
    "class_stored_through_type": f"{CLASS}    def spoil(self):\n"
    f"        type(self).FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    K().spoil()\n    return K().show(bytes_per_char)\n",
    "stored_by_setattr": f"{CLASS}def bytes_per_char(s):\n    k = K()\n"
    f"    setattr(k, 'FMT', {GLOBALS} * 1)\n    return k.show(bytes_per_char)\n",
    "stored_by_object_setattr": f"{CLASS}def bytes_per_char(s):\n    k = K()\n"
    f"    object.__setattr__(k, 'FMT', {GLOBALS} * 1)\n    return k.show(bytes_per_char)\n",
    "stored_under_the_private_name": "class K:\n    __FMT = '{}'\n\n    def show(self, f):\n"
    "        return self.__FMT.format(f)\n\ndef bytes_per_char(s):\n    k = K()\n"
    f"    k._K__FMT = {GLOBALS} * 1\n    return k.show(bytes_per_char)\n",
    "subclass_overrides": f"{CLASS}class L(K):\n    FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    return L().show(bytes_per_char)\n",
    "method_read_from_the_class": f"{CLASS}{EVIL}def bytes_per_char(s):\n"
    "    return K.show(Evil(), bytes_per_char)\n",
    "method_in_a_default": f"{EVIL}class K:\n    FMT = '{{}}'\n\n    def show(self, f):\n"
    "        return self.FMT.format(f)\n\n    def other(self, f, g=show):\n"
    "        return g(Evil(), f)\n\ndef bytes_per_char(s):\n    return K().other(bytes_per_char)\n",
    "self_rebound": f"{EVIL}class K:\n    FMT = '{{}}'\n\n    def show(self, f):\n"
    "        self = Evil()\n        return self.FMT.format(f)\n\n" + SHOW,
    "self_not_first": f"{EVIL}class K:\n    FMT = '{{}}'\n\n    def show(f, self):\n"
    "        return self.FMT.format(bytes_per_char)\n\n"
    "def bytes_per_char(s):\n    return K().show(Evil())\n",
    "same_name_class_in_a_function": f"{CLASS}def bytes_per_char(s):\n    class K:\n"
    f"        FMT = {GLOBALS} * 1\n\n        def show(self, f):\n"
    "            return self.FMT.format(f)\n\n    return K().show(bytes_per_char)\n",
    "self_of_a_lambda": f"{EVIL}class K:\n    FMT = '{{}}'\n\n    def show(self, f):\n"
    "        return (lambda self: self.FMT.format(f))(Evil())\n\n" + SHOW,
    "class_changed": f"{CLASS}{EVIL}def bytes_per_char(s):\n    k = K()\n    show = k.show\n"
    "    k.__class__ = Evil\n    return show(bytes_per_char)\n",
    # C: `K` reached where a hint, or a variable of the same name, sits beside
    "hint_with_a_default": f"{K_ONLY}def spoil(k: K = K):\n    k.FMT = {GLOBALS} * 1\n\n"
    "def bytes_per_char(s):\n    spoil()\n    return K.FMT.format(bytes_per_char)\n",
    "annotated_alias": f"{K_ONLY}c: K = K\nc.FMT = {GLOBALS} * 1\n\n{USE_CLASS}",
    "class_body_reads_K_then_binds": f"{K_ONLY}class L:\n    c = K\n    K = 3\n\n"
    f"L.c.FMT = {GLOBALS} * 1\n\n{USE_CLASS}",
    "class_attribute_given_K": f"{K_ONLY}class Point:\n    K = K\n\n"
    f"Point.K.FMT = {GLOBALS} * 1\n\n{USE_CLASS}",
    "parameter_default_K": f"{K_ONLY}def scale(x, K=K):\n    K.FMT = {GLOBALS} * 1\n\n"
    f"scale(1)\n\n{USE_CLASS}",
    "shadowed_then_global_inside": f"{K_ONLY}{OTHER}def spoil():\n    K = 3\n\n"
    "    def inner():\n        global K\n        K = Other\n\n    inner()\n    return K\n\n"
    "def bytes_per_char(s):\n    spoil()\n    return K.FMT.format(bytes_per_char)\n",
    # `register` evaluates the hint, keeping `K` in `.registry`, which is read nowhere
    "hint_evaluated_by_singledispatch": f"import functools\n\n{K_ONLY}@functools.singledispatch\n"
    "def kind(x):\n    return 0\n\n@kind.register\ndef _(x: K):\n    return 1\n\n"
    f"def bytes_per_char(s):\n    list(kind.registry)[-1].FMT = {GLOBALS} * 1\n"
    "    return K.FMT.format(bytes_per_char)\n",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_templates_written_out_are_own_code(name: str) -> None:
    assert function_of(HONEST[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST[name]) == ""


@pytest.mark.parametrize("name", sorted(TWINS))
def test_a_template_that_can_be_another_is_refused(name: str) -> None:
    assert verdict("bytes_per_char", TWINS[name])


@pytest.mark.parametrize("name", sorted(TWINS))
def test_each_twin_does_read_the_globals_when_run(name: str) -> None:
    assert reads_globals(TWINS[name])


def test_the_fields_before_a_stray_brace_are_judged() -> None:
    """`format` reads `{0.x}` before it meets the stray `{` and raises, so the field is judged
    (a template that did not parse whole was read as having no field at all)."""
    read = []

    class Probe:
        @property
        def x(self) -> int:
            read.append("x")
            return 1

    with pytest.raises(ValueError):
        "{0.x}{".format(Probe())  # noqa: F521 (the stray brace is the point)
    assert read == ["x"]
    source = f"def bytes_per_char(s):\n    return ({GLOBALS} '{{').format(bytes_per_char)\n"
    assert "`.__globals__`" in verdict("bytes_per_char", source)
