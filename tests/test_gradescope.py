"""The Gradescope autograder: the bundle's layout, results.json's format, and the bundle run end to
end as Gradescope runs it, on an honest submission that also attacks the grader.

The end-to-end test unzips the bundle into a temporary `autograder/` folder laid out as on
Gradescope (`source/`, `submission/`, `results/`, `run_autograder`) and runs `run_autograder` in
a bubblewrap mount namespace where that folder *is* `/autograder` (the real root is not touched:
the namespace's `/` is a tmpfs with the real top-level folders bound into it). setup.sh is not
run: the apt and pip steps are replaced by this environment's Python (`COURSE_PYTHON`), its data
step by the same `data.fetch_all` call. About 25 CPU s: one lesson 3 notebook, cut to its
exercises.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from lib.exercises import for_lesson
from lib.exercises.plain import to_wire
from lib.grade import main
from lib.grading import gradescope
from lib.grading.gradescope import _write_results
from lib.grading.gradescope_bundle import SECRET_FILE, SETUP_SH, build_bundle
from lib.grading.gradescope_results import results_json
from lib.grading.grading_job import judged
from lib.grading.grading_settings import Settings
from lib.grading.store import KEY_VAR

ROOT = Path(__file__).resolve().parent.parent
LESSON3 = ROOT / "notebooks" / "03_training_bpe.ipynb"
ANSWER = "A bigger vocabulary gives shorter sequences but a larger embedding table."
FORGED = {"score": 999.0, "output": "forged", "tests": []}
# Appended to the grader's own exercise framework by a hostile cell: every exercise passes.
FULL_MARKS = """
def _every_case_passes(self, namespace, time_limit=None):
    return Result(self.name, self.lesson, self.points, self.points, "passed", "all cases passed")
Exercise.grade = _every_case_passes
"""


def record(name: str, lesson: int | None, scores: list[float], **fields) -> dict:
    exercises = [
        {"name": f"ex{i}", "score": s, "max_score": 1.0, "status": "passed", "reason": "ok"}
        for i, s in enumerate(scores)
    ]
    return {
        "student": "ada",
        "submission": f"/autograder/submission/{name}",
        "lesson": lesson,
        "outcome": "graded",
        "note": "",
        "exercises": exercises,
        "events": [],
        "answers": {},
        **fields,
    }


def test_results_count_each_lesson_once_and_say_what_was_not_graded():
    results = results_json(
        [
            record("first.ipynb", 3, [1.0, 0.0]),
            record("again.ipynb", 3, [1.0, 1.0], answers={"why": "Because."}),
            record("other.ipynb", 1, [0.5]),
            record("junk.ipynb", None, [], outcome="unreadable", note="not JSON"),
        ]
    )
    graded = [t for t in results["tests"] if "max_score" in t]
    assert [t["name"] for t in graded] == [
        "Lesson 3: ex0",
        "Lesson 3: ex1",
        "Lesson 1: ex0",
        "junk.ipynb: not graded",
    ]
    assert results["score"] == 2.5 == sum(t["score"] for t in graded)  # again.ipynb counts
    assert "first.ipynb is lesson 3 again: again.ipynb counts." in results["output"]
    assert "junk.ipynb could not be graded (unreadable: not JSON)" in results["output"]
    [answer] = [t for t in results["tests"] if "max_score" not in t]
    assert "score" not in answer and answer["output"].endswith("Because.")


def test_results_say_when_there_is_no_notebook():
    results = results_json([])
    assert results["score"] == 0.0 and results["tests"] == []
    assert "No notebook (.ipynb)" in results["output"]


@pytest.mark.parametrize("left", ["folder", "symlink"])
def test_results_replace_whatever_a_notebook_left_in_their_place(tmp_path, left):
    path, elsewhere = tmp_path / "results" / "results.json", tmp_path / "elsewhere.json"
    path.parent.mkdir()
    elsewhere.write_text("keep")
    if left == "folder":
        (path / "inside").mkdir(parents=True)
    else:
        path.symlink_to(elsewhere)
    _write_results({"score": 1.0}, path)
    assert json.loads(path.read_text()) == {"score": 1.0} and not path.is_symlink()
    assert elsewhere.read_text() == "keep"


def test_cli_builds_a_bundle_gradescope_accepts(tmp_path, capsys):
    assert main(["gradescope", "--out", str(tmp_path / "autograder.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "autograder.zip") as bundle:
        infos = {info.filename: info for info in bundle.infolist()}
    for script in ("setup.sh", "run_autograder"):  # at the zip's root, executable
        assert infos[script].external_attr >> 16 & 0o111, script
    for needed in ("lib/grading/batch.py", "lib/exercises/lesson3/__init__.py", "requirements.txt"):
        assert needed in infos
    assert "notebooks/03_training_bpe.ipynb" in infos and "datasets/manifest.json" in infos
    assert not [n for n in infos if "__pycache__" in n or n.startswith("datasets/cache")]
    assert "Upload it" in capsys.readouterr().out


def test_cli_refuses_an_out_that_is_not_a_zip_file(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["gradescope", "--out", str(tmp_path)])
    assert "give the name of a .zip file" in capsys.readouterr().err


def own_code(solution: str) -> str:
    """The reference solution as an honest student writes it: with their own `get_stats` and
    `merge` from the cells above, not the course's (`bpe.`), so no own-code rule can object."""
    solution = re.sub(r"^from lib import bpe\n", "", solution, flags=re.M)
    solution = solution.replace("from lib import bpe, ", "from lib import ")  # keep the others
    return re.sub(r"\bbpe\.(get_stats|merge)\(", r"\1(", solution)


