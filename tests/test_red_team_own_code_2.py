"""Red team on the own-code reading, round 3 (after `forbidden.restricted_use`): answers that
earn full marks through a door the reading leaves open, judged as the grader judges them
(`earns_full_marks`: the cells read, then only the program accepted run in a fresh shell).

Most holes shared one root, now closed: a name the unit binds itself (a parameter, a loop or
comprehension variable, `except ... as`, a class attribute, `global`) was skipped by every check,
even where that very use still reaches the builtin (`def f(cp, eval=eval)`). A unit may no longer
bind a name the rules judge (`own_code._binds_judged`). And `getattr` with a
name written out is read like an attribute for dunders only, not for the frame attributes.
"""

from __future__ import annotations

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases
from lib.grading.grading_job import graded_program, programs
from tests import test_red_team_own_code as harness
from tests.test_red_team_own_code import ROOT, earns_full_marks

shell = harness.shell  # the harness's fresh IPython shell, as a fixture of this module too

EXERCISES = {e.name: e for lesson in (1, 5) for e in for_lesson(lesson)}

# A builtin that runs code, or a restricted one, bound to a name of the unit's own.
BUILTIN_UNDER_ITS_OWN_NAME = {
    "eval as a parameter default": (
        "utf8_encode",
        "def utf8_encode(cp, eval=eval):\n    return eval('chr(cp).en' 'code()', {'cp': cp})",
    ),
    "bytes as a comprehension variable": (
        "utf8_encode",
        "def utf8_encode(cp):\n    return [bytes(chr(cp), 'utf8') for bytes in [bytes]][0]",
    ),
    "type as a lambda default": (
        "utf8_encode",
        "def utf8_encode(cp):\n    return (lambda type=type: type(b'')(chr(cp), 'utf8'))()",
    ),
    "getattr as a parameter default": (
        "utf8_encode",
        "def utf8_encode(cp, getattr=getattr):\n    return getattr(chr(cp), 'en' + 'code')()",
    ),
    "eval as a top-level loop variable": (
        "utf8_encode",
        "for eval in [eval]:\n    pass\n"
        "def utf8_encode(cp):\n    return eval('chr(cp).en' 'code()', {'cp': cp})",
    ),
    "eval declared global": (
        "utf8_encode",
        "def utf8_encode(cp):\n    global eval\n    return eval('chr(cp).en' 'code()', {'cp': cp})",
    ),
    "eval as a class attribute": (
        "utf8_encode",
        "class K:\n    eval = eval\n"
        "def utf8_encode(cp):\n    return K.eval('chr(cp).en' 'code()', {'cp': cp})",
    ),
    "str as a parameter default": (
        "utf8_decode_first",
        "def utf8_decode_first(data, str=str):\n    cp = ord(str(data[:4], 'utf8', 'ignore')[0])\n"
        "    return cp, 1 + (cp > 0x7F) + (cp > 0x7FF) + (cp > 0xFFFF)",
    ),
    "the course's solution by __import__": (
        "utf8_encode",
        "def utf8_encode(cp, __import__=__import__, exec=exec):\n"
        "    lesson = __import__('lib.exercises', fromlist=['for_lesson']).for_lesson(1)\n"
        "    ns, [answer] = {}, [e for e in lesson if e.name == 'utf8_encode']\n"
        "    exec(answer.solution_code, ns)\n"
        "    return ns['utf8_encode'](cp)",
    ),
    "lib.bpe.train by a parameter named like the allowed module": (
        "train_bpe",
        "from lib import bpe\ndef pairs(ids):\n    return bpe.get_stats(ids)\n"
        "def train_bpe(text, vocab_size, bpe=bpe):\n    pairs\n"
        "    return bpe.train(text, vocab_size)[1]",
    ),
}


@pytest.mark.parametrize(
    "name, source", BUILTIN_UNDER_ITS_OWN_NAME.values(), ids=list(BUILTIN_UNDER_ITS_OWN_NAME)
)
def test_a_builtin_bound_to_a_name_of_the_units_own_earns_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)


