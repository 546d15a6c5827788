"""Red team on the own-code reading, round 4 (after fix27c): doors the reading does not model.
Each test below, on main 2afbc40, is an answer that earned full marks, a notebook that broke the
grader, an answer `check()` and the grader judge differently, or honest code refused; each is
`xfail(strict=True)` until its door is closed. Doors 1 to 5 were first run through the grader's
own `grade_submissions` (sandboxed) on lesson 1's notebook solved, the attacked exercises
replaced: 2/2 each, "all N cases passed"; door 7 there gave "grader error (RecursionError)" and
no rows at all for that notebook (the next notebook of the batch was graded).

Doors found (each test says why the reading misses it and a fix in one line):

1. a name the unit binds in an inner scope (`lambda collections: 0`) hides the module of that
   name in the outer scope: `collections._sys.modules['builtins'].eval`, `lib.bpe.train`;
2. `from string import Formatter` (only the attribute `.Formatter` is refused): a subclass's
   `format_field` is handed whatever a format string's `{0.encode}` fetches by name;
3. `functools.singledispatch` evaluates a string hint: `x: 'box[eval]'` reads as a plain hint,
   and evaluating it hands `eval` (or `bytes`) to the learner's `__getitem__`;
4. a dataclass field named at run time (`fields(C)[0].name = 'encode'`, or a class body's
   `__annotations__['encode'] = int`) is read by `dataclasses.astuple` with getattr;
5. IPython calls `_repr_pretty_(self, printer, cycle)` on a value a read unit displays
   (`(shown := Shown())`): `printer.type_pprinters` holds the classes `bytes` and `str`;
6. `check()` and the grader disagree: under IPython `builtins` holds `get_ipython` while
   `lib.exercises.allowed` is imported (a lesson's set-up cell), so `allowed.BUILTINS` lets
   `check()` pass an answer that runs any text through the shell; the grader refuses it;
7. a deeply nested cell breaks the grader: `ast.parse` raises MemoryError and `ast.unparse`
   (the program graded) RecursionError; the notebook's record is "grader error" with no rows;
8. the reading's work grows with the square of the cells' size and holds `_READING_CODE`
   (one reading at a time): an 85 KB notebook reads in 35 s, 1 MB would stall the batch;
9. the other way: an honest `match` statement is refused, its capture names (`case [a, *rest]`)
   read as names no cell defines;
10. `check()` and the grader disagree: `check()` reads a function's source with
   `inspect.getsource`, which follows `__wrapped__`: `f = functools.update_wrapper(f, honest)`
   (plain, so allowed) shows it `honest`'s source, and it passes an `f` that calls `.encode`.

What held (read by `Notebook`, each refused with a telling reason): `type('K', (str,), {...})`
where `.encode` is forbidden; a class named `bytes`; `e.__traceback__`; `from string import
Formatter as F` used through `.get_field`; a class attribute, an inner `global` or a
comprehension variable named like an imported module (`bindings._looked_up_outside`).
Considered and left, as no door by themselves: `dataclasses.FunctionType` (read as allowed, but
no code object reaches it), `re.sub`/`re.Scanner` callbacks, `heapq`/`bisect` keys,
`str.translate`, `str.format_map` (they hand the learner's code names or text, not objects).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.own_code import Notebook
from lib.grade import Limits, grade_submissions
from lib.grading.solved import solved
from tests import test_red_team_own_code as harness
from tests.test_red_team_own_code import ROOT, earns_full_marks

shell = harness.shell  # the harness's fresh IPython shell, as a fixture of this module too
LESSON_1 = {e.name: e for e in for_lesson(1)}

# 1. `own` is every name the unit binds anywhere: a lambda's parameter makes the module of that
# name, used outside the lambda, read as a local, so neither `module_outside` nor `_lib_use`
# looks at it. The import runs because a helper uses the module's public names.
# Fix: resolve each name's scope (`symtable`), not the unit's names as one set.
INNER_SCOPE = {
    "collections._sys under a lambda's parameter": (
        "utf8_encode",
        "import collections\n\ndef count(x):\n    return collections.Counter(x)\n\n"
        "def utf8_encode(cp):\n    count\n    (lambda collections: 0)\n"
        "    return collections._sys.modules['builtins'].eval('chr(%d).en' 'code()' % cp)\n",
    ),
    "lib.bpe.train under an inner function's local": (
        "train_bpe",
        "import lib.bpe\n\ndef pairs(ids):\n    return lib.bpe.get_stats(ids)\n\n"
        "def train_bpe(text, vocab_size):\n    pairs\n\n    def unused():\n        lib = 0\n"
        "        return lib\n    return lib.bpe.train(text, vocab_size)[1]\n",
    ),
}


@pytest.mark.parametrize("name, source", INNER_SCOPE.values(), ids=list(INNER_SCOPE))
def test_a_module_hidden_by_an_inner_scopes_name_earns_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


# 2. `string.Formatter` is refused as an attribute (`python_itself.REACHES_IN`) but not as a name
# imported from `string`; `vformat` fetches `{0.encode}` with getattr and hands the value to
# `format_field`, a method of the learner's. Fix: refuse `string.Formatter` in imports too.
FORMATTER = "class Grab(Formatter):\n    def format_field(self, value, spec):\n" + (
    "        self.got = value\n        return ''\n\ndef utf8_encode(cp):\n    grab = Grab()\n"
    "    grab.format('{0.en' 'code}', chr(cp))\n    return grab.got()\n"
)


@pytest.mark.parametrize("imports", ["from string import Formatter", "from string import *"])
def test_a_formatter_subclass_earns_nothing(shell, imports):
    assert not earns_full_marks(shell, "utf8_encode", f"{imports}\n\n{FORMATTER}")


# 3. A hint is skipped by the reading when `plain_hint` (names, attributes, subscripts): its names
# are never judged. `singledispatch.register(f)` evaluates f's hints (`typing.get_type_hints`):
# `box[eval]` calls the learner's `__getitem__` with the builtin. `box` and `KEPT` are used in
# the body so that their units run. Fix: judge a hint's names as code (or refuse subscripts).
HINT_BOX = (
    "import functools\n\nKEPT = []\n\nclass Box:\n    def __getitem__(self, key):\n"
    "        KEPT.append(key)\n        return int\n\nbox = Box()\n\n@functools.singledispatch\n"
    "def kind(x):\n    return 0\n\n"
)
HINT_EVALUATED = {
    "eval through a parameter's hint": HINT_BOX + "def utf8_encode(cp):\n    box\n"
    "    def probe(x: 'box[eval]'):\n        return 1\n    kind.register(probe)\n"
    "    return KEPT[-1]('chr(%d).en' 'code()' % cp)\n",
    "bytes through a return hint too": HINT_BOX + "def utf8_encode(cp):\n    box\n"
    "    def probe(x: int) -> box[bytes]:\n        return 1\n    kind.register(probe)\n"
    "    return KEPT[-1](chr(cp), 'utf8')\n",
}


@pytest.mark.parametrize("source", HINT_EVALUATED.values(), ids=list(HINT_EVALUATED))
def test_a_hint_evaluated_by_singledispatch_earns_nothing(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


# 4. `forbidden._class_attributes` judges the field names a class body writes out; a field's
# name is also a `Field` attribute that may be set later, and a class body may add to its own
# `__annotations__` by subscript (one top-level unit reading `__annotations__` makes the name the
# notebook's). `astuple` then reads `getattr(obj, 'encode')`.
# Fix: treat `dataclasses.fields/astuple/asdict/replace` as `by_text` (refuse them, or refuse
# writing to what `fields` returns and any use of `__annotations__`).
FIELD_NAMED_LATER = {
    "Field.name set at run time": (
        "import dataclasses\n\n@dataclasses.dataclass(init=False)\nclass Text(str):\n"
        "    lead: int\n\ndef utf8_encode(cp):\n"
        "    dataclasses.fields(Text)[0].name = 'en' 'code'\n"
        "    return dataclasses.astuple(Text(chr(cp)))[0]()\n",
    ),
    "__annotations__ written by subscript": (
        "if True:\n    unused: int = 0\n    __annotations__['unused'] = int\n",
        "import dataclasses\n\n@dataclasses.dataclass(init=False)\nclass Text(str):\n"
        "    lead: int = 0\n    __annotations__['en' 'code'] = int\n\n"
        "def utf8_encode(cp):\n    return dataclasses.astuple(Text(chr(cp)))[1]()\n",
    ),
}


@pytest.mark.parametrize("cells", FIELD_NAMED_LATER.values(), ids=list(FIELD_NAMED_LATER))
def test_a_field_named_at_run_time_earns_nothing(shell, cells):
    assert not earns_full_marks(shell, "utf8_encode", *cells)


# 5. A top-level walrus is a unit (it binds `shown`) and, last in its cell, is displayed: IPython
# calls `_repr_pretty_` with its printer, whose `type_pprinters` are keyed by classes, `bytes`
# among them. Nothing the reading sees hands out a class. Fix: refuse defining IPython's display
# hooks (`_repr_*_`, `_ipython_*_`), or end every program cell with `pass` so nothing shows.
REPR_PRETTY = (
    "CLASSES = {}\n\nclass Shown:\n    def _repr_pretty_(self, printer, cycle):\n"
    "        CLASSES.update((k.__name__, k) for k in printer.type_pprinters)\n"
    "        printer.text('shown')\n\n(shown := Shown())",
    "def utf8_encode(cp):\n    shown\n    return CLASSES['bytes'](chr(cp), 'utf8')\n",
)


def test_a_display_hook_of_the_learners_earns_nothing(shell):
    assert not earns_full_marks(shell, "utf8_encode", *REPR_PRETTY)


# 6. `check()` in a kernel where the lesson's set-up cell imported `lib.exercises` first. Run in
# a process of its own: here `allowed` was imported outside IPython. Fix: `BUILTINS` from
# `builtins.__dict__` minus the names IPython adds (`get_ipython`, `display`, `__IPYTHON__`), or
# from a fixed list.
CHECK_IN_A_KERNEL = """
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for cell in [
    "from lib.exercises import for_lesson",
    "def utf8_encode(cp):\\n    return get_ipython().ev('chr(%d).en' 'code()' % cp)",
    "[e for e in for_lesson(1) if e.name == 'utf8_encode'][0].check()",
]:
    shell.run_cell(cell, store_history=True)
