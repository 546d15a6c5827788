"""Red team on the grading rules, round 11 (after fix27j: `.format` reached by name judged as a
computed template, `__bytes__`/`__enter__` definable). Ten rounds attacked the reading; this one
attacks what lies around it: the kernel's report, the judge, the salt, the feedback. Each hole is
`xfail(strict=True)` until its door is closed; each attack held, a plain test. The doors were
run through the real, sandboxed grader (`grade_submissions`, one batch: `graded` below) except
where a test says it measures the judge or the salt alone.

Doors found:

0. **`bytearray.__init__` encodes.** `__init__` is an ordinary dunder, read anywhere, and
   `out = bytearray(); out.__init__(chr(cp), 'utf-8')` re-makes a bytearray from text and an
   encoding: UTF-8 without `.encode`, `bytes(..., 'utf-8')` or `bytearray(..., 'utf-8')`, which
   `forbidden.restricted_use` judges only where the class's name is called. Read as own code in
   `utf8_encode`; the real grader gave it 2 / 2 ("all 47 cases passed"). (A subclass calling
   `super().__init__(text, 'utf-8')`, and `bytearray.__init__(out, ...)`, are refused: the class
   is named there.)
1. **A hidden case's inputs, printed by the grader.** `running.run_case` lets KeyboardInterrupt
   through ("it belongs to whoever runs the cell"), so a learner's function that raises
   `KeyboardInterrupt(text)` on its 47th call (17 shown cases, then 30 hidden) ends the grading
   cell with that error, and `execute._ask` makes the row `"could not be graded:
   KeyboardInterrupt: <text>"` (the kernel's `evalue`, 300 characters). The reason is shown as it
   is in the feedback (.md and .html) and Gradescope's results.json. Measured: the 30 hidden
   code points of `utf8_encode`, in hex, every one of them, in all three. The exercise scores 0
   that once; the inputs stay the same on every later submission (batch grading), so the next
   one hands in a lookup table of them, answers computed offline, and earns 2 / 2 without
   encoding anything (the table test below). Also any exercise's hidden inputs seen earlier in
   the same kernel can be dumped so, at the price of the last one.
2. **Raising on every case earns marks.** `judge` refuses an answer that returns one value
   whatever the input (`trivial_answer`), but not one that raises one error whatever the input:
   `raise ValueError(repr(args))` names every value of its input, so every `Raises(...,
   naming=...)` case passes. Measured by the judge: `encode_chars` 0.6 / 2, `encode_with_specials`
   0.47 / 2, `gpt4_encode` 0.21 / 4, `uint16_bytes` 0.54 / 1 (1.82 points for four one-liners that
   do nothing); the real grader gave `encode_chars` 0.6 / 2.
3. **On Gradescope the hidden cases change on every submission.** The signing key, whose secret
   salts the hidden cases, is made on first use under `~/.config`; the bundle ships none and
   `setup.sh`'s self-test uses a throwaway one, so every fresh container draws a new key and new
   hidden inputs. The issue's "the same student gets the same cases on every resubmission" fails
   there, and a partly right answer plays a lottery: a `bytes_per_char` that counts 4-byte
   characters as 3 scored from 0.47 to 0.76 of 1 over 60 fresh keys (median 0.56): resubmit
   until lucky. (It also makes door 1 useless there, by accident, not by design.)
4. **A hidden case's list argument changed in place names the item.** `changed_arguments._advice`
   keeps a hidden case's dict keys secret, but names a list's changed items by index
   (`parts[0]`), and which item the function changes is its choice: measured by the judge on
   `first_merge`, the first hidden case's expected first byte mod 2 came out as `parts[0]`.
   A few bits per submission (up to two indices and a count), beside the one bit per case the
   README already names.

Closed since (their xfails now plain tests): door 0 (`forbidden._made_again`), honest 5
(`forbidden._only_asked_about`), door 1 (what the code raises is a case's outcome, a
KeyboardInterrupt it raises too; a failed cell is told in the grader's words:
`test_grading_cell_errors`), door 2 (`verdicts._raises_whatever`), door 3 (the bundle's salt:
`test_gradescope`), door 4 (`changed_arguments._advice`).

Honest code refused (builtins only, where `.encode`/`.decode` is forbidden):

5. `isinstance(out, bytes | bytearray)` (Python 3.10's union of classes), and a `match` that asks
   only for a class, `case bytes():` / `case str():`: "hands `bytes` on as a value", though
   both only ask `isinstance`.

Rule gap (text only, no marks): `'{0.encode}'.format(chr(cp))` in `utf8_encode` is own code: the
template's fields are judged for dunders and private names (`format_fields`) but not for the
exercise's forbidden attributes; format cannot call what it reads, so it gives only the method's
repr. Closed since (fix27k): `forbidden_name` judges every name `attributes_read` gives,
template fields included; its test is plain.

Held: the lookup table is worth nothing to another student (per-student salt, batch grading):
the same table handed in by `eve` scored 0.72 / 2 (17 shown cases of 47), and since the salted
cases cap the shown ones (fix27t), only what it gets right of her own hidden cases by chance. The
honest rest of every notebook in the batch kept its marks.
"""

