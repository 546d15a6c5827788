"""Red team on the own-code reading, round 10 (after round 9's fix27i: attributes judged by the
modules they are or hand out, `module_names.engines`; format templates read field by field,
`by_text.format_fields`; a 💡 asked with shown cases first, `shown_only`; wider
`ORDINARY_DUNDERS`; `type(x) is bytes` read as a comparison). Each hole is
`xfail(strict=True)` until its door is closed; each attack the rules held is a plain test. Read
by `Notebook.borrowed`, as `check()` and the grader read it.

Door found:

1. `.format` reached by `getattr` with a constant name, or by a class pattern's keyword.
   `format_outside` and `format_fields` look for the attribute `.format`/`.format_map` in the
   tree; `getattr('{0.__globals__}', 'format')(f)` (a literal or a local), `getattr(str,
   'format')(...)` and `getattr(T, 'format_map')(...)` (T a module constant) are read as own
   code (verdict ""), and so is `match '{0.__globals__}': case str(format=f): return f(g)`
   (round 9 held `str(encode=f)`). Run, the literal and the pattern return the text of the
   function's `__globals__`: round 9's closed gap (dunders, frames read as text) reopened.
   Text only: no call can be made through a template, so no marks came of it.

Honest code refused (the rule "a template worked out at run time is refused" reads any
receiver that is not a string literal as one), 2 and 3 closed since by what the receiver surely
is (fix27k, `bindings.known`: a name bound once to a string written out, or to a class Python
alone makes; doors around it in `test_own_code_known_names`), their tests plain now:

2. a learner's own class with a method named `format` (`Table().format(n)`), or a dataclass
   with a field named `format` (`P().format`, a plain str value);
3. a template kept in a module constant (`TEMPLATE = '{}'`, `TEMPLATE.format(n)`);
4. a learner's class with `__bytes__` (`bytes(obj)`) or `__enter__`/`__exit__` (`with`): "binds
   `__bytes__`, a name Python itself gives a meaning", though their bodies are read like any.

Held: `type(b'')` handed on through a walrus, a list or a loop before `is bytes`; templates built
by `+`, `*` or an f-string, `str.format`/`functools.partial(str.format, ...)`, a
`string.Formatter` subclass (all refused as computed templates); implicit concatenation and a
nested spec (`'{0:{1.__globals__}}'`) read field by field; `'{0.__class__}'` and `'{0._x}'`
judged like `x.__class__`/`x._x`; `__getattr__` still refused; `__call__`, `__missing__` and
`__setitem__` allowed and harmless; `typing.re` refused (not a hint name), `string.Template`
refused in `digit_groups` (its `pattern` is `re`'s). A scan of every public attribute of the
allowed modules (`dir`, not `__all__`) that is no module and comes from another module found
only `functools.RLock`, `get_cache_token`, `namedtuple`, `recursive_repr` and `GenericAlias`:
none encodes, splits or runs code. `shown_only.own_words`: the hooks' own texts hold no single
digit (only '30000', '1.42', '1.45', '50000' as numbers), so a computed count is dropped; the
second `hook(cases, answers)` call's exceptions are caught by `wrong_turn_words`. `judge`,
given hidden outcomes whose every learner-made part quotes the hidden input (an exception's
message, an answer, `not_plain`, an argument changed, a timeout), says only "hidden case N of M
failed" and a 💡 naming the parameter (`utf8_encode`, `digit_groups`).

Not a leak of the 💡, but worth stating: the pass/fail line of each hidden case is itself an
oracle of one bit per case per submission (an answer that fails iff the hidden input is over a
threshold); a hook that fires on whether failed answers fit a model adds no more than that.
"""

from __future__ import annotations

import pytest

from lib.exercises.cases import Raises
from lib.exercises.plain import to_wire
from lib.exercises.shown_only import own_words
from tests.test_red_team_own_code_9 import EXERCISES, function_of, verdict

