"""Which of the handout's demonstration cells a submission's first run leaves out (`demo_cells`):
only what nothing of the student's reaches and nothing kept needs; the whole notebook as soon as
a cell cannot be read. The end-to-end test grades a toy lesson whose demonstration raises."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.exercises import for_lesson
from lib.grade import Limits, grade_submissions
from lib.grading.demo_cells import files_allowed, handout_code, left_out
from lib.notebooks import SETUP_CELL

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
import toy_exercises  # noqa: E402
import toy_exercises_no_files  # noqa: E402
from toy_class import SOLVED, STUB  # noqa: E402

HANDOUT = [
    SETUP_CELL,  # 0
    "from lib import data\nimport collections",  # 1
    "texts = {'en': 'hello', 'fr': 'bonjour'}",  # 2
    "counts = {k: len(v) for k, v in texts.items()}\nprint(counts)",  # 3: heavy, in a lesson
    "def double(x):\n    raise NotImplementedError",  # 4: the exercise
    "print(sorted(counts))",  # 5
    "print(double(21))",  # 6: calls the student's function
    "print(data.__name__)",  # 7: reads a module
]


def notebook(*sources: str) -> nbformat.NotebookNode:
    cells = [new_code_cell(s) for s in sources]
    cells[4].metadata["exercise"] = "double"
    return new_notebook(cells=cells, metadata={"course": {"lesson": 1}})


HAND = handout_code([(1, notebook(*HANDOUT))])[1]
SOLVED_CELL = "def double(x):\n    return 2 * x"


def cut(*changes: tuple[int, str], added: tuple[str, ...] = ()) -> set[int]:
    """What the first run leaves out of the handout with `changes` (index, new text) made."""
    sources = list(HANDOUT)
    for index, source in changes:
        sources[index] = source
    return set(left_out(notebook(*sources, *added), HAND))


def test_untouched_demonstrations_are_left_out_and_the_student_s_cells_kept():
    # Kept: the set-up (the grader's own runs there), the exercise, and the cell calling it.
    assert cut((4, SOLVED_CELL)) == {1, 2, 3, 5, 7}
    assert cut() == {1, 2, 3, 5, 7}  # a stub left as handed out is still the student's cell


def solved_with(*lines: str) -> str:
    """The exercise cell solved, with `lines` of the student's after it."""
    return "\n".join([SOLVED_CELL, *lines])


def test_a_cell_of_the_student_reading_a_demonstration_keeps_it_and_what_it_needs():
    # Reading a value may change it (`.pop()`): what reads it after runs too.
    assert cut((4, "def double(x):\n    return 2 * x + len(counts)")) == {1, 7}
    assert cut((4, solved_with("print(len(texts))"))) == {1, 7}


def test_a_notebook_changed_outside_its_exercise_cells_runs_whole():
    """Rule (a): a demonstration edited, added, deleted or moved, and everything runs."""
    assert cut((5, "print(sorted(counts), 1 / 0)")) == set()  # edited
    assert cut((4, SOLVED_CELL), added=("print(1)",)) == set()  # added
    assert cut((4, SOLVED_CELL), (2, "")) == set()  # deleted
    assert cut((4, SOLVED_CELL), (3, HANDOUT[5]), (5, HANDOUT[3])) == set()  # moved
    # Blank cells never run: adding or deleting one changes nothing.
    assert cut((4, SOLVED_CELL), added=("", "  \n")) == {1, 2, 3, 5, 7}


def test_a_demonstration_the_student_reaches_runs():
    # Rebinding a name, changing a value in place (a read) or a module's attribute: every
    # demonstration reading it runs (with what it needs), as the student's run would.
    assert cut((4, solved_with("texts = None"))) == {1, 7}
    assert cut((4, solved_with("texts.pop('en')"))) == {1, 7}
    # An exercise cell using what its exercise may not (here `lib`, or `os`) is not read as
    # own code: the whole notebook runs, whatever it changes.
    assert cut((4, solved_with("data.flores = None"))) == set()
    assert cut((4, solved_with("import os as data"))) == set()
    assert cut((4, solved_with("from lib import data"))) == set()
    calls = "def double(x):\n    return 2 * len(data.flores_languages())"
    assert cut((4, calls)) == set()


@pytest.mark.parametrize(
    "student",
    [
        "data.__name__.upper()",  # a call at the top level may change the module
        "def double(x):\n    data.cache.clear()\n    return 2 * x",  # a value of the module
        "from lib.data import flores\ndef double(x):\n    flores.cache_clear()\n    return 2 * x",
        "d = data\nd.x = 1",  # the module under another name
        "import lib\nlib.data.x = 1",  # reached through its package
        "def double(x, d=data):\n    return 2 * x",  # handed on as a value
    ],
)
def test_a_module_the_student_may_change_keeps_every_demonstration_using_it(student):
    assert 7 not in cut((4, solved_with(student)))


def test_a_demonstration_changing_a_module_runs_whoever_reads_it():
    """Rule (c): a demonstration's call made for its effect on a module outside the course's
    (`random.seed`, `warnings.simplefilter`) sets state any later cell may feel without naming
    the module: it runs, with the cells binding what it reads."""
    seeds = ("import random", "random.seed(2024)")
    hand = handout_code([(1, notebook(*HANDOUT, *seeds))])[1]
    student = solved_with("def roll():\n    return random.random()")
    for exercise in (student, SOLVED_CELL):  # whether or not the student reads `random`
        nb = notebook(*HANDOUT[:4], exercise, *HANDOUT[5:], *seeds)
        assert {8, 9} & left_out(nb, hand) == set()