from __future__ import annotations

import json
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
from lib.grading.gradescope_results import results_json
from lib.grading.grading_settings import Settings
from lib.grading.store import KEY_VAR, RecordStore
from tests.test_red_team_own_code_6 import trimmed

EXERCISES = {e.name: e for lesson in (1, 2, 3, 8, 9) for e in for_lesson(lesson)}


def verdict(name: str, *cells: str) -> str:
    """The reading's verdict on `name` in these cells, under its exercise's rules."""
    exercise = EXERCISES[name]
    return Notebook(list(cells)).borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)


SHOWN = len(EXERCISES["utf8_encode"].cases())  # 17
ALL = len(EXERCISES["utf8_encode"].grading_cases())  # 47
# Door 1: every input seen, dumped by the last hidden call as the grading cell's error.
LEAK = (
    "SEEN = []\n\n"
    "def utf8_encode(cp):\n"
    "    SEEN.append(cp)\n"
    f"    if len(SEEN) == {ALL}:  # {SHOWN} shown cases, then the hidden ones\n"
    f"        raise KeyboardInterrupt(' '.join(format(c, 'x') for c in SEEN[{SHOWN}:]))\n"
    "    return bytes([cp])\n"
)
# Door 0: Python's own UTF-8 encoder, through `__init__` on a bytearray already made.
REINIT = (
    "def utf8_encode(cp):\n    out = bytearray()\n"
    "    out.__init__(chr(cp), 'utf-8')\n    return bytes(out)\n"
)
# Door 2: no work at all, only an error naming the input.
ECHO = "def encode_chars(*args):\n    raise ValueError(repr(args))\n"


def _table(inputs: list[int]) -> str:
    """A lookup table of answers computed offline (here with Python's own encoder)."""
    table = {cp: chr(cp).encode("utf-8", "surrogatepass") for cp in inputs}
    return f"TABLE = {table!r}\n\ndef utf8_encode(cp):\n    return TABLE[cp]\n"


def _hidden_inputs(out: Path, student: str) -> list[int]:
    """`student`'s hidden code points of `utf8_encode`, as the grader draws them with its key."""
    settings = Settings(salt=RecordStore(out).secret("hidden cases"))
    cases = settings.cases_of(EXERCISES["utf8_encode"], student)
    return [case.args[0] for case in cases if case.hidden]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """One batch (about 2 min): oscar's re-made bytearray; mallory's leak and, as if on her next
    submission, her table; the same table handed in by eve; trent's lesson 2 with the echo. Each
    notebook's other exercises are the published solutions, the honest students beside."""
    folder = tmp_path_factory.mktemp("round11")
    out = folder / "out"
    lesson1, lesson2 = "01_unicode_and_utf8.ipynb", "02_character_tokenizer.ipynb"
    shown = [case.args[0] for case in EXERCISES["utf8_encode"].cases()]
    table = _table(shown + _hidden_inputs(out, "mallory"))
    for student, name, source in [
        ("mallory", "leak", LEAK),
        ("mallory", "table", table),
        ("eve", "table", table),
        ("oscar", "reinit", REINIT),
    ]:
        (folder / student).mkdir(exist_ok=True)
        notebook = trimmed(lesson1, {"utf8_encode": source})
        nbformat.write(notebook, folder / student / f"{name}.ipynb")
    nbformat.write(trimmed(lesson2, {"encode_chars": ECHO}), folder / "trent.ipynb")
    records = grade_submissions(
        [folder],
        out,
        limits=Limits(cell=60, notebook=300, probe=2),
        jobs=1,
        progress=False,
    )
    by_name = {f"{r['student']}/{Path(r['submission']).stem}": r for r in records}
    return {"records": by_name, "out": out}


