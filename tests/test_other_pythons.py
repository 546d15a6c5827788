"""The README's oldest and newest Python install the course and pass its unit tests.

`python -m pytest` runs on one interpreter. This test takes the other ends of the promised range
(Python 3.10 and 3.13 when the README says "3.10 to 3.13"): for each, a fresh virtual environment,
`pip install -r requirements.txt` (what a learner on that Python runs, less the byte-compiling
of every installed file: 67 -> 29 CPU s on 3.13, and Python compiles what the tests import; by a
current pip, `PIP`), the bytecode of what a kernel imports written once (`KERNEL_IMPORTS`), then
the unit tests whose outcome can depend on the Python: `PER_PYTHON` below names each module
and why. The rest
runs once, in the main run: the notebooks; tests of code that behaves alike on every Python
(reports, rosters, the website's HTML, the data files' checksums); those marked `end_to_end`
(whole classes graded, a lesson regenerated), `machine` (sandbox users, bubblewrap, cgroups, a
browser: the machine's, and a sandbox user could not even start a Python that lives under root's
home, as pyenv's do) and `scale` (whole corpora, memory bounds, agreement with SentencePiece,
Hugging Face, copydetect, nbconvert), which are deselected even inside the modules named.

Both runs start in the background as soon as pytest is configured (conftest.py; under
pytest-xdist, before its workers), at a lower priority, so they use what the main run leaves of
the CPU; pytest moves this test to the end, where the worker that runs it waits for them (each
writes its exit code to a file) and reports. They run with `-n 0`: in one process each, beside a
second one for `KERNELS`, the test that waits longest (kernels looping to their 10 s cell limit,
one ignoring the interrupt, kernels killed and started again): at the end of the run it was 3.6 of
11 minutes' wall on 3.13, the tail of CI after the main run. Beside the rest it overlaps them; at
the usual priority, so that its kernels answer within their limits. Its CPU is the same either
way (79 s on 3.13, its process group measured, at nice 10 and at nice 0: the loops fill their
cells), and a whole 3.13 run measured beside the old one took 904 s instead of 1164. Only the
looping student spins now: the one ignoring Ctrl-C sleeps (toy_class.IGNORE_CTRL_C), which took
the test from 54 to 32 CPU s on 3.11 (its cgroup measured).

It runs only when asked: `COURSE_REQUIRE_PYTHONS=1 python -m pytest` (what `.ci/run` does), since
the two installs cost minutes a maintainer's everyday run should not pay. The interpreters are
found as `python3.X` on PATH or in pyenv's versions folder; when asked, a missing one fails.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_python_range import stated_range

ROOT = Path(__file__).resolve().parent.parent
INSIDE = "COURSE_TESTING_OTHER_PYTHON"  # set in the child runs, so that they do not recurse
ASKED = "COURSE_REQUIRE_PYTHONS"  # set to run this test (.ci/run sets it)
MINUTES = 30  # one Python's install and tests, beside the main run
STUCK = 180  # seconds one test may take before pytest prints every thread's stack into the log
# The pip that installs: 3.10's venv brings pip 23.0.1, which checks every file of each package's
# index page against the interpreter (numpy's thousands), 70 CPU s for requirements.txt on 3.10
# here; this one installs the same in 31, plus 4.5 to install it.
PIP = "pip==26.3"
# What a grader's kernel imports, compiled once into the venv by this job (as root): its kernels
# run as sandbox users, who cannot write bytecode there, so each one compiled IPython, ipykernel,
# zmq, numpy... again (test_programs_graded's batch on 3.10: 37.8 CPU s, 21.2 with this, which
# costs 3.8; compiling all of site-packages instead costs 37).
KERNEL_IMPORTS = "import ipykernel.kernelapp, ipykernel.ipkernel, nbformat, numpy, regex, tiktoken"
# What the main run alone runs (pyproject's markers): whole batches, checks of the machine, and
# tests of scale and of agreement with third-party tokenizers.
SELECTION = "not end_to_end and not machine and not scale"
# Tests of a module above whose outcome is the grader's logic, not the Python: once is enough.
# Two wait out a deadline or a dropped message; four start no kernel (Kernel.start replaced, or
# nothing readable to run) and check the rows, words and files the grader writes. 76 s of a 3.13 run
# here (27, 23, 10, 8 and 8 s); what a kernel of that Python does is test_grade's kernel test.
ONCE = [
    "test_grade.py::test_a_kernel_that_never_answers_is_given_up_at_the_deadline",
    "test_grade.py::test_a_message_too_big_for_the_grader_is_dropped_not_kept",
    "test_grade.py::test_the_command_line",
    "test_grade.py::test_a_kernel_that_will_not_start_costs_one_row_not_the_batch",
    "test_grade.py::test_cases_that_cannot_be_made_cost_that_lessons_rows_and_say_why",
    "test_grade.py::test_a_batch_without_reports_writes_its_records_only",
]
# Kernels of this Python graded, in a process of its own beside the rest (see the docstring).
KERNELS = "test_grade.py::test_kernels_of_this_python_are_interrupted_killed_and_run_again"
# The modules whose outcome can change with the Python, and why. A module left out runs once.
PER_PYTHON = {
    # The library's own code on this interpreter: every module imports, doctests hold.
    "test_house.py": "every lib module imports and its doctests pass on this Python",
    "test_python_range.py": "the range this very run stands for",
    # Unicode: each Python ships its own unicodedata (3.10: Unicode 13, 3.13: 15.1), and `regex`
    # is pinned to another release on 3.10.
    "test_unicode_tools.py": "lesson 1's helpers read unicodedata, which changes with Python",
    "test_char_tokenizer.py": "lesson 2's tokenizer over code points",
    "test_patterns.py": "split patterns under this Python's `regex` release",
    "test_streaming.py": "incremental UTF-8 decoding (codecs)",
    "test_tiktoken_parity.py": "our regex splits and merges against tiktoken's, token for token",
    # The algorithms learners run in their own Python.
    "test_bpe.py": "BPE, naive and fast, the reference fixtures",
    "test_tokenizer.py": "the Tokenizer: round trips, files, errors",
    "test_tokenizer_contract.py": "the Tokenizer's dataclass contract (frozen, checked)",
    "test_bpe_dropout.py": "BPE-dropout: seeded draws replay (random's algorithms)",
    "test_added_tokens.py": "added tokens' ids",
    "test_superword_bpe.py": "SuperBPE's two stages",
    "test_parity_bpe.py": "the parity-aware trainer",
    "test_difftest.py": "lesson 3's differential tester shrinks the planted bugs",
    # The grader reads learners' code with `ast`, whose nodes and constructor change by release
    # (3.11's recursion check, 3.12's type aliases, 3.13's defaults), and judges plain data.
    "test_own_code.py": "the own-code reading (ast)",
    "test_allowed.py": "the own-code allow-list (ast)",
    "test_judging.py": "answers read as plain data without running their methods",
    "test_programs_graded.py": "each exercise's program cut by its own rules (ast)",
    # (The red teams' doors run once, in the main run: the modules above read the same
    # constructs, match and walrus and class bodies included, on this Python.)
    # The exercises: check() runs in the learner's kernel, on any Python of the range: every
    # lesson's solution earns full marks and every stub none, each case run. (The lessons' own
    # modules judge wrong turns, predictions and timings: the judging's logic, whose outcome is
    # the same on every Python; they run once, in the main run, 31 CPU s a Python saved.)
    "test_exercises.py": "the exercise framework and every lesson's exercises",
    # Kernels of this Python graded: the toy class's students whose cells loop, sleep, ignore the
    # interrupt, exit or kill the kernel (the grader's kernel-side code runs in each): `KERNELS`,
    # in its own process. (At nice 10 beside the main run's two busy workers, it starved past its
    # limits on 3.10; hence the usual priority.)
    "test_grade.py": "the grader with kernels of this Python",
}


@dataclass
class Run:
    """One Python's background job, known by its folder (its venv, `log.txt`, and `exit`, which
    holds the job's exit code once it is over). A folder, not a process: the job is started by
    the process that configures the session and awaited by the pytest worker that runs the test,
    which under pytest-xdist is another process."""

    minor: int
    folder: Path

    @property
    def log(self) -> Path:
        return self.folder / "log.txt"

    def wait(self) -> int:
        """The job's exit code, once it has written one; `timeout` ends it after `MINUTES`."""
        deadline = time.monotonic() + MINUTES * 60 + 120
        while not (self.folder / "exit").exists():
            if time.monotonic() > deadline:
                return 124
            time.sleep(1)
        return int((self.folder / "exit").read_text())