"""


def test_check_refuses_what_the_grader_refuses_in_a_kernel():
    source = "def utf8_encode(cp):\n    return get_ipython().ev('chr(%d).en' 'code()' % cp)"
    assert "uses `get_ipython`" in Notebook([source]).borrowed("utf8_encode", (), (".encode",))
    said = subprocess.run(
        [sys.executable, "-c", CHECK_IN_A_KERNEL],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    ).stdout
    assert "Checking utf8_encode" in said and "uses `get_ipython`" in said, said


# 10. Fix: read a function's own source (`inspect.getsource(value.__code__)`, which does not
# follow `__wrapped__`), or refuse a function whose `__wrapped__` is another notebook function.
WRAPPED = (
    "import functools\n\ndef honest(cp):\n    return bytes([cp])",
    "def utf8_encode(cp):\n    return chr(cp).encode()",
    "utf8_encode = functools.update_wrapper(utf8_encode, honest)",
)


def test_check_reads_the_function_a_name_holds_not_the_one_it_wraps(shell):
    assert "uses `.encode`" in Notebook(list(WRAPPED)).borrowed("utf8_encode", (), (".encode",))
    for cell in WRAPPED:
        shell.run_cell(cell, store_history=True)
    result = LESSON_1["utf8_encode"].grade(shell.user_ns)
    assert (result.status, result.score) == ("not own code", 0), result


# 7. Only SyntaxError and ValueError are caught where a cell is parsed (`parse_cell`), and
# `Notebook.program` unparses what it read without a limit. Fix: catch RecursionError and
# MemoryError there and read such a cell as unreadable; refuse a unit `ast.unparse` cannot write.
TOO_DEEP = {
    "parsed": "x = " + "-" * 20000 + "1",
    "unparsed": "DEEP = " + "lambda cp: " * 500 + "cp\n\ndef utf8_encode(cp):\n    DEEP\n"
    "    return bytes([cp])",
}


@pytest.mark.parametrize("source", TOO_DEEP.values(), ids=list(TOO_DEEP))
def test_a_deeply_nested_cell_is_read_without_breaking_the_grader(source):
    code = Notebook([source])
    code.borrowed("utf8_encode", (), (".encode",))
    code.program(["utf8_encode"])


# 8. Each unit read walks every import of the notebook again (`imported` in `_read_unit`):
# n aliases and a chain of n helpers read in 0.6 s (n = 200), 9 s (800, 41 KB), 35 s (1600,
# 85 KB): a 1 MB notebook would take an hour. Readings take turns
# (`one_submission._READING_CODE`), so one large notebook stalls every other one's.
# Fix: compute the notebook's imported modules once per reading (`Notebook.__init__`).
def chain_of_helpers(n: int) -> str:
    imports = "\n".join(f"import math as m{i}" for i in range(n))
    helpers = "\n".join(f"def f{i}(x):\n    return f{i + 1}(x)" for i in range(n))
    return f"{imports}\n{helpers}\ndef f{n}(x):\n    return x\n\ndef utf8_encode(cp):\n" + (
        "    return f0(bytes([cp]))\n"
    )


def test_reading_grows_in_proportion_to_the_notebook():
    seconds = []
    for n in (100, 400):
        source, tries = chain_of_helpers(n), []
        for _ in range(3):  # the best of three: one slow moment on a loaded machine is noise
            started = time.process_time()
            assert Notebook([source]).borrowed("utf8_encode", (), (".encode",)) == ""
            tries.append(time.process_time() - started)
        seconds.append(min(tries))
    assert seconds[1] < 8 * seconds[0], seconds  # four times the size: at most twice linear


# 9. `cell_reading.local_names` knows `ast.Name` stores, not a pattern's captures (`MatchAs`,
# `MatchStar`, `MatchMapping.rest` hold plain strings), so an honest answer with `match` loses
# its marks, in `check()` and the grader alike. Fix: add those names in `local_names`.
HONEST_MATCH = {
    "capture with a guard": (
        "utf8_encode",
        "def utf8_encode(cp):\n    match [cp]:\n        case [small] if small < 0x80:\n"
        "            return bytes([small])\n    return b''",
    ),
    "star capture": (
        "merge",
        "def merge(ids, pair, new_id):\n    match ids:\n"
        "        case [a, b, *rest] if (a, b) == pair:\n"
        "            return [new_id] + merge(rest, pair, new_id)\n        case [a, *rest]:\n"
        "            return [a] + merge(rest, pair, new_id)\n    return []",
    ),
}


@pytest.mark.parametrize("name, source", HONEST_MATCH.values(), ids=list(HONEST_MATCH))
def test_an_honest_match_statement_is_own_code(name, source):
    exercise = harness.EXERCISES[name]
    assert (
        Notebook([source]).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden) == ""
    )


# The real grader, sandboxed, on lesson 1 solved, three exercises answered through doors 1, 3
# and 5 (the ones that depend most on the kernel: IPython's display, its namespace).
REAL = {
    "utf8_encode": INNER_SCOPE["collections._sys under a lambda's parameter"][1],
    "utf8_decode_first": REPR_PRETTY[0],
    "is_valid_utf8": HINT_BOX
    + "def is_valid_utf8(data):\n    box\n    def probe(x: 'box[eval]'):\n        return 1\n"
    "    kind.register(probe)\n    try:\n        KEPT[-1]('d.de' 'code()', {'d': data})\n"
    "    except UnicodeDecodeError:\n        return False\n    return True\n",
}
DECODE_FIRST = (
    "def utf8_decode_first(data):\n    shown\n"
    "    ch = CLASSES['str'](data[:4], 'utf-8', 'ignore')[0]\n"
    "    return ord(ch), 1 + (ord(ch) > 0x7F) + (ord(ch) > 0x7FF) + (ord(ch) > 0xFFFF)\n"
)


def attacked_lesson_1(answers: dict[str, str], after: dict[str, str]) -> nbformat.NotebookNode:
    """Lesson 1 solved, the exercise cells of `answers` replaced, a cell of `after` added after
    the exercise cell it names."""
    notebook = solved(nbformat.read(ROOT / "notebooks/01_unicode_and_utf8.ipynb", as_version=4))
    cells = []
    for cell in notebook.cells:
        name = cell.metadata.get("exercise")
        cell.source = answers.get(name, cell.source)
        cells += [cell] + ([nbformat.v4.new_code_cell(after[name])] if name in after else [])
    notebook.cells = cells
    return notebook


@pytest.mark.end_to_end
def test_the_real_grader_gives_these_doors_nothing(tmp_path: Path):
    notebook = attacked_lesson_1(REAL, {"utf8_decode_first": DECODE_FIRST})
    nbformat.write(notebook, tmp_path / "mallory.ipynb")
    (record,) = grade_submissions(
        [tmp_path / "mallory.ipynb"],
        tmp_path / "out",
        limits=Limits(cell=20, notebook=120, probe=2),
        jobs=1,
        progress=False,
    )
    scores = {row["name"]: row["score"] for row in record["exercises"]}
    assert record["outcome"] == "graded" and scores["bytes_per_char"] == 1.0  # the rest: honest
    assert {name: scores[name] for name in REAL} == dict.fromkeys(REAL, 0.0)
