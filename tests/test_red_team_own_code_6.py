"""Red team on the own-code reading, round 6 (after round 5's fixes, main f888972). Each test is
an answer that earned full marks, a notebook whose reading stalls the grader, or honest code
refused, each `xfail(strict=True)` until its door is closed. Doors 1, 2 and 4 were run
through `check()` in an IPython shell (✅ all cases passed, 2/2) and through the real, sandboxed
grader (`python -m lib.grade grade`) on lessons 1 and 3 with only their set-up and exercise
cells: every attacked exercise scored full marks there, and honest 5 scored 0 (the last test).

Doors found (each test says why the reading misses it, and a fix in one line):

1. a class's attributes written as the text keys of a namespace: `type(name, bases, {...})`, or
   a subclass of `type` called so, defines any dunder the rules refuse in a class body
   (`__instancecheck__`, `__match_args__`...). A class pattern then fetches attributes by the
   names in `__match_args__`: `gi_frame`, then `f_builtins`, then `__import__('lib.bpe')`;
2. `functools.update_wrapper(SomeClass, f)`, called plainly (allowed), copies `f.__annotations__`
   onto the class: a dataclass made of it then has a field for each of `f`'s parameters, named
   as the learner likes (`encode`, `decode`), never bound in a class body, so
   `forbidden._class_attributes` never sees it; `case Made(method)` fetches `str.encode`;
3. the reading is quadratic in a dataclass's fields: `dataclass_fields._a_fields_value` resolves
   the whole class body once per `dataclasses.field(...)`. Measured on main: 250 fields (14 KB)
   9 s of CPU, 500 fields 38 s, 1,000 fields (57 KB) 175 s, for one target; every target that
   reaches the class reads it again, `check()` too, and the grader's readings take turns
   (`one_submission._READING_CODE`), so one such notebook stalls every other one's reading;
4. a private attribute of a value is not judged, only of a module: `re.RegexFlag._convert_(
   'Found', 'lib.bpe', lambda name: name == 'train')` (an `enum` classmethod) reads the globals
   of the module named by text and hands back its functions as a class's attributes. The graded
   kernel has `lib` imported (its grading cell imports `lib.grading.kernel_side`): `train_bpe`,
   `get_stats` and, through `bpe.build_vocab([], [chr(cp)])`, `utf8_encode` earn full marks; so
   does `importlib.import_module('codecs')` taken so (any Python function of any module imported
   in the kernel: `os.popen` too).

Honest code refused (each costs a learner the exercise's marks, in `check()` and the grader):

5. a notebook that decorates any function `@functools.cache` (or a class `@dataclasses.dataclass`)
   makes that function a unit of the module's name (`cell_reading.binds` takes `@f.register` for a
   binding of `f`), so every answer that uses the module is read through it: an honest
   `bytes_per_char` that may call `.encode` makes an honest `utf8_encode` that uses
   `functools.reduce` "not own code (through `functools`)"; a method of a `@dataclasses.dataclass`
   calling `.encode` does the same to a `utf8_encode` with a dataclass of its own;
6. plausible learner code the rules refuse although nothing in it can run or find code: hints
   from `typing` (`List[int]`, named in issue 27 as a module to allow), a hint `Counter[int]`
   after `from collections import Counter`, `from dataclasses import dataclass, field`, and a
   parameter or plain local named `type` or `input` (neither can hold the builtin unseen: a
   caller's argument and an assigned value are read where they are written), and `type(cp) is
   not int` in `utf8_encode` (`type` is refused outright where `.encode` is forbidden).

Closed (issue 27, rules pinned both ways in `tests/test_own_code_rules_6.py`): 1 by `type`
only asking about a class (`type(x) is int`), and `typing` offering only its type-hint names; 2 by
`functools.update_wrapper` refused and `functools.wraps` only decorating a `def`; 3 by resolving a
class body once (1,000 fields: about 1 s); 4 by reading a private attribute only where the
notebook defines it and Python's classes do not; 5 and 6 by the reading fixes their "Fix:"
comments name. The xfail marks are gone.

What held: `__match_args__`, `__instancecheck__`, `__class_getitem__` bound in a class body
(refused); a class pattern's keyword attributes (`case object(gi_frame=f)`: refused); public
attributes of the allowed modules that hold builtins or modules (none beyond those refused); a
metaclass from an allowed module (only `abc.ABCMeta` and `enum.EnumType`: neither makes a
generator match a class pattern); `collections.namedtuple` field names (properties of its own,
not the base's methods); `_convert_` from a flag (`re.I`: members do not have it); `ast.unparse`
(60 tricky statements, f-strings, `match`, `:=`, `except*`... parse back to the same tree);
nested classes (`forbidden._class_attributes` per class: linear in practice, 90 deep 0.8 MB in
2 s); `str.format`/`format_map` (text only); `%%` cell magics (the program is the unparsed
Python, without the magic's line). Runtime: the unit tests about 10 s of CPU, the real
grader's test about 20 s more (two short notebooks).
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest

from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases
from lib.grading.solved import solved
from tests import test_red_team_own_code as harness
from tests.test_red_team_own_code import EXERCISES, ROOT, attacks_score_nothing, earns_full_marks

shell = harness.shell  # the harness's fresh IPython shell, as a fixture of this module too

# 1. A class pattern `case Frame(frame)` calls `isinstance(subject, Frame)` (the metaclass's
# `__instancecheck__`), then `getattr(subject, name)` for each name of `Frame.__match_args__`:
# getattr with names as text, reaching a generator's frame and that frame's builtins. Both
# dunders are refused in a class body (`bindings.binds_judged`), not as a namespace's keys.
# Fix: refuse `type` called with three arguments, and `type` as a base class (a metaclass of the
# learner's is then only ever a plain class); or refuse a class pattern's positional
# sub-patterns unless its class is a builtin or a class of the notebook's own `class` statement.
FRAME_BY_MATCH_ARGS = (
    "    Frame = Always('Frame', (), {'__match_args__': ('gi_frame',)})\n"
    "    Builtins = Always('Builtins', (), {'__match_args__': ('f_builtins',)})\n\n"
    "    def gen():\n        yield 1\n\n"
    "    match gen():\n        case Frame(frame):\n            pass\n"
    "    match frame:\n        case Builtins(found):\n            pass\n"
    "    bpe = found['__import__']('lib.bpe', fromlist=['train', 'merge'])\n"
)
DUNDERS_AS_TEXT = {
    "type() with three arguments": (
        "train_bpe",
        "def train_bpe(text, vocab_size):\n"
        "    Always = type('Always', (type,), {'__instancecheck__': lambda cls, obj: True})\n"
        + FRAME_BY_MATCH_ARGS
        + "    return bpe.train(text, vocab_size)[1]\n",
    ),
    "a subclass of type called": (
        "merge",
        "class Meta(type):\n    pass\n\n\ndef merge(ids, pair, new_id):\n"
        "    Always = Meta('Always', (Meta,), {'__instancecheck__': lambda cls, obj: True})\n"
        + FRAME_BY_MATCH_ARGS
        + "    return bpe.merge(ids, pair, new_id)\n",
    ),
}


@pytest.mark.parametrize("name, source", DUNDERS_AS_TEXT.values(), ids=list(DUNDERS_AS_TEXT))
@pytest.mark.filterwarnings("ignore::UserWarning")  # `bpe.train` on tiny texts says so
def test_dunders_written_as_a_namespaces_keys_earn_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


# 2. `update_wrapper(wrapper, wrapped)` sets `wrapper.__annotations__ = wrapped.__annotations__`
# whatever `wrapper` is (then fails on a class's `__dict__`, after the copy: caught). The names a
# class body binds are judged (`encode: int` is refused where `.encode` is forbidden); a
# parameter's name is not, and `dataclasses.dataclass` makes each key of `__annotations__` a
# field, and `__match_args__` of their names. `bytes` subclassed where `.decode` is forbidden
# (only `str` does `.decode`'s job by another name) gives `bytes.decode` the same way.
# Fix: call `update_wrapper`/`wraps` only with a function of the cell's own `def` as wrapper
# (what a decorator does); or judge the parameter names of a function whose annotations may be
# copied as a class body's names.
def fields_from_parameters(name: str, method: str, base: str, subject: str, end: str) -> str:
    """`name(...)`, calling `subject.method` through a dataclass field named by a parameter."""
    return (
        f"import dataclasses\nimport functools\n\n\ndef {name}:\n"
        f"    def probe({method}: int):\n        pass\n\n"
        f"    class Made({base}):\n        pass\n\n"
        "    try:\n        functools.update_wrapper(Made, probe)\n"
        "    except AttributeError:\n        pass\n"
        "    Made = dataclasses.dataclass(init=False)(Made)\n"
        f"    match Made({subject}):\n        case Made(method):\n            pass\n{end}"
    )


FIELDS_FROM_PARAMETERS = {
    "str.encode": (
        "utf8_encode",
        fields_from_parameters(
            "utf8_encode(cp)", "encode", "str", "chr(cp)", "    return method()\n"
        ),
    ),
    "str.encode by functools.wraps": (
        "utf8_encode",
        fields_from_parameters(
            "utf8_encode(cp)", "encode", "str", "chr(cp)", "    return method()\n"
        ).replace("functools.update_wrapper(Made, probe)", "functools.wraps(probe)(Made)"),
    ),
    "bytes.decode": (
        "is_valid_utf8",
        fields_from_parameters(
            "is_valid_utf8(data)",
            "decode",
            "bytes",
            "data",
            "    try:\n        method()\n    except UnicodeDecodeError:\n        return False\n"
            "    return True\n",
        ),
    ),
    "bytes.decode, the first character": (
        "utf8_decode_first",
        fields_from_parameters(
            "utf8_decode_first(data)",
            "decode",
            "bytes",
            "data[:4]",
            "    cp = ord(method('utf-8', 'ignore')[0])\n"
            "    return cp, 1 + (cp > 0x7F) + (cp > 0x7FF) + (cp > 0xFFFF)\n",
        ),
    ),
}


@pytest.mark.parametrize(
    "name, source", FIELDS_FROM_PARAMETERS.values(), ids=list(FIELDS_FROM_PARAMETERS)
)
def test_fields_copied_from_a_functions_parameters_earn_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


# 3. Fix: resolve a class body's scopes once per reading of the unit (`resolve` is already
# called on the whole unit by `read_unit`: hand `field_use` its result), and find the fields
# read back in one walk of the body, not one per field.
def dataclass_with_fields(n: int) -> str:
    fields = "".join(
        f"    f{i}: list = dataclasses.field(default_factory=list)\n" for i in range(n)
    )
    return (
        f"import dataclasses\n\n@dataclasses.dataclass\nclass Big:\n{fields}\n"
        "def merge(ids, pair, new_id):\n    Big\n    return ids\n"
    )


def test_reading_a_dataclass_grows_in_proportion_to_its_fields():
    seconds = []
    for n in (25, 100):
        started = time.process_time()
        assert Notebook([dataclass_with_fields(n)]).borrowed("merge") == ""
        seconds.append(time.process_time() - started)
    assert seconds[1] < 8 * seconds[0] + 0.05, seconds  # four times the size: at most twice linear


# 4. An allowed module's public class, and what hangs off it, is judged only by its dunders:
# a private attribute of a value is not, and `re.RegexFlag` is an `enum.Flag` whose classmethod
# `_convert_(name, module, filter)` reads `sys.modules[module].__dict__`, the module named by
# text, and hands back, as attributes of a new class, the globals `filter` keeps that are
# descriptors (every Python function). `lib` is imported in the graded kernel (the grading cell
# imports `lib.grading.kernel_side`, so `lib.bpe`), so its solutions are there to take.
# Fix: refuse reading an attribute whose name starts with `_` (beyond the ordinary dunders)
# unless some class or attribute store of the notebook's own code defines that name
# (`self._seen`): a chain's steps from a module are not enough, as a local may hold the class.
OTHER_MODULES_BY_NAME = {
    "lib.bpe.train, by a chain": (
        "train_bpe",
        "import re\n\n\ndef train_bpe(text, vocab_size):\n"
        "    found = re.RegexFlag._convert_('Found', 'lib.bpe', lambda name: name == 'train')\n"
        "    return found.train(text, vocab_size)[1]\n",
    ),
    "lib.bpe.get_stats, the class in a local": (
        "get_stats",
        "import re\n\n\ndef get_stats(ids):\n    flags = re.RegexFlag\n"
        "    found = flags._convert_('Found', 'lib.bpe', lambda name: name == 'get_stats')\n"
        "    return found.get_stats(ids)\n",
    ),
    "codecs, by importlib.import_module": (
        "utf8_encode",
        "import re\n\n\ndef utf8_encode(cp):\n"
        "    found = re.RegexFlag._convert_('F', 'importlib', lambda n: n == 'import_module')\n"
        "    return found.import_module('codecs').utf_8_encode(chr(cp))[0]\n",
    ),
    "str.encode inside lib.bpe.build_vocab": (
        "utf8_encode",
        "import re\n\n\ndef utf8_encode(cp):\n"
        "    found = re.RegexFlag._convert_('Found', 'lib.bpe', lambda n: n == 'build_vocab')\n"
        "    return found.build_vocab([], [chr(cp)])[256]\n",
    ),
}


@pytest.mark.parametrize(
    "name, source", OTHER_MODULES_BY_NAME.values(), ids=list(OTHER_MODULES_BY_NAME)
)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_another_modules_functions_taken_by_name_earn_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


# 5. Fix: `binds` takes a decorator `@f.attr` for a binding of `f` only when `f` is not a name
# the notebook imports (a module is judged by `module_outside`, never followed as a notebook
# name): `@kind.register` of a notebook's own `singledispatch` function stays followed.
CACHED_HELPER = (
    "import functools\n\n\n@functools.cache\ndef bytes_per_char(text):\n"
    "    return len(text.encode('utf-8')) / len(text) if text else 0.0\n",
    "def utf8_encode(cp):\n    if cp < 0x80:\n        return bytes([cp])\n"
    "    n = 2 if cp < 0x800 else 3 if cp < 0x10000 else 4\n"
    "    tail = [0x80 | (cp >> 6 * k) & 0x3F for k in range(n - 1)]\n"
    "    lead = (0xC0, 0xE0, 0xF0)[n - 2] | cp >> 6 * (n - 1)\n"
    "    join = lambda done, b: done + bytes([b])  # noqa: E731\n"
    "    return functools.reduce(join, reversed(tail), bytes([lead]))\n",
)


def test_a_cached_neighbour_does_not_cost_an_honest_answer_its_marks(shell):
    assert earns_full_marks(shell, "utf8_encode", *CACHED_HELPER)


def test_the_honest_answer_alone_earns_full_marks(shell):
    """Honest 4's answer is right and own code: only its cached neighbour costs it the marks."""
    assert earns_full_marks(shell, "utf8_encode", "import functools", CACHED_HELPER[1])