RUNS = "COURSE_OTHER_PYTHON_RUNS"  # the started runs, or why none started (set by conftest.py)
_JOBS: list[subprocess.Popen] = []  # kept, so that no job is reported as left running


def find_python(minor: int) -> str | None:
    """A working interpreter for Python 3.`minor`: pyenv's newest build of it, or `python3.X` on
    PATH (which may be a pyenv shim that refuses to run, hence the check)."""
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    builds = sorted(versions.glob(f"3.{minor}.*/bin/python"), key=lambda p: p.parent.parent.name)
    for candidate in [*map(str, reversed(builds)), shutil.which(f"python3.{minor}")]:
        if candidate and _is_python(candidate, minor):
            return candidate
    return None


def _is_python(candidate: str, minor: int) -> bool:
    says = subprocess.run(
        [candidate, "-c", "import sys; print(sys.version_info[1])"], capture_output=True, text=True
    )
    return says.returncode == 0 and says.stdout.strip() == str(minor)


def start_all() -> list[Run] | str:
    """Start one background run per other end of the range; or say which Python is missing."""
    wanted = {minor: find_python(minor) for minor in set(stated_range()) - {sys.version_info[1]}}
    missing = [f"3.{minor}" for minor, python in sorted(wanted.items()) if python is None]
    if missing:
        return f"no interpreter for Python {', '.join(missing)} (python3.X on PATH, or pyenv)"
    return [start(minor, python) for minor, python in sorted(wanted.items())]


