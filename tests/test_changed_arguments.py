"""A function that changes the arguments it was given fails the case, in check() and in the
grader alike, with a 💡 that names the argument; a hidden case's input stays secret."""

from __future__ import annotations

import dataclasses
import json

from lib.exercises import Case, Exercise, lesson4
from lib.exercises.lesson3.training_loop import merge
from lib.exercises.lesson6 import premium_factors
from lib.exercises.lesson8 import first_merge
from lib.exercises.lesson9 import grow_embeddings
from lib.exercises.running import run_cases
from lib.grading.grading_job import judged


def grow_in_place(rows, n_new):
    mean = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
    for _ in range(n_new):
        rows.append(list(mean))
    return rows


def first_merge_into_first(parts):
    total = parts[0]  # adds every worker's counts into the caller's first dict
    for part in parts[1:]:
        for token, n in part.items():
            total[token] = total.get(token, 0) + n
    pairs = {}
    for token, n in total.items():
        for a, b in zip(token, token[1:], strict=False):
            pair = (bytes([a]), bytes([b]))
            pairs[pair] = pairs.get(pair, 0) + n
    return max(pairs, key=lambda pair: (pairs[pair], pair)) if pairs else None


def merge_in_place(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i : i + 2] = [new_id]
        i += 1
    return ids


WRONG = [
    (grow_embeddings, grow_in_place, "changed `rows`, its argument: build a new list"),
    (
        first_merge,
        first_merge_into_first,
        "changed `parts[0]`, inside its argument `parts`: build a new dict",
    ),
    (merge, merge_in_place, "changed `ids`, its argument: build a new list"),
]


def test_answers_that_change_their_arguments_fail_in_check_with_a_tip(capsys):
    for exercise, answer, words in WRONG:
        exercise.check({exercise.target: answer})
        shown = capsys.readouterr().out
        assert "❌" in shown and "changed:  " in shown, shown
        assert words in " ".join(shown.split()), shown


def test_the_grader_judges_them_the_same_from_the_kernels_report():
    for exercise, answer, words in WRONG:
        cases = exercise.grading_cases()
        outcomes = run_cases(answer, exercise.inputs(cases), 10)
        report = json.loads(json.dumps({"callable": True, "outcomes": outcomes}))
        row = judged(exercise, cases, report)
        # "failed" where it is right only where a fixed answer is (fix27p's rule)
        assert row["status"] in ("partial", "failed") and row["score"] < 1, row
        assert words in " ".join(row["reason"].split()), row["reason"]


def test_the_reference_solutions_change_nothing():
    for exercise, _, _ in WRONG:
        namespace: dict = {}
        exec(exercise.solution_code, namespace)
        cases = exercise.grading_cases()
        outcomes = run_cases(namespace[exercise.target], exercise.inputs(cases), 10)
        assert not any("changed" in outcome for outcome in outcomes)
        assert exercise.judge(cases, outcomes).status == "passed"


def _total(xs: list[int]) -> int:
    return sum(xs)


TOTAL = Exercise(
    name="total",
    lesson=1,
    target="total",
    cases=lambda: [Case(args=([1, 2],), expected=3), Case(args=([4],), expected=4)],
    hidden_cases=lambda: [Case(args=([5, 7, 9123],), expected=9135, kind="three numbers")],
    hints=("Add them.",),
    solution_code="def total(xs: list[int]) -> int:\n    return sum(xs)\n",
)


def test_a_change_in_a_hidden_case_names_the_argument_but_not_the_input():
    def total(xs):
        if len(xs) > 2:
            xs.sort(reverse=True)  # only the hidden case has three numbers
        return sum(xs)

    cases = TOTAL.grading_cases()
    result = TOTAL.judge(cases, run_cases(total, TOTAL.inputs(cases), 10))
    assert result.status == "partial"
    assert "a hidden case failed (three numbers)" in result.reason
    assert "changed `xs`, its argument" in result.reason
    assert "9123" not in result.reason  # the input is for the instructor only
    assert "changed:  xs was [5, 7, 9123], now [9123, 7, 5]" in result.detail


