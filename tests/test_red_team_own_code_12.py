"""Red team on the grading rules, round 12 (after fix27k's binding facts for `.format` and
fix27l's doors 0-4). Each hole is `xfail(strict=True)` until its door is closed, its reason
saying what was measured and what would fix it; each attack held, a plain test. The grader's
claims were run through the real, sandboxed grader (`grade_submissions`, one batch: `graded`
below, an honest student beside); the rest measures the reading, the judge or the salt alone.

Doors found:

A. **A known name rebound by a magic.** `bindings.known` counts the statements that bind a name,
   but IPython's `%time T = ...` (and `%%bash --out T`, `%store -r T`) binds it inside a
   magic's text, which `parse_cell` turns into a call: `class T: pass` plus `%time T = str`
   leaves `T` "a class Python alone makes", so `T('{0.__globals__}').format(f)` is read as own
   code while, in the learner's kernel, it formats the function's globals. The graded kernel
   runs only the accepted units (not the magic's cell), so no marks: the reading's claim and
   `check()`'s verdict are what is wrong.
B. **Raising on most cases still earns marks.** Door 2's `trivial_answer` refuses one kind of
   error raised on *every* case. An answer that returns `None` where `len(repr(args)) % 3 == 0`
   and raises `ValueError(repr(args))` elsewhere, or that raises `ValueError` or `TypeError` by
   the text's parity, does no work and earns: measured by the judge, "some" 0.38 / 2
   `encode_chars`, 0.14 / 1 `first_bad_token`, 0.47 / 2 `encode_with_specials`, 0.54 / 1
   `uint16_bytes` (1.53 points); "two" 0.34, 0, 0.24, 0.36, and 0.11 / 4 `gpt4_encode`
   (1.05). The real grader gave trent's "some" `encode_chars` 0.17 / 2 (his own hidden cases;
   which cases it raises on depends on the inputs).
C. **On Gradescope a group's hidden cases are its own draw.** `gradescope.student_id` joins a
   group's ids (`"1001+2002"`), so the same student drawn with another partner gets other hidden
   cases: the lottery door 3 closed comes back, one partner at a time (measured: a
   `bytes_per_char` that counts 4-byte characters as 3 scored 0.53 / 1 alone, 0.47 to 0.65
   with 20 partners, median 0.56: 21 different hidden sets).

Honest code refused (builtins only):

D. A function's own local bound once to a string written out, `fmt = '{:d}'` then
   `fmt.format(n)`, and a class constant, `K.FMT.format(n)`: "uses `.format` on a template
   worked out at run time", though the template is as visible as one written in place.
   Closed: such a local, or `K.FMT` of a plain class nothing can reach to rebind, is that
   template (`lib.exercises.templates`; its doors in `tests/test_own_code_scope_templates.py`).

Held: a hidden case's error of a class the code named (`Leak_abc`) and its message are not
told. Door 1 through a real Ctrl-C. Own code cannot send itself SIGINT (no `signal`, `os`,
threads), but the grader's own cell time-out interrupts the kernel: code that swallows the per-case
`TimeLimitExceeded`, waits for that interrupt and raises a class of its own named `IndexError` or
`ValueError` (a KeyboardInterrupt, chosen by the hidden input) ends the cell as a time-out, in
the grader's words, naming no class. Door 3's salt: the bundle's entry is root's, mode 600.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases
from lib.grade import Limits, grade_submissions
from lib.grading import gradescope, gradescope_bundle
from lib.grading.gradescope_bundle import SECRET_FILE
from lib.grading.grading_job import judged
from lib.grading.grading_settings import Settings
from tests.red_team_support import honest_marks_kept, rows
from tests.test_red_team_own_code_6 import trimmed
from tests.test_red_team_own_code_9 import function_of, verdict

EXERCISES = {e.name: e for lesson in (1, 2, 4, 5, 9) for e in for_lesson(lesson)}
GLOBALS = "'{0.__globals__}'"
SHOWN = len(EXERCISES["utf8_encode"].cases())  # 17, then the hidden ones

# Door A: the magic's text binds `T`; the reading sees only `get_ipython().run_line_magic(...)`.
MAGIC_REBINDS = {
    "time, a str class": [
        "class T:\n    pass\n",
        "%time T = str\n",
        f"def bytes_per_char(s):\n    return T({GLOBALS}).format(bytes_per_char)\n",
    ],
    "time, a template": [
        "class T:\n    pass\n",
        f"%time T = {GLOBALS}\n",
        "def bytes_per_char(s):\n    return T.format(bytes_per_char)\n",
    ],
    "bash --out": [
        "class T:\n    pass\n",
        "%%bash --out T\necho '{0.__globals__}'\n",
        "def bytes_per_char(s):\n    return T.format(bytes_per_char)\n",
    ],
}


@pytest.mark.parametrize("how", sorted(MAGIC_REBINDS))
def test_a_name_a_magic_rebinds_is_not_known(how: str) -> None:
    assert verdict("bytes_per_char", *MAGIC_REBINDS[how])


def test_the_magic_does_rebind_the_name_in_a_kernel() -> None:
    """What door A's first spelling does in IPython: the class the reading saw is `str` there."""
    cells = MAGIC_REBINDS["time, a str class"]
    program = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        f"for cell in {cells!r}:\n"
        "    shell.run_cell(cell, silent=True).raise_error()\n"
        "print(shell.user_ns['bytes_per_char']('abc')[:1], 'bytes_per_char' in "
        "shell.user_ns['bytes_per_char']('abc'))\n"
    )
    ran = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert ran.stdout.split()[-2:] == ["{", "True"], ran.stdout + ran.stderr


