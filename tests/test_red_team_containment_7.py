"""Red team, round 9: the reading process ("readbox": `read_apart`, `reading_server`, `reading`)
and the clean-up after each notebook as redesigned for issue 28 (`kill_all` through pidfds,
`user_reset`, the seccomp filter of `kernel_start`). Tricks not in rounds 1 to 8.

- **The reply of a reader that lies.** `read_apart` says the reader's answer is untrusted and
  checks it "field by field"; what a reader taken over by the student's text could send was
  tried, well-formed, with the types `_decoded` checks: another student's name and record
  fields (`info` is spread into the record), rows that skip grading with full marks, a written
  answer that is no text, 80 MB of plain values (the cap counts brackets only). Unit checks on
  `_decoded`, then the real grader with a lying helper (`tests/lying_reader.py`) and two honest
  students. And how far a taken-over reader reaches: root, every capability.
- **The shared helper killed** by one reading (as the OOM killer could): the next readings
  start it again (guard).
- **A setuid program started by a kernel.** `kill_all` finds a user's processes by the owner of
  /proc/PID, which is the effective uid: a setuid-root program (su, passwd, mount...) that a
  kernel starts and leaves waiting would be root's, out of the sweep, and outlive the student.
  Started as a kernel starts without a box (`sandbox.command`, `kernel_start`), it keeps the
  user's uid (`setpriv --no-new-privs`) and is swept (guard).
- **Keys where root may not install a filter.** A root grader in a container keeps Docker's
  default capabilities, without CAP_SYS_ADMIN; with no seccomp profile of the container's own,
  `refuse_keys` then fails, silently.

Tried and not kept as tests (held, or known): POSIX message queues and System V objects handed
to another user (rounds 2, 1 and 6 hold them); the user keyring inside bubblewrap's user
namespace is not the uid's outside (different serials, measured); no o+w folder deeper than
`ROOTS_DEPTH` on this machine; files in the shared /tmp, /var/tmp, /dev/shm (being redesigned).

The six holes found are closed by design (issue 28: `reading_reply`, `reader_rights`, the
refusal in `kernel_start`); their tests, once strict xfails, are plain now, each docstring saying
what the attack got and what holds. The unit checks
and machine checks take about 8 s; the batches and helper starts are `end_to_end` (10 to 30 s each
on a loaded machine).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from lib.grading import read_apart, sandbox, user_processes
from lib.grading.grading_settings import Settings
from lib.grading.one_submission import new_record
from lib.grading.submissions import MAX_ELEMENTS, Submission
from tests.red_team_support import shared_folder
from tests.test_red_team_containment_5 import as_kernel

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

pytestmark = pytest.mark.machine  # runs code as a sandbox user: the main run only (pyproject)
UID = sandbox.FIRST_UID + 951  # far from the users a grader beside us claims, and rounds 1-8's
TOY = {"registry": "toy_exercises", "import_paths": (str(ROOT), str(FIXTURES)), "progress": False}


@pytest.fixture
def shared_tmp():
    """A temporary folder the sandbox users can reach (pytest's tmp_path is private to root)."""
    yield from shared_folder("red-team-7-", 0o777)


def _framed(answer: str, wait_status: int = 0) -> bytes:
    """What a reader and its watcher send: length, JSON, then the wait status."""
    body = answer.encode()
    return read_apart.LENGTH.pack(len(body)) + body + read_apart.STATUS.pack(wait_status)


MALLORY = Submission(Path("/class/mallory.ipynb"), "mallory", "0" * 64)
ROWS = {  # what a lying reader puts in `not_own`: every exercise "not own", yet full marks
    name: {"name": name, "score": 99.0, "max_score": 99.0, "status": "passed", "reason": "lie"}
    for name in ("double", "shout")
}


# --- The reply of a reader that lies ----------------------------------------------------------
def test_a_reply_cannot_name_another_student_or_set_record_fields():
    """Round 9 got the record to say alice through `info` (spread into it). Held now: a reply's
    `info` has four typed fields, any other key refuses it, and a record names them one by one."""
    lie = {
        "lesson": None,
        "info": {"student": "alice", "exercises": [{"name": "double", "score": 999.0}]},
    }
    try:
        read = read_apart._decoded(_framed(json.dumps(lie)), 6)
    except read_apart.ReadingFailed:
        return  # refused: as it should be
    record = new_record(MALLORY, SimpleNamespace(sandboxed=True), **read.info)
    assert (record["student"], record["exercises"]) == ("mallory", [])


def test_a_reply_cannot_skip_grading_with_full_marks():
    """Round 9 skipped grading with rows of 99 points. Held now: a reply names exercises and a
    reason only (text); the grader makes the rows itself, at zero."""
    lie = {"lesson": 1, "info": {}, "not_own": ROWS}
    try:
        read = read_apart._decoded(_framed(json.dumps(lie)), 6)
    except read_apart.ReadingFailed:
        return
    assert all(not row.get("score") for row in read.not_own.values()), read.not_own


def test_a_reply_whose_answer_is_no_text_is_refused():
    """Round 9 stopped the batch with an answer that was a list. Held now: answers are text."""
    lie = {"lesson": 1, "info": {"answers": {"why": ["an answer", "that is no text"]}}}
    try:
        read = read_apart._decoded(_framed(json.dumps(lie)), 6)
    except read_apart.ReadingFailed:
        return
    assert all(isinstance(text, str) for text in read.info.get("answers", {}).values())


def test_a_reply_of_many_plain_values_is_refused_before_decoding():
    """Round 9 had 41.9 million zeros decoded (+320 MB, 13 s with the GIL held). Held now: every
    value is counted (commas and brackets) against a cap before decoding."""
    values = 2 * MAX_ELEMENTS + 1  # more than the cap on lists and objects, in a single list
    lie = b'{"lesson": 1, "info": {"x": [' + b"0," * (values - 1) + b"0]}}"
    with pytest.raises(read_apart.ReadingFailed):
        read_apart._decoded(_framed(lie.decode()), 6)


@pytest.fixture(scope="module")
def lied_to(tmp_path_factory) -> dict[str, tuple[float, str]]:
    """alice (stubs: 0 of 3), bob (solved: 3 of 3) and the two attackers (stubs) graded in one
    batch with the lying helper, which lies for each attacker its own way (tests/lying_reader.py);
    each counting student's total and file. One batch for both attacks: alice and bob are graded
    once, not once per attack (measured: 17.5 -> 14.2 CPU s, 45 -> 31 s of wall)."""
    from lib.grade import Limits, grade_submissions

    folder = tmp_path_factory.mktemp("lied-to")
    for name, notebook in {
        "alice": toy(),
        "bob": toy(**SOLVED),
        "mallory": toy(),
        "malformed": toy(),
    }.items():
        nbformat.write(notebook, folder / f"{name}.ipynb")
    out = folder / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(read_apart, "_HELPER", read_apart._Helper("tests.lying_reader"))
        # Generous: a limit only stops a stuck notebook, and none is stuck here. At 12 s a
        # notebook, honest bob scored 0 in a CI run; at load 10 here his took 10.1-11.7 s.
        limits = Limits(cell=10, notebook=60, probe=2)
        grade_submissions([folder], out, limits=limits, jobs=3, **TOY)
    totals = {}
    with open(out / "totals.csv", newline="") as table:
        for row in csv.DictReader(table):
            if row["counts"] == "yes":
                totals[row["student"]] = (float(row["score"]), Path(row["submission"]).name)
    return totals


@pytest.mark.end_to_end
def test_a_lying_reader_in_a_class_cannot_grade_another_student(lied_to):
    """Round 9: a lying reader for mallory gave alice 3/3 from mallory's file. Held now: the
    reply's extra `info` field refuses it (mallory's row says the reading failed); names come
    from the submission only."""
    assert lied_to["alice"] == (0.0, "alice.ipynb")
    assert lied_to["bob"] == (3.0, "bob.ipynb")
    assert lied_to.get("mallory", (0.0,))[0] == 0.0


@pytest.mark.end_to_end
def test_a_malformed_reply_costs_one_row_not_the_batch(lied_to):
    """Round 9: an answer that was a list stopped the batch in the feedback pages. Held now: the
    reply is refused (the attacker's row), and the others are graded."""
    assert lied_to["alice"][0] == 0.0
    assert lied_to["bob"][0] == 3.0


@pytest.mark.end_to_end  # two helpers started: about 10 s on a loaded machine
def test_a_reader_that_kills_the_helper_costs_no_other_reading(tmp_path, monkeypatch):
    """The helper is shared by every reading; one that dies (here killed by a reader before it
    gives up its rights, as the OOM killer could) is started again at the next request: the
    next notebooks are read."""
    from toy_exercises import EXERCISES

    helper = read_apart._Helper("tests.lying_reader")
    monkeypatch.setattr(read_apart, "_HELPER", helper)
    settings = Settings(
        catalog={1: EXERCISES}, handouts={1: set()}, import_paths=TOY["import_paths"]
    )
    lessons, controls = [], []
    for name in ("killer", "alice", "bob"):
        nbformat.write(toy(**SOLVED), tmp_path / f"{name}.ipynb")
        lessons.append(read_apart.read_apart(tmp_path / f"{name}.ipynb", settings).lesson)
        controls.append(helper.control)
    assert lessons == [1, 1, 1]
    assert controls[0] is not controls[1] is controls[2]  # started again once, after the kill


@pytest.mark.end_to_end  # a helper started: about 7 s on a loaded machine
@pytest.mark.skipif(os.geteuid() != 0, reason="a grader run as root: its reader is root too")
def test_the_reader_has_no_rights_beyond_reading_its_notebook(tmp_path, monkeypatch):
    """Round 9: the reader parsed the student's file as root with every capability. Held now: the
    grader opens the file and hands the descriptor over; the reader drops to an unprivileged
    user, no capabilities, no_new_privs, keys refused, before reading a byte."""
    from toy_exercises import EXERCISES

    monkeypatch.setattr(read_apart, "_HELPER", read_apart._Helper("tests.lying_reader"))
    settings = Settings(
        catalog={1: EXERCISES}, handouts={1: set()}, import_paths=TOY["import_paths"]
    )
    nbformat.write(toy(), tmp_path / "whoami.ipynb")
    rights = json.loads(read_apart.read_apart(tmp_path / "whoami.ipynb", settings).unreadable)
    assert rights["Uid"].split()[1] != "0" and int(rights["CapEff"], 16) == 0, rights


# --- A setuid program a kernel leaves behind --------------------------------------------------
SU = """
import os, pty, subprocess, time
main, side = pty.openpty()  # su asks for a password on a terminal, and waits
su = subprocess.Popen(["su", "root", "-c", "true"], stdin=side, stdout=side, stderr=side,
                      start_new_session=True)
time.sleep(0.5)
euid = [line.split()[2] for line in open(f"/proc/{su.pid}/status") if line.startswith("Uid")]
print(su.pid, euid[0], os.stat(f"/proc/{su.pid}").st_uid)
"""


@pytest.mark.machine
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)")
@pytest.mark.skipif(not os.path.exists("/usr/bin/su"), reason="needs su (setuid root)")
def test_a_setuid_program_started_by_a_kernel_stays_the_users_and_is_swept(shared_tmp):
    """Without `--no-new-privs` (measured: `setpriv --reuid` alone) su waits as euid 0 and
    /proc/PID is root's: `kill_all` would never see it. As a kernel starts, it stays the user's."""
    try:
        pid, euid, owner = map(int, as_kernel(UID, shared_tmp, SU).split()[:3])
        assert (euid, owner) == (UID, UID)
        assert pid in user_processes.processes_of(UID)
        assert sandbox.reap(UID)
        assert user_processes.processes_of(UID) == []
    finally:
        sandbox.reap(UID, seconds=30)


