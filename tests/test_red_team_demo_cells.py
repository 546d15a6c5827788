"""Red team of `lib/grading/demo_cells.py` (issue 28): which cells the first run leaves out.
The first run leaves out the handout's demonstrations that nothing of the student's reaches; the
README promises that this changes no grade and hides only what a student did "by a route no
reading follows". Each hole is a test marked `xfail(strict=True)` while it is open (the fix turns
it into an unexpected pass: then drop the mark), with the trick, why the reading misses it, and a
fix in a line. Here `left_out` is asked about the real lesson 6 or the small handout of
tests/test_demo_cells.py; tests/test_red_team_demo_cells_graded.py shows what a student and the
instructor get through the real grader.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from lib.grading.demo_cells import handout_code, left_out
from lib.grading.notebook import handouts
from lib.grading.solved import solved
from tests.test_demo_cells import HANDOUT, SOLVED_CELL, cut, notebook

ROOT = Path(__file__).resolve().parent.parent
LESSONS = dict(handouts(ROOT / "notebooks"))
LESSON_6 = handout_code([(6, LESSONS[6])])[6]
# Lesson 6's demonstration that reads the published table: KeyError once the table is emptied.
TABLE_CELL = 'plain = " ".join(data.flores("eng_Latn", "dev")'


def lesson_6_with(source: str) -> tuple[nbformat.NotebookNode, int]:
    """Lesson 6 as handed out with a student's cell added after the imports, and the index of
    the demonstration reading `fairness.PUBLISHED["cl100k_base"]`."""
    nb = copy.deepcopy(LESSONS[6])
    nb.cells.insert(3, new_code_cell(source))
    (table,) = [i for i, c in enumerate(nb.cells) if c.source.startswith(TABLE_CELL)]
    return nb, table


def test_the_lesson_6_table_cell_is_kept_when_the_student_rebinds_the_table():
    """What holds: a plain attribute store on the imported module reaches the demonstration."""
    nb, table = lesson_6_with("fairness.PUBLISHED = {}")
    assert table not in left_out(nb, LESSON_6)


# Trick: change a module's value without `module.attr = ...`: a method call on it (`.clear()`),
# the value imported by name, the module through an alias, or through `lib`. The reading counts
# only a store whose root is the imported name itself as a change ("a module ... is changed only
# through `x.a = ...`"), and reads of imports touch nothing. The whole run raises KeyError in
# the table cell; the first run leaves it out and the feedback says nothing.
# Fix: count any use of an imported name in a student's cell other than a plain read of one of
# its attributes or a call of a function of it (a method call on an attribute, an alias, `lib.x`)
# as a change of every name bound to that module.
@pytest.mark.parametrize(
    "source",
    [
        "fairness.PUBLISHED.clear()",
        "from lib.fairness import PUBLISHED\nPUBLISHED.clear()",
        "f = fairness\nf.PUBLISHED = {}",
        "import lib\nlib.fairness.PUBLISHED = {}",
    ],
)
def test_a_module_s_value_changed_by_another_route_reaches_its_demonstrations(source):
    nb, table = lesson_6_with(source)
    assert table not in left_out(nb, LESSON_6)
    # Closed (fixdemo): a cell added runs the whole notebook (rule a); the same lines in an
    # exercise cell, at its top level or in the solved function, reach the table's cell (b).
    nb = solved(LESSONS[6])
    (gini,) = [c for c in nb.cells if c.metadata.get("exercise") == "gini"]
    table -= 1  # no cell added here
    assert nb.cells[table].source.startswith(TABLE_CELL)
    assert table in left_out(nb, LESSON_6)  # as solved: left out
    inside = "\n    ".join(source.splitlines())
    for student in (f"{gini.source}\n{source}", f"{gini.source}\ndef spoil():\n    {inside}"):
        gini.source = student
        assert table not in left_out(nb, LESSON_6), student


# Trick: delete (or move) a demonstration another one needs. The whole run raises NameError in
# the later cell; the reading has no order and sees no student cell, so it leaves both out.
# Fix: leave a cell out only if every name it reads is bound by a cell above it (as it runs).
# Closed (fixdemo): rule (a), a notebook changed outside its exercise cells runs whole.
@pytest.mark.parametrize(
    "changes",
    [((2, ""),), ((3, HANDOUT[5]), (5, HANDOUT[3]))],  # `texts = ...` deleted; two swapped
    ids=["deleted", "moved"],
)
def test_a_demonstration_whose_names_are_no_longer_bound_above_it_runs(changes):
    assert {3, 5} & cut((4, SOLVED_CELL), *changes) == set()


# Trick: the kernel's own names, which no cell binds: `__builtin__` (IPython's alias of the
# builtins module: `__builtin__.exec(...)` runs text, `.len = None` breaks every demonstration),
# `sys.modules` reached through a module attribute (`collections._sys`, no `sys` name at all),
# the output history (`_`, `Out[n]`, `_i3`: the execution counts shift when cells are left out)
# and a one-line cell IPython's automagic runs as a magic (`rerun` re-runs the cell before).
# BY_TEXT and DYNAMIC are checked against names only, never attributes, and hold none of these.
# Fix: make `__builtin__`, `In`, `Out`, `_`, `__`, `___`, `_<n>`, `_i*`, `_oh`, `_ih` DYNAMIC,
# check attribute names against DYNAMIC too, and read a one-line bare name of a magic as a magic.
# Closed (fixdemo): an added cell runs the whole notebook (rule a); in an exercise cell each is
# dynamic (rule c; tests/test_demo_cells.py), the history names in any cell.
@pytest.mark.parametrize(
    "cell",
    [
        "__builtin__.exec('texts.clear()')",
        "__builtin__.len = None",
        "collections._sys.modules['__main__'].texts.clear()",
        "saved = _",
        "print(Out[3])",
        "rerun",
    ],
)
def test_the_kernel_s_own_names_make_the_whole_notebook_run(cell):
    assert cut((4, SOLVED_CELL), added=(cell,)) == set()


# Trick (a false error, blamed on the student): a demonstration sets a module's attribute
# (`data.greeting = ...`) and the student's cell reads it. "Nothing that runs needs it" looked
# only for cells that bind a name a kept cell reads, and this demonstration binds nothing: the
# whole run printed, the first run reported AttributeError in the student's cell. Fixed here (one
# line: the second loop of `left_out` follows `c.binds | c.changes`; no lesson leaves out less).
def test_a_demonstration_setting_an_attribute_a_kept_cell_reads_runs():
    sets = "data.greeting = 'hello'"
    hand = handout_code([(1, notebook(*HANDOUT, sets))])[1]
    student = notebook(*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:], sets, "print(data.greeting)")
    assert 8 not in left_out(student, hand)


# Trick: the same by a call: a demonstration changes a module's state (`random.seed`,
# `sys.setrecursionlimit`, `codecs.register`, `warnings.filterwarnings`...). No name is bound or
# stored into, so no reading of names can see it; the student's cell prints other values, or
# raises RecursionError where the whole run does not.
# Fix: keep a handout cell that calls a function of an imported module at its top level and
# binds nothing when a kept cell reads that module (or: keep every cell that binds nothing).
# Closed (fixdemo): the added cell runs everything (rule a); a call made for its effect on a
# module a kept cell reads keeps its cell (tests/test_demo_cells.py, with the read in an exercise).
def test_a_demonstration_changing_a_module_s_state_by_a_call_runs():
    seeds = ("import random", "random.seed(2024)")
    hand = handout_code([(1, notebook(*HANDOUT, *seeds))])[1]
    student = notebook(*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:], *seeds, "print(random.random())")
    assert 9 not in left_out(student, hand)


# Trick: a demonstration writes a file by a name FILES does not list. The graded kernels run in
# the same working folder, which is why FILES exists; a deny-list of names never ends (plotly's
# `write_html`, pandas' `to_csv`, sentencepiece's `model_prefix`, `sqlite3.connect`,
# `logging.basicConfig(filename=...)`, `zipfile.ZipFile(..., "w")`, numpy's `savez_compressed`).
# Fix: keep every handout cell that calls anything outside an allow-list of functions known to
# write nothing (the lessons' own `lib` helpers, `print`, `display`...), or give the graded
# kernels a fresh copy of the submission instead of the first run's folder.
# Left open (fixdemo): FILES stays a list of names. It only decides what the first run reports:
# a lesson whose exercises may use a file module runs whole (`demo_cells.files_allowed`), and no
# shipped lesson's exercise may, so no grade depends on it; tests/test_demo_cells_handouts.py
# audits that the shipped lessons' left-out cells write nothing (COURSE_AUDIT_HANDOUTS=1).
WRITERS = [
    "figure.write_html('chart.html')",
    "table.to_csv('counts.csv')",
    "spm.SentencePieceTrainer.train(input='corpus.txt', model_prefix='m', vocab_size=99)",
    "sqlite3.connect('runs.db').close()",
    "logging.basicConfig(filename='training.log')",
    "with zipfile.ZipFile('corpus.zip', 'w') as pack:\n    pack.writestr('a.txt', 'hi')",
    "numpy.savez_compressed('arrays.npz', ids=ids)",
]


@pytest.mark.xfail(strict=True, reason="not in FILES: left out (no grade depends on it)")
@pytest.mark.parametrize("writer", WRITERS)
def test_a_demonstration_writing_a_file_by_any_name_runs(writer):
    hand = handout_code([(1, notebook(*HANDOUT, writer))])[1]
    student = notebook(*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:], writer)
    assert 8 not in left_out(student, hand)


# Trick: nest lambdas 1,200 deep (no brackets, no indentation: the parser takes it). `_read`
# catches RecursionError from `ast.parse` and `symtable`, but `_names` then recurses once per
# scope in Python and raises RecursionError out of `left_out`; 3,000 deep, `ast.parse` raises
# MemoryError, which `_read` does not catch (the other readers raise it too at that depth).
# Fix: in `_read`, call `_names` inside the `try` and catch MemoryError too (`_Unreadable`).
# Closed (fixdemo): rule (d), a cell that cannot be read (RecursionError, MemoryError too) runs
# the whole notebook; so does an added cell (rule a).
@pytest.mark.parametrize("depth", [1_200, 3_000])
def test_a_deeply_nested_cell_makes_the_whole_notebook_run(depth):
    deep = "f = " + "lambda: " * depth + "0"
    assert cut((4, SOLVED_CELL), added=(deep,)) == set()
