"""Judging answers as plain data: what a learner's function returns is read without running any
of its methods, compared type-strictly, and anything else is a wrong answer with a reason."""

from __future__ import annotations

import collections
import dataclasses
import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lib.exercises import Case, Exercise
from lib.exercises.core import Raises
from lib.exercises.plain import MAX_DEPTH, NotPlain, from_wire, same, to_wire
from lib.exercises.running import run_cases

hashable = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.binary()
    | st.floats(allow_nan=False),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
    max_leaves=8,
)
plain_values = st.recursive(
    hashable,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(hashable, inner, max_size=4)
        | st.sets(hashable, max_size=4)
    ),
    max_leaves=20,
)


@given(plain_values)
def test_plain_values_survive_the_wire_exactly(value):
    sent = json.loads(json.dumps(to_wire(value)))  # as a kernel's message would carry it
    assert same(from_wire(sent), value)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (True, 1),
        (1, 1.0),
        ((1, 2), [1, 2]),
        ({1: "a"}, {True: "a"}),
        ({(1,): 2}, {(True,): 2}),
        ({1, 2}, frozenset({1, 2})),
        (b"a", "a"),
        ([[1]], [[True]]),
    ],
)
def test_same_is_strict_about_types(a, b):
    assert not same(a, b) and not same(b, a)
    assert same(a, a) and same(b, b)


def test_standard_dicts_count_as_dicts():
    counts = collections.Counter("abca")
    assert same(from_wire(to_wire(counts)), {"a": 2, "b": 1, "c": 1})
    assert type(from_wire(to_wire(collections.defaultdict(int, a=1)))) is dict


class AlwaysEqual:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class Sneaky(int):  # an int whose comparisons always succeed
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class LoudError(ValueError):
    def __str__(self):
        raise RuntimeError("boom")


def hostile_answers():
    def hang_repr():
        class Slow:
            def __repr__(self):
                time.sleep(60)

        return Slow()

    return {
        "eq always true": lambda n: AlwaysEqual(),
        "int subclass": lambda n: Sneaky(n * n),
        "nested subclass": lambda n: [Sneaky(n)],
        "slow repr": lambda n: hang_repr(),
        "bytearray": lambda n: bytearray(b"x"),
    }


def exercise_of(*cases: Case, name: str = "square") -> Exercise:
    """A one-off exercise whose target is called `name`, with these cases."""
    return Exercise(
        name=name, lesson=0, target=name, hints=("",), solution_code="", cases=lambda: list(cases)
    )


@pytest.mark.parametrize("name", list(hostile_answers()))
def test_hostile_answers_score_nothing_and_check_still_prints(name, capsys):
    exercise = exercise_of(*[Case(args=(n,), expected=n * n) for n in range(3)])
    started = time.perf_counter()
    result = exercise.grade({"square": hostile_answers()[name]}, time_limit=2)
    assert (result.status, result.score) == ("failed", 0), result.reason
    assert "not plain data" in result.reason
    exercise.check({"square": hostile_answers()[name]})
    assert "not plain data" in capsys.readouterr().out
    assert time.perf_counter() - started < 10


def test_an_exception_is_judged_by_its_builtin_kinds_without_calling_its_str():
    outcomes = run_cases(lambda: (_ for _ in ()).throw(LoudError("x")), [((), {})], 2)
    assert outcomes[0]["raised"] == "LoudError" and "ValueError" in outcomes[0]["kinds"]
    exercise = exercise_of(Case(expected=Raises(ValueError)), name="e")
    assert exercise.judge(exercise.cases(), outcomes).status == "passed"


def test_an_expected_error_must_name_what_it_is_asked_to():
    """Raises(ValueError, naming="7"): the right kind of error whose message leaves out "7" fails,
    and the learner reads why."""

    def fail(message):
        def target():
            raise ValueError(message)

        return target

    exercise = exercise_of(Case(expected=Raises(ValueError, naming="7")), name="e")
    judged = [
        exercise.judge(exercise.cases(), run_cases(fail(message), [((), {})], 2))
        for message in ("id 7 is too big", "out of range", None)
    ]
    assert [result.score for result in judged] == [1, 0, 0]
    assert "raises ValueError naming 7" in judged[1].reason
    assert "the right error, but its message does not name 7" in judged[1].reason


def scores(naming: str, messages: tuple[str, ...]) -> list[float]:
    """The score of an answer raising ValueError(message) where a case expects one naming
    `naming`, for each message."""

    def fail(message):
        def target():
            raise ValueError(message)

        return target

    exercise = exercise_of(Case(expected=Raises(ValueError, naming=naming)), name="e")
    return [
        exercise.judge(exercise.cases(), run_cases(fail(m), [((), {})], 2)).score for m in messages
    ]


def test_a_number_named_with_digit_groups_counts_and_a_longer_one_does_not():
    """Review I1: the lesson's own text writes "65,536", so an honest message may write the id
    as `70,000` or `70_000` (Python's `:,` and `:_`); 700001 is another number, not 70000."""

    messages = ("id 70,000 > 65,535", "id 70_000", "70000 does not fit", "id 700001", "id 170000")
    assert scores("70000", messages) == [1, 1, 1, 0, 0]


def test_a_negative_number_is_read_whole_with_its_sign_and_digit_groups():
    """Review J8: `f"id {i:,} ..."` writes -65536 as "-65,536", which check() passed and the
    grader's hidden case failed ("does not name -65536"): a negative number is read whole too.
    Its sign counts: "65536" alone names another number, and so does "-655360"."""
    negative = ("id -65,536 too small", "id -65_536", "-65536 < 0", "id -655360", "id 65536")
    assert scores("-65536", negative) == [1, 1, 1, 0, 0]
    assert scores("65536", ("id 65,536 too big", "id -65536")) == [1, 0]


