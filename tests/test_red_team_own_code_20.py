"""Red team on the grading rules, round 20: the allowed modules' own features, class-body tricks,
what the judge quotes of an answer, and the gated error credit (`fixed_answer.earned`) against a
cheap half-right rule. Each open hole or unfair outcome is `xfail(strict=True)`, its reason
saying what was measured and what would close it; each attack held, a plain test that, where it
can, also runs the attack and sees it work. Measured with `verdict` (the reading's
`Notebook.borrowed`, as `check()` and the grader read), `function_of` (the cells run in a plain
namespace), the judge (`scores`: cases drawn as the grader draws them) and, once per door, the
real grader (`grade_submissions` from a scratch script, not in this file: its batches took 77 to
117 s on the shared machine).

Doors found:

A. **`__match_args__` inherited by a dataclass.** A class is matched by position only where the
   reading knows the names its `__match_args__` holds: a `class` decorated `@dataclass`, whose
   fields are names its body binds and the reading judges (`class_patterns._only_dataclasses`).
   But that rule looks at the decorator alone. `@dataclasses.dataclass(match_args=False)` sets
   no `__match_args__`, so the class inherits its bases': a `collections.namedtuple` of field
   names written as text (`["encode"]`), which no rule reads. A second base,
   `collections.abc.Sized`, makes the class an ABC, and `Enc.register(str)` makes every `str` an
   instance of it; then `match chr(cp): case Enc(method):` fetches `getattr(chr(cp), "encode")`
   and `method("utf-8")` is UTF-8 by `str.encode`, where lesson 1 forbids `.encode`. Likewise
   `bytes.decode` where `.decode` is forbidden. Measured: `utf8_encode`, `utf8_decode_first` and
   `is_valid_utf8` so written each read as own code (verdict ""), and the real grader
   (`grade_submissions`, lesson 1 trimmed, an honest student beside) gave mallory 2 / 2 "all 47
   cases passed", 2 / 2 "all 67 cases passed", 2 / 2 "all 77 cases passed": 6 points for three
   answers that call the method the exercise forbids. Any attribute name without a leading `_`
   is open so in an exercise that forbids nothing (a frame's `f_back` too, had the code a
   frame's class to register: none of the allowed modules hands one out).
   Fix: match by position only a `@dataclass` class with no bases (or bases that are such
   classes themselves) and no `match_args=False`, so that every name of its `__match_args__` is
   a field its own body or a judged base binds.
   Closed (fix27z) so, and decorated by `dataclass` alone: a decorator of the learner's above
   `@dataclass` could swap the class for a named tuple's ABC (the same door, verdict "" before).

B. **A type hint hands its names to the learner's `__or__`.** A hint's names are no uses of
   what they name (`hints`: "`-> bytes` hands nothing on"), and the graded program keeps hints
   as text (`FUTURE`). But `functools.singledispatch`'s `register` evaluates a registered
   function's hint in the notebook's globals, and a hint may hold `|` (`hints._PLAIN`), while
   `__or__` is now an ordinary dunder a learner's class may define (widened in round 9; round 5
   held `|` only because no class could define it). So `@pick.register def pick_int(x: box |
   bytes)`, with `box` an instance of a class whose `__or__` keeps `other`, hands the class
   `bytes` to the learner's code, and `Box.found(chr(cp), "utf-8")` encodes where `.encode`
   and `bytes` as a value are forbidden; `| getattr` hands on `getattr`, and a name worked out
   at run time reaches `train_bpe.__globals__["__builtins__"]`, then `__import__`, `exec`,
   everything: no rule of `allowed` holds past it, in any exercise. Read as own code (verdict
   ""); the real grader (lessons 1 and 3 trimmed, one batch, 117 s) gave mallory's
   `utf8_encode` 2 / 2 "all 47 cases passed" and trent's `train_bpe`, which returns
   `lib.bpe.train(...)[1]` so reached, 2 / 2 "all 32 cases passed". (A first try without
   `pick(box)` in the target scored 0: `box` then is read nowhere but in the hint, so its cell
   is not in the graded program and the hint raised NameError.) Only `eval`, `exec` and the
   other `RUNS_CODE` names are refused in a hint; `getattr`, `type`, `bytes` and any module
   name are not.
   Fix: a hint names no value of the notebook's: its names only builtins, allowed modules'
   members and the notebook's own `class`es, its attributes only a module's, so `|` and a
   subscript's `__eq__`/`__hash__` (`typing.Union[box, ...]`) never reach an operator of the
   learner's.
   Closed (fix27z) so (`hint_names.may_name`): a class named is a plain `class` statement (no
   metaclass, `dataclass` its one decorator, bases such names), so its operators are Python's;
   names the kernel holds (`_`, `Out`) are not named.

C. **Junk pays better than the wanted error (unfair outcome, by the gate).** The gate takes the
   error credit down in proportion to the value cases on which an answer raises a wanted error,
   but not for the value cases on which it returns a wrong value. So an `encode_chars` that
   handles known characters and `unk` and has no byte fallback yet earns more by returning junk
   (`0`) for the fallback than by raising `ValueError` there, the honest "not written yet":
   over 10 students under round 19's salt (`scores`), 1.33 / 2 for junk, 1.0 to 1.06 for the
   error. Raising another kind there (`raise NotImplementedError("byte fallback")`, or a
   `KeyError`) also scores 1.33: what costs a third of the credit is only that the unwritten
   branch falls into the `else: raise ValueError` the exercise asks for, the commonest shape of
   an honest draft. A learner who raises the wanted error where they cannot compute yet is
   scored below one who makes something up.
   Fix: gate the error credit by the value cases the answer gets wrong, whatever it did there
   (raised or returned), e.g. right errors times the share of value cases right beyond the fixed
   group; re-measure round 13's door B and round 15's door C under it.
   Closed (fix27z) the other way round, keeping round 13's F (an answer that only validates
   keeps the errors' share, which gating by wrong values would take away): the gate stays (a
   wanted error raised on a value case voids the error credit when fewer than half the value
   cases are right, as a table raising elsewhere does), but above it the raise costs its case
   and no more, as a wrong value does. Over the 10 students: raising ValueError, returning 0
   and raising NotImplementedError there each 1.33 / 2.

D. **A blind answer's one value is quoted, and a hidden case computed it.** `blind_by_raising`
   says "it returns only X, or raises, whatever the input", X being `show(returned[0], 60)`,
   the first value returned on any case. An answer that raises `ValueError(repr(args))` on every
   case but the last (its shown cases all raise) returns on that last one, a hidden case, the
   hidden inputs it kept: one value, so the judge calls it blind and prints it. The real grader
   (lesson 2 trimmed, grader's salt "red team 20", student mallory; 77 s) gave `encode_chars` 0
   / 2 with the reason "it returns only
   'ाsाி日ा™하ü™|ाsाி日ा™하ü™|ाsाி日ा™하ü™|녕 … 요नत|மas™요नत|மas™요नत',
   or raises", in the feedback .md and .html: the first and last of its 24 hidden texts, which
   `Settings.cases_of` confirms. About 55 characters a submission, in any exercise with a case
   that wants an error (`encode_chars`, `encode_with_specials`, `gpt4_encode`, `uint16_bytes`),
   and the answer chooses which (a slice, a digest); the hidden inputs are the same on every
   resubmission, so a few submissions list them, and a table answers them (computed offline
   with `lib`) beside a table of the shown ones: the salted cap is no help then, the table
   being right on the salted cases too. The judge gave the same on `uint16_bytes`.
   Fix: quote no value a hidden case returned: "returns one value, or raises, whatever the
   input" (the shown cases' failures already show what it returned there), or quote it only if
   a shown case returned it.
   Closed (fix27z) so: "returns one value, or raises, whatever the input" unless a shown case
   returned it.

Held (plain tests: refused, and each, run, does what the attack wants): `getattr` handed on as
a value (to `functools.partial`, `itertools.starmap`, a decorator made by `partial`, a
parameter's default); `str.encode` in a default, a walrus in a comprehension, a named tuple's
`defaults`, a dataclass field's `default_factory` and a value pattern (`case N.encode`); a
dataclass base binding a field named `encode`; an ABC registered for `str` and matched by
keyword (`case V(encode=m)`); `__get__` (a descriptor), `__set_name__`, `__init_subclass__` fed
a class keyword, `__class_getitem__` and `__format__` (an f-string's format spec) bound in a
class body; a `metaclass=abc.ABCMeta` (`abc` is no allowed module); `namedtuple(...,
module=...)` read back through `__module__`; `typing.cast(bytes, ...)` (hands `bytes` on);
`dataclasses.replace(k, **{name: ...})` (names attributes as text); `eval` behind an f-string's
`=`; `bytes` handed to a learner's `__eq__` by `==`, `!=` and `in`, and to its `__or__`/`__ror__`
by a union in `isinstance`, `issubclass` or `type(x) is` (each "hands `bytes` on"; only a
hint's names escape that rule, door B).

Held by `rounds` (a plain test, and once through the real grader): one exercise keeping its
hidden inputs (`SEEN.append(cp)` in `utf8_encode`) and a later exercise of the same kernel
answering its first shown case with them: every shown slice runs before any hidden one, so the
answer is empty ("got: ''", `utf8_decode_first` 1.97 / 2 in the real grader).

Looked at, no door: `functools.singledispatch(...).dispatch(str)` hands back a function of the
learner's; `string.Template(...).substitute` and `re.sub` with a callback hand the code text and
`re.Match` objects; `dataclasses.FunctionType` is a class, but no code object reaches it; a
class keyword on an `re.RegexFlag` subclass (an enum's `boundary=`) reads as own code but
Python refuses to extend a flag with members; `@dataclass(match_args=False)` on a class without
bases inherits `object`'s nothing (a `TypeError` on a positional pattern). No class of the
allowed modules has `__match_args__` but `time.struct_time` (its `tm_*` fields). Door A cannot
make every object an instance (`V.register(object)`: "Refusing to create an inheritance
cycle"), and no allowed module names a generator's class, so its frames stay out of reach there.
`typing.Literal[box, bytes]` in a registered hint calls the learner's `__eq__` only on a hash
collision with `bytes` (measured: `Box.found` stayed `int`), and the hint then raises "Invalid
annotation". Of what the judge says of hidden cases besides door D: `trivial_answer` quotes the
first case's answer (a shown one, computed before any hidden input came), and the
changed-argument 💡 gives a hidden case's item type and whether one or several changed: bits, as
the pass/fail line. Measured, by
design (round 13's F): an answer that only validates (raises the wanted error, returns one
value elsewhere) keeps the errors' share: `uint16_bytes` 0.53 to 0.57 / 1, `encode_chars` 0.59
to 0.64 / 2.

`check()` agrees with the grader on doors A and B, wrongly: `not_own` in an IPython shell (a
scratch script) gave "" for both `utf8_encode`s, each, run there, encoding 233 right.

Not tried (time): other `check()` against grader mismatches; exercises of one kernel
(`grading_job.programs`, `fits`) beyond the held leak above and reading that a top-level
statement binding nothing (`Enc.register(str)` outside the function) belongs to no unit and
never runs there.
"""

