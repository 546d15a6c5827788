"""The same grader on Gradescope: one submission graded in its container, results.json written.

Gradescope builds an image from the bundle once (`gradescope_bundle`), then runs
`run_autograder` in a fresh container per submission: the student's files in
`/autograder/submission`, the bundle in `/autograder/source`; `/autograder/results/results.json`
is the grade (`gradescope_results` makes it). One student per container, so a class of any size
grades in parallel. The hidden cases are drawn for the student in `submission_metadata.json` with
the bundle's salt (`bundled_salt`), so every container gives a student the same ones. A bundle
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
from pathlib import Path

from lib.grading import protections, user_python
from lib.grading.batch import grade_submissions
from lib.grading.gradescope_bundle import ROOT, SECRET_FILE
from lib.grading.gradescope_results import nothing, results_json
from lib.grading.sandbox import choose

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
FENCED = "It could write only in its own folders, not in the container's shared /tmp."
MEMORY_BOX = "Its memory was capped as a whole, all its processes together."
MEMORY_PROCESS = "Its memory was capped per process (this container allows no memory cgroup)."
CPU_SHARED = "All its processes together had one share of the CPU, however many it started."


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
    submission folder (a group's ids joined by "+", each member's hidden cases drawn:
    `Settings.members_of`); "" when it is missing or unreadable (the notebook's file name is
    used then)."""
    try:
        metadata = json.loads((submission_dir.parent / "submission_metadata.json").read_text())
        return "+".join(sorted(str(user["id"]) for user in metadata["users"]))
    except (OSError, ValueError, KeyError, TypeError):
        return ""


SECRET_PATH = ROOT / SECRET_FILE


def bundled_salt() -> str:
    """The hidden cases' salt the bundle carries (`gradescope_bundle.SECRET_FILE`), the same in
    every container made from it, so a student draws the same hidden cases on every submission;
    "" outside a bundle (the signing key's secret is used then, as `lib.grade` uses it)."""
    try:
        return SECRET_PATH.read_text().strip()
    except FileNotFoundError:
        return ""


def _not_writable_by_others(folders: list[Path]) -> None:
    """Take group and other write permission off `folders` and everything in them."""
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            for path in [root, *(os.path.join(root, name) for name in dirs + files)]:
                mode = os.lstat(path).st_mode
                if mode & 0o022 and not stat.S_ISLNK(mode):
                    os.chmod(path, stat.S_IMODE(mode) & ~0o022)


def run(
    submission_dir: Path,
    results_path: Path,
    lesson: int | None = None,
    allow_blocked_python: bool = False,
) -> dict:
    """Grade every notebook in `submission_dir` and write Gradescope's results to `results_path`
    (with `lesson`, scoring only that lesson's; `allow_blocked_python`: see `sandbox.choose`).
    Never raises for what the submission contains: whatever happens, results.json says it."""
    started = time.monotonic()
    # Compiled first, so that the kernels' own imports add no files and any change is the student's.
    compileall.compile_dir(ROOT / "lib", quiet=1)
    before = _fingerprint(ROOT / "lib")
    try:
        boxed = choose(own_user_fallback=True, allow_blocked_python=allow_blocked_python)
        if not boxed:  # the kernels' user must not write what we trust, or copy from
            trusted = [ROOT / "lib", Path(results_path).parent, Path(sys.prefix), submission_dir]
            _not_writable_by_others(trusted)
        with tempfile.TemporaryDirectory(prefix="gradescope-out-") as out:
            records = grade_submissions(
                [submission_dir],
                out,
                progress=False,
                own_user_fallback=True,
                allow_blocked_python=allow_blocked_python,
                student_id=student_id(submission_dir),
                salt=bundled_salt(),
                with_reports=False,  # `out` is thrown away: results.json is made of the records
            )
        results = results_json(records, lesson)
        held = protections.in_common(records)[0]
        notes = [BOXED if boxed else OWN_USER, *([FENCED] if protections.FENCE in held else [])]
        notes.append(MEMORY_BOX if protections.MEMORY in held else MEMORY_PROCESS)
        notes += [CPU_SHARED] if protections.CPU in held else []
        results["output"] += "\n\n" + " ".join(notes)
        if not boxed and user_python.blocked():  # graded on with --allow-blocked-python: first
            results["output"] = f"{user_python.blocked()}\n\n{results['output']}"
    except Exception as error:  # the grader itself failed: say so rather than leave no results
        results = nothing(
            f"The autograder failed ({type(error).__name__}: {error}). Please tell your instructor."
        )
    after = _fingerprint(ROOT / "lib")
    changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    if changed:
        results = nothing(
            "Not graded: code in your notebook changed the grader's own files "
            f"(lib/{', lib/'.join(changed[:5])}). Remove that code and submit again."
        )
    results["execution_time"] = round(time.monotonic() - started)
    _write_results(results, Path(results_path))
    return results