def start(minor: int, python: str) -> Run:
    """venv, `PIP`, pip install, the kernels' bytecode, then pytest on `PER_PYTHON` at low
    priority beside pytest on `KERNELS`: one shell job, logged; it fails if either pytest does."""
    folder = Path(tempfile.mkdtemp(prefix=f"course-py3{minor}-"))
    child = folder / "venv" / "bin" / "python"
    pytest_ = f"'{child}' -m pytest -q -p no:cacheprovider -n 0 -o faulthandler_timeout={STUCK}"
    kernels_log = shlex.quote(str(folder / "kernels.txt"))
    pip = f"nice -n 10 '{child}' -m pip install -q --disable-pip-version-check"
    script = (
        f"nice -n 10 '{python}' -m venv '{folder / 'venv'}' && {pip} '{PIP}' && "
        f"{pip} --no-compile -r requirements.txt && "
        f"env -u PYTHONPYCACHEPREFIX nice -n 10 '{child}' -c '{KERNEL_IMPORTS}' || exit; "
        f"{pytest_} tests/{KERNELS} > {kernels_log} 2>&1 & "
        f"nice -n 10 {pytest_} {' '.join(f'tests/{name}' for name in PER_PYTHON)} "
        f"-m '{SELECTION}' --durations=15 "
        f"{' '.join(f'--deselect tests/{test}' for test in [*ONCE, KERNELS])}; "
        f"rest=$?; wait $!; kernels=$?; cat {kernels_log}; "
        '[ "$rest" = 0 ] && exit "$kernels"; exit "$rest"'
    )
    log, done = shlex.quote(str(folder / "log.txt")), shlex.quote(str(folder / "exit"))
    job = f"timeout {MINUTES * 60} bash -c {shlex.quote(script)} > {log} 2>&1"
    env = {**os.environ, INSIDE: "1", "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
    # Bytecode goes to the run's own folder: other Pythons' .pyc files appearing in lib/ would
    # look like a student's write to the hostile-notebook tests of the main run. And it is written
    # there even where the caller's environment says not to write bytecode: the venv is installed
    # without it, so every process of the run as root would otherwise compile every module it
    # imports (ipykernel, IPython, numpy...: 1.6 CPU s more per kernel on 3.13). A sandboxed
    # kernel gets neither variable (an allow-list): it reads what `KERNEL_IMPORTS` compiled.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    _JOBS.append(
        subprocess.Popen(
            ["bash", "-c", f"{job}; echo $? > {done}.part; mv {done}.part {done}"],
            cwd=ROOT,
            env=env,
        )
    )
    return Run(minor, folder)


def publish(runs: list[Run] | str) -> None:
    """Hand the runs (or why none started) to every pytest worker, through the environment."""
    if isinstance(runs, str):
        os.environ[RUNS] = json.dumps(runs)
    else:
        os.environ[RUNS] = json.dumps([[run.minor, str(run.folder)] for run in runs])


