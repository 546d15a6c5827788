"""Second red team of `lib/grading/demo_cells.py` (issues 27/28): the first run's rule as fixed
("leave a demonstration out only if the notebook is the handout's, changed only in its exercise
cells, and nothing of the student's reaches it nor anything kept needs it").

Each hole is a test marked `xfail(strict=True)` while open (the fix makes it pass: then drop the
mark), with the trick, why the reading misses it and a fix in a line ("Fix:"). The unit tests ask
`left_out` about the real lesson 4 (solved, one exercise cell changed) or the small handout of
tests/test_demo_cells.py; the last test grades two lesson 4 notebooks through the real grader,
once, and compares the feedback with what a whole run gives (measured once by grading the same
notebooks with no handout, so that every cell ran; the lines are quoted below).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

import nbformat
import pytest

from lib.grade import grade_submissions
from lib.grading.cell_names import runs_as_magic
from lib.grading.demo_cells import handout_code, left_out
from lib.grading.notebook import handouts
from lib.grading.solved import solved
from tests.test_demo_cells import HANDOUT, SOLVED_CELL, notebook

ROOT = Path(__file__).resolve().parent.parent
LESSONS = dict(handouts(ROOT / "notebooks"))
LESSON_4 = handout_code([(4, LESSONS[4])])[4]


def lesson_4(**added: str) -> nbformat.NotebookNode:
    """Lesson 4 solved, with lines added at the end of the named exercise cells (a value that
    starts with "=" replaces the cell instead)."""
    nb = solved(LESSONS[4])
    for name, lines in added.items():
        (cell,) = [c for c in nb.cells if c.metadata.get("exercise") == name]
        cell.source = lines[1:] if lines.startswith("=") else f"{cell.source}\n\n{lines}"
    return nb


def cell_of(nb: nbformat.NotebookNode, start: str) -> int:
    (index,) = [i for i, c in enumerate(nb.cells) if c.source.startswith(start)]
    return index


# Lesson 4's demonstrations the tricks below break (each runs after the exercise cell changed).
SHOW_SENTENCE = "show_tokens(sentence, gpt4)"  # reads `sentence`
REPLY = 'reply = "नमस्ते! 👋'  # `gpt4.encode(...)`: lib.tokenizer calls lib.bpe inside
STREAM = "decoder = StreamingDecoder(gpt4)\nchunks"  # `decoder.feed(...)`
PIECES = 'sentence = "नमस्ते! आज'  # `vocab[i]`


def test_lesson_4_as_solved_leaves_out_the_demonstrations_the_tricks_break():
    """What holds: solved, lesson 4's demonstrations are left out (else the tests below would
    say nothing)."""
    nb = lesson_4()
    out = left_out(nb, LESSON_4)
    assert {cell_of(nb, s) for s in (SHOW_SENTENCE, REPLY, STREAM, PIECES)} <= out


# Trick: reach the notebook's own namespace through a module the deny-lists do not name.
# IPython's `__main__` module *is* the notebook's namespace (`__main__.sentence = None`);
# `cProfile.run(text)` runs text there; `InteractiveShell.instance()` is `get_ipython()` by
# another name; `pkgutil.resolve_name("__main__:ex")` and a pickle's GLOBAL opcode find a value
# by text. Nothing of the student's names `sentence` or `ex`, so the cells reading them are left
# out. Whole run (each checked through the grader): `show_tokens(sentence, gpt4)` raises
# TypeError, or the loop over `ex.PREDICT_SENTENCES` AttributeError; first run: no error.
# Fix: an exercise cell may import only what its lesson's exercises may use (`COMPUTING` and
# the `allowed_lib` modules) and what the handout imports; any other import runs the notebook
# whole (an allow-list, as `lib.exercises.allowed`, instead of DYNAMIC's deny-list).
PREDICTIONS = "for what, text in ex.PREDICT_SENTENCES.items()"  # reads `ex`
NAMESPACE = {  # the student's lines, and the demonstration after them that they break
    "__main__": ("import __main__\n__main__.sentence = None", SHOW_SENTENCE),
    "cProfile": ("import cProfile\ncProfile.run('sentence = None')", SHOW_SENTENCE),
    "IPython": (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.instance().user_ns['sentence'] = None",
        SHOW_SENTENCE,
    ),
    "pkgutil": (
        "import pkgutil\npkgutil.resolve_name('__main__:ex').PREDICT_SENTENCES = None",
        PREDICTIONS,
    ),
    "pickle": (
        "import pickle\npickle.loads(b'c__main__\\nex\\n.').PREDICT_SENTENCES = None",
        PREDICTIONS,
    ),
}


# Closed (fixdemo2): an exercise cell must read as own code under its exercise's rules, every
# statement of it (`Notebook.cell_outside`): `__main__`, `cProfile`... are not allowed.
@pytest.mark.parametrize(("lines", "broken"), NAMESPACE.values(), ids=NAMESPACE)
def test_the_notebook_s_namespace_reached_through_a_module_keeps_its_readers(lines, broken):
    nb = lesson_4(stream_decode=lines)
    assert cell_of(nb, broken) not in left_out(nb, LESSON_4)


# Trick: a one-line exercise cell that IPython's automagic runs as a line magic although it
# parses as Python: `reset -f` is `reset - f` to `ast`, and `%reset -f` to IPython (for a
# one-line cell, the first word a magic's name not followed by `=` or `,`). It empties the
# namespace: in the whole run the four demonstrations after it raise NameError, in the first
# run they are left out. Only a bare name (`rerun`) is read as a magic (`cell_names._walk`).
# Fix: in a student's one-line cell, a first name that is one of IPython's line magics
# (`ls`, `reset`, `run`, `time`, `who`...), not followed by `=` or `,`, makes it Unreadable.
# Closed (fixdemo2): `cell_names.runs_as_magic` splits the line with IPython's `LineInfo` and
# looks the name up in IPython's and the kernel's line magics and aliases.
@pytest.mark.parametrize("line", ["reset -f", "reset -s", "ls -la"])
def test_a_one_line_magic_with_arguments_makes_the_whole_notebook_run(line):
    nb = lesson_4(predict_fewer_tokens="=" + line)
    assert left_out(nb, LESSON_4) == frozenset()


def test_ipython_decides_which_one_line_cells_are_magics():
    """Not only by the own-code reading (`reset`, `f` unbound): a magic's name bound later in
    the notebook does not shadow it when the one-liner runs."""
    magics = ["reset -f", "ls -la", "rerun", "  who  ", "time x", "connect_info"]
    python = [
        "ls = 1",
        "who, x = 1, 2",
        "print(x)",
        "time.sleep(1)",
        "x = reset - f",
        "# ls\nls -la",
    ]
    assert [runs_as_magic(line) for line in magics + python] == [True] * 6 + [False] * 6


# Trick: change a module that the demonstrations use only through another one. `Tokenizer`
# (`lib.tokenizer`) calls `bpe.replace_lone_surrogates` on every text it encodes; the student's
# `bpe.replace_lone_surrogates = None` reaches, by `module_paths`, only names bound to `lib.bpe`,
# inside it, or to `lib` itself, and lesson 4's cells name `Tokenizer`, `data`, `StreamingDecoder`,
# `show_tokens` (`lib.Tokenizer`, `lib.streaming...`). Whole run: `gpt4.encode(reply)` raises
# TypeError, and two cells after it NameError; first run: nothing reported.
# Fix: a change to any module of a package (`m.x = ...`, or an odd use) reaches every name
# bound into that package (all of `lib`), or, simpler, runs the notebook whole.
# Closed (fixdemo2): `lib.bpe` is not the exercise's to use: not own code, everything runs.
def test_a_change_of_a_module_reaches_demonstrations_using_it_through_another():
    nb = lesson_4(first_bad_token="from lib import bpe\nbpe.replace_lone_surrogates = None")
    assert cell_of(nb, REPLY) not in left_out(nb, LESSON_4)


# Trick: change a shared object through the result of a call, inside a function called at the
# top level. `type(StreamingDecoder(None)).feed = None` stores into no name (the store's root is
# a call), and `StreamingDecoder(...)` inside a function is "a call", never a change; yet it
# changes the class every demonstration's decoder is made of. So would a method called on any
# shared value a module hands out (`data.tiktoken_encoding(name)` is tiktoken's cached
# `Encoding`, one per process). Whole run: both `StreamingDecoder(gpt4)` cells raise TypeError;
# first run: left out, nothing reported.
# Fix: in a student's cell, a store or `del` whose root is not a name (`f().a = ...`,
# `type(x).a = ...`, `x[0].a` is fine) makes it Unreadable; with the import allow-list above,
# or read every name a store's root expression mentions as changed.
# Closed (fixdemo2): `spoil` reaches `StreamingDecoder` (`lib`) and `type`: not own code.
def test_a_change_through_a_call_s_result_keeps_the_demonstrations_using_the_object():
    spoil = "def spoil():\n    type(StreamingDecoder(None)).feed = None\n\n\nspoil()"
    nb = lesson_4(first_bad_token=spoil)
    assert cell_of(nb, STREAM) not in left_out(nb, LESSON_4)


# Trick (the student blamed, or an error hidden): a demonstration changes interpreter-wide state
# by a call, which a kept cell feels without naming the module: `warnings.simplefilter("error")`
# before a student's cell with a `'\d'` in a string (compiled, the SyntaxWarning is an error),
# `codecs.register(...)` before one that encodes with that codec. Rule (c) keeps such a call only
# when a kept cell reads the module (`warnings`, `codecs`), and the student's cell reads neither.
# Through the grader (the toy handout): whole run "raised SyntaxError: invalid escape sequence"
# where the first run reports nothing; first run "raised LookupError: unknown encoding: course"
# where the whole run reports nothing. (`sys.setrecursionlimit` is caught: the set-up cell reads
# `sys`.) No shipped lesson's demonstration does this today.
# Fix: keep every handout cell that calls, at its top level, a function of a module for its
# effect, whoever reads the module (or let the handouts audit list such cells, always kept).
STATE = {
    "warnings": (
        "import warnings\nwarnings.simplefilter('error')",
        "import re\n\n\nprint(re.findall('\\d+', 'a1b22'))",
    ),
    "codec": (
        "import codecs\ncodecs.register(lambda name: codecs.lookup('utf-8') "
        "if name == 'course' else None)",
        "print('é'.encode('course'))",
    ),
}


# Closed (fixdemo2): a handout cell calling a function of a module outside `lib` for its effect,
# or changing one, is always kept (`demo_cells._sets_state`).
@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # the student's `'\\d'`
@pytest.mark.parametrize(("demo", "student"), STATE.values(), ids=STATE)
def test_a_demonstration_changing_interpreter_state_before_a_student_s_cell_runs(demo, student):
    sources = [*HANDOUT[:4], demo, *HANDOUT[4:]]  # the demonstration just before the exercise
    hand = handout_code([(1, with_exercise(sources, 5))])[1]
    sources[5] = "\n\n".join([SOLVED_CELL, student])
    assert 4 not in left_out(with_exercise(sources, 5), hand)


def with_exercise(sources: list[str], index: int) -> nbformat.NotebookNode:
    """`notebook(*sources)`, with its exercise cell at `index` (not 4)."""
    nb = notebook(*sources)
    nb.cells[4].metadata.pop("exercise")
    nb.cells[index].metadata["exercise"] = "double"
    return nb


# Trick: an exercise cell whose source is not text (`"source": {}` in the file). The grader
# reads notebooks without nbformat's validation; `left_out` keeps non-text cells (`_code`) and
# then `ast.parse` raises TypeError, which it does not catch: the notebook is a "grader error"
# with no row for any exercise (`--retry-failed` fails again). Through the real grader the
# lesson's identification fails first, the same way (`notebook._code` joins the sources):
# "grader error (TypeError: sequence item 15: expected str instance, NotebookNode found)".
# Fix: `read_notebook` refuses a cell whose source is not text ("not a valid notebook"), and
# `left_out` returns nothing left out for one (`cell_names.read_cell` raises `Unreadable`).
# Closed (fixdemo2) so.
NOT_TEXT = [{"not": "text"}, 5, None]


@pytest.mark.parametrize("source", NOT_TEXT)
def test_a_cell_whose_source_is_not_text_makes_the_whole_notebook_run(source):
    nb = lesson_4()
    (cell,) = [c for c in nb.cells if c.metadata.get("exercise") == "first_bad_token"]
    cell.source = source
    assert left_out(nb, LESSON_4) == frozenset()


def test_a_notebook_with_a_cell_not_text_is_refused_with_a_note_and_costs_only_its_row(tmp_path):
    """Through the grader: each broken notebook is "unreadable" with a note naming the cell (no
    kernel runs), and the others are still read."""
    (tmp_path / "class").mkdir()
    for k, source in enumerate(NOT_TEXT):
        nb = lesson_4()
        nb.cells[3].source = source
        (tmp_path / "class" / f"broken{k}.ipynb").write_text(json.dumps(nb))  # not validated
    (tmp_path / "class" / "empty.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    found = grade_submissions([tmp_path / "class"], tmp_path / "grades", jobs=1, progress=False)
    records = {r["student"]: r for r in found}
    assert set(records) == {"broken0", "broken1", "broken2", "empty"}
    for k, found in enumerate(['{"not": "text"}', "5", "null"]):
        assert records[f"broken{k}"]["outcome"] == "unreadable"
        assert records[f"broken{k}"]["note"] == (
            f"not a valid notebook (cell 4's source is not text: {found})"
        )
    assert records["empty"]["outcome"] == "unknown lesson"


# Trick (the reading stalls): an exercise cell importing N names and using them at its top
# level. Each use is a possible change of an imported name, and `Imports.reached` compares every
# name bound by an import with every path changed, once per reached cell and per round of
# `_kept`: quadratic, 13-25 CPU s for 4,000 names (54 KB), hours for a 1 MB cell (a notebook may
# be 64 MB); the other readers take 0.5 s. It runs in a thread holding `_READING_CODE`, which a
# deadline cannot stop: through the grader (toy handout, 16,000 names, 200 KB) the notebook was
# given up after its 53 s deadline, "stuck in _in_turn", and the batch of two took 544 s of wall
# time instead of ~10 (every other notebook's reading waits for the lock meanwhile).
# Fix: `Imports` keeps its paths in a dict (or a trie) and `reached` looks each one up (linear);
# `_kept` computes each cell's `_touched` once. (Closed so: `reached` looks up each bound path's
# prefixes. No time budget: the reading is linear, and the notebook's deadline bounds its size.)
def test_reading_a_cell_with_many_imported_names_takes_linear_time():
    """4,000 names: quadratic, a median of 7.3 CPU s in `Imports.reached` (13-25 s reported);
    linear, 0.3 s, and 2.2 s with the own-code reading of the exercise cell (1.1 s for 2,000
    names: linear too; the grader reads the same cells as much for the grade). CPU time, the
    median of three, against a bound that load on the machine does not reach and a return to
    quadratic (9.5 s) exceeds."""
    names = ", ".join(f"a{i}" for i in range(4_000))
    student = f"{SOLVED_CELL}\nfrom collections import {names}\nprint({names})"
    nb = notebook(*HANDOUT[:4], student, *HANDOUT[5:])
    hand = handout_code([(1, notebook(*HANDOUT))])[1]
    spent = []
    for _ in range(3):
        started = time.process_time()
        left_out(nb, hand)
        spent.append(time.process_time() - started)
    assert statistics.median(spent) < 6.0


# The real grader, one batch of two lesson 4 notebooks (solved): "spoils" sets `vocab` by text
# (`cProfile.run`), changes `lib.bpe` under `Tokenizer` and empties the namespace (`reset -f`,
# its prediction lost: 0 points in both runs); "reaches" changes `StreamingDecoder` through a
# call's result and `sentence` through `__main__`. WHOLE is what the same notebooks gave graded
# with no handout, every cell run (measured again 2026-11-27, after lesson 4's loop moved below
# `vocab_from_merges`: the cells that used its `vocab` no longer follow the spoiled exercise; a
# second batch, ~10 CPU s, is not worth repeating on every run): (cell, error) of each line of
# feedback. The first run reported none.
STUDENTS = {
    "spoils": lesson_4(
        vocab_from_merges="import cProfile\ncProfile.run('vocab = None')",
        first_bad_token="from lib import bpe\nbpe.replace_lone_surrogates = None",
        predict_fewer_tokens="=reset -f",
    ),
    "reaches": lesson_4(
        first_bad_token="def spoil():\n    type(StreamingDecoder(None)).feed = None\n\n\nspoil()",
        stream_decode="import __main__\n__main__.sentence = None",
    ),
}
SCORES = {"spoils": [1.0, 1.0, 2.0, 0.0], "reaches": [1.0, 1.0, 2.0, 1.0]}
WHOLE = {
    "spoils": [(35, "TypeError"), (39, "NameError"), (41, "NameError"), (50, "NameError")]
    + [(51, "NameError"), (52, "NameError"), (54, "NameError")],
    "reaches": [(39, "TypeError"), (41, "TypeError"), (50, "TypeError"), (51, "TypeError")],
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    """Each student's record as the grader makes it (demonstrations left out of the first run)."""
    tmp = tmp_path_factory.mktemp("red-team-demo-2")
    (tmp / "class").mkdir()
    for name, nb in STUDENTS.items():
        nbformat.write(nb, tmp / "class" / f"{name}.ipynb")
    found = grade_submissions([tmp / "class"], tmp / "grades", jobs=2, progress=False)
    return {r["student"]: r for r in found}


def reported(events: list[str]) -> list[tuple[int, str]]:
    """(cell number, error) of each "cell N (`...`) raised Error: ..." line."""
    found = (re.fullmatch(r"cell (\d+) \(`.*`\) raised (\w+)(: .*)?", e, re.S) for e in events)
    return [(int(m[1]), m[2]) for m in found if m]


@pytest.mark.end_to_end
def test_the_tricks_change_no_grade(graded):
    """What holds: the grades come from kernels of their own, the same as in the whole run."""
    for student, scores in SCORES.items():
        assert [e["score"] for e in graded[student]["exercises"]] == scores


# Closed (fixdemo2): both notebooks' exercise cells are not own code, so they run whole.
@pytest.mark.end_to_end
@pytest.mark.parametrize("student", STUDENTS)
def test_the_first_run_reports_what_the_whole_run_reports(graded, student):
    assert reported(graded[student]["events"]) == WHOLE[student]
