"""Red team on the grading rules, round 19: the salted cap (`salted_share`) and the gated error
credit (`fixed_answer.earned`), after fix27t. Each hole or unfair outcome is `xfail(strict=True)`
until it is fixed, its reason saying what was measured and what would fix it; each attack held,
a plain test. Scores are the judge's (`Exercise.judge` on `run_cases`), on cases drawn as the
grader draws them (`Settings.cases_of`), for 40 students under this file's salt.

Doors found:

A. **The cap tests only what the salted family tests.** An answer's score is capped by its share
   on the salted cases, so a rule tested only by written-out (public) hidden cases is as good
   as shown: a table of lib's cases answers it. `is_valid_utf8`'s salted cases are random
   texts, the same cut one byte short, and the same with its second byte's top bit set: every
   one of them is judged by whether its last character is whole. Overlong forms, surrogates,
   code points beyond U+10FFFF and bytes F5 to FF appear only among the public cases. So a
   table of every case lib lists (shown and unsalted hidden), and elsewhere a check of the last
   character alone (no overlong, surrogate or range rule, nothing read before the last lead
   byte), earned 2 / 2, "all 71 cases passed", for 16 of 40 students; mean 1.81 / 2, least
   1.0. The honest answer without the overlong, surrogate and range rule gets 1.36 to 1.49:
   those rules are worth a quarter of the points, and the cap gives them away.
   Fix: a salted family for each rule the written-out cases test (an overlong form, a
   surrogate, a code point beyond U+10FFFF, a byte that starts nothing, a stray continuation,
   each between random texts), so that a rule is worth as much on the salted cases as on the
   public ones. Closed here (`validity._broken_by_rule`, 8 salted cases, one per rule): the
   tail check now earns 0.43 to 1.11 (mean 0.92, none passed), what the cut-short rule is
   worth; the answer without the overlong, surrogate and range rule 1.08 to 1.3 (mean 1.24,
   its cap now lower than its share of cases right), the published solution 2 / 2 for all 40.
   The real grader (sandboxed, student 2000, this salt) gave the tail check 2 / 2 'all 71
   cases passed' before the fix, as own code, and 1.11 / 2 'partial' after it ("scored as on
   the 42 cases made up for this student alone: 56%").

B. **Special tokens are tested only by listed cases.** `gpt4_encode`'s salted cases are random
   texts and FLORES sentences, none with a special token; all 6 cases with one (and both that
   want an error) are written out in lib. So the published solution with every special-token
   rule cut out (no split on allowed specials, no error on disallowed ones), lib's listed
   cases answered from a table, earned 4 / 4, "all 38 cases passed", for 10 of 10 students.
   Fix: salted texts with a special token set in them, allowed, allowed among all, or not
   (an error). Closed here (`capstone._made_up_texts`, now `gpt4_texts.drawn_texts`: its 6
   random texts each carry one, so the hidden cases stay 30 and fit the cell's time limit):
   2.0 / 4 for each of the 10, the published solution 4 / 4.

Measured, no door:

- Enumerating the salted inputs: run lib's generators in a learner's kernel under many salts
  and table what comes out. Over 40 salts (6 for the slow ones), the union of salted inputs
  held at most 5 of another student's 29 (`utf8_encode`, its 1-byte code points; `wordpiece_word`
  5 of 23, `viterbi` 4 of 25), and none for 24 of the 31 exercises: no generator is narrow
  enough to list. The salt itself (`sha256(key + student)`) is made in the grader's process.
- The capped reason prints the salted share ("made up for this student alone: 56%"), the same
  bit per resubmission as the score itself (round 15's B: hide results until the deadline).

Not tried (time): the error gate against a cheap half-right rule, groups, and a sweep of the
other exercises for door A and B's pattern (a rule only written-out cases test): each hidden
case written in lib with no salted case of its kind is a candidate. (Swept since, fix27x: each
written-out hidden case has a kind, and a salted twin of it, `tests/test_salted_kinds.py`.)

Held (plain tests): an honest partial answer's score is spread little across students (the
`is_valid_utf8` answer without the overlong, surrogate and range rule: 1.36 to 1.49 over 40
students before door A's fix, 1.08 to 1.3 after it).
"""

from __future__ import annotations

from lib.exercises import for_lesson
from lib.exercises.cases import Raises
from lib.exercises.running import run_cases
from lib.grading.grading_settings import Settings
from tests.test_red_team_own_code_9 import function_of
from tests.test_red_team_own_code_13 import KEY_SOURCE, key_of, verdict

EXERCISES = {e.name: e for lesson in range(1, 10) for e in for_lesson(lesson)}
SALT = "red team 19"
STUDENTS = [str(2000 + n) for n in range(40)]