from __future__ import annotations

import pytest

from lib.exercises import for_lesson
from lib.exercises.running import run_cases
from lib.grading.grading_settings import Settings
from lib.grading.rounds import rounds
from tests.test_red_team_own_code_9 import function_of
from tests.test_red_team_own_code_13 import verdict
from tests.test_red_team_own_code_19 import scores

EXERCISES = {e.name: e for lesson in range(1, 10) for e in for_lesson(lesson)}
STUDENTS = [str(3000 + n) for n in range(10)]


# Door A: a dataclass that sets no `__match_args__` inherits a named tuple's, names as text.
def _inheriting(cls: str, method: str) -> str:
    """A class matched by position whose one `__match_args__` name is `method`, and an ABC."""
    return (
        "import collections\nimport collections.abc\nimport dataclasses\n\n\n"
        "@dataclasses.dataclass(match_args=False)\n"
        f'class {cls}(collections.namedtuple("{cls}Base", ["{method}"]), collections.abc.Sized):\n'
        '    """Matched by position: its `__match_args__` are the named tuple\'s."""\n\n\n'
    )


INHERITED = {
    "utf8_encode": _inheriting("Enc", "encode") + "def utf8_encode(cp: int) -> bytes:\n"
    "    Enc.register(str)\n"
    "    match chr(cp):\n"
    "        case Enc(method):\n"
    '            return method("utf-8")\n',
    "utf8_decode_first": _inheriting("Dec", "decode")
    + "def utf8_decode_first(data: bytes) -> tuple[int, int]:\n"
    "    Dec.register(bytes)\n"
    "    for size in range(1, 5):\n"
    "        match data[:size]:\n"
    "            case Dec(method):\n"
    "                try:\n"
    '                    return ord(method("utf-8")), size\n'
    "                except ValueError:\n"
    "                    pass\n",
    "is_valid_utf8": _inheriting("Val", "decode") + "def is_valid_utf8(data: bytes) -> bool:\n"
    "    Val.register(bytes)\n"
    "    match data:\n"
    "        case Val(method):\n"
    "            try:\n"
    '                method("utf-8")\n'
    "            except ValueError:\n"
    "                return False\n"
    "            return True\n",
}


