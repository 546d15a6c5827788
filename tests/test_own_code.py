"""The grader's reading of a notebook's code for answers borrowed from the course's `lib`."""

from __future__ import annotations

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.exercises.own_code import Notebook

ALLOWED = {"lib.bpe.get_stats", "lib.bpe.merge"}


def reading(*cells: str) -> Notebook:
    return Notebook(new_notebook(cells=[new_code_cell(source) for source in cells]))


@pytest.mark.parametrize(
    "cells",
    [
        [
            "from lib import bpe",
            "def train_bpe(t, v):\n    return bpe.merge(bpe.get_stats(t), 1, 2)",
        ],
        ["def train_bpe(t, v):\n    from lib.bpe import merge\n    return merge([1], (1, 2), 3)"],
        ["from lib import Tokenizer", "def train_bpe(t: Tokenizer, v) -> Tokenizer:\n    return t"],
        ["ids = bpe.train('x', 300)", "def train_bpe(t, ids):\n    return ids"],  # a parameter
        ["import lib.bpe as bpe", "%%time\ndef train_bpe(t, v):\n    return [t, v]"],
    ],
    ids=[
        "allowed helpers",
        "allowed import",
        "type hints",
        "shadowed name",
        "cell magic",
    ],
)
def test_own_code_passes(cells):
    assert reading(*cells).borrowed("train_bpe", ALLOWED) == ""


@pytest.mark.parametrize(
    ("cells", "found"),
    [
        (
            ["from lib import bpe", "def train_bpe(t, v):\n    return bpe.train(t, v)[1]"],
            "uses `lib.bpe.train`",
        ),
        (
            ["def train_bpe(t, v):\n    from lib.bpe import train\n    return train(t, v)[1]"],
            "imports `lib.bpe.train`",
        ),
        (
            [
                "from lib import bpe",
                "def train_bpe(t, v):\n    return getattr(bpe, 'tr' + 'ain')(t)",
            ],
            "uses `lib.bpe`",
        ),
        (
            [
                "import lib.bpe as b",
                "def h(t, v):\n    return b.train(t, v)",
                "def train_bpe(t, v):\n    return h(t, v)[1]",
            ],
            "(through `h`)",
        ),
        (
            [
                "from lib import bpe",
                "bpe.merge = bpe.train",
                "def train_bpe(t, v):\n    return bpe.merge(t)",
            ],
            "uses `lib.bpe.train` from the course's library (through `bpe`)",
        ),
        (
            ["def train_bpe(t, v):\n    return __import__('lib').bpe.train(t, v)"],
            "uses `__import__`",
        ),
        (["from lib.bpe import train", "train_bpe = lambda t, v: train(t, v)[1]"], "lib.bpe.train"),
        (
            ["from lib import bpe", "b = bpe", "def train_bpe(t, v):\n    return b.train(t, v)"],
            "uses `lib.bpe` from the course's library (through `b`)",
        ),
        (
            ["from lib.bpe import *", "def train_bpe(t, v):\n    return train(t, v)[1]"],
            "lib.bpe.train",
        ),
        (["from lib.bpe import merge as train_bpe"], "is `lib.bpe.merge` from the course's"),
        (["from lib import bpe", "train_bpe = bpe.merge"], "is `lib.bpe.merge` from the course's"),
        (
            [
                "from lib.exercises import lesson3 as ex",
                "TABLE = ex.train_bpe.cases()",
                "def train_bpe(t, v):\n    return TABLE[0]",
            ],
            "(through `TABLE`)",
        ),
        (["exec('def train_bpe(t, v): return 1')"], "not defined in a code cell"),
        # Found by a red-team run against the grader: each of these once earned full marks.
        (
            [
                "import sys as s",
                "def train_bpe(t, v):\n    return s.modules['lib.bpe'].train(t, v)",
            ],
            "imports `sys`, which is not among what this exercise may use",
        ),
        (
            ["import pickle", "def train_bpe(t, v):\n    return pickle.loads(b'clib.bpe')(t, v)"],
            "imports `pickle`",
        ),
        (["import runpy as r", "def train_bpe(t, v):\n    return r.run_path('x')"], "`runpy`"),
        (["def train_bpe(t, v):\n    return object.__subclasses__()[9](t)"], "`.__subclasses__`"),
        (["def train_bpe(t, v):\n    return (lambda: 0).__globals__['b'](t)"], "`.__globals__`"),
        (["def train_bpe(t, v):\n    return get_ipython().ev('f')(t, v)"], "`get_ipython`"),
        (
            [
                "from lib import bpe",
                "def train_bpe(t, v):\n    return []",
                "if True:\n    def train_bpe(t, v):\n        return bpe.train(t, v)[1]",
            ],
            "uses `lib.bpe.train`",
        ),
        # Round 2: names bound where a plain `name = ...` reader does not look.
        (
            [
                "from lib import bpe",
                "_t, = [bpe.train]",
                "def train_bpe(t, v):\n    return _t(t, v)",
            ],
            "uses `lib.bpe.train`",
        ),
        (
            [
                "from lib import bpe",
                "def train_bpe(t, v):\n    return []",
                "for train_bpe in [lambda t, v, _f=bpe.train: _f(t, v)]:\n    pass",
            ],
            "uses `lib.bpe.train`",
        ),
        (
            [
                "from lib import bpe",
                "def _s():\n    global _t\n    _t = bpe.train",
                "def train_bpe(t, v):\n    return _t(t, v)",
            ],
            "uses `lib.bpe.train`",
        ),
        (
            [
                "import contextlib\nfrom lib import bpe",
                "with contextlib.nullcontext(bpe.train) as _t:\n    pass",
                "def train_bpe(t, v):\n    return _t(t, v)",
            ],
            "uses `lib.bpe.train`",
        ),
        (
            ["from lib import bpe", "(_t := bpe.train)", "def train_bpe(t, v):\n    return _t(t)"],
            "uses `lib.bpe.train`",
        ),
        (
            ["import sys", "def train_bpe(t, v):\n    return getattr(sys, 'mod' + 'ules')"],
            "with a name worked out",
        ),
        (
            ["import ctypes", "def train_bpe(t, v):\n    return ctypes.pythonapi"],
            "imports `ctypes`",
        ),
        (
            [
                "from IPython import get_ipython as g",
                "def train_bpe(t, v):\n    return g().ev('x')",
            ],
            "imports `IPython`",
        ),
        (
            [
                "import pathlib\npathlib.Path('mine.py').write_text('from lib.bpe import train')",
                "import mine",
                "def train_bpe(t, v):\n    return mine.train(t, v)",
            ],
            "imports `mine`, which is not among what this exercise may use",
        ),
        (  # filled with the library's answers in another statement: that statement is read too
            [
                "from lib import bpe\nseen = {}\nseen['x'] = bpe.train('ab', 257)",
                "def train_bpe(t, v):\n    return seen.get(t, [])",
            ],
            "uses `lib.bpe.train` from the course's library (through `seen`)",
        ),
    ],
    ids=[
        "wrapper",
        "import inside",
        "getattr",
        "helper",
        "patched helper",
        "__import__",
        "lambda",
        "alias",
        "star import",
        "import as target",
        "assigned helper",
        "cases table",
        "exec",
        "sys alias",
        "pickle",
        "runpy",
        "subclass walk",
        "function globals",
        "get_ipython",
        "def inside if",
        "tuple unpacking",
        "for loop rebinding",
        "global in a function",
        "with as",
        "walrus",
        "computed getattr",
        "ctypes",
        "IPython alias",
        "module written to disk",
        "item stored",
    ],
)
def test_borrowed_code_is_found_and_named(cells, found):
    assert found in reading(*cells).borrowed("train_bpe", ALLOWED)


