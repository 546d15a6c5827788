"""The similarity report: copied code is flagged under renamed variables, independent code is not,
code copied from `solution()` is marked, hostile text is escaped, bad input never crashes.

The students' notebooks are lesson 3's handout with their own code in the exercise cells, read
the way the grader reads them (`exercise_code`); no kernel runs, so this takes seconds.
"""

from __future__ import annotations

import ast
import csv
import html
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from lib.grading import reports, similarity
from lib.grading.exercise_code import exercise_code
from lib.grading.notebook import handouts, load_catalog, solutions_opened
from lib.grading.solved import solved
from lib.grading.submissions import read_notebook

pytestmark = pytest.mark.scale  # copydetect's comparisons; reading code: test_own_code.py

ROOT = Path(__file__).resolve().parents[1]
LESSON3 = ROOT / "notebooks" / "03_training_bpe.ipynb"

BOB = '''\
def merge(ids, pair, new_id):
    """Replace every occurrence of pair, left to right."""
    result = []
    position = 0
    while position < len(ids):
        here = tuple(ids[position : position + 2])
        if here == pair:
            result.append(new_id)
            position = position + 2
        else:
            result.append(ids[position])
            position = position + 1
    return result
'''
# Bob's code with other names, no docstring, other spacing and a comment: the same code.
CID = """\
def merge(tokens, target, replacement):
    # walk along the list
    merged = []
    k = 0
    while k < len(tokens):
        window = tuple(tokens[k:k+2])
        if window == target:
            merged.append(replacement); k = k + 2
        else:
            merged.append(tokens[k])
            k = k + 1
    return merged
"""
# Written independently: another way to the same answer.
ANN = """\
def merge(ids, pair, new_id):
    out, skip = [], False
    for left, right in zip(ids, ids[1:] + [None]):
        if skip:
            skip = False
        elif (left, right) == pair:
            out.append(new_id)
            skip = True
        else:
            out.append(left)
    return out
"""


def notebook_with(code: str, opened: bool = False) -> nbformat.NotebookNode:
    """Lesson 3 as handed out, with `code` in the merge exercise's cell (and, if `opened`, the
    output that `ex.merge.solution()` leaves in a notebook)."""
    notebook = read_notebook(LESSON3)
    for cell in notebook.cells:
        if cell.metadata.get("exercise") == "merge":
            cell.source = code
            if opened:
                mark = {similarity_mime(): {"exercise": "merge"}, "text/plain": "One solution"}
                cell.outputs = [nbformat.v4.new_output("display_data", data=mark)]
    return notebook


def similarity_mime() -> str:
    from lib.exercises.core import SOLUTION_MIME

    return SOLUTION_MIME


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def references(catalog):
    return similarity.references(catalog, handouts(ROOT / "notebooks"))


def record(student: str, notebook: nbformat.NotebookNode, catalog, lesson: int = 3) -> dict:
    """A graded record as `grade_one` makes it, without running anything."""
    code, unparsable = exercise_code(notebook, catalog[lesson])
    exercises = [
        {
            "name": e.name,
            "score": 0.0,
            "max_score": float(e.points),
            "status": "passed",
            "reason": "",
        }
        for e in catalog[lesson]
    ]
    return {
        "student": student, "submission": f"{student}.ipynb", "sha256": student, "lesson": lesson,
        "outcome": "graded", "note": "", "exercises": exercises, "events": [], "answers": {},
        "solutions": solutions_opened(notebook), "sandboxed": True, "graded_at": "2026-01-01",
        "seconds": 1.0, "code": code, "unparsable": unparsable,
    }  # fmt: skip


def test_renamed_copy_is_flagged_and_independent_code_is_not(catalog, references):
    three = [("ann", ANN), ("bob", BOB), ("cid", CID)]
    records = [record(name, notebook_with(code), catalog) for name, code in three]
    found = similarity.class_findings(records, references)["merge"]
    pairs = {(found.entries[a].student, found.entries[b].student): s for a, b, s, *_ in found.pairs}
    assert list(pairs) == [("bob", "cid")]
    assert pairs[("bob", "cid")] >= similarity.FLAGGED
    assert [e.student for e in found.entries] == ["ann", "bob", "cid"]  # all three compared
    assert all(e.solution_score < similarity.SAME_AS_SOLUTION for e in found.entries)


def test_code_copied_from_solution_is_marked_with_the_solution_opened(
    catalog, references, tmp_path
):
    solution = next(e for e in catalog[3] if e.name == "merge").solution_code
    dee = record("dee", notebook_with(solution, opened=True), catalog)
    ann = record("ann", notebook_with(ANN), catalog)
    reports.write_all(tmp_path, [ann, dee], {}, charts=True, references=references)
    grades = list(csv.DictReader((tmp_path / "grades.csv").open()))
    merge = {g["student"]: g for g in grades if g["exercise"] == "merge"}
    assert (merge["dee"]["solution_opened"], merge["dee"]["matches_solution"]) == ("yes", "yes")
    assert (merge["ann"]["solution_opened"], merge["ann"]["matches_solution"]) == ("no", "no")
    stubs = [g["matches_solution"] for g in grades if g["exercise"] == "get_stats"]
    assert stubs == ["no", "no"]  # the stub as handed out is compared, and is not the solution
    rows = list(csv.DictReader((tmp_path / "similarity.csv").open()))
    assert [(r["kind"], r["student"], r["opened_solution"]) for r in rows] == [
        ("same as solution", "dee", "yes")
    ]
    page = (tmp_path / "similarity.html").read_text()
    assert 'dee <span class="opened">(opened the solution)</span>: 100%' in page
    assert "a hint for a human, never a verdict" in page