def test_the_graded_program_leaves_the_magic_out() -> None:
    """Why door A earned nothing: the graded kernel runs only the units read, never the magic."""
    exercise = EXERCISES["bytes_per_char"]
    notebook = Notebook(MAGIC_REBINDS["time, a str class"])
    # Since door A closed, the reading refuses it too (no name is known beside a magic).
    read = notebook.borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)
    assert "worked out at run time" in read
    assert 1 not in notebook.program([exercise.target])


# Door B: no work, an error naming the input on most cases.
SOME = (
    "def {name}(*args, **kwargs):\n    text = repr((args, kwargs))\n"
    "    if len(text) % 3 == 0:\n        return None\n    raise ValueError(text)\n"
)
TWO = (
    "def {name}(*args, **kwargs):\n    text = repr((args, kwargs))\n"
    "    raise (ValueError if len(text) % 2 else TypeError)(text)\n"
)


def _judged(name: str, source: str) -> float:
    exercise = EXERCISES[name]
    cases = exercise.grading_cases()
    answer = function_of(source.format(name=name), name)
    return exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None)).score


BLIND = ["encode_chars", "encode_with_specials", "first_bad_token", "gpt4_encode", "uint16_bytes"]


@pytest.mark.parametrize("shape", ["some", "two"])
def test_raising_on_most_cases_earns_nothing(shape: str) -> None:
    source = SOME if shape == "some" else TWO
    assert sum(_judged(name, source) for name in BLIND) == 0


def _three_at_most_score(student_id: str) -> float:
    """A `bytes_per_char` that forgets 4-byte characters, graded as the grader grades a
    Gradescope submission with `student_id` (a group's ids joined): every member's cases run,
    the row judged per member's draw (`grading_job.judged`)."""
    exercise = EXERCISES["bytes_per_char"]

    def three_at_most(text: str) -> float:
        return sum(1 if ord(c) < 0x80 else 2 if ord(c) < 0x800 else 3 for c in text) / len(text)

    settings = Settings(salt="the bundle's salt", student_id=student_id)
    cases, draws = settings.group_cases(exercise, settings.members_of(None))
    report = {"outcomes": run_cases(three_at_most, exercise.inputs(cases), None)}
    return judged(exercise, cases, report, draws if len(draws) > 1 else None)["score"]


def _group_id(tmp_path: Path, ids: list[int]) -> str:
    """The student id `gradescope.run` salts with, from a metadata file as Gradescope writes it."""
    (tmp_path / "submission").mkdir(exist_ok=True)
    users = ", ".join(f'{{"id": {i}, "name": "x"}}' for i in ids)
    (tmp_path / "submission_metadata.json").write_text(f'{{"users": [{users}]}}')
    return gradescope.student_id(tmp_path / "submission")


def test_a_partner_never_raises_a_students_score(tmp_path: Path) -> None:
    alone = _three_at_most_score(_group_id(tmp_path, [1001]))
    with_partners = [_three_at_most_score(_group_id(tmp_path, [1001, p])) for p in range(20)]
    assert max(with_partners) <= alone < 1, (alone, with_partners)
    assert min(with_partners) < alone  # the partners' cases do count: a group is no shelter


def test_the_bundles_salt_is_roots_alone() -> None:
    """Door 3 held in the zip: its entry is mode 600 (setup.sh chowns it to root)."""
    assert "chown root:root hidden-cases.secret && chmod 600" in gradescope_bundle.SETUP_SH
    bundled = {p.name for p in gradescope_bundle._bundled_files()}
    assert SECRET_FILE not in bundled  # written from the key, not copied from the tree