def test_forbidden_shortcuts_are_found_through_helpers():
    notebook = reading(
        "def h(cp):\n    return chr(cp).encode()", "def utf8_encode(cp):\n    return h(cp)"
    )
    assert "uses `.encode`" in notebook.borrowed("utf8_encode", (), (".encode",))
    assert notebook.borrowed("utf8_encode") == ""


def test_a_forbidden_module_is_found_under_another_name():
    notebook = reading("import tiktoken as tk", "def f(text):\n    return tk.get_encoding(text)")
    assert "imports `tiktoken`" in notebook.borrowed("f", (), ("tiktoken",))
    notebook = reading("from tokenizers import models", "def f(w):\n    return models.WordPiece(w)")
    assert "imports `tokenizers`" in notebook.borrowed("f", (), ("tokenizers",))


@pytest.mark.parametrize(
    ("code", "forbidden", "found"),
    [
        ("def f(cp):\n    return bytes(chr(cp), 'utf-8')", ".encode", "`bytes(…, encoding)`"),
        ("def f(b):\n    return str(b, encoding='utf-8')", ".decode", "`str(…, encoding)`"),
        ("def f(b):\n    return getattr(b, 'decode')()", ".decode", "`.decode` through getattr"),
        ("import _codecs\ndef f(cp):\n    return _codecs.utf_8_encode(cp)", "codecs", "`_codecs`"),
    ],
)
def test_forbidden_shortcuts_are_found_under_other_spellings(code, forbidden, found):
    assert found in reading(code).borrowed("f", (), (forbidden,))


SWAPS = [  # a cell no graded function reaches replaces the function from a string
    "import cProfile\ncProfile.run('train_bpe = lambda t, v: __import__(\"lib\").bpe.train(t, v)')",
    "import pdb\npdb.run('train_bpe = len')",
    "import cProfile\ncProfile.run('import types, lib.bpe as b; "
    "train_bpe = types.FunctionType(b.train.__code__, globals())')",
    "import __main__\n__main__.train_bpe = len",
    "exec('train_bpe = len')",
    "globals()['train_bpe'] = len",
]


@pytest.mark.parametrize("swap", SWAPS)
def test_the_program_graded_is_only_what_was_read(swap):
    """Swaps that no reading follows are not in the program the grader runs: it holds the
    function read, whatever the other cells do."""
    notebook = reading("def train_bpe(t, v):\n    return []", swap, "train_bpe(1, 2)")
    assert notebook.borrowed("train_bpe", ALLOWED) == ""
    program = notebook.program(["train_bpe"])
    assert list(program) == [0]
    assert program[0].splitlines() == ["def train_bpe(t, v):", "    return []"]


def test_the_program_keeps_every_unit_that_makes_the_answer_in_order():
    notebook = reading(
        "import functools, os\nfrom lib import bpe",
        "TABLE = {}\nfor i in range(3):\n    TABLE[i] = i * i\nprint(os.getcwd())",
        "@functools.cache\ndef square(i):\n    return TABLE[i]",
        "def train_bpe(t, v):\n    return [square(i) for i in t]",
        "def train_bpe(t, v):\n    return bpe.merge([square(i) for i in t], (0, 1), 9)",
    )
    assert notebook.borrowed("train_bpe", ALLOWED) == ""
    program = notebook.program(["train_bpe"])
    namespace: dict = {}
    for cell in sorted(program):
        exec(program[cell], namespace)
    assert "os" not in namespace  # `import os` is its own unit, and nothing uses it
    assert namespace["train_bpe"]([0, 1, 2], 0) == [9, 4]  # the last definition wins