def published() -> list[Run] | str | None:
    """The runs this session's configuring process started, if it did."""
    said = json.loads(os.environ.get(RUNS, "null"))
    return said if not isinstance(said, list) else [Run(m, Path(f)) for m, f in said]


def wanted() -> bool:
    """Whether this session should run the other Pythons: asked for, and not one of those runs."""
    return bool(os.environ.get(ASKED)) and not os.environ.get(INSIDE)


@pytest.mark.skipif(not wanted(), reason=f"runs only when asked: {ASKED}=1 python -m pytest")
def test_oldest_and_newest_python_install_and_pass_the_unit_tests():
    runs = published() or start_all()
    if isinstance(runs, str):
        pytest.fail(runs)
    failures = []
    for run in runs:
        code = run.wait()
        lines = run.log.read_text(errors="replace").splitlines()
        said = [
            line for line in lines if re.match(r"\d+ (passed|failed)|=+ \d+ (passed|failed)", line)
        ]
        print(f"Python 3.{run.minor}: {'; '.join(said) or (lines[-1] if lines else '(no output)')}")
        if code != 0:
            failures.append(f"Python 3.{run.minor} ({_why(code)}):\n" + "\n".join(_tail(lines)))
        shutil.rmtree(run.folder, ignore_errors=True)
    assert not failures, "\n\n".join(failures)


def _why(code: int) -> str:
    return f"stopped after {MINUTES} minutes" if code == 124 else f"exit {code}"


def _tail(lines: list[str]) -> list[str]:
    """The end of a run's log, or from the first stack dump of a test that got stuck."""
    stuck = next((i for i, line in enumerate(lines) if line.startswith("Timeout (")), None)
    return lines[stuck : stuck + 150] if stuck is not None else lines[-40:]


def test_every_module_run_on_the_other_pythons_exists():
    """A renamed or split module must not drop out of the other Pythons' runs unnoticed."""
    assert [name for name in PER_PYTHON if not (ROOT / "tests" / name).is_file()] == []
    for test in [*ONCE, KERNELS]:  # a renamed test: --deselect of a missing one deselects nothing
        module, name = test.split("::")
        assert module in PER_PYTHON and f"def {name}(" in (ROOT / "tests" / module).read_text()


def test_the_other_pythons_run_only_when_asked_and_never_inside_one(monkeypatch):
    monkeypatch.delenv(ASKED, raising=False)
    monkeypatch.delenv(INSIDE, raising=False)
    assert not wanted()
    monkeypatch.setenv(ASKED, "1")
    assert wanted()
    monkeypatch.setenv(INSIDE, "1")
    assert not wanted()


# Ways a test runs a program as a sandbox user outside the box: that user cannot reach a Python
# under root's home (pyenv's, /root is 0700), so there the program exits 127 before it starts.
AS_SANDBOX_USER = ("become(", "reap(", "as_user(")  # as_user: tests/red_team_support.py


def test_what_runs_as_a_sandbox_user_is_left_to_the_main_run():
    """The other Pythons' runs failed three such tests (CI, 26 Nov), and passed another only
    because the process it had to see killed never started: each module doing it is marked."""
    unmarked = []
    for path in sorted(ROOT.glob("tests/test_*.py")):
        if path.name == Path(__file__).name:  # names the calls, makes none
            continue
        source = path.read_text(encoding="utf-8")
        if any(call in source for call in AS_SANDBOX_USER) and not _marked_once(source):
            unmarked.append(path.name)
    assert unmarked == [], f"mark these modules `pytest.mark.machine` (pyproject): {unmarked}"
    assert all(f"not {mark}" in SELECTION for mark in ("end_to_end", "machine"))


def _marked_once(source: str) -> bool:
    """Does the module's `pytestmark` hold `machine` or `end_to_end`?"""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            names = {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)}
            return bool(names & {"machine", "end_to_end"})
    return False


def test_property_tests_draw_a_fifth_of_their_examples_on_the_other_pythons(monkeypatch):
    import property_budget

    assert property_budget.ON_OTHER_PYTHON == bool(os.environ.get(INSIDE))
    monkeypatch.setattr(property_budget, "ON_OTHER_PYTHON", True)
    assert [property_budget.examples(n) for n in (300, 60, 40, 10)] == [60, 20, 20, 10]
    monkeypatch.setattr(property_budget, "ON_OTHER_PYTHON", False)
    assert [property_budget.examples(n) for n in (300, 60, 10)] == [300, 60, 10]
