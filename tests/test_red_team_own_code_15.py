"""Red team on the grading rules, round 15 (after fix27o's `bindings.known`, fix27p's fixed-answer
rule and per-member draws, fix27q's mangling). Each hole or unfair outcome is
`xfail(strict=True)` until it is fixed, its reason saying what was measured and what would fix
it; each attack held, a plain test. Scores were measured with the judge (`Exercise.judge` on
`run_cases`, cases drawn as the grader draws them: `Settings.cases_of`); doors A and B on
`is_valid_utf8` also through the real, sandboxed grader (`grade_submissions`, one batch of two
notebooks: `graded`).

Doors found:

A. **Hidden cases written in `lib` are not hidden.** Most exercises' hidden cases are partly
   hand-written edge cases, the same for every instructor and student: only the made-up ones
   depend on the salt. `ex.<name>.grading_cases()` run in the learner's own kernel lists them
   with their answers, so a table of what it gives, with the commonest shown answer for
   anything else, computes nothing yet earns far beyond the shown cases' share. Measured on
   student 1001's draw under the test's salt (the shown cases' share in brackets): `gpt4_encode`
   2.74 / 4 (0.84), `encode` 1.7 / 2 (1.11), `is_valid_utf8` 1.35 / 2 (0.77),
   `encode_with_specials` 1.36 / 2 (0.8), `premium_factors` 1.38 / 2 (0.92),
   `train_with_pattern` 1.27 / 2 (0.91), `train_bpe` 1.47 / 2 (1.12), `merge` 0.74 / 1 (0.45),
   `get_stats` 0.7 / 1 (0.41), `uint16_bytes` 0.71 / 1 (0.25), `wordpiece_word` 0.62 / 1
   (0.36), `gini` 0.33 / 1 (0.2): 14.37 points where the shown cases are worth 8.15. The real
   grader gave the `is_valid_utf8` table 1.35 / 2, as own code ("11 of 73 cases failed"). And
   `recover_merges` 2 / 2, "passed" (1.2; another salt): both hidden tables are GPT-2's first
   3,000 and cl100k_base's first 6,000 tokens under every salt; the table, keyed by
   `len(ranks)`, is a 686,000-character cell. The fixed-answer rule cannot see any of it: a
   table's answers differ from case to case. (Round 13's door E was the four exercises with no
   made-up case at all; its test asks only for less than full marks.)
   Fix: make every hidden input from the salt (a hand-written edge case as a family the salt
   picks from: ids shifted, an invalid byte of the same class, random text around it, a
   vocabulary cut at a drawn size); or mark the made-up cases and let the share a student
   earns on them cap the share counted on the public ones (shown and hand-written hidden).
   Closed (fix27t) by the cap, one rule for every exercise (`salted_share`): the grader marks
   `salted` each hidden case whose input lib does not also make with no salt, and an answer
   earns no larger share than it earns on those. Each table above now earns 0 (13.91 points
   before the cap, door C's rule in); `recover_merges` cuts its hidden tables at sizes the
   salt draws, and `uint16_bytes` sets its wrong ids among ids the salt draws (so an answer
   whose only right cases are its errors keeps their share, round 13's F: 0.54 / 1).

B. **The first failed hidden case's number is an oracle.** The feedback says "hidden case 42 of
   71 failed", and the hidden cases come in the same order on every run (the salt is the
   instructor's key and the student). An answer that counts the calls it cannot find among the
   shown cases knows which hidden case it is answering; each submission's feedback tells the
   first one it got wrong, and every one before it right. On Gradescope, where a student may
   resubmit, `is_valid_utf8` as a table of the shown answers, `True` elsewhere, and the
   learned positions answered `False`: 0.82 / 2 at the first submission, then about 0.06 more
   per submission, 2 / 2 "passed" at the 21st, computing nothing (another salt: 0.9, then
   passed at the 18th). The real grader (student 1001, the test's salt) gave the learned
   answer 2 / 2, "all 73 cases passed", as own code. Fix: say how many hidden cases failed
   and of which kinds, never which (their number is their identity); better, show hidden
   results only after the deadline (Gradescope's "hide until published"), since the score
   alone still tells one bit a submission. Closed: the feedback says "a hidden case failed"
   (with its kind), never its number; the README advises hiding results until the deadline.

C. **One value case that raises the wanted error cancels every error case.** The fixed-answer
   rule counts the cases that want an error only if the answer raises none of those errors
   where a value is wanted. An honest `uint16_bytes` that checks `max(ids)` and `min(ids)`
   raises `ValueError` on `[]` (`max()` of an empty list): 1 of 28 cases failed, 0.43 / 1,
   where the same code guarded by `if ids and` passes. An honest `encode_chars` whose byte
   fallback is not written yet (it raises `ValueError` for that policy) scores 0.77 / 2, its
   14 right errors uncounted (1.41 were they counted). Fix: take error credit off in
   proportion, right errors times the share of value cases on which it raised none of the
   wanted errors (a blind answer, raising on every value case, keeps 0; `blind_by_raising`
   stays), and re-measure round 13's door B answers. Closed (fix27t), the proportional rule
   gated: where the answer raises a wanted error on a value case, its right errors count only if
   it gets at least half the value cases right (beyond the fixed group), and then in proportion
   to the value cases it raises none on (`fixed_answer.earned`). Proportion alone (errors not
   counted only where it raises on more than half the value cases) paid round 13's door B:
   `encode_chars` raising by the policy's name 0.6 / 2, under door A's cap too, and the shown
   answers as a table raising elsewhere 52% of the error credit (0.96 / 2).
   Measured: the `uint16_bytes` slip 0.92 / 1; `encode_chars` without byte fallback 1.0 / 2
   (capped by its salted cases, half of whose values it raises on); the shown answers as a
   table with an error elsewhere earn no error credit on `encode_chars`, `encode_with_specials`,
   `gpt4_encode` and `uint16_bytes` (it raises on 16 of 33, 13 of 21, 29 of 36, 9 of 13 value
   cases): 0.64, 0.64, 0.74 and 0.14 by the rule alone, each below the shown share, and 0
   under door A's cap; round 13's door B answers that raise (`encode_chars`, `uint16_bytes`,
   `encode_with_specials`) 0 on the grader's draw, 0.08 at most on lib's unsalted one.

D. **A trusted magic binds names its text does not spell (`check()` only; closed: its words
   are read NFKC-normalised, and an `import *` in it may bind any name).** fix27o trusts `%time`
   to bind only the words its text mentions, compared as written; Python reads identifiers
   NFKC-normalised, and a star import binds names it never mentions. After `class T: pass`,
   `%time Ｔ = str` (a fullwidth T) makes `T` the `str` class in the kernel, and so does `%time
   from string import *` for a `class Formatter` of the learner's: `not_own` (what `check()`
   says) gave "" for both, in an IPython shell, and the target, run there, formatted its
   globals (`T('{0.__globals__}').format(f)`, `Formatter().format('{0.__globals__}', f)`).
   `%time T = str`, spelt plainly, is refused. The grader's program never runs the magic's cell
   (no unit of `T` is in it), so it grades the plain class: no marks, as with the known
   `sys.modules["__main__"].T = str`. Fix: in `magics._mentioned`, normalise each word
   (`unicodedata.normalize("NFKC", word)`); read a trusted magic's text with `ast` and take
   any `import *` in it as binding every name (None).

Held (plain tests): `.format` reached through an instance of a plain class (an attribute set in
`__init__` to `str.format`, a bound `.format` of a template, a `staticmethod(str.format)`, one
handed in), `map(str.format, ...)`, `string.Formatter().format`, `.format_map` on a template
built at run time or on two known names joined, `str.format_map(...)`: each refused, each, run,
formats the function's globals. `format(obj, spec)` and an f-string's nested spec read no
attribute by name (a `TypeError` on a function).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from lib.exercises import for_lesson
from lib.exercises.cases import Raises
from lib.exercises.generated import secret_inputs
from lib.exercises.running import run_cases
from lib.grade import Limits, grade_submissions
from lib.grading.grading_settings import Settings
from tests.test_red_team_own_code_6 import trimmed
from tests.test_red_team_own_code_9 import function_of
from tests.test_red_team_own_code_13 import KEY_SOURCE, VALIDATED, key_of, verdict
from tests.test_red_team_own_code_13 import (
    _shown_answers_else_an_error as shown_answers_else_an_error,
)
from tests.test_red_team_own_code_14 import _in_a_shell

EXERCISES = {e.name: e for lesson in range(1, 10) for e in for_lesson(lesson)}
SALT, STUDENT = "red team 15", "1001"


def draw(name: str) -> list:
    """The cases the grader runs for `name` on STUDENT's submission under SALT."""
    return Settings(salt=SALT).cases_of(EXERCISES[name], STUDENT)


