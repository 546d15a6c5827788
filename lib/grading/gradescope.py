"""The same grader on Gradescope: an autograder bundle, and its results in Gradescope's format.

Gradescope builds an image from the bundle once (`setup.sh`, as root, with network), then runs
`run_autograder` in a fresh container per submission: the student's files in
`/autograder/submission`, the bundle in `/autograder/source`; `/autograder/results/results.json`
is the grade. One student per container, so a class of any size grades in parallel. A bundle
built for one lesson (`--lesson N`, one Gradescope assignment per lesson) scores only that
lesson's notebooks: a student who uploads lessons 1 and 3 to lesson 1 gets lesson 1's points,
and lesson 3 is listed as not scored.

`run` grades the submission's notebooks with `grade_submissions`, as `python -m lib.grade` does,
then writes results.json last, over anything a notebook put there. Gradescope's containers
usually refuse the namespaces bubblewrap needs; each kernel then runs as an unprivileged user of
its own (`sandbox.choose`), which cannot write the grader's code, the Python environment or the
results folder, and whose every process is killed before results.json is written. As a last
check, `lib` is fingerprinted before any student code runs and nothing is graded (score 0,
reason given) if a notebook changed it. results.json says which protections were in force.
"""

from __future__ import annotations

import compileall
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from lib.grading import protections
from lib.grading.batch import grade_submissions
from lib.grading.notebook import load_catalog
from lib.grading.sandbox import choose

ROOT = Path(__file__).resolve().parents[2]
# The grader and exercises, the pinned environment, the lessons as handed out (the written
# answers' questions) and the data manifest (setup.sh fetches the data itself).
BUNDLED = ["lib", "notebooks", "datasets", "requirements.txt"]
LEFT_OUT = {"__pycache__", ".ipynb_checkpoints"}
DATA_CACHE = Path("datasets", "cache")  # fetched on Gradescope by setup.sh, never shipped
BOXED = (
    "Protections: your notebook ran in a bubblewrap sandbox (no network, the course and Python "
    "read-only, a private copy of your files), as a user of its own, with memory, process and "
    "file-size limits."
)
OWN_USER = (
    "Protections: this container cannot make the namespaces of a sandbox, so your notebook ran "
    "as an unprivileged user of its own, with memory, process and file-size limits, in a private "
    "copy of your files; it could not write the grader's code, Python or the results, and every "
    "process it started was stopped before the results were written."
)
MEMORY_BOX = "Its memory was capped as a whole, all its processes together."
MEMORY_PROCESS = "Its memory was capped per process (this container allows no memory cgroup)."
CPU_SHARED = "All its processes together had one share of the CPU, however many it started."
ANSWER_LIMIT = 5_000  # characters of a written answer shown back to the student

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root and with network, when it builds the autograder image.
set -euo pipefail
apt-get update
apt-get install -y python3 python3-venv python3-pip bubblewrap
# requirements.txt needs Python 3.10 or later: Ubuntu 20.04's python3 is 3.8. Stop here, where the
# instructor sees it, rather than build an image that cannot grade.
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
    echo "This base image's python3 is $(python3 -V 2>&1); the course needs 3.10 or later." >&2
    echo "Choose Gradescope's Ubuntu 22.04 (or later) base image and rebuild." >&2
    exit 1
}
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --no-cache-dir -r /autograder/source/requirements.txt
# Grading runs without network: every file the lessons read is fetched now (sha256-checked).
cd /autograder/source
/autograder/venv/bin/python -c "from lib import data; data.fetch_all()"
# Last: grade the bundle's lessons' own solutions here, so an image that cannot grade fails now,
# when the instructor uploads it, and not at the first student's submission.
/autograder/venv/bin/python -m lib.grade selftest --sandbox-if-available --no-progress{lesson}
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission. COURSE_PYTHON: a Python that already has
# requirements.txt (the tests use their own instead of the image's venv).
cd /autograder/source || exit 1
exec "${{COURSE_PYTHON:-/autograder/venv/bin/python}}" -m lib.grade gradescope-run \\
    /autograder/submission /autograder/results/results.json{lesson}