# --- Keys where root may not install a seccomp filter -----------------------------------------
ADD_KEY = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
key = libc.syscall(248, b"user", b"red-team-9", b"x", 1, -3)  # add_key, to its session keyring
print(key, open("/proc/self/status").read().split("Seccomp:")[1].split()[0])
"""


@pytest.mark.machine
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)")
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="add_key's number on x86_64")
def test_a_root_grader_without_cap_sys_admin_still_refuses_keys(shared_tmp):
    """Measured before: a root grader without CAP_SYS_ADMIN (a container's default capabilities
    with no seccomp profile of its own) could not install `refuse_keys`' filter: prctl failed
    unseen, the kernel ran with Seccomp 0 and add_key succeeded. `refuse_keys` now sets
    no_new_privs first, as a process without CAP_SYS_ADMIN must (and a kernel whose filter still
    fails is not started: the next test)."""
    (shared_tmp / "kernel.py").write_text(ADD_KEY)
    kernel = [sys.executable, "-I", str(shared_tmp / "kernel.py")]
    readonly = [str(shared_tmp), *sandbox.readonly_paths(())]
    command = sandbox.command(kernel, shared_tmp, shared_tmp, readonly, sandbox.Caps(), UID, False)
    container_root = ["setpriv", "--bounding-set=-sys_admin"]  # root as a container has it
    try:
        done = subprocess.run(
            container_root + command, capture_output=True, text=True, timeout=60, cwd=shared_tmp
        )
        key, seccomp = done.stdout.split()
        assert (int(key), seccomp) == (-1, "2"), done.stdout + done.stderr
    finally:
        sandbox.reap(UID, seconds=30)


# Run as a child: a machine that refuses seccomp filters (prctl(PR_SET_SECCOMP) and seccomp(2)
# answer EPERM, as some container profiles do), then the kernel's start, which must refuse.
NO_FILTERS = """
import ctypes, os, sys
from lib.grading import kernel_start, seccomp as k
rules = [(0x20, 0, 0, 0), (k.EQUAL, 0, 2, 157), (0x20, 0, 0, 16), (k.EQUAL, 1, 0, 22),
         (k.EQUAL, 0, 1, 317), (k.RETURN, 0, 0, k.REFUSE), (k.RETURN, 0, 0, k.ALLOW)]
table = (k._Rule * len(rules))(*(k._Rule(*rule) for rule in rules))
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(k.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
assert libc.prctl(k.PR_SET_SECCOMP, k.SECCOMP_MODE_FILTER,
                  ctypes.byref(k._Program(len(rules), table)), 0, 0) == 0
command = kernel_start.command_text()
os.execv(sys.executable, [sys.executable, "-I", "-c", command, "echo", "started"])
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="root's grader refuses keys to its kernels")
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="prctl's and seccomp's numbers")
def test_a_kernel_whose_key_filter_cannot_be_installed_is_not_started():
    """Where no filter can be installed at all, the kernel is not started, and says why: never
    silently without the refusal of keys."""
    done = subprocess.run(
        [sys.executable, "-c", NO_FILTERS], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert "started" not in done.stdout and done.returncode != 0, done.stdout + done.stderr
    assert "could not refuse the kernel the system calls of keys" in done.stderr