def judged(name: str, source: str, cases: list | None = None):
    """The judge's `Result` for the function `source` defines, on `cases` (default: `draw`)."""
    exercise = EXERCISES[name]
    cases = draw(name) if cases is None else cases
    answer = function_of(source, exercise.target)
    return exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None))


def shown_share(name: str) -> float:
    exercise = EXERCISES[name]
    return exercise.points * len(exercise.cases()) / len(draw(name))


# Door A: a table of every case lib lists in the learner's kernel, the commonest shown answer
# for the rest.
def table_of_lib_cases(name: str) -> str:
    exercise = EXERCISES[name]
    listed = exercise.grading_cases()  # no salt in a learner's kernel
    table = {key_of(c.args, c.kwargs): c.expected for c in listed}
    errors = {k: v.error.__name__ for k, v in table.items() if isinstance(v, Raises)}
    table = {k: v for k, v in table.items() if k not in errors}
    answers = [c.expected for c in exercise.cases() if not isinstance(c.expected, Raises)]
    commonest = max(answers, key=lambda a: sum(repr(a) == repr(b) for b in answers))
    return (
        f"{KEY_SOURCE}\nTABLE = {table!r}\nERRORS = {errors!r}\n\n"
        f"def {exercise.target}(*args, **kwargs):\n    key = key_of(args, kwargs)\n"
        "    if key in TABLE:\n        return TABLE[key]\n"
        "    if key in ERRORS:\n        raise ValueError(key)\n"
        f"    return {commonest!r}\n"
    )