@pytest.mark.parametrize(
    "source, name",
    [
        ("def utf8_encode(cp, eval=eval):\n    return eval('1')", "eval"),
        ("def utf8_encode(cp):\n    return [b for bytes in [bytes] for b in bytes([cp])]", "bytes"),
        ("class K:\n    getattr = 1\ndef utf8_encode(cp):\n    return K", "getattr"),
        ("def utf8_encode(cp):\n    global type\n    return b''", "type"),
    ],
)
def test_binding_a_judged_name_is_refused_and_says_which(source, name):
    """The learner hears which name the code binds, and what to do."""
    found = Notebook([source]).borrowed("utf8_encode", forbidden=(".encode", "bytes"))
    assert f"binds `{name}`, a builtin's name: choose another name" in found


def test_a_parameter_named_like_an_imported_module_is_refused():
    """`bpe=bpe` would read `bpe.train` as a local's attribute, never as the library's."""
    source = "from lib import bpe\ndef train_bpe(text, n, bpe=bpe):\n    return bpe.get_stats(text)"
    found = Notebook([source]).borrowed("train_bpe", allowed=("lib.bpe.get_stats",))
    assert "binds `bpe`, the name of a module the notebook imports" in found


def test_a_plain_parameter_named_like_an_imported_module_is_own_code():
    """Lesson 1 imports `lib.data` and its learner's functions take `data`: a parameter without
    a default holds what the caller passes, never the module."""
    source = "from lib import data\ndef is_valid_utf8(data):\n    return len(data) > 0"
    assert Notebook([source]).borrowed("is_valid_utf8") == ""


def test_a_frame_reached_by_getattr_with_a_written_name_earns_nothing(shell):
    """`getattr(g, "gi_frame")` is read as `g.gi_frame` (it earned full marks before)."""
    source = (
        "def utf8_encode(cp):\n    g = (x for x in [0])\n"
        "    frame = getattr(g, 'gi_frame')\n"
        "    run = getattr(frame, 'f_builtins')['ev' 'al']\n"
        "    return run('chr(cp).en' 'code()', {'cp': cp})"
    )
    assert not earns_full_marks(shell, "utf8_encode", source)


# Honest answers a learner could write: they must keep full marks.
HONEST = {
    "int.to_bytes": (
        "utf8_encode",
        EXERCISES["utf8_encode"].solution_code.replace(
            "    if cp < 0x800:",
            "    if cp < 0x800:\n"
            "        return ((0b110 << 13) | (cp >> 6 << 8) | 0x80 | (cp & 63)).to_bytes(2, 'big')",
        ),
    ),
    "a bytearray filled, then bytes(...)": (
        "utf8_encode",
        "def utf8_encode(cp):\n    if cp < 0x80:\n        return bytes([cp])\n"
        "    n = 2 if cp < 0x800 else 3 if cp < 0x10000 else 4\n    out = bytearray()\n"
        "    for i in reversed(range(n - 1)):\n        out.append(0x80 | (cp >> (6 * i)) & 63)\n"
        "    return bytes([(0xF00 >> n) & 0xFF | cp >> (6 * (n - 1))]) + bytes(out)",
    ),
    "isinstance(data, bytes) where .decode is forbidden": (
        "utf8_decode_first",
        "def utf8_decode_first(data):\n    assert isinstance(data, bytes)\n"
        + EXERCISES["utf8_decode_first"].solution_code.partition("\n")[2],
    ),
}


@pytest.mark.parametrize("name, source", HONEST.values(), ids=list(HONEST))
def test_an_honest_answer_keeps_full_marks(shell, name, source):
    assert earns_full_marks(shell, name, source)