def test_an_exercise_meant_to_work_in_place_may_say_so():
    def total(xs):
        xs.append(0)
        return sum(xs)

    cases = TOTAL.cases()
    outcomes = run_cases(total, TOTAL.inputs(cases), 10)
    assert TOTAL.judge(cases, outcomes).status == "failed"
    in_place = dataclasses.replace(TOTAL, keeps_arguments=False)
    assert in_place.judge(cases, outcomes).status == "passed"


def test_a_forged_report_of_changes_is_read_safely():
    cases = TOTAL.cases()
    for forged in ({"changed": "rows"}, {"changed": [[0]]}, {"changed": [[[0], 1]]}):
        outcomes = [{"returned": 3, **forged}, {"returned": 4}]
        assert TOTAL.judge(cases, outcomes).status == "passed"
    outcomes = [{"returned": 3, "changed": [[0, {"bad": 1}]]}, {"returned": 4}]
    result = TOTAL.judge(cases, outcomes)
    assert "xs was [1, 2], now something that is not plain data" in result.reason


def normalise_a_shallow_copy(counts, lang, reference="eng_Latn"):
    counts = dict(counts)  # what "build a new dict" reads as: the inner dicts are still shared
    for step in counts:
        base = counts[step][reference]
        for key in counts[step]:
            counts[step][key] = counts[step][key] / base
    steps = ["characters", "bytes", "o200k vocab + cl100k pattern", "o200k_base"]
    r = [counts[step][lang] for step in steps]
    return {
        "characters": r[0],
        "utf8": r[1] / r[0],
        "vocabulary": r[2] / r[1],
        "pattern": r[3] / r[2],
    }


def normalise_characters_only(counts, lang, reference="eng_Latn"):
    chars = counts["characters"]
    base = chars[reference]
    for key in chars:  # one inner dict changed in place
        chars[key] = chars[key] / base
    steps = ["characters", "bytes", "o200k vocab + cl100k pattern", "o200k_base"]
    r = [counts[s][lang] / (1 if s == "characters" else counts[s][reference]) for s in steps]
    return {
        "characters": r[0],
        "utf8": r[1] / r[0],
        "vocabulary": r[2] / r[1],
        "pattern": r[3] / r[2],
    }


def first_merge_cleaning_every_part(parts):
    for part in parts:  # drops single bytes from the caller's dicts, every one of them
        for token in [t for t in part if len(t) < 2]:
            del part[token]
    return first_merge_into_first([dict(part) for part in parts])


def test_a_change_inside_a_dict_of_dicts_names_the_inner_dicts_not_the_outer_one(capsys):
    """Review G1: "changed `counts`: build a new dict" sent a learner who then wrote
    `counts = dict(counts)` round again, since a shallow copy shares the dicts inside."""
    for answer, words in [
        (
            normalise_a_shallow_copy,
            "the dicts inside its argument `counts` (`counts['characters']`",
        ),
        (normalise_characters_only, "changed `counts['characters']`, inside its argument"),
    ]:
        premium_factors.check({"premium_factors": answer})
        shown = " ".join(capsys.readouterr().out.split())
        assert words in shown, shown
        assert "A copy of `counts` still shares the dicts inside it" in shown, shown
        assert "build new ones" in shown or "build a new dict" in shown, shown
    first_merge.check({"first_merge": first_merge_cleaning_every_part})
    shown = " ".join(capsys.readouterr().out.split())
    assert "changed `parts[0]`, inside its argument `parts`" in shown, shown  # the first case's
    assert "A copy of `parts` still shares the dicts inside it" in shown, shown


