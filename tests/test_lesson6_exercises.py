"""Lesson 6's exercises teach: the stub, a trivial answer and an answer borrowed from `lib` earn
nothing, the honest answer earns every point, and the grader runs cases `check()` never shows."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from lib.exercises import lesson6 as ex
from lib.exercises.cases import Case
from lib.exercises.own_code import Notebook
from lib.exercises.running import run_cases
from tests.test_exercises import run

NOTEBOOK_6 = Path(__file__).parent.parent / "notebooks" / "06_multilingual_comparison.ipynb"
HONEST_FACTORS = """\
def premium_factors(counts, lang, reference="eng_Latn"):
    def ratio(step):
        return counts[step][lang] / counts[step][reference]
    chars, utf8 = ratio("characters"), ratio("bytes")
    middle, o200k = ratio("o200k vocab + cl100k pattern"), ratio("o200k_base")
    return {"characters": chars, "utf8": utf8 / chars, "vocabulary": middle / utf8,
            "pattern": o200k / middle}
"""
HONEST_GINI = """\
def gini(values):
    n, total = len(values), 0
    for x in values:
        for y in values:
            total += abs(x - y)
    return total / (2 * n * sum(values))
"""
HONEST_MIX = (
    'training_mix = {"eng_Latn": 5_000, "spa_Latn": 5_000, "rus_Cyrl": 10_000,'
    ' "hin_Deva": 14_000, "tam_Taml": 16_000}'
)


@pytest.mark.parametrize(
    "exercise, source",
    [(ex.premium_factors, HONEST_FACTORS), (ex.gini, HONEST_GINI), (ex.training_mix, HONEST_MIX)],
    ids=lambda x: getattr(x, "name", "source"),
)
def test_an_honest_answer_gets_full_marks_on_every_case_the_grader_runs(exercise, source):
    target = run(source)[exercise.target]
    cases = exercise.grading_cases()
    assert len(cases) > len(exercise.cases()), "the grader has cases check() does not show"
    result = exercise.judge(cases, run_cases(target, exercise.inputs(cases), 30), callable(target))
    assert (result.status, result.score) == ("passed", exercise.points), result.reason


TRIVIAL = [
    (
        ex.premium_factors,
        "def premium_factors(c, lang, reference='eng_Latn'):\n"
        "    p = c['o200k_base'][lang] / c['o200k_base'][reference]\n"
        "    return {'characters': p, 'utf8': 1.0, 'vocabulary': 1.0, 'pattern': 1.0}",
    ),
    (
        ex.premium_factors,
        "def premium_factors(c, lang, reference='eng_Latn'):\n"
        "    p = c['o200k_base'][lang] / c['o200k_base'][reference]\n"
        "    return dict.fromkeys(['characters', 'utf8', 'vocabulary', 'pattern'], p ** 0.25)",
    ),
    (ex.gini, "def gini(values):\n    return 0.0"),
    (
        ex.gini,
        "import statistics\ndef gini(values):\n"
        "    return statistics.pstdev(values) / statistics.mean(values)",
    ),
    (
        ex.training_mix,
        "training_mix = {lang: 10_000 for lang in"
        " ['eng_Latn', 'spa_Latn', 'rus_Cyrl', 'hin_Deva', 'tam_Taml']}",
    ),
    (ex.training_mix, "training_mix = {'eng_Latn': 50_000}"),
    (ex.training_mix, "training_mix = {'hin_Deva': 100_000, 'tam_Taml': 100_000}"),  # over budget
    (ex.training_mix, "training_mix = {'hin_Deva': 25_000.0, 'tam_Taml': 25_000.0}"),  # not bytes
    (ex.training_mix, "training_mix = {}"),
]


@pytest.mark.parametrize("exercise, source", TRIVIAL, ids=lambda x: getattr(x, "name", ""))
def test_a_trivial_answer_scores_nothing(exercise, source):
    result = exercise.grade(run(source))
    assert result.score == 0, result.reason


@pytest.mark.parametrize(
    "exercise, cells",
    [
        (
            ex.premium_factors,
            [
                "from lib import fairness",
                "def premium_factors(c, lang):\n    return fairness.premium_factors(c, lang)",
            ],
        ),
        (
            ex.gini,
            ["from lib.fairness import gini as g", "def gini(values):\n    return g(values)"],
        ),
        (
            ex.gini,
            [
                "from lib.exercises import lesson6",
                "def gini(values):\n    return lesson6.fairness.gini(values)",
            ],
        ),
    ],
    ids=["premium_factors", "gini alias", "gini through the exercises"],
)
def test_an_answer_borrowed_from_lib_is_not_own_code(exercise, cells):
    notebook = Notebook(new_notebook(cells=[new_code_cell(c) for c in cells]))
    assert notebook.borrowed(exercise.target, exercise.allowed_lib, exercise.forbidden)


@pytest.mark.parametrize("exercise", ex.EXERCISES, ids=lambda e: e.name)
def test_hints_come_in_steps_and_the_first_does_not_give_the_code(exercise):
    assert len(exercise.hints) >= 2
    assert "return" not in exercise.hints[0] and "=" not in exercise.hints[0]


def test_premium_factors_hint_asks_for_the_ratios_without_the_expression():
    """Hint 2 once held the solution's line in prose (ratio = counts[step][lang] / ...,
    divided by the previous ratio); now it gives the example's ratios and asks the question."""
    hint = ex.premium_factors.hints[1]
    assert "counts[step]" not in hint and "divided by" not in hint
    counts, lang = ex.premium_factors.cases()[0].args
    ratios = [counts[step][lang] / counts[step]["eng_Latn"] for step in counts]
    assert ratios == [2, 3, 6, 3] and "2, 3, 6 and 3" in hint