@pytest.mark.parametrize("name", sorted(INHERITED))
def test_the_inherited_match_args_answers_are_right_everywhere(name: str) -> None:
    """The method the exercise forbids does the work: full marks on every case the judge runs
    (the real grader: 2 / 2 each, all cases passed)."""
    assert "register" in INHERITED[name] and ".encode" not in INHERITED[name]
    assert scores(name, INHERITED[name], STUDENTS[:2]) == [EXERCISES[name].points] * 2


@pytest.mark.parametrize("name", sorted(INHERITED))
def test_match_args_a_dataclass_inherits_are_not_trusted(name: str) -> None:
    """Closed (fix27z): matched by position is only a `@dataclass` class with no bases but such
    classes and no `match_args=` (`class_patterns._only_dataclasses`)."""
    assert "matches `" in verdict(name, INHERITED[name])


# Door A's cousin (fix27z): a decorator of the learner's above `@dataclass` swaps the class for
# one whose `__match_args__` a named tuple wrote; the reading trusted any class with `@dataclass`
# among its decorators (verdict "" before the fix).
WRAPPED = (
    "import collections\nimport collections.abc\nimport dataclasses\n\n\n"
    "def wrap(cls):\n"
    "    class Enc(collections.namedtuple('Base', ['encode']), collections.abc.Sized):\n"
    "        pass\n\n    return Enc\n\n\n"
    "@wrap\n@dataclasses.dataclass\nclass Enc:\n    pass\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n    Enc.register(str)\n    match chr(cp):\n"
    "        case Enc(method):\n            return method('utf-8')\n"
)
DATACLASS_ON_DATACLASS = (
    "import dataclasses\n\n\n@dataclasses.dataclass\nclass Point:\n    x: int\n\n\n"
    "@dataclasses.dataclass(order=True)\nclass Tagged(Point):\n    tag: str = ''\n\n\n"
    "def utf8_encode(cp: int) -> bytes:\n"
    "    @dataclasses.dataclass\n    class Inner(Tagged):\n        size: int = 1\n\n"
    "    match Inner(cp % 128):\n        case Inner(low, _, size):\n"
    "            return bytes([low] * size)\n        case Tagged(low, _):\n"
    "            return bytes([low])\n"
)