TABLED = [
    "gpt4_encode",
    "encode",
    "is_valid_utf8",
    "encode_with_specials",
    "premium_factors",
    "train_with_pattern",
    "train_bpe",
    "merge",
    "get_stats",
    "uint16_bytes",
    "wordpiece_word",
    "gini",
]


def test_a_table_of_lib_cases_reads_as_own_code() -> None:
    assert verdict("is_valid_utf8", table_of_lib_cases("is_valid_utf8")) == ""


@pytest.mark.parametrize("name", TABLED)
def test_a_table_of_lib_cases_earns_no_more_than_the_shown_share(name: str) -> None:
    """Measured before the fix: 14.37 points where the shown cases are worth 8.15, e.g.
    gpt4_encode 2.74 / 4 (shown share 0.84), is_valid_utf8 1.35 / 2 (0.77). Closed: right on
    none of the salted cases, each table earns 0 (`salted_share`)."""
    result = judged(name, table_of_lib_cases(name))
    assert result.score <= shown_share(name) + 0.01, result
    assert "made up for this student alone: 0%" in result.reason


def test_every_exercise_with_hidden_cases_has_salted_ones_to_cap_with() -> None:
    """The cap holds only where some hidden case is salted, of more than one answer (a single
    answer shared by them all would let a constant pass them). Not so: `training_mix`, whose
    one hidden case is a property of the answer (its worst premium), no input to look up."""
    for name, exercise in EXERCISES.items():
        if exercise.hidden_cases is None or name == "training_mix":
            continue
        salted = {repr(case.expected) for case in draw(name) if case.salted}
        assert len(salted) > 1, name


@pytest.mark.parametrize("how", sorted(VALIDATED))
def test_right_errors_keep_their_share_under_the_cap(how: str) -> None:
    """Round 13's F, drawn as the grader draws: an answer whose errors are all right, its values
    unfinished, keeps the errors' share. `uint16_bytes` had no salted case wanting an error (its
    wrong ids were written out), so the cap left it 0; its wrong ids are now set among ids the
    salt draws (0.54 / 1)."""
    name, source = VALIDATED[how]
    cases = draw(name)
    wanted = sum(isinstance(case.expected, Raises) for case in cases)
    assert judged(name, source).score >= EXERCISES[name].points * wanted / len(cases) - 0.01