def test_factors_that_always_divide_by_english_lose_points_in_check():
    """`reference` is an argument: an answer that ignores it once passed every case check()
    showed (2/2), and only a hidden case caught it."""
    always_english = HONEST_FACTORS.replace("[reference]", '["eng_Latn"]')
    assert always_english != HONEST_FACTORS
    result = ex.premium_factors.grade(run(always_english))
    cases = len(ex.premium_factors.cases())
    assert result.score <= ex.premium_factors.points * (cases - 2) / cases, result.reason


def test_the_factors_multiply_back_to_the_premium():
    for case in ex.premium_factors.grading_cases():
        counts, lang = case.args
        reference = case.kwargs.get("reference", "eng_Latn")
        product = 1.0
        for factor in case.expected.values():
            product *= factor
        assert product == pytest.approx(
            counts["o200k_base"][lang] / counts["o200k_base"][reference]
        )


def test_a_mix_that_breaks_the_rules_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="budget"):
        ex.measure_mix({"eng_Latn": ex.MIX_BUDGET + 1})
    with pytest.raises(ValueError, match="keys"):
        ex.measure_mix({"xyz_Latn": 10})


def test_a_failed_mix_is_told_its_own_worst_premium():
    equal = {lang: 10_000 for lang in ex.MIX_LANGUAGES}
    reason = ex.training_mix.grade({"training_mix": equal}).reason
    assert "Your mix's worst premium here is" in reason and "Tamil (tam_Taml)" in reason, reason
    over = ex.training_mix.grade({"training_mix": {"eng_Latn": ex.MIX_BUDGET + 1}}).reason
    assert "not a mix the challenge accepts" in over and "budget" in over, over


def test_a_mix_that_misses_on_the_hidden_half_is_told_so_without_its_numbers():
    """The feedback once measured the first half whatever failed: a mix that missed only on the
    grader's half was told a first-half premium already under the goal. This mix's worst premium
    is 1.421 on the first half and 1.445 on the second: a goal of 1.43 splits them."""
    mix = {"eng_Latn": 7_000, "spa_Latn": 7_000, "rus_Cyrl": 7_000, "hin_Deva": 7_000}
    mix["tam_Taml"] = 22_000
    first, second = (max(ex.measure_mix(mix, half).values()) for half in (0, 1))
    assert first < 1.43 <= second, (first, second)
    cases = [Case(expected=ex.WorstPremiumUnder(1.43, 0))]
    cases.append(Case(expected=ex.WorstPremiumUnder(1.43, 1), hidden=True))
    result = ex.training_mix.judge(cases, run_cases(mix, ex.training_mix.inputs(cases), 30), False)
    assert result.status == "partial"
    aim = f"{ex.MIX_THRESHOLD - ex.MIX_MARGIN:.2f}"  # the lesson's goal and margin, not this case's
    assert "other half of devtest" in result.reason and f"about {aim}" in result.reason
    assert str(first) not in result.reason and str(second) not in result.reason, result.reason