def test_in_a_hidden_case_the_inner_dict_goes_unnamed():
    """A dict's keys are part of the input: a hidden case's stay secret."""
    nested = Exercise(
        name="size",
        lesson=1,
        target="size",
        cases=lambda: [Case(args=({"a": {"x": 1}},), expected=1)],
        hidden_cases=lambda: [Case(args=({"secret_key": {"y": 2}},), expected=1)],
        hints=("Count them.",),
        solution_code="def size(d):\n    return len(d)\n",
    )

    def size(d):
        for inner in d.values():
            inner.clear()
        return len(d)

    cases = nested.grading_cases()
    result = nested.judge(cases, run_cases(size, nested.inputs(cases), 10))
    assert "changed `d['a']`, inside its argument `d`" in " ".join(result.reason.split())
    hidden_only = nested.judge(cases[1:], run_cases(size, nested.inputs(cases[1:]), 10))
    assert "secret_key" not in hidden_only.reason, hidden_only.reason
    words = " ".join(hidden_only.reason.split())
    assert (
        "a dict inside its argument `d`: build a new dict of your own and leave that one" in words
    )


def test_in_a_hidden_case_the_changed_list_item_goes_unnamed():
    """Which item of a list the function changes is its own choice, so its index could carry a
    bit of a hidden input (red team 11, door 4): a hidden case names no index, a shown one does."""
    nested = Exercise(
        name="size",
        lesson=1,
        target="size",
        cases=lambda: [Case(args=([{"x": 1}, {"y": 2}],), expected=2)],
        hidden_cases=lambda: [Case(args=([{"x": 1}, {"z": 3}],), expected=2)],
        hints=("Count them.",),
        solution_code="def size(parts):\n    return len(parts)\n",
    )

    def size(parts):
        parts[1].clear()  # the item a leak would pick by the input
        return len(parts)

    cases = nested.grading_cases()
    shown = nested.judge(cases[:1], run_cases(size, nested.inputs(cases[:1]), 10))
    assert "`parts[1]`" in shown.reason, shown.reason
    hidden_only = nested.judge(cases[1:], run_cases(size, nested.inputs(cases[1:]), 10))
    words = " ".join(hidden_only.reason.split())
    assert "parts[" not in words, words
    assert "a dict inside its argument `parts`" in words, words


def test_a_right_answer_that_changed_arguments_says_so_and_names_every_one(capsys):
    """Review G5: equal expected and got under "❌ 10 of 12 cases failed" puzzled, and only the
    first changed argument was named, so a second change cost a second round trip."""

    def first_bad_token(ids, vocab):
        ids += [-1]  # a sentinel at the end, in the caller's list
        vocab[-1] = b""  # and its bytes, in the caller's dict
        try:
            b"".join(vocab[i] for i in ids).decode("utf-8")
        except UnicodeDecodeError as error:
            end = 0
            for k, i in enumerate(ids):
                end += len(vocab[i])
                if end > error.start:
                    return k
        return None

    lesson4.first_bad_token.check({"first_bad_token": first_bad_token})
    shown = " ".join(capsys.readouterr().out.split())
    assert "💡 your answers are right, but your function changed 2 of its arguments" in shown
    assert "`ids`, its argument: build a new list" in shown, shown
    assert "`vocab`, its argument: build a new dict" in shown, shown
    grow_embeddings.check({"grow_embeddings": grow_in_place})
    shown = " ".join(capsys.readouterr().out.split())
    assert "💡 your answers are right, but your function changed `rows`" in shown, shown

    def merge_the_first_in_place(ids, pair, new_id):
        for i in range(len(ids) - 1):
            if (ids[i], ids[i + 1]) == pair:
                ids[i : i + 2] = [new_id]
                break  # the other occurrences stay: wrong besides, so no "right" then
        return ids

    merge.check({"merge": merge_the_first_in_place})
    shown = " ".join(capsys.readouterr().out.split())
    assert "💡 your function changed `ids`" in shown, shown