def test_the_stub_and_handed_out_code_are_never_a_match(catalog, references):
    stubs = [record(n, read_notebook(LESSON3), catalog) for n in ("ann", "bob", "cid")]
    findings = similarity.class_findings(stubs, references)
    assert all(not f.pairs and not f.entries for f in findings.values())
    assert findings["merge"].stubs == 3


def test_only_the_counting_versions_are_compared(catalog, references, tmp_path):
    first = record("bob", notebook_with(BOB), catalog)
    again = {**record("bob", notebook_with(BOB), catalog), "submission": "bob (2).ipynb"}
    first["exercises"][1]["score"] = 1.0  # the first version scores higher: it counts
    reports.write_all(tmp_path, [first, again], {}, charts=True, references=references)
    assert list(csv.DictReader((tmp_path / "similarity.csv").open())) == []
    assert "this folder holds the work of one student" in (tmp_path / "similarity.html").read_text()


def test_hostile_names_and_code_are_escaped_and_unparsable_code_is_listed(
    catalog, references, tmp_path
):
    evil = '<img src=x onerror="alert(1)">'
    bad_code = "def merge(ids, pair, new_id):\n    return </pre><script>alert(2)</script>\n"
    copied = BOB.replace(
        "    return result", "    return result  # </pre><script>alert(3)</script>"
    )
    records = [
        record(evil, notebook_with(copied), catalog),
        record("bob", notebook_with(BOB), catalog),
        record("eve", notebook_with(bad_code), catalog),
    ]
    reports.write_all(tmp_path, records, {}, charts=True, references=references)
    page = (tmp_path / "similarity.html").read_text()
    assert "<script>" not in page and "<img" not in page
    assert html.escape(evil) in page and "&lt;/pre&gt;&lt;script&gt;alert(3)" in page
    assert "Unparsable (not compared): eve" in page and "alert(2)" in page
    rows = list(csv.DictReader((tmp_path / "similarity.csv").open()))
    assert [(r["kind"], {r["student"], r["other"]}) for r in rows] == [
        ("pair", {evil, "bob"}),
        ("unparsable", {"eve", ""}),
    ]
    grades = list(csv.DictReader((tmp_path / "grades.csv").open()))
    eve = {g["exercise"]: g["matches_solution"] for g in grades if g["student"] == "eve"}
    assert eve["merge"] == ""  # unparsable: nothing to compare


def _binding(code: str, target: str) -> str:
    """The statement of `code` that defines `target`, as an AST dump."""
    for node in ast.parse(code).body:
        names = [getattr(node, "name", None)]
        names += [getattr(t, "id", None) for t in getattr(node, "targets", [])]
        if target in names:
            return ast.dump(node)
    return ""


def test_every_lessons_solved_notebook_yields_its_solutions_as_code(catalog):
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = solved(read_notebook(path))
        lesson = notebook.metadata["course"]["lesson"]
        code, unparsable = exercise_code(notebook, catalog[lesson])
        assert unparsable == []
        for exercise in catalog[lesson]:
            wanted = _binding(exercise.solution_code, exercise.target)
            assert wanted and wanted == _binding(code[exercise.name], exercise.target)


SCORES = """
import io, sys
sys.path[:0] = ["tests", "."]
from copydetect import CodeFingerprint, compare_files
from lib.grading import similarity
from test_similarity import ANN, BOB, CID
pairs = [(BOB, CID), (ANN, BOB), (ANN, CID)]
ours = [similarity._compared(similarity._fingerprint(a, ""), similarity._fingerprint(b, ""))[0]
        for a, b in pairs]
theirs = lambda code: CodeFingerprint("c.py", 25, 6, fp=io.StringIO(code), language="python")
copydetects = [min(compare_files(theirs(a), theirs(b))[1]) for a, b in pairs]
sys.stdout.write(repr((ours, [float(s) for s in copydetects])))
"""


def test_a_pairs_score_is_the_same_in_every_run():
    """copydetect hashes with Python's salted `hash`, so its score of one pair moved between runs
    (Bob and Cid: 0.86 under hash seed 1, 0.81 under 2); ours must not move."""
    runs = []
    for seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-c", SCORES],
            cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        runs.append(ast.literal_eval(run.stdout))
    ours, copydetects = zip(*runs, strict=True)
    assert copydetects[0] != copydetects[1], "these seeds do not move copydetect's own score"
    assert ours[0] == ours[1]
    assert ours[0][0] >= similarity.FLAGGED and ours[0][1:] == [0.0, 0.0]