def _scores(record: dict) -> dict[str, float]:
    return {row["name"]: row["score"] for row in record["exercises"]}


def test_the_batch_graded_every_notebook_and_the_honest_rest_kept_its_marks(graded: dict):
    records = graded["records"]
    expected = ["eve/table", "mallory/leak", "mallory/table", "oscar/reinit", "trent/trent"]
    assert sorted(records) == expected
    assert all(r["outcome"] == "graded" for r in records.values())
    attacked = {"utf8_encode", "encode_chars"}
    for record in records.values():
        honest = {n: s for n, s in _scores(record).items() if n not in attacked}
        assert honest and all(s == EXERCISES[n].points for n, s in honest.items()), honest


def test_a_bytearray_made_again_from_text_earns_nothing(graded: dict):
    assert _scores(graded["records"]["oscar/reinit"])["utf8_encode"] == 0.0


@pytest.mark.parametrize("spelling", ["'utf-8'", "encoding='utf-8'"])
def test_init_with_an_encoding_is_refused(spelling: str):
    source = REINIT.replace("'utf-8'", spelling)
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["utf8_encode"](0x20AC) == b"\xe2\x82\xac"
    assert verdict("utf8_encode", source)


INIT_AS_A_VALUE = {
    "bound": "    f = out.__init__\n    f(chr(cp), 'utf-8')\n",
    "getattr": "    getattr(out, '__init__')(chr(cp), 'utf-8')\n",
    "match": "    match out:\n        case object(__init__=f):\n            f(chr(cp), 'utf-8')\n",
}


@pytest.mark.parametrize("how", sorted(INIT_AS_A_VALUE))
def test_init_had_as_a_value_is_refused(how: str):
    """Door 0 closed by design: `.__init__` is read, where `.encode` is forbidden, only as the
    callee of a call without an encoding; had as a value, whatever calls it is unseen."""
    source = f"def utf8_encode(cp):\n    out = bytearray()\n{INIT_AS_A_VALUE[how]}"
    assert "`.__init__`" in verdict("utf8_encode", source + "    return bytes(out)\n")


def test_a_subclass_calling_its_bases_init_is_own_code():
    source = (
        "class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n\n"
        "class Named(Pair):\n    def __init__(self, a, b):\n        super().__init__(a, b)\n\n"
        "def utf8_encode(cp):\n    Named(cp, 1)\n    return bytes([cp])\n"
    )
    assert verdict("utf8_encode", source) == ""


def _seen_by_mallory(graded: dict) -> str:
    """What mallory sees of her leak's grading: feedback .md and .html, results.json."""
    record = graded["records"]["mallory/leak"]
    feedback = graded["out"] / "feedback"
    pages = [p.read_text() for p in feedback.glob("mallory*lesson1*")]
    assert len(pages) >= 2  # .md and .html
    return "\n".join([*pages, json.dumps(results_json([record]), ensure_ascii=False)])


def test_an_interrupt_in_a_hidden_case_shows_no_hidden_input(graded: dict):
    """Closed: the interrupt the code raised is that case's outcome (a failed case), and the rest
    of the cases are graded as any others (its `bytes([cp])` is right for ASCII)."""
    rows = {row["name"]: row for row in graded["records"]["mallory/leak"]["exercises"]}
    assert rows["utf8_encode"]["status"] == "partial", rows["utf8_encode"]
    assert "could not be graded" not in rows["utf8_encode"]["reason"]
    hidden = _hidden_inputs(graded["out"], "mallory")
    assert len(hidden) == ALL - SHOWN
    dumped = " ".join(format(cp, "x") for cp in hidden)  # what the leak raised, exactly
    assert dumped not in _seen_by_mallory(graded)