def lesson3(solved: bool) -> nbformat.NotebookNode:
    notebook = nbformat.read(LESSON3, as_version=4)
    solutions = {e.name: own_code(e.solution_code) for e in for_lesson(3)}
    for cell in notebook.cells:
        if solved and cell.metadata.get("exercise"):
            cell.source = solutions[cell.metadata["exercise"]]
        if solved and cell.metadata.get("answer"):
            cell.source = f"**Your answer:** {ANSWER}"
    return notebook


WRITTEN = {"exercise", "answer"}  # the metadata of cells a student writes in
FORGE = (  # each attack's first line names its cell in the run's events
    "# forge results.json\nimport json, pathlib\n"
    f"pathlib.Path('/autograder/results/results.json').write_text(json.dumps({FORGED!r}))"
)
REWRITE_LIB = (
    "# rewrite the grader's lib\nimport pathlib\n"
    "core = pathlib.Path('/autograder/source/lib/exercises/core.py')\n"
    f"core.write_text(core.read_text() + {FULL_MARKS!r})"
)


def honest_but_hostile() -> nbformat.NotebookNode:
    """Lesson 3 solved, its written answer given, cut to its set-up, imports and the cells a
    student writes in (test_grade grades it whole), plus cells that forge results.json and make
    the grader's own exercise framework give full marks: the honest grade must hold, no more."""
    notebook = lesson3(solved=True)
    notebook.cells = notebook.cells[:3] + [c for c in notebook.cells if c.metadata.keys() & WRITTEN]
    notebook.cells += [new_code_cell(FORGE), new_code_cell(REWRITE_LIB)]
    return notebook


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*.py"))
    }


def as_autograder(root: Path) -> list[str]:
    """bwrap arguments that show `root` at /autograder, in a fresh PID namespace."""
    args = ["bwrap", "--tmpfs", "/"]
    for entry in sorted(Path("/").iterdir()):
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.is_dir() and entry.name not in ("proc", "dev"):
            args += ["--dev-bind", str(entry), str(entry)]
    return args + [
        *("--proc", "/proc", "--dev-bind", "/dev", "/dev", "--bind", str(root), "/autograder"),
        *("--unshare-pid", "--die-with-parent", "--chdir", "/autograder"),
        "/autograder/run_autograder",
    ]


def check_schema(results: dict) -> None:
    assert isinstance(results["score"], float) and isinstance(results["output"], str)
    assert isinstance(results["execution_time"], int)
    for test in results["tests"]:
        assert isinstance(test["name"], str) and isinstance(test["output"], str), test
        assert test["visibility"] == "visible"
        if "score" in test:
            assert isinstance(test["score"], float) and isinstance(test["max_score"], float)
            assert 0 <= test["score"] <= test["max_score"]
            full = 0 < test["score"] == test["max_score"]
            assert test["status"] == ("passed" if full else "failed")
    assert results["score"] == sum(t.get("score", 0.0) for t in results["tests"])


