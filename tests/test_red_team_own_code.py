"""Red team on the own-code allow-list and hidden cases (issue 27): each test is an answer that
earns marks it did not earn, or learns a hidden case, through a door the rules do not name.

Each is judged as the grader judges it: the cells are read by `Notebook` (as the grader reads
the .ipynb), and only the program it read and accepted (`graded_program`, the grader's own
function) runs, in a fresh IPython shell, as in the grader's second kernel; the function that
shell holds is then run on every case the grader runs, hidden ones included. All of these earned
full marks (or leaked hidden inputs into the feedback) from `python -m lib.grade` on lesson 1
notebooks before their door was closed.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.forbidden import forbidden_use
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases
from lib.grade import Limits, grade_submissions
from lib.grading.grading_job import Program, graded_program
from lib.grading.rounds import rounds

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = {e.name: e for lesson in (1, 3) for e in for_lesson(lesson)}
# Reads as own code, and fails most cases: what the grader reads when the real answer is elsewhere.
DECOY = "def utf8_encode(cp):\n    return bytes([cp % 256])\n"


@pytest.fixture
def shell():
    """A fresh IPython shell: it runs magics and `get_ipython()` as a notebook kernel does."""
    from IPython.core.interactiveshell import InteractiveShell

    main = sys.modules["__main__"]  # the shell puts its own `__main__`, history and all, there
    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    yield shell
    shell.reset(new_session=True)
    InteractiveShell.clear_instance()  # later tests' check() must not find this shell's cells
    sys.modules["__main__"] = main


def earns_full_marks(shell, name: str, *cells: str) -> bool:
    """Would the grader score these cells' answer to `name` as own code, passing every case?
    As `lib.grading.one_submission` does: read, then run only the program accepted."""
    exercise = EXERCISES[name]
    code = Notebook(list(cells))
    if code.borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden):
        return False
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    program = Program((name,), code.program([exercise.target]))
    for cell in graded_program(notebook, program, [str(ROOT)]).cells:
        shell.run_cell(cell.source, store_history=True)
    cases = exercise.grading_cases()
    outcomes = run_cases(shell.user_ns[exercise.target], exercise.inputs(cases), 10)
    return exercise.judge(cases, outcomes).status == "passed"


def attacks_score_nothing(folder: Path, attacks: dict[str, dict[str, str]]) -> None:
    """Grade each `mallory_*.ipynb` of `folder` by the real, sandboxed grader in one batch, and
    check it: `attacks` gives, by notebook name, the answers that must score 0; every other
    exercise of the notebook, honest, must score."""
    records = grade_submissions(
        sorted(folder.glob("mallory_*.ipynb")),
        folder / "out",
        limits=Limits(cell=60, notebook=300, probe=2),
        jobs=1,
        progress=False,
    )
    assert [r["outcome"] for r in records] == ["graded"] * len(attacks), records
    for record in records:
        scores = {row["name"]: row["score"] for row in record["exercises"]}
        answers = attacks[Path(record["submission"]).stem]
        honest = {name: score for name, score in scores.items() if name not in answers}
        assert all(honest.values()), honest  # the honest rest keeps its marks
        assert {name: scores[name] for name in answers} == dict.fromkeys(answers, 0.0), scores


def test_the_measure_tells_an_honest_answer_from_a_decoy(shell):
    """`earns_full_marks` is not vacuous: the published answer earns them, the decoy does not."""
    assert earns_full_marks(shell, "utf8_encode", EXERCISES["utf8_encode"].solution_code)
    assert not earns_full_marks(shell, "utf8_encode", DECOY)


# A forbidden module, or a builtin that runs code, hanging off an allowed module's attributes.
THROUGH_AN_ALLOWED_MODULE = {
    "dataclasses.builtins.eval": "import dataclasses\ndef utf8_encode(cp):\n"
    "    return dataclasses.builtins.eval('chr(cp).en' 'code()', {'cp': cp})",
    "collections._sys.modules": "import collections\ndef utf8_encode(cp):\n"
    "    return collections._sys.modules['codecs'].utf_8_encode(chr(cp))[0]",
    "re.enum.sys.modules": "import re\ndef utf8_encode(cp):\n"
    "    return re.enum.sys.modules['codecs'].utf_8_encode(chr(cp))[0]",
    "dataclasses._create_fn execs a string": "import dataclasses\ndef utf8_encode(cp):\n"
    "    f = dataclasses._create_fn('g', ['c'], ['return chr(c).en' 'code()'])\n    return f(cp)",
}


@pytest.mark.parametrize(
    "source", THROUGH_AN_ALLOWED_MODULE.values(), ids=list(THROUGH_AN_ALLOWED_MODULE)
)
def test_an_allowed_modules_attributes_do_not_reach_what_is_not_allowed(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


def test_the_course_library_is_not_reached_through_an_allowed_module(shell):
    source = (
        "import collections\ndef train_bpe(text, vocab_size):\n"
        "    return collections._sys.modules['lib'].bpe.train(text, vocab_size)[1]"
    )
    shell.run_cell("import lib")
    assert not earns_full_marks(shell, "train_bpe", source)


# `bytes(…, encoding)` under another name: closed by one rule (`forbidden.restricted_use`), as
# `bytes` may only be called directly, its arguments written out, never handed on as a value.
BYTES_BY_ANOTHER_NAME = {
    "local alias": "def utf8_encode(cp):\n    b = bytes\n    return b(chr(cp), 'utf8')",
    "starred": "def utf8_encode(cp):\n    return bytes(*(chr(cp), 'utf8'))",
    "map": "def utf8_encode(cp):\n    return next(map(bytes, [chr(cp)], ['utf8']))",
    "default argument": "def utf8_encode(cp, b=bytes):\n    return b(chr(cp), 'utf8')",
}


@pytest.mark.parametrize("source", BYTES_BY_ANOTHER_NAME.values(), ids=list(BYTES_BY_ANOTHER_NAME))
def test_encoding_with_bytes_under_another_name_is_not_own_code(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


# A later cell gives the graded name another value by a statement the reading does not follow.
REPLACED_UNSEEN = {
    "match capture": "match lambda cp: chr(cp).encode():\n    case utf8_encode:\n        pass",
    "def inside try/except*": "try:\n    def utf8_encode(cp):\n        return chr(cp).encode()\n"
    "except* ValueError:\n    pass",
    "__code__ assigned": "utf8_encode.__code__ = (lambda cp: chr(cp).encode()).__code__",
    "%time magic": "%time utf8_encode = lambda cp: chr(cp).encode()",
    "exec by another name": "run = exec\nrun('utf8_encode = lambda cp: chr(cp).en' 'code()')",
    "get_ipython().run_cell": "get_ipython().run_cell("
    "'utf8_encode = lambda cp: chr(cp).en' 'code()')",
}


# Closed by design: a swap the reading follows (`def` in `try/except*`, `__code__`) is read and
# refused; one it does not follow is in no unit accepted, so the program graded never runs it.
@pytest.mark.parametrize("cell", REPLACED_UNSEEN.values(), ids=list(REPLACED_UNSEEN))
def test_a_function_replaced_where_reading_cannot_follow_earns_nothing(shell, cell):
    assert not earns_full_marks(shell, "utf8_encode", DECOY, cell)


# A cell no graded function reaches replaces a builtin, or an allowed module's function, that
# the answer calls: the answer reads as own code, but the patching cell is not in the program
# graded, so the fresh kernel runs the real builtin.
UNDER_ITS_FEET = {
    "builtins.ascii": (
        "def utf8_encode(cp):\n    return ascii(cp)",
        "import builtins, codecs\nbuiltins.ascii = lambda cp: codecs.utf_8_encode(chr(cp))[0]",
    ),
    "math.comb": (
        "import math\ndef utf8_encode(cp):\n    return math.comb(cp, 0)",
        "import math, codecs\nmath.comb = lambda cp, k: codecs.utf_8_encode(chr(cp))[0]",
    ),
}


@pytest.mark.parametrize("answer, patch", UNDER_ITS_FEET.values(), ids=list(UNDER_ITS_FEET))
def test_a_builtin_or_module_the_answer_uses_is_not_replaced_unseen(shell, answer, patch):
    import builtins
    import math

    kept = builtins.ascii, math.comb
    try:
        assert not earns_full_marks(shell, "utf8_encode", answer, patch)
    finally:
        builtins.ascii, math.comb = kept


def test_hidden_inputs_do_not_reach_the_feedback_of_a_later_exercise(shell):
    """The kernel keeps its state from one exercise to the next: `utf8_encode` keeps its hidden
    inputs, `utf8_decode_first` (graded after it) returns them as its answer to a shown case,
    and the feedback would quote that answer. Called in the grader's order (`rounds`: every
    shown case before any hidden one), there is nothing to hand back yet."""
    encode, decode = EXERCISES["utf8_encode"], EXERCISES["utf8_decode_first"]
    shell.run_cell(
        "SEEN = []\n"
        + encode.solution_code.replace("\n", "\n    SEEN.append(cp)\n", 1)
        + "\n"
        + decode.solution_code.replace("\n", "\n    if SEEN:\n        return SEEN[-3:]\n", 1)
    )
    cases = {e.name: e.grading_cases() for e in (encode, decode)}
    outcomes: dict[str, list[dict]] = {name: [] for name in cases}
    for name, start, end in rounds(cases):
        exercise = EXERCISES[name]
        inputs = exercise.inputs(cases[name][start:end])
        outcomes[name] += run_cases(shell.user_ns[exercise.target], inputs, 10)
    hidden = [case.args[0] for case in cases["utf8_encode"] if case.hidden]
    assert hidden and shell.user_ns["SEEN"][-1] == hidden[-1]  # the inputs were kept
    reason = decode.judge(cases["utf8_decode_first"], outcomes["utf8_decode_first"]).reason
    assert str(hidden[-1]) not in reason, reason


def test_the_learner_is_told_what_was_refused_and_what_to_do():
    """The reason names the builtin and the way that is allowed; a type hint or a plain call of
    the same builtin is no use of the forbidden method, for `check()` as for the grader."""
    exercise = EXERCISES["utf8_encode"]
    alias = Notebook([BYTES_BY_ANOTHER_NAME["local alias"]])
    reason = alias.borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)
    assert "hands `bytes` on as a value" in reason and "call `bytes(…)` directly" in reason
    starred = Notebook([BYTES_BY_ANOTHER_NAME["starred"]])
    reason = starred.borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)
    assert "`*` or `**`" in reason and "write the arguments out" in reason
    honest = "def utf8_encode(cp: int) -> bytes:\n    return bytes([cp])"
    assert not Notebook([honest]).borrowed(exercise.target, (), exercise.forbidden)
    assert not forbidden_use(ast.parse(honest), exercise.forbidden)
    assert forbidden_use(ast.parse(BYTES_BY_ANOTHER_NAME["map"]), exercise.forbidden)


# Round 2 (issue 27, after the rule above): new doors to `bytes(…, encoding)`, or to the class
# `bytes` itself, none in tests/test_allowed.py or above.
NEW_DOORS = {
    "functools.reduce": "import functools\ndef utf8_encode(cp):\n"
    "    return functools.reduce(bytes, ['utf8'], chr(cp))",
    "subclass": "class Raw(bytes):\n    pass\n"
    "def utf8_encode(cp):\n    return bytes(Raw(chr(cp), 'utf8'))",
    "comprehension variable": "def utf8_encode(cp):\n"
    "    return [f(chr(cp), 'utf8') for f in (bytes,)][0]",
    "dataclass field type": "import dataclasses\n@dataclasses.dataclass\nclass Box:\n"
    "    raw: bytes\ndef utf8_encode(cp):\n"
    "    return dataclasses.fields(Box)[0].type(chr(cp), 'utf8')",
    "type of a literal": "def utf8_encode(cp):\n    return type(b'')(chr(cp), 'utf8')",
}


@pytest.mark.parametrize("source", NEW_DOORS.values(), ids=list(NEW_DOORS))
def test_new_doors_to_bytes_earn_nothing(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


# `functools.singledispatch` evaluates a registered function's type hints into classes, and
# keeps them in `.registry`: `bytes`, named only in a hint, comes out as a value.
SINGLEDISPATCH = {
    "registered by decorator": "import functools\n@functools.singledispatch\ndef kind(x):\n"
    "    return 0\n@kind.register\ndef _(x: bytes):\n    return 1\n"
    "def utf8_encode(cp):\n    return [*kind.registry][-1](chr(cp), 'utf8')",
    "registered by a call": "import functools\n@functools.singledispatch\ndef kind(x):\n"
    "    return 0\ndef raw(x: bytes):\n    return 1\n"
    "def utf8_encode(cp):\n    kind.register(raw)\n"
    "    return [*kind.registry][-1](chr(cp), 'utf8')",
}


@pytest.mark.parametrize("source", SINGLEDISPATCH.values(), ids=list(SINGLEDISPATCH))
def test_a_class_named_in_a_type_hint_is_not_handed_out(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


def test_singledispatch_without_its_registry_is_own_code():
    exercise = EXERCISES["utf8_encode"]
    honest = SINGLEDISPATCH["registered by decorator"].replace(
        "[*kind.registry][-1](chr(cp), 'utf8')", "bytes([cp]) if kind(cp) else b''"
    )
    assert not Notebook([honest]).borrowed(exercise.target, (), exercise.forbidden)


# Round 2, other exercises: the same doors to `str(…, encoding)` where `.decode` is forbidden,
# and the course's library reached through a module an allowed helper lives in.
OTHER_DOORS = {
    "str by functools.partial": (
        "is_valid_utf8",
        "import functools\ndef is_valid_utf8(data):\n    try:\n"
        "        functools.partial(str, encoding='utf8')(data)\n        return True\n"
        "    except UnicodeDecodeError:\n        return False",
    ),
    "str as type of a literal": (
        "utf8_decode_first",
        "def utf8_decode_first(data):\n    text = type('')(data[:4], 'utf8', 'ignore')\n"
        "    return ord(text[0]), len(chr(ord(text[0])).encode())",
    ),
    "lib.bpe.train by a computed name": (
        "train_bpe",
        "import lib.bpe\ndef train_bpe(text, vocab_size):\n"
        "    return getattr(lib.bpe, 'tr' + 'ain'.strip())(text, vocab_size)[1]",
    ),
}


@pytest.mark.parametrize("name, source", OTHER_DOORS.values(), ids=list(OTHER_DOORS))
def test_other_doors_earn_nothing(shell, name, source):
    assert not earns_full_marks(shell, name, source)
