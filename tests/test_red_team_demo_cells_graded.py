"""Red team of `lib/grading/demo_cells.py` (issue 28) through the real grader: a toy class
graded as the grader runs it (the handout's demonstrations left out of the first run), and its
records compared with what the same notebooks gave graded with no handout, every cell run
(`WHOLE`). The README promises that leaving cells out changes no grade and hides only what a
student did "by a route no reading follows".
Each hole is `xfail(strict=True)` while open (drop the mark once fixed); why the reading misses
each trick, and the fix, are in tests/test_red_team_demo_cells.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.grade import Limits, grade_submissions
from lib.grading.demo_cells import handout_code, left_out

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import STUB  # noqa: E402

pytestmark = pytest.mark.end_to_end  # two batches, six notebooks: see pyproject's markers

# The real grader on a toy lesson (tests/grading_fixtures/toy_exercises.py: `double` may use
# `os`, `shout` may not). Each student's notebook is the handout below with a change; the class
# is graded as it is, and again with no handout, where every cell runs.
TOY_HANDOUT = [
    "from lib import fairness\nimport collections",  # 0
    "values = [1, 2]",  # 1
    'print(fairness.PUBLISHED["cl100k_base"]["eng_Latn"])',  # 2
    "print(values[1])",  # 3
    "len(values) + 40",  # 4: its value is shown, so `_` holds it
    # 5: keeps the corpus for later, by names FILES does not list
    'import zipfile\nwith zipfile.ZipFile("corpus.zip", "w") as pack:\n    pack.writestr("a", "b")',
    STUB["double"],  # 6
    STUB["shout"],  # 7
]
DOUBLE = "def double(x):\n    return 2 * x"
# A graded function that looks at the working folder: `os` is what the toy's `double` may use.
DOUBLE_READS = 'import os\ndef double(x):\n    return 2 * x if "corpus.zip" in os.listdir() else x'
DEEP = "f = " + "lambda: " * 1_200 + "0"


def toy_notebook(*sources: str) -> nbformat.NotebookNode:
    cells = [new_code_cell(s) for s in sources]
    for cell in cells:
        if cell.source in (STUB["double"], DOUBLE, DOUBLE_READS):
            cell.metadata["exercise"] = "double"
        elif cell.source == STUB["shout"]:
            cell.metadata["exercise"] = "shout"
    return new_notebook(cells=cells, metadata={"course": {"lesson": 1}})


def changed(*, at: int = 0, add: tuple[str, ...] = (), drop: int | None = None, double=DOUBLE):
    """The toy handout with `double` solved, cells `add`ed after cell `at`, cell `drop` gone."""
    sources = [double if s == STUB["double"] else s for s in TOY_HANDOUT]
    sources[at + 1 : at + 1] = add
    return toy_notebook(*(s for i, s in enumerate(sources) if i != drop))


STUDENTS = {
    "deletes": changed(drop=1),  # `values = [1, 2]` deleted: two later cells raise NameError
    "clears": changed(add=("fairness.PUBLISHED.clear()",)),  # the table's cell: KeyError
    # Whole run: `print(values[1])` raises IndexError. First run: `values = [1, 2]` is left out
    # too, so the student's own cell raises an AttributeError the whole run never does.
    "by_main": changed(at=1, add=("collections._sys.modules['__main__'].values.clear()",)),
    "history": changed(at=4, add=("print(1 / _)",)),  # whole run: `_` is 42
    "files": changed(double=DOUBLE_READS),
    "deep": changed(add=(DEEP,)),
}
# The events of the whole run (no handout: every cell runs) of the five students graded against
# toy_exercises_no_files, on 3.11 at 233596e (each scored [2.0, 0.0] there: `shout` is a stub).
# Measured once, as tests/test_red_team_demo_cells_2.py does: grading the class again with no
# handout on every run cost two more batches, six notebooks (measured side by side at load 15:
# the fixture took 64 CPU s and 189 s instead of 37 and 111). `deep`'s whole-run event, a
# RecursionError, is worded by the Python; no test compares it.
NO_VALUES = "raised NameError: name 'values' is not defined"
WHOLE = {
    "deletes": [
        f"cell 3 (`print(values[1])`) {NO_VALUES}",
        f"cell 4 (`len(values) + 40`) {NO_VALUES}",
    ],
    "clears": [
        'cell 4 (`print(fairness.PUBLISHED["cl100k_base"]["eng_Latn"])`) raised KeyError: '
        "'cl100k_base'"
    ],
    "by_main": ["cell 5 (`print(values[1])`) raised IndexError: list index out of range"],
    "history": [],
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    """Each student's record as the grader makes it (demonstrations left out of the first run)."""
    tmp = tmp_path_factory.mktemp("red-team-demo")
    handout, students = tmp / "handout", tmp / "class"
    for folder in (handout, students, tmp / "files"):
        folder.mkdir()
    nbformat.write(toy_notebook(*TOY_HANDOUT), handout / "toy.ipynb")
    for name, nb in STUDENTS.items():
        nbformat.write(nb, (tmp / "files" if name == "files" else students) / f"{name}.ipynb")
    records = {}
    # The toy lesson whose `double` may use `os` for the student reading files; the others
    # against the same lesson without (as every shipped lesson: no exercise may touch files).
    for registry, folder in (("toy_exercises_no_files", students), ("toy_exercises", "files")):
        found = grade_submissions(
            [tmp / folder],
            tmp / f"out-{registry}",
            limits=Limits(cell=20, notebook=60, probe=2),
            registry=registry,
            import_paths=(str(ROOT), str(FIXTURES)),
            questions_from=handout,
            jobs=2,
            progress=False,
        )
        records |= {r["student"]: r for r in found}
    return records