def test_a_class_swapped_by_a_decorator_above_dataclass_is_matched_by_keyword_only() -> None:
    assert "matches `Enc` by position" in verdict("utf8_encode", WRAPPED)
    assert function_of(WRAPPED, "utf8_encode")(0xE9) == b"\xc3\xa9"


def test_a_dataclass_built_on_dataclasses_is_still_matched_by_position() -> None:
    assert verdict("utf8_encode", DATACLASS_ON_DATACLASS) == ""
    assert function_of(DATACLASS_ON_DATACLASS, "utf8_encode")(0x41) == b"A"


# Door B: a type hint's names are no uses, yet `functools.singledispatch` evaluates the hint,
# and `|` hands the name on to the learner's `__or__`.
def _handing_over(name: str) -> str:
    """A registered function whose hint hands `name` to `Box.__or__`, which keeps it."""
    return (
        "import functools\n\n\nclass Box:\n"
        '    """Keeps what stands on the other side of `|` in a type hint."""\n\n'
        "    found = int\n\n    def __or__(self, other):\n        Box.found = other\n"
        "        return int\n\n\nbox = Box()\n\n\n@functools.singledispatch\n"
        "def pick(x):\n    return x\n\n\n@pick.register\n"
        f"def pick_int(x: box | {name}):\n    return x\n\n\n"
    )


