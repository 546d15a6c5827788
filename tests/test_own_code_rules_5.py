"""The rules that close issue 27's fifth red team's doors (`tests/test_red_team_own_code_5.py`),
each by what the reading says, with the honest code beside it that keeps its marks."""

from __future__ import annotations

import pytest

from lib.exercises.own_code import Notebook
from tests.test_own_code_rules_4 import verdict

END = "    return bytes([cp])\n"
HONEST = {
    "a class body reading its own names": "class Sizes:\n    ONE = 1\n    TWO = ONE + 1\n"
    "    ALL = [ONE, TWO]\n\ndef utf8_encode(cp):\n    return bytes([cp * Sizes.TWO // 2])\n",
    "a class body importing a module": "class Shape:\n    import re\n"
    "    WORD = re.compile('a')\n\ndef utf8_encode(cp):\n    Shape\n" + END,
    "a module's name in a method's locals": "import re\n\nclass K:\n    def f(self):\n"
    "        re = 1\n        return re\n\ndef utf8_encode(cp):\n    K\n" + END,
    "a module's attributes": "import dataclasses, collections.abc\n\ndef utf8_encode(cp):\n"
    "    dataclasses.re.compile('a'), collections.abc.Sequence\n" + END,
    "a field and its names": "import dataclasses\n\n@dataclasses.dataclass(frozen=True)\n"
    "class Parts:\n    lead: int\n    rest: list = dataclasses.field(default_factory=list)\n\n"
    "def utf8_encode(cp):\n    names = {f.name: f.type for f in dataclasses.fields(Parts)}\n"
    "    return bytes([Parts(cp, [len(names)]).lead])\n",
}


@pytest.mark.parametrize("source", HONEST.values(), ids=list(HONEST))
def test_honest_code_beside_these_rules_keeps_its_marks(source):
    assert verdict(source) == ""


REFUSED = {
    # 1-2: a class body's name, where the class has none yet, is the notebook's or a builtin
    "display before the class binds it": (
        "def utf8_encode(cp):\n    class K:\n        show = display\n        show = 0\n"
        "        display = show\n" + END,
        "binds `display`, a name the notebook's kernel already holds",
    ),
    "a module's private part before a class binds its name": (
        "import collections\n\ndef utf8_encode(cp):\n    class K:\n"
        "        s = collections._sys\n        match 0:\n            case collections:\n"
        "                pass\n" + END,
        "binds `collections`, the name of a module the notebook imports",
    ),
    "a notebook's function before the class binds its name": (
        "def helper(cp):\n    return chr(cp).encode()\n\ndef utf8_encode(cp):\n    class K:\n"
        "        h = helper\n        def helper(self):\n            pass\n    return K.h(cp)\n",
        "uses `.encode`, which this exercise asks you to do without (through `helper`)",
    ),
    # 3: what IPython and `site` add to the builtins
    "display declared global": (
        "def utf8_encode(cp):\n    global display\n" + END,
        "binds `display`, a name the notebook's kernel already holds",
    ),
    "license bound where it never runs": (
        "if False:\n    license = 0\n\ndef utf8_encode(cp):\n    license\n" + END,
        "binds `license`, a name the notebook's kernel already holds",
    ),
    # 6
    "a module reached by a chain, in a local": (
        "import dataclasses\n\ndef utf8_encode(cp):\n    m = dataclasses.re\n" + END,
        "hands the module `dataclasses.re` on as a value",
    ),
    "a module reached by getattr": (
        "import dataclasses\n\ndef utf8_encode(cp):\n    getattr(dataclasses, 're')\n" + END,
        "hands the module `dataclasses.re` on as a value",
    ),
    # 7-8: a `Field` is read, never held
    "a Field kept in a variable": (
        "import dataclasses\n\nLEAD = dataclasses.field(default=0)\n\n"
        "def utf8_encode(cp):\n    LEAD\n" + END,
        "uses `dataclasses.field` other than as a field's value",
    ),
    "a field read back in its class body": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass T:\n"
        "    lead: int = dataclasses.field(default=0)\n    kept = [lead]\n\n"
        "def utf8_encode(cp):\n    T\n" + END,
        "uses `dataclasses.field` other than",
    ),
    "a field in a class no dataclass makes first": (
        "import dataclasses\n\ndef wrap(c):\n    return c\n\n@dataclasses.dataclass\n@wrap\n"
        "class T:\n    lead: int = dataclasses.field(default=0)\n\n"
        "def utf8_encode(cp):\n    T\n" + END,
        "uses `dataclasses.field` other than",
    ),
    "field imported on its own": (
        "from dataclasses import field\n\ndef utf8_encode(cp):\n    field\n" + END,
        "uses `dataclasses.field` other than",
    ),
    "a Field handed on from a comprehension": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass T:\n    lead: int = 0\n\n"
        "def utf8_encode(cp):\n    [f for f in dataclasses.fields(T)][0]\n" + END,
        "uses `dataclasses.fields` other than in a comprehension reading each one",
    ),
    "a Field written": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass T:\n    lead: int = 0\n\n"
        "def utf8_encode(cp):\n    dataclasses.fields(T)[0].name = 'x'\n" + END,
        "uses `dataclasses.fields` other than",
    ),
    "a Field written by a comprehension's loop": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass T:\n    lead: int = 0\n\n"
        "def utf8_encode(cp):\n    [0 for f in dataclasses.fields(T) for f.name in ['x']]\n" + END,
        "uses `dataclasses.fields` other than",
    ),
    "a Field made by hand": (
        "import dataclasses\n\ndef utf8_encode(cp):\n    dataclasses.Field\n" + END,
        "uses `dataclasses.Field`",
    ),
}


@pytest.mark.parametrize(("source", "said"), REFUSED.values(), ids=list(REFUSED))
def test_each_door_is_refused_with_its_reason(source, said):
    assert said in verdict(source)


def test_a_singledispatch_registry_is_refused_whatever_the_exercise_forbids():
    """Its classes come from hints evaluated in globals the reading cannot know (door 4)."""
    source = (
        "import functools\n\n@functools.singledispatch\ndef kind(x):\n    return 0\n\n"
        "def count(text):\n    return len(kind.registry)\n"
    )
    assert "uses `.registry`" in Notebook([source]).borrowed("count", (), ())
