"""Red team on the grading rules, round 13 (after fix27m's doors A, B and C). Each hole or unfair
outcome is `xfail(strict=True)` until it is fixed, its reason saying what was measured and what
would fix it; each attack held, a plain test. The judge's claims were measured with the judge
(`Exercise.judge` on `run_cases`); the reading's and door B's also through the real, sandboxed
grader (`grade_submissions`, one batch: `graded` below, graded as a Gradescope group of three,
an honest student beside).

Doors found:

A. **A plain class whose own method rebinds its name.** `bindings.known` takes a name bound by
   one statement for what that statement makes; a `class T:` whose method says `global T; T =
   str` is that one statement, so `T` reads as "a class Python alone makes" while, once the
   target has called `T().g()`, it is `str`: `T('{0.__globals__}').format(f)` is read as own
   code. No magic is needed (fix27m's rule does not apply), and the graded program runs it, the
   method being part of the class's unit: the grader gave 1 / 1 to a `bytes_per_char` that
   answers right only where the template did format the kernel's globals. Also so: the class
   body's own `global T; T = str` before it raises (the class is then never bound; the grader,
   in a scratch run, noted "cell 6 (`class T:`) raised ValueError" and gave 1 / 1 again), and
   a `@dataclass`'s method (read as own code).
B. **Two values beat door B.** `trivial_answer` refuses one value returned every time and
   `blind_by_raising` one value returned "or raises"; a second value on some shape of input,
   even a wrong one (`None`), lifts both. The commonest right answer by shape, `raise
   ValueError(repr(args))` where an error may be wanted, junk elsewhere: measured by the
   judge, `encode_chars` 0.72 / 2, `uint16_bytes` 0.57 / 1, `encode_with_specials` 0.47 / 2,
   `compression_ratio` 0.58 / 1 (1.0 but on "banana"), `wordpiece_word` 0.54 / 1 (`[UNK]`),
   `is_valid_utf8` 1.1 / 2 (the length's parity), `unsafe_cuts` 0.61 / 2, `first_bad_token`
   0.39 / 1, `gini` 0.57 / 1: 5.55 points for nine answers that read nothing of the input but
   its shape. The real grader (group of three) gave trent's `encode_chars` 0.72 / 2 and
   `compression_ratio` 0.42 / 1. Many values pass too: the shown cases' answers as a table
   (what `check()` prints) and an error naming the input elsewhere earned `encode_chars` 1.32
   / 2, `encode_with_specials` 1.41 / 2, `gpt4_encode` 0.95 / 4, `uint16_bytes` 0.68 / 1, each
   more than the shown cases' share: every hidden case that wants an error passes.
C. **In a group, one member's time-out cancels the others' hidden cases.** A group's hidden
   cases run as one list (the first member's draw, then the next's), and `run_cases` stops at
   a time-out, so a case that hangs in the first draw leaves every later draw its shown cases
   only, and the worst draw is that one. A `bytes_per_char` that hangs on texts ending in 😀
   (no shown text does): 1001 alone 0.88, 1002 alone 1.0, the group "1001+1002" 0.41, the
   group "0999+1001" 0.88: what a student scores depends on whether the partner's id sorts
   after theirs.
D. **A group's hidden round shares one cell's time limit.** Every member's hidden cases run in
   one grading cell under `Limits.cell`, so an answer that passes in time alone can run out of
   time in a group and score 0. Measured once with the real grader (a scratch run, not in this
   file: timing on a machine at load 10 to 24 is no test), a right `bytes_per_char` slowed by
   an empty loop of 1.5 M turns a call, cell limit 10 s: alone 1 / 1, as the group
   "1001+1002+1003" 0 / 1 ("grading took longer than 10 s"); one member's 20 hidden cases took
   3.1 to 10.9 s in-process meanwhile. The test pins the cause: 60 hidden cases in one cell.
E. **Tables of what lib shows earn full marks.** Four exercises' hidden inputs are all written
   out in `lib/exercises` (no made-up, salted ones), which the students have:
   `ex.gini.grading_cases()` in their own kernel lists every case the grader runs, answers
   included. A table of them earned, on eve's draw with the grader's salt,
   `encode_with_specials` 2 / 2, `gini` 1 / 1, `premium_factors` 2 / 2, `train_with_pattern`
   2 / 2 (7 points). The README names fixed hand-written inputs, with partial gains only.

Honest code scored 0 (F): door B's "gets no case right that wants a value" zeroes an answer
whose errors are all right and all where they are wanted, which a blind answer cannot do: the
published `uint16_bytes` returning its `bytearray` (right nowhere type-strictly: 0, was 15 of
28 cases), `encode_chars` returning a tuple (0, was 14 of 47), and both with a placeholder
return while the encoding is unwritten (0). The no-work answers of B score more than these.

Honest code refused (G): fix27m's door A rule knows no name in a notebook with any magic, so a
learner who times their code (`%timeit bytes_per_char("héllo")`, `%%time`) loses every
`.format` on a template constant (`FMT = "{:.3f}"`) or on their own class's method
(`Row().format(x)`, the very spelling the refusal advises): not own code, 0 for the exercise.

Held: the magic rule is not passed by a `%%` line after a comment (IPython runs no magic there
either); another class's method that declares `global T`, `del`, a `for`, a walrus in an
annotation, a rebound `dataclasses` or `dataclass`: each makes `T` not known, or is refused.
One value, or one value and errors, is still refused (door B on its own shape). A time-out in
the last member's draw costs the group what it costs that member alone.

Fixed (fix27p): B and F by one rule, `fixed_answer.earned`: the cases that want a value count
beyond the largest group of them sharing one right answer, the cases that want an error only if
the answer raises none of those errors where a value is wanted (B's nine: 0.32 points in all, none
over 0.08; the tables: 2.16 points, each at most the shown share; F's four: 0.54 to 0.57 / 1
and 0.64 / 2). C and D: each member's hidden cases a round (a grading cell) of
their own (`Case.draw`, `rounds`). E: the four exercises draw salted made-up hidden cases too.

A cost, by design, not a door: the worst draw of a group lowers a partly right answer's score
with every partner. Measured over 30 groups each, the `bytes_per_char` that counts 4-byte
characters as 3 (round 12's): mean 0.576 alone, 0.549 with one partner, 0.521 with two (about
0.03 of 1 a partner); the README says a partner can lower a score, and could say by how much.
"""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.cases import Raises
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases
from lib.grade import Limits, grade_submissions
from lib.grading.grading_job import judged
from lib.grading.grading_settings import Settings
from lib.grading.rounds import rounds
from tests.red_team_support import honest_marks_kept, rows
from tests.test_red_team_own_code_6 import trimmed
from tests.test_red_team_own_code_9 import function_of

