"""Red team on the own-code reading, round 5 (after fix27d: `scopes`, `hints`, `unit_reading`,
the fixed builtins list, `pass` ending each program cell). Each test is an answer that earned
full marks on main fcc5a09, judged as the grader judges it (`earns_full_marks`: the cells read,
then only the program accepted run in a fresh IPython shell), each an `xfail(strict=True)` until
fix27e closed its door by a rule (`tests/test_own_code_rules_5.py` gives each rule's reason); and
a crash (5), fixed on main since, kept as a regression test. The last
test runs doors 1, 2, 3, 4, 6, 7 and 8 through the real, sandboxed grader
(`grade_submissions`) on lessons 1 and 3 solved: there each attacked exercise scored full
marks ("all 46 cases passed", train_bpe 2/2...).

Doors found (each test says why the reading misses it, and a fix in one line):

1. a class body's name is read as the class's own wherever the body binds it, but Python looks
   it up with `LOAD_NAME`: where the class has no such name yet (used before it is bound, only
   annotated `display: int`, or deleted at the end of `except ... as display`), the notebook's
   globals and then the builtins answer. IPython puts `display` in the builtins; it calls a
   learner's `_repr_pretty_` with its printer, whose `type_pprinters` hold `bytes`;
2. the same fallback, for a module the notebook imports: `bindings._looked_up_outside` lists a
   class body's `=`/`for`/`with` targets but not its `def`, `class`, `except ... as` or `match`
   captures, so `s = collections._sys` before `def collections(self)` is read as the class's;
3. a `global display` in a function (or a top-level `if False: display = 0`) makes `display` a
   notebook name whose unit is that statement: it is followed, never judged as a builtin, and
   at run time it is IPython's `display`. `bindings.KERNEL_NAMES` lists `get_ipython`, not it;
4. a hint is evaluated in the globals of the function at the end of its `__wrapped__` chain
   (`typing.get_type_hints`), which two plain `functools.update_wrapper` calls point at
   `string.capwords`: `'Formatter'` then names `string.Formatter`, and `singledispatch`'s
   `.registry` hands it out (allowed where `.encode`/`.decode` are not forbidden: `train_bpe`);
5. a crash, no door, fixed on main while this round ran (6e64f5e): any `global` statement made
   the first run's reading (`demo_cells._read`) raise AttributeError, "grader error" and no rows
   (through the real grader, door 3's `global` spelling met it first); a regression test now;
6. a module reached by a public chain (`dataclasses.re`) may be handed on: in a local or a list
   its attributes (`.enum.sys`) are read as a plain value's;
7. `Field.name` set at run time reaches `__match_args__` of a dataclass made later from a
   subclass: `case Text(method)` fetches the attribute the text names;
8. and that subclass's `__eq__` is generated as text holding the name and `exec`uted in the
   notebook's globals: a name `'lead,FOUND.append(eval)'` runs, and hands out `eval`.

What held (read by `Notebook`, refused or harmless): `display` as a default, a decorator, in a
method or a comprehension of a class that binds it; hints with nested strings
(`"'box[eval]'"`, `'list["box[bytes]"]'`); a comprehension's first iterable and later ones
(each in its scope); `global`/`nonlocal` in nested functions (read as the notebook's, judged);
`typing` (`Annotated`, `ForwardRef`, `get_type_hints`) is not an allowed module, so only
`singledispatch` evaluates hints; `|` in a hint (no class of the learner's may define `__or__`,
and no allowed class hands an operand on); a module hidden by a class body's own import (read
as the class's module); the appended `pass` (the program is `ast.unparse`d: a trailing comment,
`\\` or open statement never reaches it, and IPython's `!`/`%`/`?` inside a docstring stay
text); answers read without running learner methods (`running.raised`, `plain.to_wire`); what
IPython adds to `builtins` beyond `display` (`get_ipython`, `help`: judged; `copyright`,
`credits`, `license`: harmless). `type` statements and type parameters are a syntax error on the
grader's Python (3.11): such a cell is unreadable (on 3.12+ a class-scoped `type X = name` would
be door 1 again; their bounds are walked as the notebook's names). Runtime: about 15 s of CPU
(25-35 s on the shared machine); the real grader's test about 20 s of CPU more (40 with the
lessons whole).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from lib.grading.demo_cells import left_out
from tests import test_red_team_own_code as harness
from tests.test_demo_cells import HAND, HANDOUT, SOLVED_CELL
from tests.test_demo_cells import notebook as demo_notebook
from tests.test_red_team_own_code import attacks_score_nothing, earns_full_marks
from tests.test_red_team_own_code_6 import trimmed

shell = harness.shell  # the harness's fresh IPython shell, as a fixture of this module too

# A value whose `_repr_pretty_` keeps the classes IPython's printer knows, `bytes` among them.
PRETTY = (
    "KEPT = {}\n\nclass Pretty:\n    def _repr_pretty_(self, printer, cycle):\n"
    "        KEPT.update((k.__name__, k) for k in printer.type_pprinters)\n"
    "        printer.text('')\n\n"
)
SHOWN = "    Show.show(Pretty())\n    return KEPT['bytes'](chr(cp), 'utf8')\n"

# 1. Fix: refuse a class body binding a name it also uses where Python would look it up in the
# notebook (read every class-body name as the notebook's, like a method's), or refuse binding
# any name the kernel's `builtins` holds beyond `python_builtins` (`display`, `__IPYTHON__`).
DISPLAY_IN_A_CLASS_BODY = {
    "used before it is bound": "        show = display\n        display = 0\n",
    "only annotated": "        display: int\n        show = display\n",
    "deleted by except ... as": "        try:\n            0 / 0\n"
    "        except ZeroDivisionError as display:\n            pass\n        show = display\n",
}


@pytest.mark.parametrize(
    "body", DISPLAY_IN_A_CLASS_BODY.values(), ids=list(DISPLAY_IN_A_CLASS_BODY)
)
def test_ipythons_display_reached_from_a_class_body_earns_nothing(shell, body):
    source = PRETTY + "def utf8_encode(cp):\n    class Show:\n" + body + SHOWN
    assert not earns_full_marks(shell, "utf8_encode", source)


# 2. Fix: `_looked_up_outside` takes every name a class body binds (`local_names` of its
# statements, defs, classes, handlers and captures included), not only `ast.Name` stores.
MODULE_HELPER = "import collections\n\ndef count(x):\n    return collections.Counter(x)\n\n"
MODULE_IN_A_CLASS_BODY = {
    "collections._sys before a def": (
        "utf8_encode",
        MODULE_HELPER + "def utf8_encode(cp):\n    count\n    class K:\n"
        "        s = collections._sys\n        def collections(self):\n            pass\n"
        "    return K.s.modules['builtins'].eval('chr(%d).en' 'code()' % cp)\n",
    ),
    "collections._sys before a match capture": (
        "utf8_encode",
        MODULE_HELPER + "def utf8_encode(cp):\n    count\n    class K:\n"
        "        s = collections._sys\n        match 0:\n            case collections:\n"
        "                pass\n"
        "    return K.s.modules['builtins'].eval('chr(%d).en' 'code()' % cp)\n",
    ),
    "lib.bpe.train before a def": (
        "train_bpe",
        "from lib import bpe\n\ndef pairs(ids):\n    return bpe.get_stats(ids)\n\n"
        "def train_bpe(text, vocab_size):\n    pairs\n    class K:\n        t = bpe.train\n"
        "        def bpe(self):\n            pass\n    return K.t(text, vocab_size)[1]\n",
    ),
}


@pytest.mark.parametrize(
    "name, source", MODULE_IN_A_CLASS_BODY.values(), ids=list(MODULE_IN_A_CLASS_BODY)
)
@pytest.mark.filterwarnings("ignore::UserWarning")  # `bpe.train` on tiny texts says so
def test_a_module_read_as_a_class_bodys_own_earns_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


# 3. Fix: refuse binding (or declaring `global`) any name the kernel's `builtins` holds beyond
# `python_builtins` (`display`, `__IPYTHON__`...), as `KERNEL_NAMES` does for `get_ipython`;
# better, judge a followed name as a builtin too when one of its units may not bind it.
DISPLAY_AS_A_NOTEBOOK_NAME = {
    "declared global": "def utf8_encode(cp):\n    global display\n    display(Pretty())\n",
    "bound where it never runs": "if False:\n    display = None\n\n"
    "def utf8_encode(cp):\n    display(Pretty())\n",
}


@pytest.mark.parametrize(
    "source", DISPLAY_AS_A_NOTEBOOK_NAME.values(), ids=list(DISPLAY_AS_A_NOTEBOOK_NAME)
)
def test_ipythons_display_as_a_notebook_name_earns_nothing(shell, source):
    returned = "    return KEPT['bytes'](chr(cp), 'utf8')\n"
    assert not earns_full_marks(shell, "utf8_encode", PRETTY + source + returned)


# 4. Fix: refuse `functools.update_wrapper`/`wraps` on a function whose hints may be evaluated
# (or any hint name that is not a builtin, an allowed module or a notebook class), or refuse
# `.registry` everywhere: the reading cannot know which globals a hint is evaluated in.
FOREIGN_GLOBALS = (
    "import dataclasses, functools, string\n\n@functools.singledispatch\ndef kind(x):\n"
    "    return 0\n\ndef train_bpe(text, vocab_size):\n"
    "    def probe(x: 'Formatter'):\n        return 1\n    def outer(x):\n        return 1\n"
    "    functools.update_wrapper(outer, probe)\n"
    "    functools.update_wrapper(probe, string.capwords)\n"
    "    kind.register(outer)\n    class Grab([*kind.registry][-1]):\n"
    "        def format_field(self, value, spec):\n            self.got = value\n"
    "            return ''\n    grab = Grab()\n"
    "    grab.format('{0.__globals__[__builtins__][__import__]}', dataclasses.fields)\n"
    "    return grab.got('lib.bpe', None, None, ['train']).train(text, vocab_size)[1]\n"
)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_hint_evaluated_in_another_modules_globals_earns_nothing(shell):
    assert not earns_full_marks(shell, "train_bpe", FOREIGN_GLOBALS)


# 6. A module reached by a public attribute chain of an allowed module (`dataclasses.re`) is judged
# at that step (`re` is allowed) and may then be handed on: the bare name `dataclasses` handed
# on is refused, `dataclasses.re` is not, and in a list or a local its attributes are no
# module's (`re.enum`, refused written out, is read as an attribute of a value).
# Fix: refuse a chain that ends at a module, as the bare name is refused ("hands it on").
MODULE_BY_ITS_CHAIN = {
    "in a local": "import dataclasses\n\ndef utf8_encode(cp):\n    m = dataclasses.re\n"
    "    return m.enum.sys.modules['builtins'].eval('chr(%d).en' 'code()' % cp)\n",
    "in a list": "import dataclasses\n\ndef utf8_encode(cp):\n"
    "    found = [dataclasses.re][0].enum.sys.modules['builtins']\n"
    "    return found.eval('chr(%d).en' 'code()' % cp)\n",
}


@pytest.mark.parametrize("source", MODULE_BY_ITS_CHAIN.values(), ids=list(MODULE_BY_ITS_CHAIN))
def test_a_module_handed_on_by_its_chain_earns_nothing(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


# 7. `Field.name` may be set at run time, and `astuple`/`asdict`/`replace` are refused for that;
# but a dataclass made later from a subclass takes the base's `Field`s as they are, and writes
# their names into its `__match_args__`: `case Text(method)` then fetches `getattr(x, 'encode')`.
# Fix: refuse writing to a `Field` (`.name` of what `dataclasses.fields` gives), or refuse a
# positional sub-pattern of a class pattern whose class is not a builtin's.
RENAMED_BASE_FIELD = (
    "import dataclasses\n\n@dataclasses.dataclass(init=False)\nclass Base(str):\n"
    "    lead: int\n\ndef utf8_encode(cp):\n"
    "    dataclasses.fields(Base)[0].name = 'en' 'code'\n\n"
    "    @dataclasses.dataclass(init=False)\n    class Text(Base):\n        pass\n"
    "    match Text(chr(cp)):\n        case Text(method):\n            return method()\n"
)


# 8. The same renamed `Field`, and the subclass's generated methods are `exec`uted from text that
# holds its name, in the notebook's globals: `__eq__` runs `(self.lead,KEPT.append(eval),)`.
# Code run from a string through an allowed module, as in issue 27's first report. Same fix.
EXECUTED_FIELD_NAME = (
    "import dataclasses\n\nFOUND = []\n\n@dataclasses.dataclass\nclass Base8:\n"
    "    lead: int = 0\n\ndef utf8_decode_first(data):\n"
    "    dataclasses.fields(Base8)[0].name = 'lead,FOUND.append(ev' 'al)'\n\n"
    "    @dataclasses.dataclass(init=False, repr=False)\n    class Text(Base8):\n        pass\n"
    "    Text() == Text()\n"
    "    ch = FOUND[-1]('d[:4].de' 'code(\"utf-8\", \"ignore\")', {'d': data})[0]\n"
    "    return ord(ch), 1 + (ord(ch) > 0x7F) + (ord(ch) > 0x7FF) + (ord(ch) > 0xFFFF)\n"
)
FIELD_RENAMED = {
    "fetched by __match_args__": ("utf8_encode", RENAMED_BASE_FIELD),
    "executed by __eq__": ("utf8_decode_first", EXECUTED_FIELD_NAME),
}


@pytest.mark.parametrize("name, source", FIELD_RENAMED.values(), ids=list(FIELD_RENAMED))
def test_a_field_renamed_before_a_subclass_is_made_earns_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


# 5. Not a door but a crash, found on fcc5a09 and gone on main after the merge of 6e64f5e
# (demo_cells by rule): `demo_cells._read` took any node with `.names` for an import, and
# `ast.Global` holds plain strings there, so one `global` anywhere (an honest counter too) made
# the notebook "grader error (AttributeError...)", no rows. Kept as a regression test.
def test_a_global_statement_does_not_break_the_first_runs_reading():
    honest = "TOTAL = 0\n\ndef bump():\n    global TOTAL\n    TOTAL += 1"
    sources = [*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:], honest]
    assert left_out(demo_notebook(*sources), HAND) <= set(range(len(sources)))


# Doors 1 to 4 and 6 through the real grader (sandboxed), on lessons 1 and 3 solved and cut to
# their set-up and exercise cells (every attack is an exercise's own cell: the demonstrations
# cost time and reach no door).
LESSON_1 = {
    "utf8_encode": PRETTY
    + "def utf8_encode(cp):\n    class Show:\n"
    + DISPLAY_IN_A_CLASS_BODY["used before it is bound"]
    + SHOWN,
    "is_valid_utf8": MODULE_HELPER + "def is_valid_utf8(data):\n    count\n    class K:\n"
    "        s = collections._sys\n        def collections(self):\n            pass\n"
    "    try:\n        K.s.modules['builtins'].eval('d.de' 'code()', {'d': data})\n"
    "    except UnicodeDecodeError:\n        return False\n    return True\n",
    "utf8_decode_first": PRETTY.replace("KEPT", "SEEN").replace("Pretty", "Shown")
    + "if False:\n    display = None\n\ndef utf8_decode_first(data):\n    display(Shown())\n"
    "    ch = SEEN['str'](data[:4], 'utf-8', 'ignore')[0]\n"
    "    return ord(ch), 1 + (ord(ch) > 0x7F) + (ord(ch) > 0x7FF) + (ord(ch) > 0xFFFF)\n",
}
LESSON_3 = {
    "train_bpe": FOREIGN_GLOBALS,
    "merge": "import dataclasses\n\ndef merge(ids, pair, new_id):\n"
    "    found = [dataclasses.re][0].enum.sys.modules['builtins']\n"
    "    run = found.eval('__imp' 'ort__(\"lib.bpe\", fromlist=[\"merge\"]).merge')\n"
    "    return run(ids, pair, new_id)\n",
}


ATTACKS = {  # notebook: (lesson, answers)
    "mallory_1": ("01_unicode_and_utf8.ipynb", LESSON_1),
    "mallory_3": ("03_training_bpe.ipynb", LESSON_3),
    "mallory_7": ("01_unicode_and_utf8.ipynb", dict(FIELD_RENAMED.values())),
}


@pytest.mark.end_to_end
def test_the_real_grader_gives_these_doors_nothing(tmp_path: Path):
    for name, (lesson, answers) in ATTACKS.items():
        nbformat.write(trimmed(lesson, answers), tmp_path / f"{name}.ipynb")
    attacks_score_nothing(tmp_path, {name: attack[1] for name, attack in ATTACKS.items()})