def test_the_bundles_salt_entry_is_private(tmp_path: Path) -> None:
    gradescope_bundle.build_bundle(tmp_path / "autograder.zip", 1)
    with zipfile.ZipFile(tmp_path / "autograder.zip") as bundle:
        mode = bundle.getinfo(SECRET_FILE).external_attr >> 16
    assert mode & 0o777 == 0o600


class Leak_abc(ValueError):  # noqa: N801  a class name the code chose, as a channel
    pass


def test_a_hidden_cases_error_class_of_the_codes_naming_is_not_told() -> None:
    """Held: right on the shown cases, then a class of its own naming (and a message) on every
    hidden one; the reason says only which hidden case failed."""
    exercise = EXERCISES["utf8_encode"]
    cases = exercise.grading_cases()
    calls = []

    def utf8_encode(cp: int) -> bytes:
        calls.append(cp)
        if len(calls) > SHOWN:
            raise Leak_abc(f"secret {cp}")
        return chr(cp).encode("utf-8", "surrogatepass")

    reason = exercise.judge(cases, run_cases(utf8_encode, exercise.inputs(cases), None)).reason
    assert "hidden case" in reason
    assert "Leak_abc" not in reason and "secret" not in reason, reason


# Honest code refused (D), now read as own code.
HONEST = {
    "a local template": "def bytes_per_char(s):\n    fmt = '{:d}'\n"
    "    return int(fmt.format(len(s)))\n",
    "a class constant": "class K:\n    FMT = '{:d}'\n\ndef bytes_per_char(s):\n"
    "    return int(K.FMT.format(len(s)))\n",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_a_template_bound_once_in_its_scope_is_own_code(name: str) -> None:
    assert function_of(HONEST[name], "bytes_per_char")("abc") == 3
    assert verdict("bytes_per_char", HONEST[name]) == ""


# Held: the grader's own interrupt, turned into a class of the code's choosing.
CHOSEN_CLASS = (
    "class ValueError(KeyboardInterrupt):\n    pass\n\n"
    "class IndexError(KeyboardInterrupt):\n    pass\n\n"
    "SEEN = []\n\n"
    "def utf8_encode(cp):\n"
    "    SEEN.append(cp)\n"
    f"    if len(SEEN) == {SHOWN + 1}:  # the first hidden case\n"
    "        while True:\n"
    "            try:\n"
    "                while True:\n"
    "                    pass\n"
    "            except KeyboardInterrupt:  # the grader's Ctrl-C at its cell's time limit\n"
    "                raise (IndexError if cp % 2 else ValueError)()\n"
    "            except BaseException:  # the per-case time limit\n"
    "                pass\n"
    "    return bytes([cp])\n"
)
CELL_LIMIT = 15


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """One batch (about 1 min): olivia's published solutions; mallory's chosen class; trent's
    lesson 2 with door B's "some" as `encode_chars`."""
    folder = tmp_path_factory.mktemp("round12")
    lesson1, lesson2 = "01_unicode_and_utf8.ipynb", "02_character_tokenizer.ipynb"
    for student, notebook in [
        ("olivia", trimmed(lesson1, {})),
        ("mallory", trimmed(lesson1, {"utf8_encode": CHOSEN_CLASS})),
        ("trent", trimmed(lesson2, {"encode_chars": SOME.format(name="encode_chars")})),
    ]:
        nbformat.write(notebook, folder / f"{student}.ipynb")
    records = grade_submissions(
        [folder],
        folder / "out",
        limits=Limits(cell=CELL_LIMIT, notebook=300, probe=2),
        jobs=1,
        progress=False,
    )
    return {r["student"]: r for r in records}


def test_the_batch_graded_every_notebook_and_the_honest_kept_their_marks(graded: dict) -> None:
    assert sorted(graded) == ["mallory", "olivia", "trent"]
    honest_marks_kept(graded, {"utf8_encode", "encode_chars"})


def test_a_class_chosen_at_the_graders_interrupt_is_not_told(graded: dict) -> None:
    row = rows(graded["mallory"])["utf8_encode"]
    assert f"longer than {CELL_LIMIT} s" in row["reason"], row
    assert "Error" not in row["reason"], row


def test_the_chosen_class_reads_as_own_code() -> None:
    assert verdict("utf8_encode", CHOSEN_CLASS) == ""


def test_raising_on_most_cases_earns_nothing_in_the_grader(graded: dict) -> None:
    row = rows(graded["trent"])["encode_chars"]
    assert row["score"] == 0, row