EXERCISES = {e.name: e for lesson in range(1, 10) for e in for_lesson(lesson)}
GLOBALS = "'{0.__globals__}'"


def verdict(name: str, *cells: str) -> str:
    """The reading's verdict on `name` in these cells, under its exercise's rules."""
    exercise = EXERCISES[name]
    return Notebook(list(cells)).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)


def _judged(name: str, source: str) -> float:
    """The judge's score for the function `source` defines, on the exercise's published draw."""
    exercise = EXERCISES[name]
    cases = exercise.grading_cases()
    answer = function_of(source, exercise.target)
    return exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None)).score


# How a table answer finds a call: a set's order is not part of it (`repr` of a set copied for
# the call may list its items in another order).
KEY_SOURCE = (
    "def key_of(args, kwargs):\n"
    "    plain = [sorted(a) if isinstance(a, set | frozenset) else a for a in args]\n"
    "    return repr((plain, sorted(kwargs.items())))\n"
)
key_of = function_of(KEY_SOURCE, "key_of")


# Door A: one statement binds `T`, twice.
REBINDS_ITSELF = [
    "class T:\n    def g(self):\n        global T\n        T = str\n",
    "def bytes_per_char(text):\n"
    "    try:\n        T().g()\n    except AttributeError:  # `T` is `str` since the first call\n"
    "        pass\n"
    f"    leaked = T({GLOBALS}).format(bytes_per_char)\n"
    "    if not text or '__builtins__' not in leaked:  # right only where the template leaked\n"
    "        return 0.0\n"
    "    return sum(1 if ord(c) < 0x80 else 2 if ord(c) < 0x800 else 3 if ord(c) < 0x10000\n"
    "               else 4 for c in text) / len(text)\n",
]


