"""The own-code rules as an allow-list (`lib.exercises.allowed`), pinned in both directions:
answers written as learners write them, with the listed modules, keep full marks on every case
the grader runs; answers that reach the right result through anything not listed score 0, and
`check()` in a kernel says so at once, as the grader does."""

from __future__ import annotations

import linecache

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.exercises import Exercise, for_lesson
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases

EXERCISES = {e.name: e for lesson in range(1, 10) for e in for_lesson(lesson)}

# Plausible learner answers, each its own way, with the modules the lessons list.
HONEST = {
    "utf8_encode": "import math\n"
    "def utf8_encode(cp):\n"
    "    if cp < 0x80:\n        return bytes([cp])\n"
    "    n = 2 if cp < 0x800 else 3 if cp < 0x10000 else 4\n"
    "    tail = [0x80 | (cp >> (6 * i)) & 0x3F for i in range(n - 1)]\n"
    "    head = (0xF00 >> n) & 0xFF | cp >> (6 * (n - 1))\n"
    "    return bytes([head] + tail[::-1])",
    "get_stats": "from collections import Counter\n"
    "def get_stats(ids):\n    return dict(Counter(zip(ids, ids[1:])))",
    "merge": "import itertools\n"
    "def merge(ids, pair, new_id):\n"
    "    out, skip = [], False\n"
    "    for a, b in itertools.zip_longest(ids, ids[1:]):\n"
    "        if skip:\n            skip = False\n"
    "        elif (a, b) == pair:\n            out.append(new_id)\n            skip = True\n"
    "        else:\n            out.append(a)\n"
    "    return out",
    "build_vocab": "from dataclasses import dataclass\n"
    "@dataclass\nclass Vocab:\n    chars: list\n"
    "def build_vocab(text):\n    v = Vocab(sorted(set(text)))\n"
    "    return {ch: i for i, ch in enumerate(v.chars)}",
    "first_bad_token": "import functools, itertools\n"
    "def first_bad_token(ids, vocab):\n"
    "    try:\n        b''.join(vocab[i] for i in ids).decode()\n"
    "    except UnicodeDecodeError as e:\n"
    "        ends = itertools.accumulate(len(vocab[i]) for i in ids)\n"
    "        return next(k for k, end in enumerate(ends) if end > e.start)",
    "stream_decode": "import functools\n"
    "def stream_decode(ids, vocab):\n    out, held = [], b''\n    for i in ids:\n"
    "        held, text = held + vocab[i], ''\n        while held:\n"
    "            try:\n                text, held = text + held.decode(), b''\n"
    "            except UnicodeDecodeError as e:\n"
    "                text += held[:e.start].decode()\n"
    "                if e.reason == 'unexpected end of data':\n"
    "                    held = held[e.start:]\n                    break\n"
    "                text, held = text + '\\ufffd', held[e.end:]\n"
    "        out.append(text)\n    return out + [held.decode(errors='replace')]",
    "tiktoken_line": "import base64\n"
    "def tiktoken_line(token, rank):\n    return f'{base64.b64encode(token).decode()} {rank}'",
    "digit_groups": "from math import *\nimport unicodedata as ud\n"
    "def digit_groups(text):\n    out, n = [], 0\n    for ch in text:\n"
    "        n = n + 1 if ud.category(ch)[0] == 'N' else 0\n"
    "        if n % 3 == 1:\n            out.append(ch)\n"
    "        elif n:\n            out[-1] += ch\n"
    "    return out",
    "find_specials": "import re\n"
    "def find_specials(text, tokens):\n"
    "    longest_first = sorted(tokens, key=len, reverse=True)\n"
    "    pattern = re.compile('|'.join(re.escape(t) for t in longest_first))\n"
    "    return [(m.start(), m.group()) for m in pattern.finditer(text)]",
    "grow_embeddings": "import math\n"
    "def grow_embeddings(rows, n_new):\n"
    "    mean = [math.fsum(column) / len(rows) for column in zip(*rows)]\n"
    "    return [row[:] for row in rows] + [mean[:] for _ in range(n_new)]",
    "uint16_bytes": "import itertools\n"
    "def uint16_bytes(ids):\n"
    "    for i in itertools.filterfalse(range(0x10000).__contains__, ids):\n"
    "        raise ValueError(f'id {i} does not fit in 16 bits')\n"
    "    return bytes(itertools.chain.from_iterable((i & 0xFF, i >> 8) for i in ids))",
    "dropout_bpe": "import itertools\n"
    "def dropout_bpe(word, ranks, p, draws):\n"
    "    pieces, draw = [bytes([b]) for b in word], iter(draws)\n"
    "    while True:\n"
    "        kept = [(ranks[a + b], i) for i, (a, b) in enumerate(itertools.pairwise(pieces))\n"
    "                if a + b in ranks and next(draw) >= p]\n"
    "        if not kept:\n"
    "            return pieces\n"
    "        i = min(kept)[1]\n"
    "        pieces[i : i + 2] = [pieces[i] + pieces[i + 1]]",
}

