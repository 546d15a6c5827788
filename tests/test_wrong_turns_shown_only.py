"""Every lesson's `wrong_turns` hooks quote shown cases only (`lib.exercises.shown_only`): with
every shown case right and a hidden one wrong, the 💡 line holds nothing of that hidden case."""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys

import pytest

from lib.exercises import all_exercises
from lib.exercises.cases import Raises, show
from lib.exercises.plain import NotPlain, to_wire

HOOKED = [e for e in all_exercises() if e.wrong_turns and e.hidden_cases]


def tip(exercise, cases, answers) -> str:
    """The 💡 part of the reason these answers get."""
    outcomes = [
        {"raised": "", "kinds": [a.error.__name__]}
        if isinstance(a, Raises)
        else {"returned": to_wire(a)}
        for a in answers
    ]
    result = exercise.judge(cases, outcomes)
    return result.reason.partition("💡")[2]


def plain(case) -> bool:
    """Could a learner's function return this case's expected answer?"""
    try:
        to_wire(case.expected)
    except NotPlain:
        return False
    return True


def sources(hook) -> str:
    """The source of the modules that `hook`, and the functions its closure holds, come from."""
    functions, text = [hook], ""
    while functions:
        function = functions.pop()
        text += inspect.getsource(sys.modules[function.__module__])
        cells = getattr(function, "__closure__", None) or ()
        functions += [c.cell_contents for c in cells if inspect.isfunction(c.cell_contents)]
    return text


def test_lessons_have_hooks_to_check():
    assert {e.lesson for e in HOOKED} >= {3, 4, 5}


@pytest.mark.parametrize("exercise", HOOKED, ids=lambda e: e.name)
def test_a_hook_says_nothing_of_a_hidden_case(exercise):
    """Each of the first two hidden cases answered with another case's expected answer (a wrong
    answer of the right shape): no rendering of its input, expected or given answer in the 💡
    line, and every number there written in the hook's own code."""
    cases = exercise.cases() + exercise.secret_cases()
    code = sources(exercise.wrong_turns)
    hidden = [k for k, c in enumerate(cases) if c.hidden][:2]
    for k in hidden:
        others = [c.expected for c in cases if c.expected != cases[k].expected and plain(c)][:1]
        for wrong in others:
            answers = [c.expected for c in cases]
            answers[k] = wrong
            words = tip(exercise, cases, answers)
            quoted = [show(v) for v in (cases[k].expected, wrong, *cases[k].args)]
            assert not [q for q in quoted if len(q) > 3 and q in words], words
            assert all(n in code for n in re.findall(r"\d+", words)), words


def test_a_hook_that_quotes_every_case_quotes_only_shown_ones():
    """The rule is the mechanism's: a hook written to quote whatever it is given."""

    def quoting(cases, answers):
        wrong = [show(c.expected) for c, a in zip(cases, answers, strict=True) if a != c.expected]
        return "expected " + "; ".join(wrong) if wrong else None

    exercise = dataclasses.replace(HOOKED[0], wrong_turns=quoting)
    cases = exercise.cases() + exercise.secret_cases()
    first_shown = next(k for k, c in enumerate(cases) if not c.hidden)
    first_hidden = next(k for k, c in enumerate(cases) if c.hidden)
    for k in (first_shown, first_hidden):
        answers = [c.expected for c in cases]
        answers[k] = None
        words = tip(exercise, cases, answers)
        secrets = [show(c.expected) for c in cases if c.hidden]
        assert not [s for s in secrets if len(s) > 3 and s in words]
        assert bool(words) == (k == first_shown)  # on a hidden failure alone: silent