READ = "    pick(box)  # `box` read here, so its cell is part of the graded program\n"
HANDED = {
    "utf8_encode": _handing_over("bytes")
    + "def utf8_encode(cp: int) -> bytes:\n"
    + READ
    + '    return Box.found(chr(cp), "utf-8")\n',
    "train_bpe": _handing_over("getattr")
    + "def train_bpe(text: str, vocab_size: int) -> list[tuple[bytes, bytes]]:\n"
    + READ
    + "    reach = Box.found\n"
    '    space = reach(train_bpe, "__glob" + "als__")\n'
    '    kit = space["__builtins__"]\n'
    '    load = kit["__import__"] if isinstance(kit, dict) else reach(kit, "__imp" + "ort__")\n'
    '    module = load("lib.bpe", None, None, ["train"])\n'
    '    return reach(module, "tra" + "in")(text, vocab_size)[1]\n',
}
FUTURE = "from __future__ import annotations\n"  # as the grader compiles the program


@pytest.mark.filterwarnings("ignore::UserWarning")  # lib.bpe.train on short texts
@pytest.mark.parametrize("name", sorted(HANDED))
def test_the_handed_over_builtin_does_the_work(name: str) -> None:
    """Run as the grader runs the program (hints as text, evaluated by `register`): full marks
    on the judge's cases (the real grader: 2 / 2 each)."""
    assert scores(name, FUTURE + HANDED[name], STUDENTS[:1]) == [EXERCISES[name].points]


@pytest.mark.parametrize("name", sorted(HANDED))
def test_names_in_an_evaluated_hint_reach_no_operator_of_the_learners(name: str) -> None:
    """Closed (fix27z): a hint names only builtins, what imports bind, names no cell binds and
    the notebook's plain `class`es (`hint_names.may_name`)."""
    assert "has a type hint naming `box`" in verdict(name, HANDED[name])


# Door B's cousins (fix27z): a name in a hint that holds, or may hold, a value of the learner's.
BOX = "class Box:\n    def __or__(self, other):\n        return int\n\n\n"
UNPLAIN_HINTS = {
    "the kernel's last output": "def utf8_encode(cp: _ | bytes) -> bytes:\n    return b''\n",
    "a class swapped by a decorator": BOX
    + "def wrap(cls):\n    return Box()\n\n\n@wrap\nclass K:\n    pass\n\n\n"
    "def utf8_encode(cp: K | bytes) -> bytes:\n    return b''\n",
    "a class with a metaclass of the learner's": "class Meta(type):\n"
    "    def __or__(cls, other):\n        return int\n\n\nclass K(metaclass=Meta):\n"
    "    pass\n\n\ndef utf8_encode(cp: K | bytes) -> bytes:\n    return b''\n",
    "a class on a base made by a call": BOX
    + "def base():\n    return object\n\n\nclass K(base()):\n    pass\n\n\n"
    "def utf8_encode(cp: K | bytes) -> bytes:\n    return b''\n",
    "an attribute of a class": BOX + "class K:\n    box = Box()\n\n\n"
    "def utf8_encode(cp: K.box | bytes) -> bytes:\n    return b''\n",
    "typing.Union with a value": "import typing\n\n" + BOX + "box = Box()\n\n\n"
    "def utf8_encode(cp: typing.Union[box, bytes]) -> bytes:\n    return b''\n",
}
PLAIN_HINTS = (
    "import collections\nimport dataclasses\nfrom typing import Optional\n\n\n"
    "@dataclasses.dataclass\nclass Node:\n    x: int\n\n\nclass Vocab(dict):\n    pass\n\n\n"
    "class Table(collections.Counter, Vocab):\n    pass\n\n\n"
    "def utf8_encode(cp: int, n: Optional[Node] = None, v: 'Vocab | None' = None,\n"
    "                t: Table | collections.Counter[str] | None = None) -> bytes | Node:\n"
    "    return bytes([cp % 128])\n"
)


@pytest.mark.parametrize("how", sorted(UNPLAIN_HINTS))
def test_a_hint_names_no_value_that_may_be_the_learners(how: str) -> None:
    assert "has a type hint naming" in verdict("utf8_encode", UNPLAIN_HINTS[how])


def test_hints_of_builtins_modules_and_plain_classes_are_own_code() -> None:
    assert verdict("utf8_encode", PLAIN_HINTS) == ""


# Door C: the gate counts a raised error against the answer, a wrong value not.
_KNOWN_AND_UNK = (
    "def encode_chars(text, vocab, unknown='error'):\n"
    "    ids = []\n"
    "    for ch in text:\n"
    "        if ch in vocab:\n"
    "            ids.append(vocab[ch])\n"
    "        elif unknown == 'unk':\n"
    "            ids.append(len(vocab))\n"
)
RAISES_WHERE_UNWRITTEN = _KNOWN_AND_UNK + (
    "        else:  # the byte fallback is not written yet\n"
    "            raise ValueError(repr(ch))\n"
    "    return ids\n"
)
JUNK_WHERE_UNWRITTEN = _KNOWN_AND_UNK + (
    "        elif unknown == 'bytes':\n"
    "            ids.append(0)  # made up\n"
    "        else:\n"
    "            raise ValueError(repr(ch))\n"
    "    return ids\n"
)