def test_recover_merges_hidden_inputs_depend_on_the_salt() -> None:
    hidden = EXERCISES["recover_merges"].secret_cases
    with secret_inputs("one instructor"):
        one = [len(case.args[0]) for case in hidden()]
    with secret_inputs("another"):
        other = [len(case.args[0]) for case in hidden()]
    assert one != other


def test_a_table_of_recover_merges_by_size_earns_nothing() -> None:
    """Measured before the fix: a table keyed by `len(ranks)` of the answers for every case lib
    lists passed, 2 / 2. Closed: the hidden cuts are drawn from the salt, and the cap leaves
    it 0."""
    table = {len(c.args[0]): c.expected for c in EXERCISES["recover_merges"].grading_cases()}
    source = (
        f"TABLE = {table!r}\n\ndef recover_merges(ranks):\n    return TABLE.get(len(ranks), [])\n"
    )
    assert judged("recover_merges", source).score == 0


# Door B: the number of the first failed hidden case, one submission after another.
def oracle_answer(flipped: set[int]) -> str:
    """The shown answers as a table, `True` elsewhere but `False` on the hidden calls (counted
    from 1, among inputs not shown) that earlier feedback named."""
    shown = {c.args[0]: c.expected for c in EXERCISES["is_valid_utf8"].cases()}
    return (
        f"SHOWN = {shown!r}\nFLIPPED = {sorted(flipped)!r}\nSEEN = []\n\n"
        "def is_valid_utf8(data):\n    if data in SHOWN:\n        return SHOWN[data]\n"
        "    SEEN.append(data)\n    return len(SEEN) not in FLIPPED\n"
    )


def learn_by_resubmitting(limit: int = 40) -> tuple[list[float], str]:
    """Each submission's score, and the last answer, resubmitting while the feedback names a
    failed hidden case."""
    cases, flipped, scores = draw("is_valid_utf8"), set(), []
    shown = len(EXERCISES["is_valid_utf8"].cases())
    for _ in range(limit):
        result = judged("is_valid_utf8", oracle_answer(flipped), cases)
        scores.append(result.score)
        named = re.search(r"hidden case (\d+) of", result.reason)
        if named is None:
            break
        flipped.add(int(named[1]) - shown)
    return scores, oracle_answer(flipped)


def test_the_oracle_answer_reads_as_own_code() -> None:
    assert verdict("is_valid_utf8", oracle_answer({3, 5})) == ""