def unpacked_bundle(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The bundle built and unzipped into `tmp_path/source`, its data fetched as setup.sh does;
    and the environment to run it in (this Python as the image's, the bundle's data only)."""
    assert main(["gradescope", "--out", str(tmp_path / "autograder.zip")]) == 0
    source = tmp_path / "source"
    with zipfile.ZipFile(tmp_path / "autograder.zip") as bundle:
        for info in bundle.infolist():  # as unzip does, with each file's mode from the zip
            os.chmod(bundle.extract(info, source), info.external_attr >> 16 & 0o777)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TIKTOKEN_CACHE_DIR")}
    fetch = "from lib import data; data.fetch_all()"  # setup.sh's data step
    subprocess.run([sys.executable, "-c", fetch], cwd=source, env=env, check=True)
    env.pop("COURSE_DATA_MIRROR", None)  # from here on, only the bundle's own data cache
    return source, {**env, "COURSE_PYTHON": sys.executable}


def start_autograder(
    source: Path, root: Path, notebook: nbformat.NotebookNode, env: dict[str, str]
) -> subprocess.Popen:
    """`root` laid out as Gradescope's /autograder with `notebook` submitted, and
    `run_autograder` started there (see `as_autograder`)."""
    shutil.copytree(source, root / "source")
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    (root / "results").mkdir()
    (root / "submission").mkdir()
    nbformat.write(notebook, root / "submission" / "03_training_bpe.ipynb")
    command = as_autograder(root)
    command[0] = shutil.which("bwrap")  # the real one, whatever PATH says inside
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def finished(root: Path, process: subprocess.Popen, seconds: float = 480) -> dict:
    """The results.json of a finished run, its format checked."""
    log = process.communicate(timeout=seconds)[0].decode(errors="replace")
    assert process.returncode == 0, log
    results = json.loads((root / "results" / "results.json").read_text())
    check_schema(results)
    return results


@pytest.mark.end_to_end
@pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap (`bwrap`) on PATH")
def test_bundle_grades_an_honest_submission_under_attack_end_to_end(tmp_path):
    """One run (a run each for an honest and a hostile notebook cost twice the CPU): forging
    results.json would show as a score of 999, a changed lib as a changed fingerprint and a
    zero ("not graded")."""
    source, env = unpacked_bundle(tmp_path)
    root = tmp_path / "autograder"
    process = start_autograder(source, root, honest_but_hostile(), env)
    results = finished(root, process)

    assert fingerprint(root / "source" / "lib") == fingerprint(source / "lib"), results["output"]
    assert f"(`{REWRITE_LIB.splitlines()[0]}`) raised" in results["output"]  # refused at once
    exercises = for_lesson(3)
    graded = [t for t in results["tests"] if "max_score" in t]
    assert [t["name"] for t in graded] == [f"Lesson 3: {e.name}" for e in exercises], results
    assert [t["score"] for t in graded] == [float(e.points) for e in exercises], results
    assert results["score"] == sum(e.points for e in exercises) == 7
    [answer] = [t for t in results["tests"] if "max_score" not in t]
    assert answer["name"] == "Lesson 3: written answer `vocab_size`" and ANSWER in answer["output"]


def test_a_lesson_bundle_scores_only_its_lesson():
    uploaded = [record("l1.ipynb", 1, [1.0, 1.0]), record("l3.ipynb", 3, [1.0, 1.0, 1.0])]
    assert results_json(uploaded)["score"] == 5.0  # all lessons added up: 5 of lesson 1's 2
    results = results_json(uploaded, lesson=1)
    assert results["score"] == 2.0
    assert [t["name"] for t in results["tests"]] == ["Lesson 1: ex0", "Lesson 1: ex1"]
    assert "l3.ipynb is lesson 3: not scored here" in results["output"]
    only_other = results_json(uploaded[1:], lesson=1)
    assert only_other["score"] == 0 and "No notebook of lesson 1" in only_other["output"]


def test_cli_builds_a_bundle_for_one_lesson_and_names_its_points(tmp_path, capsys):
    assert main(["gradescope", "--out", str(tmp_path / "l5.zip"), "--lesson", "5"]) == 0
    with zipfile.ZipFile(tmp_path / "l5.zip") as bundle:
        script = bundle.read("run_autograder").decode()
    assert script.rstrip().endswith("results.json --lesson 5")
    assert "set the assignment's points to 11" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["gradescope", "--out", str(tmp_path / "l99.zip"), "--lesson", "99"])


def test_setup_stops_with_a_clear_message_on_an_old_python(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "apt-get").write_text("#!/bin/sh\nexit 0\n")  # Ubuntu 20.04's image: python3 is 3.8
    (fake / "python3").write_text(
        '#!/bin/sh\n[ "$1" = -V ] && echo "Python 3.8.10" && exit 0\nexit 1  # too old\n'
    )
    for tool in fake.iterdir():
        tool.chmod(0o755)
    setup = tmp_path / "setup.sh"
    setup.write_text(SETUP_SH.replace("{lesson}", ""))
    env = {"PATH": f"{fake}:/usr/bin:/bin"}
    done = subprocess.run(["bash", str(setup)], env=env, capture_output=True, text=True)
    assert done.returncode == 1
    assert "python3 is Python 3.8.10; the course needs 3.10 or later" in done.stderr
    assert "Ubuntu 22.04" in done.stderr


def test_the_grading_page_lists_each_lessons_points():
    from lib.grading.gradescope_bundle import lesson_totals

    page = (Path(__file__).resolve().parents[1] / "lib" / "grading" / "GRADING.md").read_text()
    lessons = re.search(r"^\| Lesson \|(.*)\|$", page, re.M).group(1).split("|")
    points = re.search(r"^\| Points \|(.*)\|$", page, re.M).group(1).split("|")
    listed = {int(n): float(p) for n, p in zip(lessons, points, strict=True)}
    assert listed == lesson_totals()


def test_every_container_draws_a_student_the_same_hidden_cases(tmp_path, monkeypatch):
    """Red team 11, door 3: a fresh container made a fresh signing key, so every submission drew
    new hidden cases and a partly right answer could resubmit until lucky (0.47 to 0.76 of 1).
    The bundle carries a salt made from the instructor's key (not the key), root's alone in the
    image; with it and the id in submission_metadata.json, two fresh containers give a student
    the same cases and another student other ones."""
    monkeypatch.setenv(KEY_VAR, str(tmp_path / "instructor-key"))
    build_bundle(tmp_path / "autograder.zip", 1)
    with zipfile.ZipFile(tmp_path / "autograder.zip") as bundle:
        mode = bundle.getinfo(SECRET_FILE).external_attr >> 16 & 0o777
        salt = bundle.read(SECRET_FILE).decode().strip()
    key = (tmp_path / "instructor-key").read_text().strip()
    assert mode == 0o600 and len(salt) == 32 and salt not in key
    assert f"chown root:root {SECRET_FILE} && chmod 600 {SECRET_FILE}" in SETUP_SH
    monkeypatch.delenv(KEY_VAR)  # a fresh container: no key given, none in its home folder
    monkeypatch.setattr(gradescope, "choose", lambda **options: True)
    exercise = next(e for e in for_lesson(1) if e.name == "utf8_encode")
    drawn = {}
    for container, student in [("one", 111), ("two", 111), ("other", 222)]:
        root = tmp_path / container
        (root / "submission").mkdir(parents=True)
        (root / "submission_metadata.json").write_text(json.dumps({"users": [{"id": student}]}))
        (root / SECRET_FILE).write_text(f"{salt}\n")
        monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
        monkeypatch.setattr(gradescope, "SECRET_PATH", root / SECRET_FILE)
        asked = {}

        def grade(paths, out, **options):
            asked.update(options)  # noqa: B023 (called at once, in this iteration)
            return []

        monkeypatch.setattr(gradescope, "grade_submissions", grade)
        gradescope.run(root / "submission", root / "results" / "results.json", 1)
        assert asked["with_reports"] is False  # its out folder is thrown away: no chart drawn
        settings = Settings(salt=asked["salt"], student_id=asked["student_id"])
        cases = settings.cases_of(exercise, settings.student_id)
        drawn[container] = [case.args for case in cases if case.hidden]
    assert drawn["one"] == drawn["two"] != drawn["other"]


def test_a_group_runs_every_members_own_draw_and_is_scored_on_its_worst() -> None:
    """A group's submission runs each member's own hidden cases (the ones they draw alone) and
    scores each exercise on the member's draw it does worst on: a partner never redraws a
    student's cases, so choosing partners is no lottery (red team 12, door C)."""
    exercise = next(e for e in for_lesson(1) if e.name == "utf8_encode")
    group = Settings(salt="s", student_id="1001+2002")
    assert group.members_of(None) == ["1001", "2002"]
    cases, draws = group.group_cases(exercise, group.members_of(None))
    alone = Settings(salt="s").cases_of(exercise, "1001")
    partner = Settings(salt="s").cases_of(exercise, "2002")
    assert [cases[i] for i in draws[0]] == alone and [cases[i] for i in draws[1]] == partner
    # Right on every case but the partner's last hidden one: the group scores the partner's draw.
    outcomes = [
        {"returned": to_wire(chr(c.args[0]).encode("utf-8", "surrogatepass"))} for c in cases
    ]
    outcomes[-1] = {"returned": to_wire(b"")}
    row = judged(exercise, cases, {"outcomes": outcomes}, draws)
    assert 0 < row["score"] < exercise.points
    assert judged(exercise, cases[: len(alone)], {"outcomes": outcomes}, None)["score"] == (
        exercise.points
    )