def test_a_lookup_table_pays_only_for_the_student_it_was_made_for(graded: dict):
    """Door 1's consequence, and the per-student salt holding: mallory's table of her own hidden
    inputs (what her leak showed) earns full marks; eve, handing in the same table, does not:
    her shown cases count no further than her salted ones (`salted_share`), of which the table
    holds only those where her input is by chance one of mallory's or a shown one (each test
    session draws a new key: 0.07 once, one ASCII code point). Before that cap, eve kept her
    shown share (0.72)."""
    records = graded["records"]
    assert _scores(records["mallory/table"])["utf8_encode"] == 2.0
    shown = [case.args[0] for case in EXERCISES["utf8_encode"].cases()]
    tabled = set(_hidden_inputs(graded["out"], "mallory") + shown)
    by_chance = [cp for cp in _hidden_inputs(graded["out"], "eve") if cp in tabled]
    assert len(by_chance) <= 3, by_chance
    share = round(2 * len(by_chance) / (ALL - SHOWN), 2)  # every hidden input is salted here
    assert _scores(records["eve/table"])["utf8_encode"] <= share  # (`fixed_answer.earned`)


def test_an_answer_that_only_raises_earns_nothing_in_the_grader(graded: dict):
    assert _scores(graded["records"]["trent/trent"])["encode_chars"] == 0.0


@pytest.mark.parametrize("name", ["encode_chars", "uint16_bytes"])
def test_raising_on_every_case_is_a_trivial_answer(name: str):
    exercise = EXERCISES[name]
    cases = exercise.grading_cases()

    def echo(*args, **kwargs):
        raise ValueError(repr((args, kwargs)))

    assert exercise.judge(cases, run_cases(echo, exercise.inputs(cases), None)).score == 0


def _fresh_container_secret(
    folder: Path, monkeypatch: pytest.MonkeyPatch, bundle: zipfile.ZipFile
) -> str:
    """The hidden cases' salt a fresh Gradescope container's run hands the grader: no key file
    given, a home folder as the image left it (no key in it: the self-test's key is a
    throwaway), the bundle's files as setup.sh left them."""
    monkeypatch.delenv(KEY_VAR, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "config"))
    monkeypatch.setattr(gradescope, "SECRET_PATH", Path(bundle.extract(SECRET_FILE, folder)))
    monkeypatch.setattr(gradescope, "choose", lambda **options: True)
    asked: dict = {}
    monkeypatch.setattr(
        gradescope, "grade_submissions", lambda paths, out, **options: asked.update(options) or []
    )
    (folder / "submission").mkdir(parents=True)
    gradescope.run(folder / "submission", folder / "results" / "results.json")
    return asked["salt"] or RecordStore(folder / "out").secret("hidden cases")


def test_gradescope_draws_the_same_hidden_cases_on_every_submission(tmp_path, monkeypatch):
    """Closed: the bundle carries a salt made from the instructor's key (never the key itself),
    and every container made from it salts with it (`tests/test_gradescope.py` also draws)."""
    bundled = [str(path) for path in gradescope_bundle._bundled_files()]
    assert not [path for path in bundled if "grader-key" in path]
    assert KEY_VAR not in gradescope_bundle.SETUP_SH + gradescope_bundle.RUN_AUTOGRADER
    gradescope_bundle.build_bundle(tmp_path / "autograder.zip", 1)
    with zipfile.ZipFile(tmp_path / "autograder.zip") as bundle:
        first = _fresh_container_secret(tmp_path / "one", monkeypatch, bundle)
        second = _fresh_container_secret(tmp_path / "two", monkeypatch, bundle)
    assert first == second


def test_a_partly_right_answer_scores_differently_under_other_keys():
    """Door 3's lottery, measured on a few keys (the xfail above gives 60)."""
    exercise = EXERCISES["bytes_per_char"]

    def three_at_most(text: str) -> float:  # forgets UTF-8's 4-byte characters
        return sum(1 if ord(c) < 0x80 else 2 if ord(c) < 0x800 else 3 for c in text) / len(text)

    scores = set()
    for key in range(8):
        cases = Settings(salt=f"key {key}").cases_of(exercise, "12345")
        scores.add(
            exercise.judge(cases, run_cases(three_at_most, exercise.inputs(cases), None)).score
        )
    assert len(scores) > 1, scores