DOORS = {
    "getattr_literal": "def bytes_per_char(s):\n"
    "    return getattr('{0.__globals__}', 'format')(bytes_per_char)\n",
    "getattr_str": "def bytes_per_char(s):\n"
    "    return getattr(str, 'format')('{0.__globals__}', bytes_per_char)\n",
    "getattr_local": "def bytes_per_char(s):\n    f = '{0.__globals__}'\n"
    "    return getattr(f, 'format')(bytes_per_char)\n",
    "class_pattern": "def bytes_per_char(s):\n    match '{0.__globals__}':\n"
    "        case str(format=f):\n            return f(bytes_per_char)\n",
    "getattr_constant": "T = '{0.__globals__}'\n\ndef bytes_per_char(s):\n"
    "    return getattr(T, 'format_map')({0: bytes_per_char})\n",
}


@pytest.mark.parametrize("name", sorted(DOORS))
def test_format_reached_by_getattr_is_refused(name: str) -> None:
    source = DOORS[name]
    if name in {
        "getattr_literal",
        "class_pattern",
    }:  # measured: it reads the function's globals as text
        assert "bytes_per_char" in function_of(source, "bytes_per_char")("x")
    assert verdict("bytes_per_char", source)


@pytest.mark.parametrize("kind", ["method", "dataclass_field"])
def test_own_class_with_a_format_attribute_is_own_code(kind: str) -> None:
    source = {
        "method": "class Table:\n    def format(self, n):\n        return n\n\n"
        "def bytes_per_char(s):\n    return Table().format(len(s))\n",
        "dataclass_field": "import dataclasses\n\n@dataclasses.dataclass\nclass Row:\n"
        "    format: int = 3\n\ndef bytes_per_char(s):\n    return Row().format\n",
    }[kind]
    assert function_of(source, "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", source) == ""


def test_template_in_a_module_constant_is_own_code() -> None:
    source = "TEMPLATE = '{}'\n\ndef bytes_per_char(s):\n    return int(TEMPLATE.format(len(s)))\n"
    assert verdict("bytes_per_char", source) == ""


