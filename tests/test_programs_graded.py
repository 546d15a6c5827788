"""Each exercise graded by its own rules (`lib.grading.grading_job.programs`): the kernel where an
exercise is graded runs only units that read as own code under that exercise's rules, so nothing
accepted for a looser exercise of the same lesson (`bytes_per_char` may call `.encode`) is there
when a stricter one (`utf8_encode`) runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.exercises import for_lesson
from lib.exercises.own_code import Notebook
from lib.grade import Limits, grade_submissions
from lib.grading.grading_job import programs
from lib.grading.solved import solved

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
LESSON_1 = {e.name: e for e in for_lesson(1)}


def programs_of(cells: list[str], lesson: int = 1) -> dict[str, str]:
    """Each exercise that reads as own code, and the code of the program it is graded in."""
    code = Notebook(cells)
    own = [e for e in for_lesson(lesson) if not code.borrowed(e.target, e.allowed_lib, e.forbidden)]
    graded = programs(code, own)
    return {name: "\n".join(p.cells.values()) for p in graded for name in p.exercises}


def test_a_looser_exercises_default_is_not_in_a_stricter_ones_program():
    """Hole 12: `bytes_per_char` (may call `.encode`) fills a dict by a default argument,
    `utf8_encode` (may not) reads it. Both read as own code; they are graded apart."""
    found = programs_of(
        [
            "SHARED = {}",
            "def bytes_per_char(text, _=SHARED.update(f=lambda cp: chr(cp).encode())):\n"
            "    return len(text.encode('utf-8')) / len(text) if text else 0.0",
            "def utf8_encode(cp):\n    return SHARED['f'](cp)",
        ]
    )
    assert ".encode" in found["bytes_per_char"]
    assert "SHARED = {}" in found["utf8_encode"] and ".encode" not in found["utf8_encode"]


def test_a_helper_two_exercises_use_runs_in_each_ones_program():
    """A helper of the learner's, used by two exercises with different rules, is read under each
    one's rules and runs in each one's program."""
    helper = "def lead_bits(n):\n    return n + 1"
    encode = (
        "def utf8_encode(cp):\n    lead_bits(2)\n"
        + LESSON_1["utf8_encode"].solution_code.partition("\n")[2]
    )
    per_char = (
        "def bytes_per_char(text):\n    lead_bits(2)\n    return len(text.encode()) / len(text)"
    )
    found = programs_of([helper, encode, per_char])
    assert found["utf8_encode"] != found["bytes_per_char"]
    assert all(helper in found[name] for name in ("utf8_encode", "bytes_per_char"))


def test_a_helper_that_breaks_one_exercises_rules_makes_that_one_not_own_code():
    """The same helper calling `.encode`: own code for `bytes_per_char`, not for `utf8_encode`."""
    helper = "def raw(text):\n    return text.encode()"
    code = Notebook(
        [
            helper,
            "def utf8_encode(cp):\n    return raw(chr(cp))",
            "def bytes_per_char(t):\n    return len(raw(t)) / len(t)",
        ]
    )
    assert "(through `raw`)" in code.borrowed("utf8_encode", forbidden=(".encode", "bytes"))
    assert code.borrowed("bytes_per_char") == ""


@pytest.mark.parametrize("lesson", [1, 5])
def test_the_published_solutions_need_few_kernels(lesson):
    """Honest exercises fit together: what costs a kernel is a rule one of them needs."""
    notebook = solved(nbformat.read(next(ROOT.glob(f"notebooks/0{lesson}_*.ipynb")), as_version=4))
    code = Notebook(notebook)
    own = [
        e
        for e in for_lesson(lesson)
        if not code.borrowed(e.target, e.allowed_lib, e.forbidden, e.literal)
    ]
    assert len(own) == len(for_lesson(lesson))
    graded = programs(code, own)
    assert sorted(n for p in graded for n in p.exercises) == sorted(e.name for e in own)
    assert len(graded) == {1: 2, 5: 4}[lesson]  # 5: three exercises each allow a `lib` helper


# Two notebooks of the toy lesson (tests/grading_fixtures), each a test below.
# ivy: `double` may use `os`, `shout` may not; a default of `double` hands `shout` an answer that
# needs `os`.
IVY = [
    "import os\nSHARED = {}",
    "def double(x, _=SHARED.update(f=lambda w: w.upper() + '!' if os.sep else w)):\n"
    "    return 2 * x",
    "def shout(word):\n    return SHARED['f'](word)",
]
# jo: the first run writes a `regex.py` into the working folder for `shout` to import.
JO = [
    "with open('regex.py', 'w') as f:\n    f.write('shout = lambda w: w.upper() + chr(33)')",
    "import regex\ndef shout(word):\n    return regex.shout(word)",
    "def double(x):\n    return 2 * x",
]


@pytest.fixture(scope="module")
def graded_toys(tmp_path_factory) -> dict[str, dict]:
    """The record the real grader writes for each notebook above, by student: one batch for both
    (a batch each cost about 7 CPU s more, on every Python this module runs on)."""
    if str(FIXTURES) not in sys.path:
        sys.path.insert(0, str(FIXTURES))
    folder = tmp_path_factory.mktemp("toys")
    for student, cells in {"ivy": IVY, "jo": JO}.items():
        notebook = new_notebook(cells=[new_code_cell(c) for c in cells])
        nbformat.write(notebook, folder / f"{student}.ipynb")
    records = grade_submissions(
        [folder],
        tmp_path_factory.mktemp("out"),
        limits=Limits(cell=10, notebook=60, probe=2),
        registry="toy_exercises",
        import_paths=(str(ROOT), str(FIXTURES)),
        jobs=2,
        progress=False,
    )
    return {record["student"]: record for record in records}


def test_the_grader_grades_each_exercise_in_a_kernel_of_its_own_rules(graded_toys):
    """The real grader on ivy: full marks for shout when one program ran both (main before this
    change); now `shout` is graded where `SHARED` stayed empty."""
    record = graded_toys["ivy"]
    scores = {row["name"]: (row["score"], row["status"]) for row in record["exercises"]}
    assert scores["double"] == (2.0, "passed")
    assert scores["shout"][0] == 0.0


def test_a_module_the_first_run_writes_is_not_imported_when_graded(graded_toys):
    """The first run may write files into the working folder; IPython puts that folder on
    `sys.path` before site-packages, so jo's `regex.py` written there would be what the program
    graded imports as the allowed `regex`. The graded kernel takes the folder off the path."""
    record = graded_toys["jo"]
    scores = {row["name"]: row["score"] for row in record["exercises"]}
    assert scores == {"double": 2.0, "shout": 0.0}