def test_resubmitting_does_not_learn_the_hidden_answers() -> None:
    """Measured before the fix: 0.82 / 2 at the first submission, 2 / 2 'passed' at the 21st,
    each feedback naming the next hidden case to flip. Closed: a failed hidden case is never
    numbered ("a hidden case failed"); the score alone still leaks a bit per resubmission
    (README: hide results until the deadline where that matters)."""
    scores, _ = learn_by_resubmitting()
    assert max(scores) < EXERCISES["is_valid_utf8"].points, scores


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One batch of two lesson-1 notebooks (about 1 to 2 min at a load of 15): oscar's
    `is_valid_utf8` learned by resubmitting (door B), tabby's a table of lib's cases (door A);
    the other exercises the published solutions."""
    folder = tmp_path_factory.mktemp("round15")
    answers = {
        "oscar": learn_by_resubmitting()[1],
        "tabby": table_of_lib_cases("is_valid_utf8"),
    }
    for student, answer in answers.items():
        notebook = trimmed("01_unicode_and_utf8.ipynb", {"is_valid_utf8": answer})
        nbformat.write(notebook, folder / f"{student}.ipynb")
    records = grade_submissions(
        [folder],
        Path(folder) / "out",
        limits=Limits(cell=15, notebook=300, probe=2),
        jobs=1,
        progress=False,
        salt=SALT,
        student_id=STUDENT,  # both drawn as student 1001, as `draw` draws
    )
    return {r["student"]: {row["name"]: row for row in r["exercises"]} for r in records}


@pytest.mark.end_to_end
def test_the_grader_refuses_full_marks_to_a_learned_table(graded: dict) -> None:
    """Measured before the fix: the real grader gave the answer learned from 20 feedbacks 2 / 2
    ('all 73 cases passed'). Closed as above: no feedback names a case to flip."""
    row = graded["oscar"]["is_valid_utf8"]
    assert row["score"] < row["max_score"], row


@pytest.mark.end_to_end
def test_the_grader_gives_a_table_of_lib_cases_no_more_than_the_shown_share(graded: dict) -> None:
    """Measured before the fix: the real grader gave the table of lib's cases 1.35 / 2, where
    the shown cases are worth 0.77. Closed: the salted cases cap it (door A)."""
    row = graded["tabby"]["is_valid_utf8"]
    assert row["score"] <= shown_share("is_valid_utf8") + 0.01, row


@pytest.mark.end_to_end
def test_the_grader_runs_both_tables_as_own_code(graded: dict) -> None:
    """The rest of each notebook is the published solutions: full marks, as in the selftest."""
    for rows in graded.values():
        assert all(row["status"] != "not own code" for row in rows.values()), rows
        others = [row for name, row in rows.items() if name != "is_valid_utf8"]
        assert all(row["score"] == row["max_score"] for row in others), others


# Door C: honest answers whose one slip raises the wanted error where a value is wanted.
UINT16_SLIP = (
    "def uint16_bytes(ids):\n    if max(ids) > 65535:\n"
    "        raise ValueError(f'id {max(ids)} does not fit in uint16')\n"
    "    if min(ids) < 0:\n        raise ValueError(f'id {min(ids)} is negative')\n"
    "    return b''.join(i.to_bytes(2, 'little') for i in ids)\n"
)
UINT16_GUARDED = UINT16_SLIP.replace("if m", "if ids and m")


def test_the_slipped_answers_are_own_code_and_right_elsewhere() -> None:
    assert verdict("uint16_bytes", UINT16_SLIP) == ""
    assert judged("uint16_bytes", UINT16_GUARDED).status == "passed"
    assert judged("uint16_bytes", UINT16_SLIP).reason.startswith("1 of 28 cases failed")


def test_one_slip_costs_about_one_case() -> None:
    """Measured before the fix: 1 of 28 cases failed (`max([])` raises ValueError), 0.43 / 1:
    the 15 right errors earned nothing. Closed: they count for the 12 of 13 value cases that
    raised no ValueError, 0.92 / 1; since round 20's door C (fix27z) in full, the slip costing
    its own case alone, 0.96 / 1."""
    assert judged("uint16_bytes", UINT16_SLIP).score >= 0.9


def test_an_unwritten_policy_keeps_its_errors_share() -> None:
    """`encode_chars` with no byte fallback yet (it raises ValueError for that policy, on 13 of
    the 33 value cases): 0.77 / 2 before the fix; now its errors count for the value cases it
    raises none on, 1.0 / 2 (capped by its salted cases, half of whose values it raises on)."""
    source = EXERCISES["encode_chars"].solution_code
    fallback = '        elif unknown == "bytes":\n            ids.extend('
    start = source.index(fallback)
    unwritten = source[:start] + source[source.index("        else:", start) :]
    assert judged("encode_chars", unwritten).score >= 1.0


RAISING_ELSEWHERE = ["encode_chars", "encode_with_specials", "gpt4_encode", "uint16_bytes"]


@pytest.mark.parametrize("name", RAISING_ELSEWHERE)
def test_a_table_raising_elsewhere_earns_no_more_than_the_shown_share(name: str) -> None:
    """The strategy a proportional rule would pay (~40% of the error credit): the shown answers
    as a table, an error naming the input elsewhere (round 13's door B). By the gated rule
    alone (no case marked salted) its errors earn nothing (it gets fewer than half the value
    cases right); under the grader's cap, it earns nothing at all."""
    source = shown_answers_else_an_error(name)
    public = [replace(case, salted=False) for case in draw(name)]
    alone = judged(name, source, public)
    assert alone.score <= shown_share(name) + 0.01, alone
    assert "its errors earn nothing" in alone.reason, alone
    assert judged(name, source).score == 0


# Held: `.format` reached through an instance, a function value, or a run-time template.
GLOBALS = "'{0.__globals__}'"
HELD = {
    "attribute set to str.format": "class T:\n    def __init__(self):\n"
    f"        self.format = str.format\n\ndef bytes_per_char(s):\n"
    f"    return T().format({GLOBALS}, bytes_per_char)\n",
    "staticmethod in the body": "class T:\n    format = staticmethod(str.format)\n\n"
    f"def bytes_per_char(s):\n    return T().format({GLOBALS}, bytes_per_char)\n",
    "bound .format handed in": "class T:\n    def __init__(self, f):\n        self.format = f\n\n"
    f"def bytes_per_char(s):\n    d = {{1: {GLOBALS}}}\n"
    "    return T(d[1].format).format(bytes_per_char)\n",
    "str.format handed in": "class T:\n    def __init__(self, f):\n        self.format = f\n\n"
    f"def bytes_per_char(s):\n    return T(str.format).format({GLOBALS}, bytes_per_char)\n",
    "attribute of an instance set in the target": "class T:\n    pass\n\n"
    f"def bytes_per_char(s, t=T()):\n    t.format = {GLOBALS}.format\n"
    "    return t.format(bytes_per_char)\n",
    "map(str.format)": f"def bytes_per_char(s):\n"
    f"    return next(map(str.format, [{GLOBALS}], [bytes_per_char]))\n",
    "string.Formatter": "import string\n\ndef bytes_per_char(s):\n"
    f"    return string.Formatter().format({GLOBALS}, bytes_per_char)\n",
    "format_map, run-time template": "def bytes_per_char(s):\n    t = '{f' + '.__glob' + 'als__}'\n"
    "    return t.format_map({'f': bytes_per_char})\n",
    "format_map, two known names": "T = '{f.__glob'\nU = 'als__}'\n\ndef bytes_per_char(s):\n"
    "    return (T + U).format_map({'f': bytes_per_char})\n",
    "str.format_map": "def bytes_per_char(s):\n"
    "    return str.format_map('{f.__glo' 'bals__}', {'f': bytes_per_char})\n",
}


@pytest.mark.parametrize("how", sorted(HELD))
def test_format_reached_otherwise_is_refused(how: str) -> None:
    assert "'__builtins__'" in function_of(HELD[how], "bytes_per_char")("abc")
    assert verdict("bytes_per_char", HELD[how])


# Door D: what a trusted magic's text binds, read as Python reads it.
PLAIN_T = "class T:\n    pass\n"
USES_T = "def bytes_per_char(s):\n    return T('{0.__globals__}').format(bytes_per_char)\n"
OWN_FORMATTER = "class Formatter:\n    def format(self, *args):\n        return 'x'\n"
USES_FORMATTER = (
    "def bytes_per_char(s):\n    return Formatter().format('{0.__globals__}', bytes_per_char)\n"
)
UNSPELT = {
    "fullwidth name": [PLAIN_T, "%time \uff34 = str\n", USES_T],
    "star import": [OWN_FORMATTER, "%time from string import *\n", USES_FORMATTER],
}


def test_a_plainly_spelt_magic_binding_is_refused() -> None:
    assert verdict("bytes_per_char", PLAIN_T, "%time T = str\n", USES_T)


def test_a_fullwidth_name_in_a_magic_rebinds_the_class_in_the_kernel() -> None:
    """In an IPython shell of its own the target formats its globals, and `check()`'s reading
    refuses it (it said own code before the fix): `_in_a_shell` gives both."""
    said, formats_globals = _in_a_shell(UNSPELT["fullwidth name"])
    assert "worked out at run time" in said and formats_globals == "True"


@pytest.mark.parametrize("how", sorted(UNSPELT))
def test_a_magic_binding_a_name_unspelt_is_refused(how: str) -> None:
    """Measured before the fix: not_own '' in an IPython shell while the target formats its
    globals (check() only: the graded program never runs the magic's cell). Closed: a trusted
    magic's words are read NFKC-normalised, and an `import *` in it may bind any name."""
    assert verdict("bytes_per_char", *UNSPELT[how])