def test_a_float_amount_is_refused_with_how_to_write_it():
    mix = {"eng_Latn": 4e3, "spa_Latn": 4_000, "rus_Cyrl": 9_000, "hin_Deva": 14_000}
    reason = ex.training_mix.grade({"training_mix": mix | {"tam_Taml": 19_000}}).reason
    assert "must be an int (write 4_000, not 4e3 or 4000.0)" in " ".join(reason.split()), reason


SORTED_GINI = """\
def gini(values):
    values.sort()
    n = len(values)
    return sum((2 * i - n + 1) * x for i, x in enumerate(values)) / (n * sum(values))
"""


@pytest.mark.parametrize(
    "source",
    [SORTED_GINI, SORTED_GINI.replace("    values.sort()\n", "")],
    ids=["sorts the caller's list", "assumes sorted values"],
)
def test_gini_by_the_sorted_formula_fails_a_shown_case_unless_it_sorts_a_copy(source):
    """Review G2: every shown case was sorted, so `values.sort()` got ✅ in check() and lost a
    hidden case; the sorted formula without a sort passed check() too."""
    shown = ex.gini.cases()
    result = ex.gini.judge(shown, run_cases(run(source)["gini"], ex.gini.inputs(shown), 10))
    assert result.status in ("partial", "failed"), result.reason
    honest = source.replace("    values.sort()\n", "").replace(
        "enumerate(values)", "enumerate(sorted(values))"
    )
    result = ex.gini.judge(shown, run_cases(run(honest)["gini"], ex.gini.inputs(shown), 10))
    assert result.status == "passed", result.reason


def test_the_sorted_formula_on_values_out_of_order_is_told_to_sort_first():
    """It failed [4, 1, 3, 2] with expected 0.25, got -0.1 and nothing more; the 💡 names the
    cause, and only there: sorting the caller's list gets the changed-argument 💡 instead."""
    shown = ex.gini.cases()
    unsorted = SORTED_GINI.replace("    values.sort()\n", "")
    for source, told in ((unsorted, True), (SORTED_GINI, False)):
        outcomes = run_cases(run(source)["gini"], ex.gini.inputs(shown), 10)
        words = " ".join(ex.gini.judge(shown, outcomes).reason.split())
        assert ("assumes the values sorted" in words) is told, words


def test_gini_is_asked_as_averages_and_its_hints_stop_short_of_the_formula():
    """The prompt gave the code's formula (sum over pairs / (2 × n × sum)), and hint 2 said it
    again: the exercise was transcription. Now the prompt defines it with averages, and the last
    hint works an example by hand, whose numbers must be true."""
    cells = nbformat.read(NOTEBOOK_6, as_version=4).cells
    prompt = next(c.source for c in cells if "### ✏️ Exercise 3: the Gini" in c.source)
    assert "2 × n" not in prompt and "**average**" in prompt
    for hint in ex.gini.hints:
        assert "2 * n" not in hint and "sum(values)" not in hint and "len(values)" not in hint
    values = [0, 0, 0, 4]
    gaps = [abs(x - y) for x in values for y in values]
    assert len(gaps) == 16 and "16 pairs" in ex.gini.hints[1]
    assert sum(gaps) / len(gaps) / (2 * sum(values) / len(values)) == 0.75
    assert "0.75" in ex.gini.hints[1]


DIFFERENT_ITEMS_GINI = """\
def gini(values):
    n = len(values)
    gaps = [abs(x - y) for i, x in enumerate(values) for j, y in enumerate(values) if i != j]
    return sum(gaps) / (n * (n - 1)) / (2 * sum(values) / n)
"""

EACH_PAIR_ONCE_GINI = (
    "import itertools\ndef gini(values):\n    n = len(values)\n"
    "    gaps = sum(abs(x - y) for x, y in itertools.combinations(values, 2))\n"
    "    return gaps / (n * n) / (2 * sum(values) / n)\n"
)