def test_a_hidden_cases_changed_item_is_not_named():
    exercise = EXERCISES["first_merge"]
    cases = exercise.grading_cases()
    shown = {repr(case.args[0]) for case in cases if not case.hidden}
    namespace: dict = {}
    exec(exercise.solution_code, namespace)
    honest = namespace["first_merge"]

    def first_merge(parts):
        answer = honest(parts)
        if repr(parts) not in shown and len(parts) > 1:  # a hidden case: tell a bit of it
            parts[answer[0][0] % len(parts)][b"leak"] = 1
        return answer

    reason = exercise.judge(cases, run_cases(first_merge, exercise.inputs(cases), None)).reason
    assert "hidden case" in reason and "changed" in reason
    assert "parts[" not in reason, reason


HONEST_ASKS = {
    "isinstance with a union": (
        "utf8_encode",
        "def utf8_encode(cp):\n    out = bytes([cp])\n"
        "    assert isinstance(out, bytes | bytearray)\n    return out\n",
    ),
    "case bytes()": (
        "utf8_encode",
        "def utf8_encode(cp):\n    out = bytes([cp])\n    match out:\n"
        "        case bytes():\n            return out\n",
    ),
    "case str()": (
        "utf8_decode_first",
        "def utf8_decode_first(data):\n    match data:\n        case str():\n"
        "            raise TypeError('bytes, please')\n    return (data[0], 1)\n",
    ),
}


@pytest.mark.parametrize("name", sorted(HONEST_ASKS))
def test_asking_for_a_class_is_own_code(name: str):
    exercise, source = HONEST_ASKS[name]
    assert verdict(exercise, source) == ""


def test_a_forbidden_attribute_in_a_template_field_is_refused():
    source = (
        "def utf8_encode(cp):\n    seen = '{0.encode}'.format(chr(cp))\n    return bytes([cp])\n"
    )
    assert "`.encode`" in verdict("utf8_encode", source)


def test_a_union_with_a_name_code_may_bind_still_hands_the_class_on():
    """`bytes | X` calls X's `__ror__` with `bytes` when X is no class: only a `|` of names no
    code may bind (the exercise's restricted classes) is a question."""
    source = (
        "def utf8_encode(cp):\n    assert isinstance(cp, bytes | int)\n    return bytes([cp])\n"
    )
    assert "hands `bytes` on" in verdict("utf8_encode", source)


# New spellings tried this round that the rules held.
HELD = {
    "bytes.__new__ with an encoding": (
        "utf8_encode",
        "def utf8_encode(cp):\n    return bytes.__new__(bytes, chr(cp), 'utf-8')\n",
    ),
    "bytearray.__init__ named": (
        "utf8_encode",
        "def utf8_encode(cp):\n    out = bytearray()\n"
        "    bytearray.__init__(out, chr(cp), 'utf-8')\n    return bytes(out)\n",
    ),
    "a bytearray subclass's super().__init__": (
        "utf8_encode",
        "class Buf(bytearray):\n    def __init__(self, cp):\n"
        "        super().__init__(chr(cp), 'utf-8')\n\n"
        "def utf8_encode(cp):\n    return bytes(Buf(cp))\n",
    ),
    "str(bytearray, encoding)": (
        "is_valid_utf8",
        "def is_valid_utf8(data):\n    try:\n        str(bytearray(data), 'utf-8')\n"
        "    except ValueError:\n        return False\n    return True\n",
    ),
    "memoryview's bytes decoded": (
        "is_valid_utf8",
        "def is_valid_utf8(data):\n    try:\n        memoryview(data).tobytes().decode()\n"
        "    except ValueError:\n        return False\n    return True\n",
    ),
    "typing.NamedTuple made from text": (
        "get_stats",
        "import typing\nP = typing.NamedTuple('P', [('a', int)])\n\ndef get_stats(ids):\n"
        "    return {P(1): 1}\n",
    ),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_held(name: str):
    exercise, source = HELD[name]
    assert verdict(exercise, source)


def test_the_leak_and_the_table_read_as_own_code():
    """Neither door 1 nor its table is a reading's business: both are plain own code, graded."""
    assert verdict("utf8_encode", LEAK) == ""
    assert verdict("utf8_encode", _table([65, 0x20AC])) == ""
    assert verdict("encode_chars", ECHO) == ""
