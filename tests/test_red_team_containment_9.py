"""Red team, round 11: the reading helper as redesigned for issue 28 (`reading_server`,
`read_apart`, `reading`), the rights its reader gives up (`reader_rights`) and the decoding of its
reply (`reading_reply`). Tricks not in rounds 1 to 10. Marked `xfail(strict=True)` while the hole
is open (the reason says what the attack got, measured; "Fix:" what would close it by design);
plain tests are attacks the design holds against, kept as guards.

Two kinds of attacker:

- **A reader taken over by a student's text** (a parser bug reached by a cell, the threat
  `reader_rights` is built for): what it can still do once it has given up its rights, tried in
  a process that gives them up as a reader does (`_as_reader`), and through the real grader with
  a helper whose reader does it (`tests/lying_reader_9.py`), two honest students beside it.
- **A student whose only input is a notebook file**: what its text makes the honest reading and
  the reply's checks do, through the real grader.

Tried and not kept as tests (held): notebooks of nbformat 1, 2 and 3 (every v3 output type)
and 4.9 read by the dropped reader (no lazy import missing), deep nesting (RecursionError: an
"unreadable" row), UTF-16 and a UTF-8 BOM (refused as unreadable); 700,000 commas in an
exercise's cell (1.4 MB: graded); cells with magics, 3.12 syntax, lone surrogates, NUL, bad or
missing cell ids, unknown output types (read); a source that is a number or a list with one
(unreadable, said clearly); an `x32` system call (the filter refuses the whole ABI);
files left by a reader in /tmp (`user_reset` removes them). Measured and left to the report: a
list literal costs the reading about 0.2 ms an element in lesson 5 (50,000 elements, 150 kB:
10 s), so one of 3 MB reaches the 150 s reading deadline (a row lost, the slot's 150 s spent).

The unit attacks take about 10 s (a helper started once); the batch (five students) 30 to 90 s
on a loaded machine.
"""

from __future__ import annotations

import csv
import dataclasses
import fcntl
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from lib.grading import read_apart, reader_rights, sandbox, user_processes
from lib.grading.grading_settings import Settings
from tests.red_team_support import as_user, in_child, shared_folder, uring_one

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402
from toy_exercises import EXERCISES  # noqa: E402