@pytest.mark.parametrize(
    "source, told",
    [
        (DIFFERENT_ITEMS_GINI, "fit pairs of two different items only"),
        (
            "import itertools\ndef gini(values):\n    n = len(values)\n"
            "    pairs = list(itertools.combinations(values, 2))\n"
            "    return sum(abs(x - y) for x, y in pairs) / len(pairs) / (2 * sum(values) / n)\n",
            "fit pairs of two different items only",
        ),
        (
            "import itertools\ndef gini(values):\n    n = len(values)\n"
            "    pairs = list(itertools.combinations_with_replacement(values, 2))\n"
            "    return sum(abs(x - y) for x, y in pairs) / len(pairs) / (2 * sum(values) / n)\n",
            "fit taking each two items together once, an item with itself included",
        ),
        (
            EACH_PAIR_ONCE_GINI,
            "are half the right ones: they take each two items together once",
        ),
    ],
    ids=[
        "n × (n − 1) pairs",
        "each pair once, over its count",
        "each pair once, itself included",
        "each pair once, over n × n",
    ],
)
def test_gini_names_picks_counted_wrong(source, told):
    """Review I4: an average over the n × (n − 1) picks of different items (or over the
    unordered pairs) got ❌ 3/3, "got 1.0" and nothing more; so did each pair once over n × n
    picks (half the answer). The 💡 names the slip in check() and in the grader, whose single
    value makes the first two divide by zero."""
    for cases in (ex.gini.cases(), ex.gini.grading_cases()):
        result = ex.gini.judge(cases, run_cases(run(source)["gini"], ex.gini.inputs(cases), 10))
        words = " ".join(result.reason.split())
        assert result.status in ("partial", "failed") and f"💡 Your answers {told}" in words, words
        assert "n * n" not in words and "n × n" not in words  # a question, not the count


def test_gini_calls_one_draw_a_pick_and_two_in_order_a_pair():
    """Review K1: "pick" meant one draw ("both picks may land on the same item") and the ordered
    pair ("16 picks", "How many picks are there?"), so a newcomer could count n picks."""
    cells = nbformat.read(NOTEBOOK_6, as_version=4).cells
    prompt = next(c.source for c in cells if "### ✏️ Exercise 3: the Gini" in c.source)
    cases = ex.gini.cases()
    told = [
        ex.gini.judge(cases, run_cases(run(source)["gini"], ex.gini.inputs(cases), 10)).reason
        for source in (DIFFERENT_ITEMS_GINI, EACH_PAIR_ONCE_GINI)
    ]
    for text in (" ".join(prompt.split()), *ex.gini.hints, *(" ".join(t.split()) for t in told)):
        pairs_called_picks = re.findall(r"\d+ picks|possible pick\b|picks are there|a pick\b", text)
        assert not pairs_called_picks, text
    assert "How many such pairs are there with `n` values?" in " ".join(prompt.split())
    assert "(x, x) is still a pair" in " ".join(told[0].split())


def test_gini_prompt_says_both_picks_may_be_one_item_and_how_to_average():
    """Review I4/I5: "(so the same value may come twice)" did not say that a pick may take the
    same item twice; and "average" invited `statistics.mean`, which the grader refuses, since
    `statistics` is not on the lesson's list (the list stays as it is: a grading rule)."""
    cells = nbformat.read(NOTEBOOK_6, as_version=4).cells
    prompt = " ".join(
        next(c.source for c in cells if "### ✏️ Exercise 3: the Gini" in c.source).split()
    )
    assert "both picks may land on the same item" in prompt and "same value" not in prompt
    assert "a sum divided by a count" in prompt and "`statistics` module is not on the" in prompt
    rules = next(c.source for c in cells if "**What your answers may use:**" in c.source)
    assert "statistics" not in rules
    borrowed = Notebook(
        new_notebook(
            cells=[
                new_code_cell(
                    "from statistics import mean\ndef gini(values):\n"
                    "    return mean(abs(x - y) for x in values for y in values) / 2 / mean(values)"
                )
            ]
        )
    ).borrowed(ex.gini.target, ex.gini.allowed_lib, ex.gini.forbidden)
    assert "`statistics`" in borrowed, borrowed