# Refused before, though own code: `bytes` is handed on as a value only to be asked about, or to
# build bytes from hex digits the learner worked out.
FALSELY_REFUSED = {
    "isinstance(cp, bytes)": "def utf8_encode(cp):\n    assert not isinstance(cp, bytes)\n"
    + EXERCISES["utf8_encode"].solution_code.partition("\n")[2],
    "bytes.fromhex": "def utf8_encode(cp):\n    if cp < 0x80:\n"
    "        return bytes.fromhex(f'{cp:02x}')\n"
    + EXERCISES["utf8_encode"].solution_code.partition("\n")[2],
}


@pytest.mark.parametrize("source", FALSELY_REFUSED.values(), ids=list(FALSELY_REFUSED))
def test_bytes_asked_about_or_built_from_hex_is_own_code(shell, source):
    assert earns_full_marks(shell, "utf8_encode", source)


# `isinstance` under a name of the code's own would be handed the class it is asked about.
ISINSTANCE_REBOUND = {
    "at the top": "isinstance = lambda x, c: c(x, 'utf8')\n"
    "def utf8_encode(cp):\n    return isinstance(chr(cp), bytes)",
    "as a default": "def utf8_encode(cp, isinstance=lambda x, c: c(x, 'utf8')):\n"
    "    return isinstance(chr(cp), bytes)",
    "declared global": "def utf8_encode(cp):\n    global isinstance\n"
    "    isinstance = lambda x, c: c(x, 'utf8')\n    return isinstance(chr(cp), bytes)",
}