pytestmark = [
    pytest.mark.machine,  # runs code as sandbox users: the main run only (pyproject)
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
UID = sandbox.FIRST_UID + 975  # far from the users a grader beside us claims, and rounds 1-10's
INSTRUCTOR = sandbox.FIRST_UID + 976  # plays an instructor who grades without root
TOY = {"registry": "toy_exercises", "import_paths": (str(ROOT), str(FIXTURES)), "progress": False}
SETTINGS = Settings(catalog={1: EXERCISES}, handouts={1: set()}, import_paths=TOY["import_paths"])
X86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64's system calls")


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("red-team-11-", 0o755)


def _as_reader(uid: int | None, attack: Callable[[], object]) -> object:
    """What `attack` returns (or the error it raised, as text) when run in a forked process that
    has given up its rights as a reader does (`give_up_rights(uid)`). Everything the attack uses
    is imported beforehand: a reader's user cannot reach the interpreter's folder here."""
    return in_child(lambda: (reader_rights.give_up_rights(uid), attack())[1])


# --- io_uring: a socket without socket(2) -----------------------------------------------------
OP_SOCKET = 45  # IORING_OP_SOCKET (5.19)


def _uring_socket() -> int:
    """A TCP socket made by io_uring (one IORING_OP_SOCKET entry), not by socket(2): its
    descriptor, or minus the error number."""
    # opcode, flags, priority, fd (here the domain), offset (the type), address, length
    return uring_one((OP_SOCKET, 0, 0, socket.AF_INET, socket.SOCK_STREAM, 0, 0))


@X86_64
def test_a_reader_makes_no_socket_through_io_uring():
    """Measured before: socket(2) refused, yet one io_uring entry (IORING_OP_SOCKET) gave the
    reader a TCP socket that reached a listener on 127.0.0.1. Now io_uring's calls are refused
    (`reader_rights.REFUSED`), and Landlock refuses TCP behind them."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)
    port = listener.getsockname()[1]

    def attack() -> object:
        made = _uring_socket()
        if made < 0:
            return made
        with socket.socket(fileno=made) as reaching:
            reaching.connect(("127.0.0.1", port))
            reaching.sendall(b"hello from the reader")
        return made

    with listener:
        made = _as_reader(UID, attack)
        try:
            received = listener.accept()[0].recv(100)
        except TimeoutError:
            received = b""
    assert received == b"" and not (isinstance(made, int) and made >= 0), (made, received)


# --- Signals through F_SETOWN -----------------------------------------------------------------
F_SETSIG = 10  # fcntl: the signal sent when the descriptor is ready (Linux)


def _kill_through_a_pipe(target: int) -> str:
    """SIGKILL to `target` without kill(2): a pipe whose reading end names `target` as its owner
    (F_SETOWN), SIGKILL as its signal (F_SETSIG), then one byte written."""
    try:
        os.kill(target, signal.SIGKILL)
        said = "kill(2) allowed"
    except OSError as error:
        said = f"kill(2) refused ({error.strerror})"
    read, write = os.pipe()
    fcntl.fcntl(read, fcntl.F_SETOWN, target)
    fcntl.fcntl(read, F_SETSIG, signal.SIGKILL)
    fcntl.fcntl(read, fcntl.F_SETFL, fcntl.fcntl(read, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(write, b"x")
    return said


def _dropped_sleeper(uid: int | None) -> int:
    """A process that has given up its rights as a reader does, then waits: its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            reader_rights.give_up_rights(uid)
            time.sleep(30)
        finally:
            os._exit(0)
    time.sleep(0.3)  # its rights given up
    return pid


@X86_64
def test_a_reader_cannot_signal_another_reader_of_its_user():
    """Measured before: kill(2) refused, yet a reader killed another reader of its user with
    SIGKILL through a pipe it owns (F_SETOWN, F_SETSIG, O_ASYNC). Now fcntl's F_SETOWN,
    F_SETOWN_EX and F_SETSIG are refused by argument, and Landlock scopes signals (ABI 6)."""
    victim = _dropped_sleeper(None)
    try:
        said = _as_reader(None, lambda: _kill_through_a_pipe(victim))
        _, status = os.waitpid(victim, 0)
    finally:
        with_kill(victim)
    assert not os.WIFSIGNALED(status), (said, signal.Signals(os.WTERMSIG(status)).name)


def with_kill(pid: int) -> None:
    """End `pid` if it still runs (the test's own clean-up)."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


# --- A grader run without root ----------------------------------------------------------------
def test_the_reader_of_a_grader_without_root_cannot_reach_the_instructor(shared_tmp):
    """Measured before (uid 61976 playing a grader without root): its reader had no seccomp
    filter, read the instructor's 0600 key, unlinked it and killed the grader. Now every reader,
    root's or not, has the filter and a Landlock ruleset granting no file right."""
    key = shared_tmp / "signing.key"
    key.write_text("SECRET")
    key.chmod(0o600)
    for path in (shared_tmp, key):
        os.chown(path, INSTRUCTOR, INSTRUCTOR)
    read, write = os.pipe()
    instructor = os.fork()
    if instructor == 0:  # the grader, as its instructor runs it: no root
        try:
            os.setgroups([])
            os.setresgid(INSTRUCTOR, INSTRUCTOR, INSTRUCTOR)
            os.setresuid(INSTRUCTOR, INSTRUCTOR, INSTRUCTOR)
            grader = os.getpid()

            def attack() -> object:
                os.write(write, key.read_bytes())  # what it read, told before the grader dies
                key.unlink()
                os.kill(grader, signal.SIGKILL)

            _as_reader(None, attack)
            time.sleep(1)
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        said = answer.read()
    _, status = os.waitpid(instructor, 0)
    assert key.exists() and not os.WIFSIGNALED(status), (said, status)


# --- What a reader holds: guards --------------------------------------------------------------
PEEK = """
import ctypes, sys
pid = int(sys.argv[1])
try:
    open(f"/proc/{pid}/mem", "rb").close()
    print("mem open")
except OSError as error:
    print("mem", error.errno)
libc = ctypes.CDLL(None, use_errno=True)
print("ptrace", libc.ptrace(16, pid, None, None), ctypes.get_errno())  # PTRACE_ATTACH
"""


def test_a_process_of_the_slots_user_can_neither_read_nor_trace_the_reader():
    """A kernel's process that outlived its notebook is the slot user's, as the next reader is
    (`reap` ends it first, but were one left): the reader changed user, so it is not dumpable,
    its /proc files are root's and neither /proc/PID/mem nor PTRACE_ATTACH reach it."""
    reader = _dropped_sleeper(UID)
    try:
        said = as_user(UID, PEEK, str(reader)).split()
    finally:
        with_kill(reader)
        sandbox.reap(UID, seconds=30)
    assert said[:2] == ["mem", "13"] and said[2:4] == ["ptrace", "-1"], said


def test_a_reader_cannot_reopen_its_notebook_for_writing(shared_tmp):
    """The descriptor handed over is open for reading; reopening it through /proc/self/fd checks
    the file's own rights (the instructor's, 0644), so the reader cannot truncate it."""
    notebook = shared_tmp / "mallory.ipynb"
    nbformat.write(toy(**SOLVED), notebook)
    before = notebook.read_bytes()
    handed = os.open(notebook, os.O_RDONLY)
    try:
        flags = os.O_WRONLY | os.O_TRUNC

        def attack() -> object:
            return os.open(f"/proc/self/fd/{handed}", flags)

        said = _as_reader(UID, attack)
    finally:
        os.close(handed)
    assert str(said).startswith("PermissionError") and notebook.read_bytes() == before, said


# --- A reader that ignores its alarm ----------------------------------------------------------
@pytest.fixture(scope="module")
def lying_helper():
    """The grader's reading helper replaced by `tests/lying_reader_9.py` for this module's tests,
    started by one honest reading (its imports take seconds, which a reading's deadline counts
    once the request is sent), stopped at the end."""
    helper = read_apart._Helper("tests.lying_reader_9")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(read_apart, "_HELPER", helper)
        for folder in shared_folder("red-team-11-warm-", 0o755):
            nbformat.write(toy(), folder / "warm.ipynb")
            assert read_apart.read_apart(folder / "warm.ipynb", SETTINGS, UID).lesson == 1
        yield helper
    if helper.control is not None:
        helper.control.close()


def _immortal(folder: Path, uid: int | None, monkeypatch) -> list[int]:
    """Read a notebook whose reader ignores its alarm (`lying_reader_9`), with a reading limit
    of 1 s and 1 s of grace; return the processes of the reader's user 2 s after the grader gave
    up on it."""
    from lib.grade import Limits

    monkeypatch.setattr(read_apart, "SPARE_SECONDS", 1)
    settings = dataclasses.replace(SETTINGS, limits=Limits(notebook=2))
    nbformat.write(toy(**SOLVED), folder / "immortal.ipynb")
    with pytest.raises(read_apart.ReadingFailed, match="took longer than 1 s"):
        read_apart.read_apart(folder / "immortal.ipynb", settings, uid)
    time.sleep(2)
    return user_processes.processes_of(reader_rights.LONE_UID if uid is None else uid)


def test_a_slots_reader_that_ignores_its_alarm_is_ended_by_its_watcher(
    shared_tmp, lying_helper, monkeypatch
):
    """With a sandbox user, a reader past its deadline is ended by its watcher, before the
    slot's reset (`sandbox.reap`) would have to."""
    try:
        assert _immortal(shared_tmp, UID, monkeypatch) == []
    finally:
        sandbox.reap(UID, seconds=30)


def test_a_reader_that_ignores_its_alarm_is_ended(shared_tmp, lying_helper, monkeypatch):
    """Measured before: a reader that ignored SIGALRM ran on as LONE_UID, which no reap sweeps.
    Now its watcher kills it a second past its deadline (and RLIMIT_CPU is a second wall)."""
    try:
        left = _immortal(shared_tmp, None, monkeypatch)
    finally:
        sandbox.reap(reader_rights.LONE_UID, seconds=30)
    assert left == [], left


# --- A cell type nbformat reads and the reply refuses -------------------------------------------
def test_a_cell_of_an_unknown_type_costs_a_clear_row_not_a_refused_answer(shared_tmp, lying_helper):
    """Measured before: the honest reader's answer was refused by reading_reply (an error row
    cut mid-word, naming no cell). Now the reading says "cell N has an unknown type ..." and
    what to do (`submissions.read_notebook`)."""
    notebook = json.loads(nbformat.writes(toy(**SOLVED)))
    notebook["cells"].append({"cell_type": "heading", "source": "Lesson 1", "metadata": {}})
    (shared_tmp / "old.ipynb").write_text(json.dumps(notebook))
    read = read_apart.read_apart(shared_tmp / "old.ipynb", SETTINGS, UID)
    assert read.lesson == 1 or "heading" in read.unreadable, read


@pytest.mark.parametrize("minor", [0, 4, 9])  # 4.9: a notebook from the future
def test_a_reader_that_may_open_no_file_still_reads_any_notebook_version(shared_tmp, minor):
    """A reader opens no file but Python's own (`reader_rights.LIBRARY`): nbformat, which reads a
    version's schema on first use (and another to word an error), still reads a notebook of
    nbformat 3 and 4.x, valid or not, rather than fail on a refused schema file."""
    notebook = json.loads(nbformat.writes(toy(**SOLVED)))
    notebook["nbformat_minor"] = minor
    (shared_tmp / "any.ipynb").write_text(json.dumps(notebook))
    old = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    old["worksheets"][0]["cells"] = [{"cell_type": "zzz", "input": "x = 1", "outputs": []}]
    (shared_tmp / "old.ipynb").write_text(json.dumps(old))
    read = read_apart.read_apart(shared_tmp / "any.ipynb", SETTINGS, UID)
    assert read.lesson == 1, read.unreadable
    read = read_apart.read_apart(shared_tmp / "old.ipynb", SETTINGS, UID)
    assert "Permission" not in read.unreadable, read.unreadable


# --- The real grader: a thief, a forger of labels, a student of many commas -----------------
SECRET = "BOB-SECRET: my own words on tokenization"
LABEL = "\x1b]0;pwned\x07\x1b[2K\r\n# Score 9"  # retitle the window, erase the line, a heading


@pytest.fixture(scope="module")
def batch(lying_helper):
    """alice (stubs: 0 of 3), bob (solved, with a written answer: 3 of 3), thief (solved; its
    reader reads bob's file), dave (solved; escape sequences and a heading in its metadata's
    lesson) and erin (solved; a CSV of 2,000,002 values pasted into a string: 4 MB, honest)
    graded together; returns the output folder and each student's row of totals.csv."""
    from lib.grade import Limits, grade_submissions

    for folder in shared_folder("red-team-11-batch-", 0o755):  # the README's layout: 0755
        submissions = folder / "submissions"
        submissions.mkdir(mode=0o755)
        bob = toy(**SOLVED)
        bob.cells.append(nbformat.v4.new_markdown_cell(SECRET))
        dave = toy(**SOLVED)
        dave.metadata["course"] = {"lesson": LABEL}
        erin = toy(**SOLVED)
        erin.cells.append(nbformat.v4.new_code_cell(f'PRICES = """{"3," * 2_000_001}"""'))
        notebooks = {"alice": toy(), "bob": bob, "thief": toy(**SOLVED), "dave": dave, "erin": erin}
        for name, notebook in notebooks.items():
            nbformat.write(notebook, submissions / f"{name}.ipynb")
        out = folder / "out"
        limits = Limits(cell=4, notebook=30, probe=2)  # reading: 15 s, for erin's 4 MB
        grade_submissions([submissions], out, limits=limits, jobs=3, **TOY)
        with open(out / "totals.csv", newline="") as table:
            rows = {row["student"]: row for row in csv.DictReader(table)}
        yield out, rows


def test_honest_students_keep_their_grades_beside_the_attackers(batch):
    _, rows = batch
    assert (rows["alice"]["score"], rows["bob"]["score"]) == ("0", "3"), rows


def test_a_reader_cannot_put_a_classmates_notebook_in_its_feedback(batch):
    """Measured before: the thief's reader opened bob.ipynb beside its own and answered it as
    its label_note, shown in the thief's feedback. Now the reader's Landlock ruleset grants no
    file right (it reads only the descriptor handed over), and label_note is capped at 80."""
    out, _ = batch
    feedback = "".join(p.read_text() for p in (out / "feedback").glob("thief_*.md"))
    assert SECRET not in feedback, feedback[:300]


def test_escape_sequences_in_a_notebooks_metadata_reach_no_output(batch):
    """The lesson a notebook's metadata declares reaches the note (its first 20 characters):
    control characters are stripped from totals.csv and the feedback, and the newline does not
    start a heading of its own in the Markdown feedback."""
    out, rows = batch
    written = rows["dave"]["notes"] + "".join(
        p.read_text() for p in (out / "feedback").glob("dave_*")
    )
    assert not any(c in written for c in "\x1b\x07\r"), repr(written[:200])
    feedback = (out / "feedback" / "dave_lesson1.md").read_text().splitlines()
    assert not any(line.startswith("# Sc") for line in feedback)
    assert rows["dave"]["score"] == "3"


def test_a_notebook_of_many_commas_in_a_string_is_graded(batch):
    """Measured before: 0 of 3, 'an answer too large' (the commas in strings were counted).
    Now values are counted outside strings only (`reading_reply.too_many_values`)."""
    _, rows = batch
    erin = rows["erin"]
    assert (erin["outcome"], erin["score"]) == ("graded", "3"), (erin["notes"], erin["counts"])