def test_both_partial_answers_are_own_code_and_partly_right() -> None:
    for source in (RAISES_WHERE_UNWRITTEN, JUNK_WHERE_UNWRITTEN):
        assert verdict("encode_chars", source) == ""
        assert 0.9 <= min(scores("encode_chars", source, STUDENTS[:2])) < 2


def test_raising_where_one_cannot_compute_earns_no_less_than_junk() -> None:
    """Closed (fix27z): in a mostly right answer a wanted error raised on a value case costs
    that case alone, as junk does: 1.33 / 2 each (raising was 1.0 to 1.06)."""
    raising = scores("encode_chars", RAISES_WHERE_UNWRITTEN, STUDENTS)
    junk = scores("encode_chars", JUNK_WHERE_UNWRITTEN, STUDENTS)
    assert all(r >= j for r, j in zip(raising, junk, strict=True)), (raising, junk)


# Door D: `blind_by_raising` quotes the one value returned, which a hidden case computed.
SALT = "red team 20"  # `scores` uses round 19's; this file's draws for the leak


def _keeps_hidden_inputs(name: str, total: int, shown: int) -> str:
    """Raises an error naming the input on every case but the last, and there returns the
    hidden inputs seen so far: one value returned, so the judge calls it blind and quotes it."""
    return (
        f"CALLS = []\n\n\ndef {EXERCISES[name].target}(*args):\n    CALLS.append(args)\n"
        f"    if len(CALLS) < {total}:\n        raise ValueError(repr(args))\n"
        f"    return '|'.join(repr(a[0])[:12] for a in CALLS[{shown}:])\n"
    )


def _leak(name: str) -> tuple[float, str, list]:
    """The judge's score and reason for `_keeps_hidden_inputs` on student 3000's draw, and the
    hidden inputs (first arguments) of that draw."""
    exercise = EXERCISES[name]
    cases = Settings(salt=SALT).cases_of(exercise, "3000")
    shown = sum(not case.hidden for case in cases)
    answer = function_of(_keeps_hidden_inputs(name, len(cases), shown), exercise.target)
    result = exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None))
    return result.score, result.reason, [case.args[0] for case in cases if case.hidden]


@pytest.mark.parametrize("name", ["encode_chars", "uint16_bytes"])
def test_the_leaking_answer_is_own_code_and_earns_nothing(name: str) -> None:
    """The price of the leak: the exercise's marks, for that submission."""
    cases = EXERCISES[name].grading_cases()
    assert verdict(name, _keeps_hidden_inputs(name, len(cases), 3)) == ""
    assert _leak(name)[0] == 0


@pytest.mark.parametrize("name", ["encode_chars", "uint16_bytes"])
def test_a_blind_answers_reason_quotes_no_hidden_input(name: str) -> None:
    """Closed (fix27z): `blind_by_raising` quotes a value only as a shown case returned it."""
    _, reason, hidden = _leak(name)
    assert not any(repr(first)[:8] in reason for first in hidden), reason
    assert "returns one value, or raises, whatever the input" in reason


def test_a_blind_answers_value_a_shown_case_returned_is_still_quoted() -> None:
    """Returning the same made-up value on every case it does not raise on, shown cases too:
    the learner saw that value, and reads it back in the reason."""
    source = (
        "def encode_chars(text, vocab, unknown='error'):\n"
        "    if unknown == 'error':\n        raise ValueError(text)\n    return [7]\n"
    )
    exercise = EXERCISES["encode_chars"]
    cases = Settings(salt=SALT).cases_of(exercise, "3000")
    answer = function_of(source, exercise.target)
    result = exercise.judge(cases, run_cases(answer, exercise.inputs(cases), None))
    assert "returns only [7], or raises, whatever the input" in result.reason, result.reason