"""


def _bundled_files() -> list[Path]:
    files = []
    for name in BUNDLED:
        top = ROOT / name
        found = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in found:
            relative = path.relative_to(ROOT)
            if not (LEFT_OUT & set(relative.parts) or relative.is_relative_to(DATA_CACHE)):
                files.append(path)
    return files


def build_bundle(out_zip: Path, lesson: int | None = None) -> list[str]:
    """Write the autograder zip (setup.sh and run_autograder at its root, as Gradescope requires,
    beside the course files); with `lesson`, one that scores only that lesson. Returns the names
    in the zip."""
    # A bundle for one lesson tests and scores that lesson only: on Gradescope's default half a
    # CPU, the slowest lesson need not hold up (or fail) the image of another.
    only = f" --lesson {lesson}" if lesson else ""
    setup_script = SETUP_SH.replace("{lesson}", only)  # a shell script: braces of its own
    run_script = RUN_AUTOGRADER.format(lesson=only)

    def add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # same files, same zip
        info.external_attr, info.compress_type = (0o100000 | mode) << 16, zipfile.ZIP_DEFLATED
        archive.writestr(info, data)

    out_zip = Path(out_zip)
    out_zip.parent.mkdir(parents=True, exist_ok=True)
    partial = out_zip.with_name(out_zip.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            add(archive, "setup.sh", setup_script.encode(), 0o755)
            add(archive, "run_autograder", run_script.encode(), 0o755)
            for path in _bundled_files():
                add(archive, path.relative_to(ROOT).as_posix(), path.read_bytes(), 0o644)
            names = archive.namelist()
        os.replace(partial, out_zip)
    finally:
        partial.unlink(missing_ok=True)
    return names


def lesson_totals() -> dict[int, float]:
    """Each lesson's points, the total to give its Gradescope assignment."""
    return {n: sum(e.points for e in ex) for n, ex in load_catalog("lib.exercises").items()}


def _test(name: str, output: str, points: tuple[float, float] | None = None) -> dict:
    """One entry of results.json's `tests`: with `points` (score, max_score) a graded test,
    without them a message shown in the list, worth nothing."""
    test = {"name": name, "output": output, "visibility": "visible"}
    if points is not None:
        score, most = points
        status = "passed" if score >= most > 0 else "failed"
        test.update(score=score, max_score=most, status=status)
    return test


def _nothing(output: str) -> dict:
    return {"score": 0.0, "output": output, "tests": []}


def _score(record: dict) -> float:
    return sum(float(e.get("score") or 0) for e in record.get("exercises") or [])


def _record_tests(record: dict) -> list[dict]:
    """A test per exercise, then the written answers as tests without points (the instructor
    marks them by hand), each cut to ANSWER_LIMIT characters."""
    lesson, tests = record.get("lesson"), []
    for e in record["exercises"]:
        output = f"{e.get('status', '')}: {e.get('reason', '')}".strip(": ")
        points = (float(e.get("score") or 0), float(e.get("max_score") or 0))
        tests.append(_test(f"Lesson {lesson}: {e.get('name', '?')}", output, points))
    for answer_id, text in (record.get("answers") or {}).items():
        shown = text if len(text) <= ANSWER_LIMIT else text[:ANSWER_LIMIT] + "\n[… cut here]"
        output = f"Marked by hand by your instructor. Your answer:\n\n{shown or '(empty)'}"
        tests.append(_test(f"Lesson {lesson}: written answer `{answer_id}`", output))
    return tests