def test_a_list_written_without_spaces_is_not_read_as_one_grouped_number():
    """Review K8: ungrouping every "digit, comma, three digits" made `",".join(map(str, ids))`
    of [3, 70000] read "370000", so a message naming the id was refused. Only a well-formed run
    of groups is one number; a list of grouped numbers with spaces still reads each."""
    assert scores("70000", ("ids 3,70000", "[3,70000]", "ids 1,000,70000")) == [1, 1, 1]
    assert scores("65536", ("bad: 5,65536,7", "bad: [65,536, 7]", "65,536,7")) == [1, 1, 0]
    assert scores("370000", ("ids 3,70000", "id 370,000")) == [0, 1]
    assert scores("1000000", ("id 1,000,000", "id 1_000_000", "id -1,000,000")) == [1, 1, 0]


def test_answers_too_big_or_too_deep_are_refused():
    deep: list = []
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(NotPlain, match="nested"):
        to_wire(deep)
    with pytest.raises(NotPlain, match="too big"):
        to_wire("x" * 6_000_000)
    with pytest.raises(NotPlain, match="too big"):
        to_wire(list(range(300_000)))


@pytest.mark.parametrize(
    "forged",
    [
        {"returned": {"evil": 1}},
        {"returned": {"dict": [[[1], 2]]}},
        {"returned": {"bytes": "!!"}},
        {"returned": {"set": [{"list": []}]}},
        {"raised": 1, "kinds": "ValueError"},
        "passed",
        None,
    ],
)
def test_malformed_outcomes_from_a_kernel_are_failed_cases(forged):
    exercise = exercise_of(Case(expected=1), Case(expected=Raises(ValueError)), name="e")
    result = exercise.judge(exercise.cases(), [forged, forged])
    assert (result.status, result.score) in {("failed", 0), ("error", 0)}


@pytest.mark.parametrize(
    ("claimed", "kept"), [(99, 2.0), (-5, 0.0), ("2", 0.0), (None, 0.0), (True, 1.0), (1.5, 1.5)]
)
def test_the_grader_clamps_any_score_to_what_the_exercise_is_worth(claimed, kept):
    from lib.grading.one_submission import _checked

    exercise = dataclasses.replace(exercise_of(Case(expected=1)), points=2)
    row = _checked({"score": claimed, "status": "passed", "reason": "x" * 5000}, exercise)
    assert (row["score"], row["max_score"]) == (kept, 2.0)
    assert len(row["reason"]) < 1100  # capped, with a note saying so


def test_the_grader_keeps_only_the_one_report_it_waits_for():
    """A notebook can send reports of the grader's type by the million (seen: 150 of 10 MB each
    took the grader from 220 MB to 1.6 GB). Only the first carrying the expected marker and
    exercise is kept; nothing is kept while the notebook's own cells run."""
    import nbformat

    from lib.grading.kernel import Kernel
    from lib.grading.kernel_side import MIME

    def message(report) -> dict:
        return {"msg_type": "display_data", "content": {"data": {MIME: report}}}

    client = Kernel(nbformat.v4.new_notebook(), probe_seconds=1)
    flood = "x" * 1000
    for _ in range(1000):  # the notebook's cells: nothing is expected yet
        client.output([], message(flood), None, 0)
        client.output([], message({"marker": "m", "exercise": "e"}), None, 0)
    assert client.published == []
    client.expected = ("m", "e")
    client.output([], message({"marker": "guess", "exercise": "e"}), None, 0)
    client.output([], message({"marker": "m", "exercise": "other"}), None, 0)
    first = {"marker": "m", "exercise": "e", "outcomes": []}
    for report in [first] + [{"marker": "m", "exercise": "e", "n": n} for n in range(1000)]:
        client.output([], message(report), None, 0)
    assert client.published == [first]


def test_a_long_wrong_answer_says_where_it_first_differs():
    """A cut-short repr can hide the one wrong value: the feedback names where it is."""
    from lib.exercises.verdicts import first_difference

    vocab = {i: bytes([i]) for i in range(256)}
    assert first_difference({**vocab, 257: b"ab"}, {**vocab, 256: b"ab"}) == (
        "key 256 is missing (its value: b'ab')"
    )
    ids = list(range(40))
    assert first_difference(ids[:6] + [99] + ids[7:], ids) == "at position 6: expected 6, got 99"
    assert first_difference(ids + [1], ids) == "41 items long, where the right answer has 40"
    assert first_difference([1, 2], [1, 3]) == ""  # short: the whole answer is shown anyway
    result = exercise_of(Case(args=(0,), expected=ids)).grade({"square": lambda n: ids[::-1]})
    assert "differs:  at position 0: expected 0, got 39" in result.reason


def test_floats_are_shown_without_their_noise_but_judged_on_their_value():
    from lib.exercises.cases import show

    assert (
        show([0.531, -0.15749999999999997, {"a": (0.1 + 0.2,)}])
        == "[0.531, -0.1575, {'a': (0.3,)}]"
    )
    assert show(-0.15749999999999997, exact=True) == "-0.15749999999999997"
    strict = Exercise(
        name="third",
        lesson=0,
        target="third",
        cases=lambda: [Case(args=(0.9,), expected=0.3)],
        hints=("Divide by 3.",),
        solution_code="def third(x):\n    return x / 3\n",
    )
    result = strict.judge(strict.cases(), [{"returned": 0.30000000000000004}])
    assert result.status == "failed"
    assert "expected: 0.3\ngot:      0.3\ndiffers:  only in the last digits:" in result.reason
    # whose value is whose (review G6): the learner's first, then the right one
    assert "you returned 0.30000000000000004; expected 0.3" in result.reason