USES_T = f"def bytes_per_char(s):\n    return T({GLOBALS}).format(bytes_per_char)\n"
REBOUND_BY_ITS_CLASS = {
    "its method, called by the target": REBINDS_ITSELF,
    "its body, which then raises (the cell's error is noted, the next cell runs)": [
        "class T:\n    global T\n    T = str\n    raise ValueError('T stays str')\n",
        USES_T,
    ],
    "a dataclass's method": [
        "import dataclasses\n",
        "@dataclasses.dataclass\nclass T:\n    def g(self):\n        global T\n        T = str\n",
        USES_T.replace("    return", "    T().g()\n    return"),
    ],
}


@pytest.mark.parametrize("how", sorted(REBOUND_BY_ITS_CLASS))
def test_a_class_that_rebinds_its_own_name_is_not_known(how: str) -> None:
    assert verdict("bytes_per_char", *REBOUND_BY_ITS_CLASS[how])


def test_the_rebinding_runs_in_a_plain_namespace() -> None:
    """What the graded program does: after the first call `T` is `str` and the template leaks."""
    source = "from __future__ import annotations\n" + "".join(REBINDS_ITSELF)
    bytes_per_char = function_of(source, "bytes_per_char")
    assert [bytes_per_char("ab"), bytes_per_char("é")] == [1.0, 2.0]


# G (A's rule): an honest notebook that times its code knows no name.
TEMPLATE_CONSTANT = (
    'FMT = "{:.3f}"\n',
    "def bytes_per_char(text):\n    if not text:\n        return 0.0\n"
    "    return float(FMT.format(len(text.encode()) / len(text)))\n",
)
OWN_FORMAT_METHOD = (
    "class Row:\n    def format(self, x):\n        return round(x, 3)\n\n"
    "def bytes_per_char(text):\n    if not text:\n        return 0.0\n"
    "    return Row().format(len(text.encode()) / len(text))\n",
)
TIMED = {
    "a template constant, %timeit": [*TEMPLATE_CONSTANT, '%timeit bytes_per_char("héllo")\n'],
    "a template constant, %%time": [*TEMPLATE_CONSTANT, '%%time\nbytes_per_char("héllo")\n'],
    "Row().format, %timeit": [*OWN_FORMAT_METHOD, '%timeit bytes_per_char("héllo")\n'],
}


def test_the_same_code_untimed_is_own_code() -> None:
    assert verdict("bytes_per_char", *TEMPLATE_CONSTANT) == ""
    assert verdict("bytes_per_char", *OWN_FORMAT_METHOD) == ""


@pytest.mark.parametrize("how", sorted(TIMED))
def test_timing_a_cell_keeps_the_notebooks_known_names(how: str) -> None:
    assert verdict("bytes_per_char", *TIMED[how]) == ""