# 6. Fix: allow `typing` (its public names only compute; `get_type_hints`, which evaluates hints,
# and `ForwardRef._evaluate` excepted), let a hint subscript a name only imports bind from an
# allowed module, read `from dataclasses import field` as `dataclasses.field`, and refuse
# binding a judged builtin's name only where the value bound is looked up outside (a default, a
# loop's or comprehension's iterable, a class body: `_looked_up_outside`), not a plain
# parameter or a local assigned in the function.
MERGE_BODY = (
    "    out, i = [], 0\n    while i < len(ids):\n"
    "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n"
    "            out.append(new_id)\n            i += 2\n"
    "        else:\n            out.append(ids[i])\n            i += 1\n    return out\n"
)
HONEST_REFUSED = {  # name: (exercise, source)
    "hints from typing": (
        "merge",
        "from typing import List, Tuple\n\n\n"
        "def merge(ids: List[int], pair: Tuple[int, int], new_id: int) -> List[int]:\n"
        + MERGE_BODY,
    ),
    "a hint subscripting Counter imported from collections": (
        "merge",
        "from collections import Counter\n\n\ndef count(ids: list[int]) -> Counter[int]:\n"
        "    return Counter(ids)\n\n\ndef merge(ids, pair, new_id):\n    count(ids)\n" + MERGE_BODY,
    ),
    "field imported from dataclasses": (
        "merge",
        "from dataclasses import dataclass, field\n\n\n"
        "@dataclass\nclass Merged:\n    ids: list = field(default_factory=list)\n\n\n"
        "def merge(ids, pair, new_id):\n    Merged()\n" + MERGE_BODY,
    ),
    "a parameter named type": (
        "merge",
        "def describe(type, ids):\n    return f'{type}: {len(ids)}'\n\n\n"
        "def merge(ids, pair, new_id):\n    describe('merge', ids)\n" + MERGE_BODY,
    ),
    "a local named input": (
        "merge",
        "def merge(ids, pair, new_id):\n    input = list(ids)\n    ids = input\n" + MERGE_BODY,
    ),
    "type(cp) asked about": (
        "utf8_encode",
        "def utf8_encode(cp):\n    if type(cp) is not int:\n        raise TypeError(cp)\n"
        "    if cp < 0x80:\n        return bytes([cp])\n"
        "    if cp < 0x800:\n        return bytes([0xC0 | cp >> 6, 0x80 | cp & 0x3F])\n"
        "    if cp < 0x10000:\n"
        "        return bytes([0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F])\n"
        "    return bytes([0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F,"
        " 0x80 | cp & 0x3F])\n",
    ),
}