def scores(name: str, source: str, students: list[str] = STUDENTS) -> list[float]:
    """The judge's score for the function `source` defines, on each of `students`' draws."""
    exercise = EXERCISES[name]
    answer = function_of(source, exercise.target)
    settings = Settings(salt=SALT)
    out = []
    for student in students:
        cases = settings.cases_of(exercise, student)
        out.append(exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None)).score)
    return out


# Door A: lib's cases as a table, and the last character's wholeness for the rest.
def tail_check() -> str:
    exercise = EXERCISES["is_valid_utf8"]
    table = {c.args[0]: c.expected for c in exercise.cases() + exercise.grading_cases()}
    return (
        f"TABLE = {table!r}\n\n\ndef is_valid_utf8(data):\n"
        "    if data in TABLE:\n        return TABLE[data]\n"
        "    start = len(data) - 1  # the last character only: is it whole?\n"
        "    while start > 0 and data[start] >> 6 == 0b10:\n        start -= 1\n"
        "    lead = data[start] if data else 0\n"
        "    size = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4\n"
        "    return len(data) - start == size\n"
    )


NO_RANGE_RULE = EXERCISES["is_valid_utf8"].solution_code.replace(
    "        if cp < smallest or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:\n"
    "            return False  # overlong, a surrogate, or beyond Unicode\n",
    "",
)


def test_the_tail_check_and_the_partial_answer_are_own_code() -> None:
    assert verdict("is_valid_utf8", tail_check()) == ""
    assert NO_RANGE_RULE != EXERCISES["is_valid_utf8"].solution_code
    assert verdict("is_valid_utf8", NO_RANGE_RULE) == ""


def test_a_tail_check_earns_far_less_than_full_marks() -> None:
    """Measured before the fix: 2 / 2 'all 71 cases passed' for 16 of 40 students (mean 1.81,
    least 1.0). Closed: each rule is broken among the salted cases too, and the last character
    alone earns 0.43 to 1.11 (mean 0.92), below the answer missing the overlong, surrogate and
    range rule (mean 1.24)."""
    tail = scores("is_valid_utf8", tail_check())
    assert max(tail) <= 0.6 * EXERCISES["is_valid_utf8"].points, tail
    assert sum(tail) < sum(scores("is_valid_utf8", NO_RANGE_RULE)), tail


def test_an_honest_partial_answer_scores_alike_across_students() -> None:
    """Fairness under the cap: the answer without the overlong, surrogate and range rule scored
    1.36 to 1.49 over 40 students before door A's fix, 1.08 to 1.3 after it (the cap bites now:
    5 of the 8 rules broken among its salted cases are the ones it leaves out)."""
    partial = scores("is_valid_utf8", NO_RANGE_RULE)
    assert max(partial) - min(partial) <= 0.25, partial
    assert max(partial) < EXERCISES["is_valid_utf8"].points


# Door B: lib's cases as a table, and no special token handled anywhere else.
def no_special_tokens() -> str:
    """The published solution with every special-token rule cut out, lib's listed cases (shown
    and unsalted hidden) answered from a table, their errors raised."""
    exercise = EXERCISES["gpt4_encode"]
    listed = exercise.cases() + exercise.grading_cases()
    table = {key_of(c.args, c.kwargs): c.expected for c in listed}
    errors = [key for key, answer in table.items() if isinstance(answer, Raises)]
    source = exercise.solution_code
    start, end = source.index("    for special in special_tokens:"), source.index("    out = []")
    source = source[:start] + "    pieces = [text]\n" + source[end:]
    source = source.replace(
        "        if piece in allowed_special:\n"
        "            out.append(special_tokens[piece])\n            continue\n",
        "",
    )
    lookup = (
        "    key = key_of((text, allowed_special), {})\n"
        "    if key in ERRORS:\n        raise ValueError(key)\n"
        "    if key in TABLE:\n        return TABLE[key]\n"
    )
    signature = "def gpt4_encode(text: str, allowed_special: set[str]) -> list[int]:\n"
    table = {key: answer for key, answer in table.items() if key not in errors}
    return f"{KEY_SOURCE}TABLE = {table!r}\nERRORS = {errors!r}\n\n" + source.replace(
        signature, signature + lookup
    )


def test_the_answer_without_special_tokens_is_own_code() -> None:
    source = no_special_tokens()
    assert "special_tokens[piece]" not in source and "disallowed" not in source
    assert verdict("gpt4_encode", source) == ""


def test_special_tokens_left_to_a_table_earn_less_than_full_marks() -> None:
    """Measured before the fix: 4 / 4, 'all 38 cases passed', for 10 of 10 students. Closed:
    2.0 / 4 for each."""
    students = STUDENTS[:10]
    assert max(scores("gpt4_encode", no_special_tokens(), students)) <= 3.0
    assert min(scores("gpt4_encode", EXERCISES["gpt4_encode"].solution_code, students)) == 4.0