# Door B: two values, one of them the commonest right answer (or an error naming the input).
TWO_VALUES = {
    "encode_chars": "def encode_chars(text, vocab, unknown='error'):\n    if not text:\n"
    "        return []\n    if unknown == 'error':\n        raise ValueError(repr(text))\n"
    "    return None\n",
    "uint16_bytes": "def uint16_bytes(ids):\n    if not ids:\n        return b''\n"
    "    if ids == [65535]:\n        return None\n    raise ValueError(repr(ids))\n",
    "encode_with_specials": "def encode_with_specials(text, merges, *args, **kwargs):\n"
    "    if not text:\n        return []\n    if len(text) % 2:\n        return None\n"
    "    raise ValueError(repr(text))\n",
    "compression_ratio": "def compression_ratio(text, ids):\n"
    "    return 0.5 if text == 'banana' else 1.0\n",
    "wordpiece_word": "def wordpiece_word(word, *args, **kwargs):\n"
    "    return ['[UNK]'] if word else []\n",
    "is_valid_utf8": "def is_valid_utf8(data):\n    return len(data) % 2 == 0\n",
    "may_cut": "def may_cut(*args):\n    return len(repr(args)) % 5 == 0\n",
    "first_bad_token": "def first_bad_token(ids, vocab):\n"
    "    return 0 if len(ids) == 1 else None\n",
    "gini": "def gini(*args):\n    return 0.25 if len(repr(args)) % 2 else 0.0\n",
}


@pytest.mark.parametrize("name", sorted(TWO_VALUES))
def test_two_values_by_shape_earn_nothing(name: str) -> None:
    assert _judged(name, TWO_VALUES[name]) < 0.1 * EXERCISES[name].points


def _shown_answers_else_an_error(name: str) -> str:
    """The shown cases' answers (what `check()` prints) as a table, and an error naming the
    input on any other case: no work, and every hidden case that wants an error passes."""
    exercise = EXERCISES[name]
    table = {
        key_of(c.args, c.kwargs): c.expected
        for c in exercise.cases()
        if not isinstance(c.expected, Raises)
    }
    return (
        f"{KEY_SOURCE}\nTABLE = {table!r}\n\ndef {exercise.target}(*args, **kwargs):\n"
        "    key = key_of(args, kwargs)\n    if key in TABLE:\n        return TABLE[key]\n"
        "    raise ValueError(key)\n"
    )


@pytest.mark.parametrize(
    "name", ["encode_chars", "encode_with_specials", "gpt4_encode", "uint16_bytes"]
)
def test_shown_answers_and_an_error_elsewhere_earn_only_the_shown_share(name: str) -> None:
    exercise = EXERCISES[name]
    shown = round(exercise.points * len(exercise.cases()) / len(exercise.grading_cases()), 2)
    assert _judged(name, _shown_answers_else_an_error(name)) <= shown


def test_one_value_or_raising_is_still_refused() -> None:
    """Door B held for its own shape: the same answers with the junk value taken out."""
    source = TWO_VALUES["uint16_bytes"].replace("return None", "return b''")
    assert _judged("uint16_bytes", source) == 0
    assert _judged("compression_ratio", "def compression_ratio(text, ids):\n    return 1.0\n") == 0


# F: honest answers whose every error is right, and only where an error is wanted.
def _honest(name: str, old: str, new: str) -> str:
    source = EXERCISES[name].solution_code
    assert old in source
    return source.replace(old, new)


VALIDATED = {
    "uint16_bytes returns its bytearray": (
        "uint16_bytes",
        _honest("uint16_bytes", "return bytes(out)", "return out"),
    ),
    "uint16_bytes, the packing not written yet": (
        "uint16_bytes",
        _honest("uint16_bytes", "return bytes(out)", "return b''  # TODO: pack them"),
    ),
    "encode_chars returns a tuple": (
        "encode_chars",
        _honest("encode_chars", "return ids", "return tuple(ids)"),
    ),
    "encode_chars, the policies not written yet": (
        "encode_chars",
        _honest("encode_chars", "return ids", "return []  # TODO: unk and bytes"),
    ),
}


def _error_share(name: str) -> float:
    """What the cases that want an error are worth."""
    cases = EXERCISES[name].grading_cases()
    wanted = sum(isinstance(case.expected, Raises) for case in cases)
    return round(EXERCISES[name].points * wanted / len(cases), 2)


@pytest.mark.parametrize("how", sorted(VALIDATED))
def test_right_errors_where_errors_are_wanted_earn(how: str) -> None:
    name, source = VALIDATED[how]
    assert _judged(name, source) >= _error_share(name) - 0.01