# Tricks through doors no list named: other encoders, code run from a string, other processes.
TRICKS = {
    "utf8_encode": [
        "import encodings.utf_8 as u8\ndef utf8_encode(cp):\n    return u8.encode(chr(cp))[0]",
        "from urllib.parse import quote, unquote_to_bytes\n"
        "def utf8_encode(cp):\n    return unquote_to_bytes(quote(chr(cp), safe=''))",
        "import io\ndef utf8_encode(cp):\n    b = io.BytesIO()\n"
        "    io.TextIOWrapper(b, 'utf-8').write(chr(cp))\n    return b.getvalue()",
        "import cProfile\ndef utf8_encode(cp):\n    box = {}\n"
        "    cProfile.runctx('box[0] = chr(cp).en' 'code()', {}, {'box': box, 'cp': cp})\n"
        "    return box[0]",
        "import timeit\ndef utf8_encode(cp):\n    box = []\n"
        "    timeit.timeit('b.append(chr(c).en' 'code())', number=1, globals={'b': box, 'c': cp})\n"
        "    return box[0]",
        "import code\ndef utf8_encode(cp):\n    ns = {'cp': cp}\n"
        "    code.InteractiveInterpreter(ns).runsource('r = chr(cp).en' 'code()')\n"
        "    return ns['r']",
        "import operator\ndef utf8_encode(cp):\n"
        "    return operator.methodcaller('en' 'code')(chr(cp))",
        "def utf8_encode(cp):\n    return getattr(chr(cp), 'en' + 'code')()",
        "import functools\ndef utf8_encode(cp):\n"
        "    return functools.partial(getattr, chr(cp))('en' 'code')()",
        "def utf8_encode(cp):\n    g = (x for x in [0])\n"
        "    return g.gi_frame.f_back.f_globals['TABLE'][cp]",
        "def utf8_encode(cp):\n    return str.__dict__['en' 'code'](chr(cp))",
        "import string\ndef utf8_encode(cp):\n"
        "    return string.Formatter().get_field('0.en' 'code', [chr(cp)], {})[0]()",
        "def utf8_encode(cp):\n    return open('/dev/null') and b''",
        "TABLE = {cp: chr(cp).encode() for cp in range(0x800)}\n"
        "def utf8_encode(cp):\n    return TABLE[cp]",
        "import functools\n@functools.singledispatch\ndef f(x):\n    return x\n"
        "@f.register\ndef _(x: '__import__(\"lib\").bpe'):\n    return x\n"
        "def utf8_encode(cp):\n    return f(cp)",
    ],
    "train_bpe": [
        "import subprocess, sys\ndef train_bpe(text, vocab_size):\n"
        "    out = subprocess.run([sys.executable, '-c', 'import lib; print(lib.bpe.train)'],\n"
        "                         capture_output=True, text=True).stdout\n    return out",
        "import os\ndef train_bpe(text, vocab_size):\n"
        "    return os.popen('python -c \"import lib\"').read()",
        "from concurrent.futures import ProcessPoolExecutor\ndef train_bpe(text, vocab_size):\n"
        "    with ProcessPoolExecutor() as pool:\n        return pool.submit(len, text).result()",
        "import runpy\ndef train_bpe(text, vocab_size):\n    return runpy.run_module('lib.bpe')",
        "import doctest\ndef train_bpe(text, vocab_size):\n    return doctest.testmod()",
        "def train_bpe(text, vocab_size):\n    return help('lib.bpe')",
    ],
    "uint16_bytes": [
        "import numpy as np\ndef uint16_bytes(ids):\n    return np.asarray(ids, '<u2').tobytes()",
        "import array\ndef uint16_bytes(ids):\n    return array.array('H', ids).tobytes()",
    ],
}
# An allowed module's attributes, in both directions: its public names are what it offers; a
# private one, a module off the list or a builtin that runs code is not, however it is reached.
THROUGH_A_MODULE = [
    "import collections\nm = collections\ndef utf8_encode(cp):\n    return m._sys",
    "import collections\ndef utf8_encode(cp):\n    return getattr(collections, '_sys')",
    "from collections import _sys\ndef utf8_encode(cp):\n    return _sys.modules",
    "from re import enum\ndef utf8_encode(cp):\n    return enum.sys",
    "def utf8_encode(cp):\n    import collections as c\n    m = c\n    return m._sys",
    "from re import functools\ndef utf8_encode(cp):\n    return functools._lru_cache_wrapper",
    "import collections\ndef utf8_encode(cp):\n    return [collections][0]._sys",
    "import dataclasses as d\ndef utf8_encode(cp):\n    return d.copy.sys",
]
PUBLIC_NAMES = (
    "import collections, re, time, math, string, unicodedata, dataclasses, functools\n"
    "from collections import abc, Counter\nimport collections.abc\n"
    "def utf8_encode(cp):\n"
    "    x = Counter('ab'), re.compile('a').match, time.perf_counter(), math.comb(3, 1)\n"
    "    y = string.ascii_letters, unicodedata.category('a'), dataclasses.is_dataclass\n"
    "    y = y, re.IGNORECASE\n"
    "    z = functools.reduce, abc.Iterable, collections.abc.Sequence, collections.__name__\n"
    "    return bytes([cp])"
)
PREDICTIONS = [
    "predicted_utf8_bytes = {t: len(t.encode()) for t in ['A', 'ß']}",
    "predicted_utf8_bytes = {'A': 1}\npredicted_utf8_bytes['ß'] = len('ß'.encode())",
    "predicted_utf8_bytes = {'A': 1}\npredicted_utf8_bytes.update(dict(ß=2))",
]