def test_the_toy_handout_s_demonstrations_are_left_out(graded):
    """What holds: untouched, the handout's demonstrations are all left out (the test below
    would say nothing otherwise), and the first run grades the honest `double`."""
    hand = handout_code([(1, toy_notebook(*TOY_HANDOUT))])[1]
    assert left_out(changed(), hand) == {0, 1, 2, 3, 4, 5}
    assert graded["clears"]["exercises"][0]["score"] == 2.0


# Each of these hides, from the student and the instructor, an error the student caused in a
# demonstration (a cell deleted, a method call on a module's value, `sys.modules` reached
# through `collections._sys`: why the reading misses each, and the fix, are in the unit tests).
@pytest.mark.parametrize("student", ["deletes", "clears", "by_main"])
def test_the_first_run_reports_the_errors_the_whole_run_reports(graded, student):
    assert graded[student]["events"] == WHOLE[student]


# Trick: a student's cell uses the last value shown (`_`), a demonstration's. The first run
# leaves the demonstration out, so `_` is "" there: the feedback blames the student for a
# TypeError their notebook never raises. Fix: `_`, `Out`... are DYNAMIC (see the unit tests).
def test_the_first_run_reports_no_error_the_whole_run_does_not(graded):
    assert graded["history"]["events"] == WHOLE["history"] == []


# Trick: the handout's demonstration writes `corpus.zip` by names FILES does not list; the
# graded kernels run in the first run's folder, and the toy's `double` may use `os`. Left out,
# the file is not there and the grade drops: "leaving cells out changes no grade" is false for
# any exercise that may look at files. (No real lesson's exercise may: none allows `os`, `io` or
# `pathlib`; and tests/test_demo_cells_handouts.py checks that no lesson's demonstration left
# out writes a file.) Fix: see `test_a_demonstration_writing_a_file_by_any_name_runs`.
def test_leaving_cells_out_changes_no_grade(graded):
    """Full marks, as when every cell runs; left out, the file is missing and `double` earns 0
    (measured with `files_allowed` undone: 0.0, "failed")."""
    assert graded["files"]["exercises"][0]["score"] == 2.0


# Trick: a cell nested 1,200 lambdas deep (see the unit tests): `left_out` raises, and a notebook
# the other readers read well is recorded as a grader error, with no score for anything
# (`--retry-failed` fails again).
def test_a_deeply_nested_cell_costs_no_grade(graded):
    record = graded["deep"]
    assert record["outcome"] == "graded", record.get("note")
    assert record["exercises"][0]["score"] == 2.0