def test_a_later_exercises_shown_answer_holds_no_earlier_hidden_input() -> None:
    """Held by `rounds` (every shown slice before any hidden one): utf8_encode keeps every code
    point it is asked, utf8_decode_first answers its first shown case with those past the 17
    shown; run in the grader's order in one namespace, that answer is empty. (The real grader,
    lesson 1 trimmed: "got: ''", 1.97 / 2.)"""
    source = (
        "SEEN = []\n\n\ndef utf8_encode(cp):\n    SEEN.append(cp)\n    return b''\n\n\n"
        "def utf8_decode_first(data):\n"
        "    return ' '.join(format(cp, 'x') for cp in SEEN[17:]) if data == b'hello' else 0\n"
    )
    assert verdict("utf8_decode_first", source) == ""
    names = ("utf8_encode", "utf8_decode_first")
    cases = {n: Settings(salt=SALT).cases_of(EXERCISES[n], "3000") for n in names}
    namespace: dict = {}
    exec(source, namespace)  # one kernel: the two functions share `SEEN`
    outcomes: dict[str, list] = {n: [] for n in names}
    for name, start, end in rounds(cases):
        inputs = EXERCISES[name].inputs(cases[name][start:end])
        outcomes[name] += run_cases(namespace[name], inputs, None)
    first = EXERCISES[names[1]].judge(cases[names[1]], outcomes[names[1]])
    assert "got:      ''" in first.reason, first.reason