def test_a_demonstration_that_may_write_files_runs_with_what_it_needs():
    # The graded kernel runs in the same folder: a file written there could reach it.
    writes = "open('counts.txt', 'w').write(str(counts))"
    hand = handout_code([(1, notebook(*HANDOUT[:7], writes))])
    sources = [*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:7], writes]
    assert left_out(notebook(*sources), hand[1]) == {1, 5}


def test_a_local_name_or_parameter_is_not_the_notebook_s():
    solved = "def double(texts):\n    counts = {}\n    counts['x'] = texts\n    return 2 * texts"
    assert cut((4, solved)) == {1, 2, 3, 5, 7}


@pytest.mark.parametrize(
    "cell",
    [
        "globals()['texts'] = None",
        "eval('texts.clear()')",
        "getattr(data, 'flores')",
        "import sys",
        "from importlib import reload",
        "double.__globals__['counts'] = 0",
        "%time x = 1",
        "def (",
        "from lib.data import *",
        "__builtin__.len = None",
        "print(_)",
        "print(Out[3], _i2)",
        "data._cache.clear()",
        "collections._sys.modules.clear()",
        "rerun",
        "f = " + "lambda: " * 1_200 + "0",
        "f = " + "lambda: " * 3_000 + "0",
    ],
)
def test_a_cell_no_reading_can_follow_makes_the_whole_notebook_run(cell):
    """Rule (c) and (d): anything dynamic in an exercise cell, or a cell that cannot be read."""
    assert cut((4, solved_with(cell))) == set()


def test_a_demonstration_using_the_kernel_s_history_makes_the_whole_notebook_run():
    uses_history = notebook(*HANDOUT, "print(_)")
    assert left_out(uses_history, handout_code([(1, uses_history)])[1]) == frozenset()


def test_a_submission_may_follow_any_notebook_handed_out_for_its_lesson():
    other = notebook(*HANDOUT[:7])  # an older version without the last demonstration
    hand = handout_code([(1, notebook(*HANDOUT)), (1, other)])[1]
    assert left_out(notebook(*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:7]), hand) == {1, 2, 3, 5}
    assert left_out(notebook(*HANDOUT[:4], SOLVED_CELL, *HANDOUT[5:]), hand) == {1, 2, 3, 5, 7}


def test_without_the_lesson_s_handout_every_cell_runs():
    assert left_out(notebook(*HANDOUT), None) == frozenset()


def test_a_lesson_whose_exercises_may_touch_files_runs_whole():
    """The graded kernels run in the first run's folder: where an exercise may use `os`, a file
    a demonstration writes could reach its grade, so the grader passes no handout."""
    assert files_allowed(toy_exercises.EXERCISES)  # `double` may use `os`
    assert not files_allowed(toy_exercises_no_files.EXERCISES)
    assert not any(files_allowed(for_lesson(n)) for n in range(1, 10))  # no shipped lesson


def test_a_failing_demonstration_is_reported_only_where_the_student_reaches_it(tmp_path):
    """Grading: the handout's demonstration raises, and nothing of the student's reaches it:
    left out, no event. Changed by the student, or fed by the student's own cell, it runs and
    the feedback says it raised; the grades are the same either way."""
    demo = "import toy_exercises as ex\nvalues = [1, 2]\nprint(values[5])"

    def toy(*extra: str, demo_cell: str = demo) -> nbformat.NotebookNode:
        cells = [new_code_cell(demo_cell), new_code_cell(SOLVED["double"]), new_code_cell()]
        cells += [new_code_cell(STUB["shout"]), *map(new_code_cell, extra)]
        cells[1].metadata["exercise"], cells[3].metadata["exercise"] = "double", "shout"
        return new_notebook(cells=cells, metadata={"course": {"lesson": 1}})

    handout, submissions = tmp_path / "handout", tmp_path / "class"
    handout.mkdir(), submissions.mkdir()
    nbformat.write(toy(), handout / "toy.ipynb")
    nbformat.write(toy(), submissions / "untouched.ipynb")
    nbformat.write(toy(demo_cell=demo + "  # mine"), submissions / "edited.ipynb")
    nbformat.write(toy("values.append(3)"), submissions / "reaching.ipynb")
    records = grade_submissions(
        [submissions],
        tmp_path / "out",
        limits=Limits(cell=20, notebook=60),
        registry="toy_exercises_no_files",  # `double` without `os`: see files_allowed below
        import_paths=(str(ROOT), str(FIXTURES)),
        questions_from=handout,
        jobs=2,
        progress=False,
    )
    by_student = {r["student"]: r for r in records}
    raised = "cell 1 (`import toy_exercises as ex`) raised IndexError: list index out of range"
    assert by_student["untouched"]["events"] == []
    assert by_student["edited"]["events"] == [raised]
    assert by_student["reaching"]["events"] == [raised]
    for record in records:
        assert [e["score"] for e in record["exercises"]] == [2.0, 0.0], record