@pytest.mark.parametrize("source", ISINSTANCE_REBOUND.values(), ids=list(ISINSTANCE_REBOUND))
def test_isinstance_rebound_to_hand_bytes_on_earns_nothing(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


def earns_full_marks_with_the_lesson(shell, name: str, *cells: str) -> bool:
    """`earns_full_marks`, the program graded made as `lib.grading.one_submission` makes it:
    of the lesson's exercises that read as own code, the program `name` is graded in."""
    lesson = [e for e in for_lesson(EXERCISES[name].lesson) if not e.literal]
    code = Notebook(list(cells))
    own = [e for e in lesson if not code.borrowed(e.target, e.allowed_lib, e.forbidden)]
    graded = [p for p in programs(code, own) if name in p.exercises]
    if not graded:
        return False
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    for cell in graded_program(notebook, graded[0], [str(ROOT)]).cells:
        shell.run_cell(cell.source, store_history=True)
    exercise = EXERCISES[name]
    cases = exercise.grading_cases()
    outcomes = run_cases(shell.user_ns[exercise.target], exercise.inputs(cases), 10)
    return exercise.judge(cases, outcomes).status == "passed"


# Another exercise of the same lesson may use what this one may not (`bytes_per_char` may call
# `.encode`, `utf8_encode` may call `.decode`): a unit accepted for it runs in the program graded,
# and fills a value this exercise reads, by a method call that is no unit of that value.
BY_ANOTHER_EXERCISE = {
    ".encode put in a dict by bytes_per_char's default": (
        "utf8_encode",
        "SHARED = {}",
        "def bytes_per_char(text, _=SHARED.update(f=lambda cp: chr(cp).encode())):\n"
        "    return len(text.encode('utf-8')) / len(text) if text else 0.0",
        "def utf8_encode(cp):\n    return SHARED['f'](cp)",
    ),
    ".decode put in a dict by utf8_encode's default": (
        "is_valid_utf8",
        "SHARED = []",
        EXERCISES["utf8_encode"].solution_code.replace(
            "(cp: int)", "(cp: int, _=SHARED.append(lambda data: data.decode('utf-8')))"
        ),
        "def is_valid_utf8(data):\n    try:\n        SHARED[0](data)\n"
        "    except UnicodeDecodeError:\n        return False\n    return True",
    ),
}


@pytest.mark.parametrize("cells", BY_ANOTHER_EXERCISE.values(), ids=list(BY_ANOTHER_EXERCISE))
def test_what_another_exercise_may_use_does_not_reach_this_one(shell, cells):
    assert not earns_full_marks_with_the_lesson(shell, *cells)


def test_a_forbidden_module_by_a_shadowed_import_earns_nothing(shell):
    """Lesson 5's `digit_groups` forbids `re` and `regex`: `__import__` under its own name fetches
    one (an answer that would otherwise earn full marks)."""
    source = (
        "def digit_groups(digits, __import__=__import__):\n"
        "    return __import__('regex').findall(r'\\p{N}{1,3}', digits)"
    )
    assert not earns_full_marks_with_the_lesson(shell, "digit_groups", source)


def test_a_code_object_made_into_a_function_earns_nothing(shell):
    """A generator's `gi_code`, its names replaced, made into a function by `type(lambda: 0)`
    (where `type` is allowed): `len` becomes `__import__`, and `lib.bpe.train` answers."""
    source = (
        "def train_bpe(text, vocab_size):\n"
        "    g = (len(n) for n in ['lib.bpe'])\n"
        "    code = g.gi_code.replace(co_names=('__import__',))\n"
        "    lib = next(type(lambda: 0)(code, {})(iter(['lib.bpe'])))\n"
        "    return lib.bpe.train(text, vocab_size)[1]"
    )
    assert not earns_full_marks(shell, "train_bpe", source)


# A dataclass field's `.type` is the class its hint names only where hints are values: in a
# learner's kernel before this change, never in the program graded (`from __future__ import
# annotations` first). Importing `lib.exercises` (every lesson's set-up cell) makes the kernel
# compile later cells the same way, so `check()` and the grader see the same thing.
DATACLASS_TYPE = (
    "import dataclasses\n@dataclasses.dataclass\nclass Raw:\n    kind: bytes",
    "def utf8_encode(cp):\n"
    "    return [f.type for f in dataclasses.fields(Raw)][0](chr(cp), 'utf8')",
)  # `fields` read in a comprehension, the one way allowed (`dataclass_fields`)
SET_UP = "import importlib, lib.exercises\nimportlib.reload(lib.exercises)"  # as if imported first


def test_check_and_the_grader_agree_on_a_hint_read_as_a_class(shell):
    assert not earns_full_marks(shell, "utf8_encode", *DATACLASS_TYPE)
    shell.reset(new_session=True)
    for cell in (SET_UP, *DATACLASS_TYPE):
        shell.run_cell(cell, store_history=True)
    assert shell.user_ns["Raw"].__annotations__ == {"kind": "bytes"}
    result = EXERCISES["utf8_encode"].grade(shell.user_ns)  # each case: 'str' is not callable
    assert (result.status, result.score) == ("error", 0)


def test_check_names_a_class_defined_before_the_set_up_cell(shell):
    """Its hints are values there: `check()` asks for the cells to be run in order."""
    for cell in (DATACLASS_TYPE[0], SET_UP, DATACLASS_TYPE[1]):
        shell.run_cell(cell, store_history=True)
    result = EXERCISES["utf8_encode"].grade(shell.user_ns)
    assert result.status != "passed"
    assert "`Raw` was defined before the lesson's set-up cell ran" in result.reason


def test_check_reads_a_class_inspect_cannot(shell):
    """Before Python 3.13 `inspect` finds no source for a class made in a cell: `check()` reads
    it from the last cell defining it, as the grader reads it from the notebook."""
    cells = (
        "class Bits:\n    lead = 0\n    def of(self, cp):\n        return cp.encode()",
        "class Bits:\n    lead = 0xC0\n    def of(self, cp):\n        return bytes([cp])",
        "def utf8_encode(cp):\n    Bits()\n"
        + EXERCISES["utf8_encode"].solution_code.partition("\n")[2],
    )
    for cell in cells:
        shell.run_cell(cell, store_history=True)
    assert EXERCISES["utf8_encode"].grade(shell.user_ns).status == "passed"
    assert earns_full_marks(shell, "utf8_encode", *cells[1:])