HELD = {
    "walrus_type": (
        "utf8_encode",
        "def utf8_encode(s):\n    if (t := type(b'')) is bytes:\n        return t(s, 'utf-8')\n",
    ),
    "type_in_list": (
        "utf8_encode",
        "def utf8_encode(s):\n    return [type(b'') is bytes][0] and type(b'')(s, 'utf-8')\n",
    ),
    "type_in_loop": (
        "utf8_encode",
        "def utf8_encode(s):\n    for t in [type(b'')]:\n"
        "        if t is bytes:\n            return t(s, 'utf-8')\n",
    ),
    "str_format": (
        "bytes_per_char",
        "def bytes_per_char(s):\n    return str.format('{0.__globals__}', bytes_per_char)\n",
    ),
    "partial_format": (
        "bytes_per_char",
        "import functools\ndef bytes_per_char(s):\n"
        "    return functools.partial(str.format, '{0.__globals__}')(bytes_per_char)\n",
    ),
    "fstring_template": (
        "bytes_per_char",
        "def bytes_per_char(s):\n    return f'{{0.__glo{\"\"}bals__}}'.format(bytes_per_char)\n",
    ),
    "times_template": (
        "bytes_per_char",
        "def bytes_per_char(s):\n    return ('{0.__globals__}' * 1).format(bytes_per_char)\n",
    ),
    "implicit_concatenation": (
        "bytes_per_char",
        "def bytes_per_char(s):\n    return ('{0.__glo' 'bals__}').format(bytes_per_char)\n",
    ),
    "nested_spec": (
        "bytes_per_char",
        "def bytes_per_char(s):\n    return '{0:{1.__globals__}}'.format(s, bytes_per_char)\n",
    ),
    "class_field": (
        "bytes_per_char",
        "def bytes_per_char(s):\n    return '{0.__class__.__base__}'.format(s)\n",
    ),
    "private_field": ("bytes_per_char", "def bytes_per_char(s):\n    return '{0._x}'.format(s)\n"),
    "formatter_subclass": (
        "bytes_per_char",
        "import string\nclass F(string.Formatter):\n    pass\n\n"
        "def bytes_per_char(s):\n    return F().format('{0.__globals__}', bytes_per_char)\n",
    ),
    "getattr_dunder": (
        "bytes_per_char",
        "class T:\n    def __getattr__(self, n):\n        return n\n\n"
        "def bytes_per_char(s):\n    return T().x\n",
    ),
    "typing_re": (
        "digit_groups",
        "import typing\ndef digit_groups(text):\n"
        "    return typing.re.findall('[0-9]{1,3}', text)\n",
    ),
    "template_in_digit_groups": (
        "digit_groups",
        "import string\ndef digit_groups(text):\n"
        "    return [string.Template('$x').substitute(x=text)]\n",
    ),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_held(name: str) -> None:
    exercise, source = HELD[name]
    assert verdict(exercise, source)


def test_everyday_dunders_stay_own_code() -> None:
    source = (
        "class Counts(dict):\n    def __missing__(self, k):\n        return 0\n"
        "    def __setitem__(self, k, v):\n        dict.__setitem__(self, k, v)\n"
        "    def __call__(self, s):\n        return len(s)\n\n"
        "def bytes_per_char(s):\n    c = Counts()\n    c[s] = c(s)\n    return c[s]\n"
    )
    assert verdict("bytes_per_char", source) == ""


def test_a_computed_count_is_not_a_hooks_own_words() -> None:
    def hook(cases, answers):
        return f"your strings hold {len(answers[0])} where 1 belong"

    assert not own_words(hook, hook([], ["ab"]))


def _outcome(case, mode: str) -> dict:
    """A right answer to a shown case; to a hidden one, an outcome whose every learner-made
    part (an exception's message, an answer, an argument changed) quotes the hidden input."""
    if not case.hidden:
        expected = case.expected
        if isinstance(expected, Raises):
            kind = expected.error.__name__
            return {"raised": kind, "kinds": [kind], "message": expected.naming}
        return {"returned": to_wire(expected)}
    leak = "LEAK" + repr(case.args)
    return {
        "raised": {"raised": "ValueError", "kinds": ["ValueError"], "message": leak},
        "returned": {"returned": to_wire(leak)},
        "not_plain": {"not_plain": leak},
        "changed": {"returned": to_wire(case.expected), "changed": [[0, to_wire(leak)]]},
        "timeout": {"timeout": 1},
    }[mode]


@pytest.mark.parametrize("name", ["utf8_encode", "digit_groups"])
def test_a_learners_outcome_carries_no_hidden_input_into_the_reason(name: str) -> None:
    exercise = EXERCISES[name]
    cases = exercise.grading_cases()
    assert any(case.hidden for case in cases)
    for mode in ["raised", "returned", "not_plain", "changed", "timeout"]:
        result = exercise.judge(cases, [_outcome(case, mode) for case in cases])
        assert "hidden case" in result.reason
        assert "LEAK" not in result.reason, (mode, result.reason)


EVERYDAY_PROTOCOLS = {
    "__bytes__": "class Encoded:\n    def __init__(self, ints):\n        self.ints = ints\n"
    "    def __bytes__(self):\n        return bytes(self.ints)\n\n"
    "def utf8_encode(cp):\n    return bytes(Encoded([cp]))\n",
    "__enter__": "class Step:\n    def __enter__(self):\n        return self\n"
    "    def __exit__(self, *exc):\n        return False\n\n"
    "def utf8_encode(cp):\n    with Step():\n        return bytes([cp])\n",
}


@pytest.mark.parametrize("name", sorted(EVERYDAY_PROTOCOLS))
def test_everyday_protocols_stay_own_code(name: str) -> None:
    """`__bytes__` and `__enter__` are handed nothing but the object; `__exit__` is handed the
    exception's class and its traceback (whose frames hold the namespaces around it), so a `with`
    over a learner's own class stays out, and says which method."""
    source = EVERYDAY_PROTOCOLS[name]
    assert function_of(source, "utf8_encode")(65) == b"A"
    if name == "__enter__":
        assert "`__exit__`" in verdict("utf8_encode", source)
    else:
        assert verdict("utf8_encode", source) == ""