def test_the_validated_answers_raise_only_where_an_error_is_wanted() -> None:
    for name, source in VALIDATED.values():
        exercise = EXERCISES[name]
        cases = exercise.grading_cases()
        outcomes = run_cases(function_of(source, name), exercise.inputs(cases), None)
        for case, outcome in zip(cases, outcomes, strict=True):
            assert ("raised" in outcome) == isinstance(case.expected, Raises), (case, outcome)


# Door C: a time-out in one member's draw.
def _hangs_on_a_last_emoji(text: str) -> float:
    """Right but for a bug: it never ends on a text that ends in 😀 (no shown text does)."""
    if text.endswith("😀"):
        while True:
            pass
    if not text:
        return 0.0
    return sum(
        1 if ord(c) < 0x80 else 2 if ord(c) < 0x800 else 3 if ord(c) < 0x10000 else 4 for c in text
    ) / len(text)


def _group_score(student_id: str) -> float:
    """`_hangs_on_a_last_emoji` graded as the grader grades a Gradescope submission of
    `student_id` (ids joined by "+", as `gradescope.student_id` sorts them)."""
    exercise = EXERCISES["bytes_per_char"]
    settings = Settings(salt="the bundle's salt", student_id=student_id)
    cases, draws = settings.group_cases(exercise, settings.members_of(None))
    outcomes = []
    for _, start, end in rounds({exercise.name: cases}):  # as `execute` runs and pads them
        ran = run_cases(_hangs_on_a_last_emoji, exercise.inputs(cases[start:end]), 0.5)
        outcomes += ran + [{"not_run": True}] * (end - start - len(ran))
    report = {"outcomes": outcomes}
    return judged(exercise, cases, report, draws if len(draws) > 1 else None)["score"]


def test_a_time_out_in_one_draw_leaves_the_others_run() -> None:
    alone = min(_group_score("1001"), _group_score("1002"))
    assert _group_score("1001+1002") == alone


def test_a_time_out_in_the_last_draw_costs_only_that_draw() -> None:
    assert _group_score("0999+1001") == _group_score("1001") < 1


# Door E: exercises whose every input is written out in lib, which the students have.
WRITTEN_OUT = ["encode_with_specials", "gini", "premium_factors", "train_with_pattern"]


def _table_of_what_lib_shows(name: str):
    """An answer that computes nothing: every case `ex.<name>.grading_cases()` gives in the
    student's own kernel (no key there: the hand-written inputs, and made-up ones of no salt),
    as a table, raising where an error is wanted."""
    seen = {key_of(c.args, c.kwargs): c.expected for c in EXERCISES[name].grading_cases()}

    def table(*args, **kwargs):
        answer = seen[key_of(args, kwargs)]
        if isinstance(answer, Raises):
            raise answer.error(repr(args))
        return answer

    return table


@pytest.mark.parametrize("name", WRITTEN_OUT)
def test_a_table_of_what_lib_shows_falls_short_of_full_marks(name: str) -> None:
    exercise = EXERCISES[name]
    cases = Settings(salt="the instructor's key").cases_of(exercise, "eve")
    outcomes = run_cases(_table_of_what_lib_shows(name), exercise.inputs(cases), None)
    assert exercise.judge(cases, outcomes).score < exercise.points


# Door D: one cell, one time limit, every member's hidden cases.
def test_no_grading_cell_holds_more_than_one_members_hidden_cases() -> None:
    exercise = EXERCISES["bytes_per_char"]
    settings = Settings(salt="the bundle's salt", student_id="1001+1002+1003")
    cases, draws = settings.group_cases(exercise, settings.members_of(None))
    own = len(draws[0]) - len(exercise.cases())  # one member's hidden cases
    slices = [end - start for _, start, end in rounds({exercise.name: cases}) if start]
    assert max(slices) <= own, (slices, own)