@pytest.mark.parametrize("name, source", HONEST_REFUSED.values(), ids=list(HONEST_REFUSED))
def test_plausible_honest_code_is_own_code(name, source):
    exercise = EXERCISES[name]
    found = Notebook([source]).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)
    assert found == ""


@pytest.mark.parametrize("name, source", HONEST_REFUSED.values(), ids=list(HONEST_REFUSED))
def test_the_honest_code_refused_is_right(name, source):
    """Each honest answer above passes every case when run: only the reading refuses it."""
    namespace: dict = {}
    exec(source, namespace)  # the test's own fixed text, not a learner's
    exercise = EXERCISES[name]
    cases = exercise.grading_cases()
    outcomes = run_cases(namespace[exercise.target], exercise.inputs(cases), 10)
    assert exercise.judge(cases, outcomes).status == "passed"


# Doors 1, 2 and 4 (and the honest 5) through the real, sandboxed grader, in one batch of two
# notebooks: each lesson's set-up cells and its exercise cells, solved, the attacked replaced.
def trimmed(lesson: str, answers: dict[str, str]) -> nbformat.NotebookNode:
    """A lesson's set-up cells (its first two code cells) and exercise cells, solved, the
    exercises of `answers` replaced."""
    notebook = solved(nbformat.read(ROOT / "notebooks" / lesson, as_version=4))
    code = [c for c in notebook.cells if c.cell_type == "code"]
    set_up = {id(c) for c in code[:2]}
    notebook.cells = [c for c in code if id(c) in set_up or c.metadata.get("exercise")]
    for cell in notebook.cells:
        cell.source = answers.get(cell.metadata.get("exercise"), cell.source)
    return notebook


ATTACKS = {  # notebook: (lesson, the answers that should score 0, honest cells beside them)
    "mallory_1": (
        "01_unicode_and_utf8.ipynb",
        dict(
            FIELDS_FROM_PARAMETERS[k] for k in ("bytes.decode", "bytes.decode, the first character")
        ),
        dict(zip(["bytes_per_char", "utf8_encode"], CACHED_HELPER, strict=True)),
    ),
    "mallory_3": (
        "03_training_bpe.ipynb",
        {
            **dict(DUNDERS_AS_TEXT.values()),
            "get_stats": OTHER_MODULES_BY_NAME["lib.bpe.get_stats, the class in a local"][1],
        },
        {},
    ),
}


@pytest.mark.end_to_end
def test_the_real_grader_gives_these_doors_nothing(tmp_path: Path):
    for name, (lesson, answers, honest) in ATTACKS.items():
        nbformat.write(trimmed(lesson, {**answers, **honest}), tmp_path / f"{name}.ipynb")
    attacks_score_nothing(tmp_path, {name: attack[1] for name, attack in ATTACKS.items()})