def reading(exercise: Exercise, source: str) -> str:
    notebook = Notebook(new_notebook(cells=[new_code_cell(source)]))
    return notebook.borrowed(
        exercise.target, exercise.allowed_lib, exercise.forbidden, exercise.literal
    )


def full_marks(exercise: Exercise, source: str) -> bool:
    found: dict = {}
    exec(source, found)
    cases = exercise.grading_cases()
    outcomes = run_cases(found[exercise.target], exercise.inputs(cases), 10)
    return exercise.judge(cases, outcomes).status == "passed"


@pytest.mark.parametrize("name", sorted(HONEST))
def test_a_learners_own_answer_with_the_listed_modules_keeps_full_marks(name):
    exercise = EXERCISES[name]
    assert reading(exercise, HONEST[name]) == ""
    assert full_marks(exercise, HONEST[name])


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_course_solution_is_own_code(name):
    assert reading(EXERCISES[name], EXERCISES[name].solution_code) == ""


@pytest.mark.parametrize(
    ("name", "source"), [(name, s) for name, tricks in TRICKS.items() for s in tricks]
)
def test_a_trick_through_anything_unlisted_is_not_own_code(name, source):
    found = reading(EXERCISES[name], source)
    assert found and f"`{EXERCISES[name].target}`" in found, found


@pytest.mark.parametrize("source", THROUGH_A_MODULE)
def test_an_allowed_module_offers_its_public_names_only(source):
    exercise = EXERCISES["utf8_encode"]
    found = reading(exercise, source)
    assert "private part" in found or "the module" in found or "private attribute" in found, found
    assert reading(exercise, PUBLIC_NAMES) == ""


@pytest.mark.parametrize("source", PREDICTIONS)
def test_a_prediction_must_be_a_value_written_out(source):
    exercise = EXERCISES["predict_utf8_bytes"]
    assert "is computed" in reading(exercise, source)
    assert reading(exercise, exercise.solution_code) == ""


def kernel(*cells: str) -> dict:
    """A namespace as IPython leaves it: cells run as `__main__`, their code in `In` and in
    linecache (where `inspect.getsource` finds a cell's functions)."""
    namespace: dict = {"__name__": "__main__", "In": [""]}
    for number, cell in enumerate(cells):
        filename = f"<cell {number}>"
        linecache.cache[filename] = (len(cell), None, cell.splitlines(True), filename)
        exec(compile(cell, filename, "exec"), namespace)
        namespace["In"].append(cell)
    return namespace


def test_check_in_a_kernel_gives_the_graders_verdict_at_once(capsys):
    exercise = EXERCISES["utf8_encode"]
    exercise.check(kernel(TRICKS["utf8_encode"][1]))
    assert "imports `urllib.parse`" in capsys.readouterr().out
    # an earlier, borrowed version of the function no longer counts once it is replaced
    exercise.check(kernel(TRICKS["utf8_encode"][-2], HONEST["utf8_encode"]))
    assert "✅" in capsys.readouterr().out
    prediction = EXERCISES["predict_utf8_bytes"]
    prediction.check(kernel(PREDICTIONS[1]))
    assert "is computed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("cells", "computed"),
    [
        (
            ["predicted_utf8_bytes = {'A': len('A'.encode())}", "predicted_utf8_bytes = {'A': 1}"],
            False,
        ),
        (
            ["predicted_utf8_bytes = {'A': 1}", "predicted_utf8_bytes = {'A': len('A'.encode())}"],
            True,
        ),
    ],
    ids=["rewritten as a value", "rewritten as code"],
)
def test_check_and_the_grader_agree_when_a_prediction_cell_is_rewritten(capsys, cells, computed):
    """A prediction cell first run computed, then rewritten (or the other way round): in the
    kernel both versions ran, the notebook handed in holds only the last. Both read the last."""
    exercise = EXERCISES["predict_utf8_bytes"]
    exercise.check(kernel(*cells))
    assert ("is computed" in capsys.readouterr().out) is computed
    assert ("is computed" in reading(exercise, cells[-1])) is computed
