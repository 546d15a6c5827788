"""Red team on the own-code allow-list and hidden cases (issue 27): each test is an answer that
earns marks it did not earn, or learns a hidden case, through a door the rules do not name.

Each is reproduced as the grader meets it: the cells read by `Notebook` (as the grader reads the
.ipynb) and run in a real IPython shell (as the kernel runs them); the function the shell holds
is then run on every case the grader runs, hidden ones included. All of these earned full marks
(or leaked hidden inputs into the feedback) from `python -m lib.grade` on lesson 1 notebooks.
"""

from __future__ import annotations

import pytest

from lib.exercises import for_lesson
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases

EXERCISES = {e.name: e for lesson in (1, 3) for e in for_lesson(lesson)}
# Reads as own code, and fails most cases: what the grader reads when the real answer is elsewhere.
DECOY = "def utf8_encode(cp):\n    return bytes([cp % 256])\n"


@pytest.fixture
def shell():
    """A fresh IPython shell: it runs magics and `get_ipython()` as a notebook kernel does."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    yield shell
    shell.reset(new_session=True)


def earns_full_marks(shell, name: str, *cells: str) -> bool:
    """Would the grader score these cells' answer to `name` as own code, passing every case?"""
    exercise = EXERCISES[name]
    if Notebook(list(cells)).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden):
        return False
    for cell in cells:
        shell.run_cell(cell, store_history=True)
    cases = exercise.grading_cases()
    outcomes = run_cases(shell.user_ns[exercise.target], exercise.inputs(cases), 10)
    return exercise.judge(cases, outcomes).status == "passed"


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


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="red team: a forbidden module or eval via an allowed module",
)
@pytest.mark.parametrize(
    "source", THROUGH_AN_ALLOWED_MODULE.values(), ids=list(THROUGH_AN_ALLOWED_MODULE)
)
def test_an_allowed_modules_attributes_do_not_reach_what_is_not_allowed(shell, source):
    assert not earns_full_marks(shell, "utf8_encode", source)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="red team: the course's lib reached through sys.modules",
)
def test_the_course_library_is_not_reached_through_an_allowed_module(shell):
    source = (
        "import collections\ndef train_bpe(text, vocab_size):\n"
        "    return collections._sys.modules['lib'].bpe.train(text, vocab_size)[1]"
    )
    shell.run_cell("import lib")
    assert not earns_full_marks(shell, "train_bpe", source)


# `bytes(…, encoding)` is forbidden by its spelling; another name for `bytes` is not.
BYTES_BY_ANOTHER_NAME = {
    "local alias": "def utf8_encode(cp):\n    b = bytes\n    return b(chr(cp), 'utf8')",
    "starred": "def utf8_encode(cp):\n    return bytes(*(chr(cp), 'utf8'))",
    "map": "def utf8_encode(cp):\n    return next(map(bytes, [chr(cp)], ['utf8']))",
    "default argument": "def utf8_encode(cp, b=bytes):\n    return b(chr(cp), 'utf8')",
}


@pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="red team: bytes(…, encoding) under another name"
)
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


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="red team: graded function replaced after the grader read it",
)
@pytest.mark.parametrize("cell", REPLACED_UNSEEN.values(), ids=list(REPLACED_UNSEEN))
def test_a_function_replaced_where_reading_cannot_follow_earns_nothing(shell, cell):
    assert not earns_full_marks(shell, "utf8_encode", DECOY, cell)


# A cell no graded function reaches replaces a builtin, or an allowed module's function, that
# the answer calls: the answer reads as own code, the kernel runs the replacement.
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


@pytest.mark.xfail(
    strict=True, raises=AssertionError, reason="red team: a builtin or allowed module patched"
)
@pytest.mark.parametrize("answer, patch", UNDER_ITS_FEET.values(), ids=list(UNDER_ITS_FEET))
def test_a_builtin_or_module_the_answer_uses_is_not_replaced_unseen(shell, answer, patch):
    import builtins
    import math

    kept = builtins.ascii, math.comb
    try:
        assert not earns_full_marks(shell, "utf8_encode", answer, patch)
    finally:
        builtins.ascii, math.comb = kept


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="red team: hidden inputs leak through a later exercise",
)
def test_hidden_inputs_do_not_reach_the_feedback_of_a_later_exercise(shell):
    """The kernel keeps its state from one exercise to the next: `utf8_encode` keeps its hidden
    inputs, `utf8_decode_first` (graded after it) returns them as its answer to a shown case,
    and the feedback quotes that answer."""
    encode, decode = EXERCISES["utf8_encode"], EXERCISES["utf8_decode_first"]
    shell.run_cell(
        "SEEN = []\n"
        + encode.solution_code.replace("\n", "\n    SEEN.append(cp)\n", 1)
        + "\n"
        + decode.solution_code.replace("\n", "\n    if SEEN:\n        return SEEN[-3:]\n", 1)
    )
    cases = encode.grading_cases()
    run_cases(shell.user_ns["utf8_encode"], encode.inputs(cases), 10)
    hidden = [case.args[0] for case in cases if case.hidden]
    decode_cases = decode.grading_cases()
    outcomes = run_cases(shell.user_ns["utf8_decode_first"], decode.inputs(decode_cases), 10)
    reason = decode.judge(decode_cases, outcomes).reason
    assert str(hidden[-1]) not in reason, reason
