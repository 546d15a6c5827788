"""Red team on the own-code reading, after the grader began running one program per group of
exercises (`grading_job.programs`): answers that earn full marks through a door still open,
judged as the grader judges them (the cells read, then only the program accepted run in a fresh
IPython shell, as in a graded kernel).

One root for what is here: a name the unit binds itself is skipped by every check, and
`binds_judged` refuses only the builtins the rules judge and the notebook's module names. A
graded kernel's namespace holds more than the builtins before any student code runs: IPython puts
`__builtins__` (the builtins module), `get_ipython` (the shell, which runs any text) and `In`,
`Out`, `_ih`... there. A unit that binds such a name anywhere (`global __builtins__` and an
assignment that never runs, or a top-level `if False:` branch) reads every use of it as its own,
and at run time reaches the kernel's. Each earned full marks from `python -m lib.grade grade` on
lesson 1's notebook (sandboxed: `utf8_encode` 2/2, "all 46 cases passed").

Two more roots below, each also 2/2 there: `functools.update_wrapper` is getattr by text, and a
dataclass field named like a forbidden method is read with getattr by `dataclasses.astuple`.

Closed (issue 27): a unit may bind no dunder but those a class defines and no name the kernel
holds (`bindings.KERNEL_NAMES`); `functools.update_wrapper`/`wraps` only called directly without
`assigned`/`updated` (`by_text`); a class body may not bind a forbidden method's name. What each
refusal says is pinned in `tests/test_own_code_bindings.py`.
"""

from __future__ import annotations

import pytest

from tests import test_red_team_own_code as harness
from tests.test_red_team_own_code import earns_full_marks
from tests.test_red_team_own_code_2 import earns_full_marks_with_the_lesson

shell = harness.shell  # the harness's fresh IPython shell, as a fixture of this module too

# The kernel's own names, bound by the unit so that the reading takes them as its locals.
KERNEL_NAMES_AS_OWN = {
    "__builtins__ declared global, eval off it": (
        "utf8_encode",
        "def utf8_encode(cp):\n    global __builtins__\n    if cp < 0:\n"
        "        __builtins__ = None\n"
        "    return __builtins__.eval('chr(cp).en' 'code()', {'cp': cp})\n",
    ),
    "get_ipython declared global, the shell evaluates": (
        "utf8_encode",
        "def utf8_encode(cp):\n    global get_ipython\n    if cp < 0:\n"
        "        get_ipython = None\n"
        "    return get_ipython().ev('chr(%d).en' 'code()' % cp)\n",
    ),
    "get_ipython bound in a top-level if that never runs": (
        "utf8_encode",
        "if True:\n    if False:\n        get_ipython = 0\n"
        "    utf8_encode = get_ipython().ev('lambda cp: chr(cp).en' 'code()')\n",
    ),
}


@pytest.mark.parametrize(
    ("name", "source"), KERNEL_NAMES_AS_OWN.values(), ids=list(KERNEL_NAMES_AS_OWN)
)
def test_a_kernel_name_bound_by_the_unit_earns_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


def test_a_forbidden_module_through_the_kernels_builtins_earns_nothing(shell):
    """Lesson 5's `digit_groups` forbids `re` and `regex`; `__builtins__.eval` imports one."""
    source = (
        "def digit_groups(digits):\n    global __builtins__\n    if not digits and digits:\n"
        "        __builtins__ = None\n"
        "    found = __builtins__.eval('__imp' 'ort__(\"regex\")')\n"
        "    return found.findall(r'\\p{N}{1,3}', digits)\n"
    )
    assert not earns_full_marks_with_the_lesson(shell, "digit_groups", source)


# `functools.update_wrapper(wrapper, wrapped, assigned, updated)` is getattr and setattr with
# names given as text: `setattr(wrapper, a, getattr(wrapped, a))` for each of `assigned`, and
# `getattr(wrapper, u).update(getattr(wrapped, u))` for each of `updated`. The reading judges
# only `getattr(x, "name")` written out; these names are plain strings, and a class of the
# learner's may define `__getattr__` or `__setattr__` (only dunders read are judged) to catch
# what comes across.
SINK = (
    "import functools\n\nclass Sink:\n    def __getattr__(self, name):\n        return self\n\n"
    "    def update(self, value):\n        self.got = value\n\n"
)
BY_UPDATE_WRAPPER = {
    "updated= hands chr(cp).encode to update()": (
        SINK + "def utf8_encode(cp):\n    sink = Sink()\n"
        "    functools.update_wrapper(sink, chr(cp), assigned=(), updated=('en' 'code',))\n"
        "    return sink.got()\n"
    ),
    "assigned= hands it to a class's __setattr__": (
        "import functools\n\nclass Box:\n    def __setattr__(self, name, value):\n"
        "        KEPT[name] = value\n\nKEPT = {}\n\ndef utf8_encode(cp):\n"
        "    functools.update_wrapper(Box(), chr(cp), assigned=('en' 'code',), updated=())\n"
        "    return KEPT['en' 'code']()\n"
    ),
}


@pytest.mark.parametrize("source", BY_UPDATE_WRAPPER.values(), ids=list(BY_UPDATE_WRAPPER))
def test_a_method_fetched_by_update_wrapper_earns_nothing(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


def test_an_allowed_modules_globals_fetched_by_update_wrapper_earn_nothing(shell):
    """`updated=("__globals__",)` hands over the namespace of `dataclasses.fields`, where
    `builtins`, `sys` and `inspect` are: any module, here `regex`, which `digit_groups` forbids."""
    source = SINK + (
        "import dataclasses\n\ndef digit_groups(digits):\n    sink = Sink()\n"
        "    functools.update_wrapper(\n"
        "        sink, dataclasses.fields, assigned=(), updated=('__glob' 'als__',)\n    )\n"
        "    found = sink.got['builtins'].eval('__imp' 'ort__(\"regex\")')\n"
        "    return found.findall(r'\\p{N}{1,3}', digits)\n"
    )
    assert not earns_full_marks_with_the_lesson(shell, "digit_groups", source)


def test_a_method_fetched_as_a_dataclass_field_earns_nothing(shell):
    """A field named `encode` is a name in a class body, no `.encode`; on a `str` subclass
    without an `__init__` of its own, `dataclasses.astuple` reads the field with getattr and
    hands back `str.encode`, bound to the text."""
    source = (
        "import dataclasses\n\n@dataclasses.dataclass(init=False)\nclass Text(str):\n"
        "    encode: int\n\ndef utf8_encode(cp):\n"
        "    return dataclasses.astuple(Text(chr(cp)))[0]()\n"
    )
    assert not earns_full_marks(shell, "utf8_encode", source)