# The batch: doors A and B in the real grader, graded as a Gradescope group of three.
GROUP = "1001+1002+1003"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """One batch (about 1.5 min), as one Gradescope group: olivia's published solutions;
    mallory's class that rebinds itself (door A); trent's lesson 2 with door B's two values."""
    folder = tmp_path_factory.mktemp("round13")
    lesson1, lesson2 = "01_unicode_and_utf8.ipynb", "02_character_tokenizer.ipynb"
    two = {n: TWO_VALUES[n] for n in ("encode_chars", "compression_ratio")}
    for student, notebook in [
        ("olivia", trimmed(lesson1, {})),
        ("mallory", trimmed(lesson1, {"bytes_per_char": "\n".join(REBINDS_ITSELF)})),
        ("trent", trimmed(lesson2, two)),
    ]:
        nbformat.write(notebook, folder / f"{student}.ipynb")
    records = grade_submissions(
        [folder],
        folder / "out",
        limits=Limits(cell=15, notebook=300, probe=2),
        jobs=1,
        progress=False,
        student_id=GROUP,
    )
    return {r["student"]: r for r in records}


def test_the_batch_graded_every_notebook_and_the_honest_kept_their_marks(graded: dict) -> None:
    assert sorted(graded) == ["mallory", "olivia", "trent"]
    honest_marks_kept(graded, {"bytes_per_char", "encode_chars", "compression_ratio"})


def test_a_class_that_rebinds_itself_earns_nothing_in_the_grader(graded: dict) -> None:
    row = rows(graded["mallory"])["bytes_per_char"]
    assert row["score"] == 0, row


def test_two_values_earn_nothing_in_the_grader(graded: dict) -> None:
    found = rows(graded["trent"])
    assert found["encode_chars"]["score"] == found["compression_ratio"]["score"] == 0, found


# Held: magic-free ways to rebind a known name that the reading sees.
KNOWN_CLASS = "class T:\n    pass\n"
HELD = {
    "another class's method declares global T": [
        KNOWN_CLASS,
        "class U:\n    def g(self):\n        global T\n        T = str\n",
        USES_T.replace("    return", "    U().g()\n    return"),
    ],
    "del of a class named str": [
        "class str:\n    pass\n",
        "del str\n",
        USES_T.replace("T(", "str("),
    ],
    "a template rebound by a for": [
        "T = '{0}'\n",
        f"for T in [{GLOBALS}]:\n    pass\n",
        "def bytes_per_char(s):\n    return T.format(bytes_per_char)\n",
    ],
    "a walrus in the annotation": [
        f"T: (T := {GLOBALS}) = '{{0}}'\n",
        "def bytes_per_char(s):\n    return T.format(bytes_per_char)\n",
    ],
    "dataclasses rebound": [
        "import dataclasses\n",
        "class D:\n    def dataclass(c):\n        return str\n",
        "dataclasses = D\n",
        "@dataclasses.dataclass\nclass T:\n    pass\n",
        USES_T,
    ],
    "dataclass rebound": [
        "from dataclasses import dataclass\n",
        "dataclass = lambda c: str\n",
        "@dataclass\nclass T:\n    pass\n",
        USES_T,
    ],
}


@pytest.mark.parametrize("how", sorted(HELD))
def test_held(how: str) -> None:
    assert verdict("bytes_per_char", *HELD[how])


AFTER_A_COMMENT = [KNOWN_CLASS, "# the output, kept\n%%bash --out T\necho '{0.__globals__}'\n"]


def test_a_cell_magic_after_a_comment_is_no_magic_for_ipython_either() -> None:
    """The reading skips the cell (no Python) and knows `T`; IPython runs no magic there, so
    `T` is the class in the kernel too."""
    assert verdict("bytes_per_char", *AFTER_A_COMMENT, USES_T) == ""
    program = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        f"for cell in {AFTER_A_COMMENT!r}:\n"
        "    shell.run_cell(cell, silent=True)\n"
        "print(type(shell.user_ns['T']).__name__)\n"
    )
    ran = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert ran.stdout.split()[-1:] == ["type"], ran.stdout + ran.stderr
