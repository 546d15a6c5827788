"""The Gradescope autograder bundle: the zip an instructor uploads as an assignment's autograder.

At its root, `setup.sh` (Gradescope runs it once, as root and with network, to build the image:
Python, bubblewrap, the course's requirements and data, then the self-test, so an image that
cannot grade fails at upload) and `run_autograder` (run for every submission: it calls
`python -m lib.grade gradescope-run`, `lib.grading.gradescope.run`). Beside them, the course's
files, and `SECRET_FILE`: the hidden cases' salt, a secret of the instructor's signing key (never
the key), so that every fresh container draws a student the same hidden cases; setup.sh makes it
root's alone, out of the kernels' reach. A bundle built with a lesson scores only that lesson's
notebooks.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from lib.grading.notebook import load_catalog
from lib.grading.store import secret, signing_key

ROOT = Path(__file__).resolve().parents[2]
# The grader and exercises, the pinned environment, the lessons as handed out (the written
# answers' questions) and the data manifest (setup.sh fetches the data itself).
BUNDLED = ["lib", "notebooks", "datasets", "requirements.txt"]
LEFT_OUT = {"__pycache__", ".ipynb_checkpoints"}
DATA_CACHE = Path("datasets", "cache")  # fetched on Gradescope by setup.sh, never shipped
SECRET_FILE = "hidden-cases.secret"  # at the bundle's root: no kernel is shown it
SECRET_PURPOSE = "hidden cases on Gradescope"  # not the batch grader's salt: a zip can travel

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
cd /autograder/source
# The hidden cases' salt (see gradescope_bundle): root's alone, before any student code runs.
test -s hidden-cases.secret || { echo "hidden-cases.secret is missing: build again" >&2; exit 1; }
chown root:root hidden-cases.secret && chmod 600 hidden-cases.secret
# Grading runs without network: every file the lessons read is fetched now (sha256-checked).
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
    salt = secret(signing_key(), SECRET_PURPOSE)  # the instructor's key, made on first use
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
            add(archive, SECRET_FILE, f"{salt}\n".encode(), 0o600)
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