def results_json(records: list[dict], lesson: int | None = None) -> dict:
    """Gradescope's results.json for one submission's records: a test per exercise (score,
    max_score, output, visibility), the written answers as tests without points, and the total.
    Of several notebooks of one lesson, the best-scoring one counts (the others are listed).
    With `lesson`, notebooks of other lessons are listed, not scored."""
    if not records:
        return _nothing(
            "No notebook (.ipynb) found in your submission: upload your lesson's .ipynb file "
            "(on Colab: File → Download → Download .ipynb)."
        )
    elsewhere = [r for r in records if lesson and r.get("lesson") not in (None, lesson)]
    records = [r for r in records if r not in elsewhere]
    best: dict[object, dict] = {}
    for record in sorted(records, key=lambda r: (-_score(r), r.get("submission", ""))):
        if record.get("exercises"):
            best.setdefault(record.get("lesson"), record)
    tests, lines = [], []
    if lesson and not best:
        lines.append(f"No notebook of lesson {lesson} was found in your submission.")
    lines += [
        f"{Path(r.get('submission', '?')).name} is lesson {r['lesson']}: not scored here "
        f"(this assignment grades lesson {lesson}; upload it to lesson {r['lesson']}'s)."
        for r in elsewhere
    ]
    for record in records:
        name, lesson = Path(record.get("submission", "?")).name, record.get("lesson")
        if not record.get("exercises"):
            why = f"{record.get('outcome', 'not graded')}: {record.get('note', '')}".strip(": ")
            lines.append(f"{name} could not be graded ({why}); it scores 0.")
            tests.append(_test(f"{name}: not graded", why, (0.0, 0.0)))
        elif best[lesson] is not record:
            kept = Path(best[lesson].get("submission", "?")).name
            lines.append(f"{name} is lesson {lesson} again: {kept} counts.")
        else:
            lines.append(f"{name}: lesson {lesson}, {_score(record):g} points.")
            tests += _record_tests(record)
            lines += [f"  while it ran: {event}" for event in record.get("events") or []]
            if record.get("solutions"):
                lines.append(f"  solution shown for: {', '.join(map(str, record['solutions']))}")
            if record.get("sandboxed") is False:
                lines.append("  graded without the sandbox (the instructor turned it off)")
    score = sum(t.get("score", 0.0) for t in tests)
    return {"score": score, "output": "\n".join(lines), "tests": tests}


def _fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _write_results(results: dict, path: Path) -> None:
    """Write results.json through a rename, replacing whatever a notebook left at `path` (a file,
    a symbolic link or a folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as file:
        json.dump(results, file, indent=1, ensure_ascii=False)
    os.replace(file.name, path)


def student_id(submission_dir: Path) -> str:
    """Whose submission this is, from Gradescope's `submission_metadata.json` next to the
    submission folder (a group's ids joined), so the hidden cases are drawn for that student;
    "" when it is missing or unreadable (the notebook's file name is used then)."""
    try:
        metadata = json.loads((submission_dir.parent / "submission_metadata.json").read_text())
        return "+".join(sorted(str(user["id"]) for user in metadata["users"]))
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def _not_writable_by_others(folders: list[Path]) -> None:
    """Take group and other write permission off `folders` and everything in them."""
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            for path in [root, *(os.path.join(root, name) for name in dirs + files)]:
                mode = os.lstat(path).st_mode
                if mode & 0o022 and not stat.S_ISLNK(mode):
                    os.chmod(path, stat.S_IMODE(mode) & ~0o022)


def run(submission_dir: Path, results_path: Path, lesson: int | None = None) -> dict:
    """Grade every notebook in `submission_dir` and write Gradescope's results to `results_path`
    (with `lesson`, scoring only that lesson's). Never raises for what the submission contains:
    whatever happens, results.json says it."""
    started = time.monotonic()
    # Compiled first, so that the kernels' own imports add no files and any change is the student's.
    compileall.compile_dir(ROOT / "lib", quiet=1)
    before = _fingerprint(ROOT / "lib")
    try:
        boxed = choose(own_user_fallback=True)
        if not boxed:  # the kernels' user must not write what we trust, or copy from
            trusted = [ROOT / "lib", Path(results_path).parent, Path(sys.prefix), submission_dir]
            _not_writable_by_others(trusted)
        with tempfile.TemporaryDirectory(prefix="gradescope-out-") as out:
            records = grade_submissions(
                [submission_dir],
                out,
                progress=False,
                own_user_fallback=True,
                student_id=student_id(submission_dir),
            )
        results = results_json(records, lesson)
        held = protections.in_common(records)[0]
        memory = MEMORY_BOX if protections.MEMORY in held else MEMORY_PROCESS
        memory += " " + CPU_SHARED if protections.CPU in held else ""
        results["output"] += "\n\n" + (BOXED if boxed else OWN_USER) + " " + memory
    except Exception as error:  # the grader itself failed: say so rather than leave no results
        results = _nothing(
            f"The autograder failed ({type(error).__name__}: {error}). Please tell your instructor."
        )
    after = _fingerprint(ROOT / "lib")
    changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    if changed:
        results = _nothing(
            "Not graded: code in your notebook changed the grader's own files "
            f"(lib/{', lib/'.join(changed[:5])}). Remove that code and submit again."
        )
    results["execution_time"] = round(time.monotonic() - started)
    _write_results(results, Path(results_path))
    return results