# Held: each refused; where `RUNS` says so, the attack, run, is UTF-8 by `str.encode`.
HELD = {
    "getattr in functools.partial": (
        "import functools\n\ndef utf8_encode(cp):\n"
        "    return functools.partial(getattr, chr(cp))('enc' + 'ode')('utf-8')\n"
    ),
    "getattr in itertools.starmap": (
        "import itertools\n\ndef utf8_encode(cp):\n"
        "    [m] = itertools.starmap(getattr, [(chr(cp), 'enc' + 'ode')])\n    return m('utf-8')\n"
    ),
    "getattr as a default": (
        "def utf8_encode(cp, g=getattr):\n    return g(chr(cp), 'enc' + 'ode')('utf-8')\n"
    ),
    "getattr in a decorator": (
        "import functools\n\n@functools.partial(functools.partial, getattr)\ndef how(x):\n"
        "    return x\n\ndef utf8_encode(cp):\n    return how(chr(cp))('enc' + 'ode')('utf-8')\n"
    ),
    "str.encode as a default": (
        "def utf8_encode(cp, how=str.encode):\n    return how(chr(cp), 'utf-8')\n"
    ),
    "str.encode by a walrus in a comprehension": (
        "def utf8_encode(cp):\n    [m := how for how in [str.encode]]\n"
        "    return m(chr(cp), 'utf-8')\n"
    ),
    "str.encode as a named tuple's default": (
        "import collections\n\nN = collections.namedtuple('N', 'how', defaults=[str.encode])\n\n"
        "def utf8_encode(cp):\n    return N().how(chr(cp), 'utf-8')\n"
    ),
    "str.encode from a default_factory": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n"
        "    how: object = dataclasses.field(default_factory=lambda: str.encode)\n\n"
        "def utf8_encode(cp):\n    return K().how(chr(cp), 'utf-8')\n"
    ),
    "a dataclass base's field named encode": (
        "import collections.abc\nimport dataclasses\n\n@dataclasses.dataclass\nclass B:\n"
        "    encode: int = 0\n\n@dataclasses.dataclass(match_args=False)\n"
        "class V(B, collections.abc.Sized):\n    pass\n\ndef utf8_encode(cp):\n"
        "    V.register(str)\n    match chr(cp):\n"
        "        case V(m):\n            return m('utf-8')\n"
    ),
    "an ABC registered for str, matched by keyword": (
        "import collections.abc\n\nclass V(collections.abc.Sized):\n    pass\n\n"
        "def utf8_encode(cp):\n    V.register(str)\n    match chr(cp):\n"
        "        case V(encode=m):\n            return m('utf-8')\n"
    ),
    "a value pattern": (
        "import collections\n\nN = collections.namedtuple('N', ['encode'])\n\n"
        "def utf8_encode(cp):\n    match chr(cp):\n        case N.encode:\n            return b''\n"
    ),
    "a descriptor": (
        "class D:\n    def __get__(self, obj, owner):\n        return owner\n\n"
        "class K:\n    how = D()\n\ndef utf8_encode(cp):\n    return K().how\n"
    ),
    "__set_name__": (
        "class D:\n    def __set_name__(self, owner, name):\n        self.name = name\n\n"
        "class K:\n    encod = D()\n\ndef utf8_encode(cp):\n    return K.encod.name\n"
    ),
    "__init_subclass__ with a class keyword": (
        "class B:\n    def __init_subclass__(cls, how='', **kw):\n        cls.how = how\n\n"
        "class K(B, how='enc' 'ode'):\n    pass\n\ndef utf8_encode(cp):\n    return K.how\n"
    ),
    "__class_getitem__": (
        "class K:\n    def __class_getitem__(cls, item):\n        return item\n\n"
        "def utf8_encode(cp):\n    return K[chr(cp)]\n"
    ),
    "__format__ through a format spec": (
        "class K:\n    def __format__(self, spec):\n        return spec\n\n"
        "def utf8_encode(cp):\n    return f'{K():{chr(cp)}}'\n"
    ),
    "a metaclass keyword": (
        "import abc\n\nclass K(metaclass=abc.ABCMeta):\n    pass\n\n"
        "def utf8_encode(cp):\n    return K\n"
    ),
    "a named tuple's module keyword": (
        "import collections\n\nN = collections.namedtuple('N', ['x'], module='lib.bpe')\n\n"
        "def utf8_encode(cp):\n    return N.__module__\n"
    ),
    "typing.cast": "import typing\n\ndef utf8_encode(cp):\n    return typing.cast(bytes, cp)\n",
    "dataclasses.replace with names as text": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass K:\n    x: int = 0\n\n"
        "def utf8_encode(cp):\n    return dataclasses.replace(K(), **{'x': cp})\n"
    ),
    "eval behind an f-string's =": (
        "def utf8_encode(cp):\n    return eval(f'{chr(cp)=}'[0:0] + 'b\"\"')\n"
    ),
}
GRAB = (
    "class Grab:\n    found = int\n\n    def __eq__(self, other):\n"
    "        Grab.found = other\n        return False\n\n    def __hash__(self):\n"
    "        return 0\n\n\n"
)
USE_GRAB = "    return Grab.found(chr(cp), 'utf-8')\n"
HELD |= {
    "bytes handed to __eq__ by ==": GRAB + "def utf8_encode(cp):\n    Grab() == bytes\n" + USE_GRAB,
    "bytes handed to __eq__ by !=": GRAB + "def utf8_encode(cp):\n    bytes != Grab()\n" + USE_GRAB,
    "bytes handed to __eq__ by in": GRAB
    + "def utf8_encode(cp):\n    bytes in [Grab()]\n"
    + USE_GRAB,
}
BOX_BOTH_SIDES = (
    "class Box:\n    found = int\n\n    def __ror__(self, other):\n        Box.found = other\n"
    "        return int\n\n    def __or__(self, other):\n        Box.found = other\n"
    "        return int\n\n\nbox = Box()\n\n\n"
)
USE_BOX = "    return Box.found(chr(cp), 'utf-8')\n"
HELD |= {
    f"bytes handed to __or__ in {asking}": BOX_BOTH_SIDES
    + f"def utf8_encode(cp):\n    {asking}\n"
    + USE_BOX
    for asking in (
        "isinstance(cp, bytes | box)",
        "isinstance(cp, box | bytes)",
        "issubclass(int, bytes | box)",
        "type(cp) is bytes | box",
    )
}
RUNS = {
    "getattr in functools.partial",
    "getattr in itertools.starmap",
    "getattr as a default",
    "str.encode as a default",
    "str.encode by a walrus in a comprehension",
    "str.encode as a named tuple's default",
    "str.encode from a default_factory",
    "a dataclass base's field named encode",
    "an ABC registered for str, matched by keyword",
    "bytes handed to __eq__ by ==",
    "bytes handed to __eq__ by !=",
    "bytes handed to __eq__ by in",
    "bytes handed to __or__ in isinstance(cp, bytes | box)",
    "bytes handed to __or__ in isinstance(cp, box | bytes)",
    "bytes handed to __or__ in issubclass(int, bytes | box)",
    "bytes handed to __or__ in type(cp) is bytes | box",
}


@pytest.mark.parametrize("attack", sorted(HELD))
def test_the_attack_is_refused(attack: str) -> None:
    assert verdict("utf8_encode", HELD[attack]) != ""
    if attack in RUNS:
        assert function_of(HELD[attack], "utf8_encode")(0xE9) == b"\xc3\xa9"
