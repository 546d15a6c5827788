"""Judging one exercise's outcomes, in the grader's process: whether each answer is right, what
to show of it, and answers that ignore their input.

An outcome is the plain-data report `running.run_cases` makes of one call: "returned" (the
answer, as wire data), or "raised" and "kinds", or "not_plain", "timeout", "stub".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lib.exercises.cases import Case, Raises, show
from lib.exercises.plain import NotPlain, from_wire, same

ORDINALS = ("first", "second", "third", "fourth")


def verdict(
    case: Case, outcome: dict, compare: Callable[[Any, Any], bool] | None
) -> tuple[bool, str]:
    """Did this outcome (from `running.run_cases`) answer this case, compared with `compare` or
    the strict `plain.same`? Also what to show as the learner's answer."""
    if "returned" in outcome:
        try:
            got = from_wire(outcome["returned"])
        except NotPlain as error:
            return False, f"got:      an unreadable answer ({error})"
        shown = f"got:      {show(got)}"
        if isinstance(case.expected, Raises):
            return False, shown
        try:
            right = bool((compare or same)(got, case.expected))
        except Exception:  # a compare that cannot handle this shape of answer: wrong
            right = False
        where = "" if right else first_difference(got, case.expected)
        if not right and shown == f"got:      {show(case.expected)}":  # rounding hid the gap
            exact = (
                f"you returned {show(got, exact=True)}; expected {show(case.expected, exact=True)}"
            )
            where = where or f"only in the last digits: {exact}"
        return right, shown + (f"\ndiffers:  {where}" if where else "")
    if raised_expected(case, outcome):
        return True, ""
    if "raised" in outcome:
        message = str(outcome.get("message", ""))[:300]
        shown = f"raised:   {str(outcome['raised'])[:60]}: {message}".rstrip(": ")
        if _right_kind(case, outcome):  # only the message is wrong: say so
            missing = case.expected.naming
            shown += f"\ndiffers:  the right error, but its message does not name {missing}"
        return False, shown
    if "not_plain" in outcome:
        return False, f"got:      {str(outcome['not_plain'])[:300]}"
    if "timeout" in outcome:
        seconds = outcome["timeout"]  # from the kernel: shown only if it is a plain number
        limit = f" of {seconds:g} s a case" if type(seconds) in (int, float) else ""
        return False, f"got:      no answer: it ran longer than the time limit{limit}"
    return False, "got:      no answer (not run: an earlier case ran too long)"


def first_difference(got: Any, expected: Any) -> str:
    """Where a long wrong answer first differs from the right one ("" for short answers, whose
    whole value is shown anyway, and for answers of another type)."""
    if max(len(repr(got)), len(repr(expected))) <= 60 or type(got) is not type(expected):
        return ""
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key not in got:
                return f"key {show(key, 40)} is missing (its value: {show(value, 40)})"
            if not same(got[key], value):
                return (
                    f"at key {show(key, 40)}: expected {show(value, 40)}, got {show(got[key], 40)}"
                )
        extra = next((key for key in got if key not in expected), None)
        return "" if extra is None else f"key {show(extra, 40)} should not be there"
    if isinstance(expected, list | tuple | str | bytes):
        for i, (mine, right) in enumerate(zip(got, expected, strict=False)):
            if not same(mine, right):
                return f"at position {i}: expected {show(right, 40)}, got {show(mine, 40)}"
        return f"{len(got)} items long, where the right answer has {len(expected)}"
    return ""


def trivial_answer(cases: list[Case], outcomes: list[dict]) -> str | None:
    """How the answers ignore their input, in words, when they do although the right answers
    differ: one value every time ("returns [] whatever the input") or an argument handed back
    ("returns its first argument unchanged"). None otherwise, and with fewer than three cases.
    Answers that also raise are `blind_by_raising`'s."""
    if len(cases) < 3 or len(outcomes) < len(cases):
        return None
    try:
        answers = [from_wire(outcome["returned"]) for outcome in outcomes]
    except (KeyError, NotPlain):  # an exception or an unreadable answer: judged case by case
        return None
    expected = [case.expected for case in cases]
    if _all_same(answers, [answers[0]] * len(answers)) and not _all_same(
        expected, [expected[0]] * len(expected)
    ):
        return f"returns {show(answers[0], 60)} whatever the input"
    for position in range(min(len(case.args) for case in cases)):
        given = [case.args[position] for case in cases]
        if _all_same(answers, given) and not _all_same(expected, given):
            which = ORDINALS[position] if position < len(ORDINALS) else f"#{position + 1}"
            return f"returns its {which} argument unchanged"
    return None


def blind_by_raising(cases: list[Case], outcomes: list[dict], right: list[bool]) -> str | None:
    """How an answer that raises earns without reading its input, in words (None if it does
    not), given which cases it got `right`: it raises on every case while some case wants a
    value, or it returns one value and raises where other values are due, or, where every case
    wants an error, it raises one kind on every case while some case wants another. Otherwise
    `fixed_answer.earned` scores what reading the input earns."""
    if len(cases) < 3 or len(outcomes) < len(cases) or not any(right):
        return None
    values = [i for i, case in enumerate(cases) if not isinstance(case.expected, Raises)]
    if values:
        if all("raised" in o for o in outcomes):
            return "raises an error whatever the input"
        returned = [answer_of(o) for o in outcomes if "returned" in o]
        due = [cases[i].expected for i in values]
        one = _all_same(returned, returned[:1] * len(returned))
        if (
            one
            and any("raised" in outcomes[i] for i in values)
            and not _all_same(due, due[:1] * len(due))
        ):
            # Quote a value only as a shown case returned it: a hidden case's may hold its input
            pairs = zip(cases, outcomes[: len(cases)], strict=True)
            shown = [answer_of(o) for c, o in pairs if "returned" in o and not c.hidden]
            value = f"only {show(shown[0], 60)}" if shown else "one value"
            return f"returns {value}, or raises, whatever the input"
        return None
    wanted = {case.expected.error for case in cases}
    everywhere = any(all(e.__name__ in (o.get("kinds") or ()) for o in outcomes) for e in wanted)
    return "raises an error whatever the input" if len(wanted) > 1 and everywhere else None


def _all_same(values: list[Any], others: list[Any]) -> bool:
    try:
        return all(same(a, b) for a, b in zip(values, others, strict=True))
    except Exception:  # an expected value that is not plain data (e.g. Raises): not the same
        return False


def answer_of(outcome: dict) -> Any:
    """What the learner's call returned, as plain data, or None if it returned nothing readable."""
    try:
        return from_wire(outcome["returned"]) if "returned" in outcome else None
    except NotPlain:
        return None


def is_stub(outcome: dict) -> bool:
    return bool(outcome.get("stub")) or "NotImplementedError" in (outcome.get("kinds") or ())


def raised_expected(case: Case, outcome: dict) -> bool:
    """Raising the exception the case expects, with a message that names what it must, is the
    right answer."""
    if not _right_kind(case, outcome):
        return False
    message, naming = outcome.get("message"), case.expected.naming
    return not naming or (isinstance(message, str) and _names(message, naming))


# 1 to 3 digits, then groups of exactly 3, with no digit (nor separator and digit) either side.
_GROUPED = re.compile(r"(?<!\d)(?<!\d[,_])\d{1,3}(?:[,_]\d{3})+(?!\d)(?![,_]\d)")


def _names(message: str, text: str) -> bool:
    """Does `message` hold `text`? A number is read whole, sign included (70000 is not in
    700001, -65536 is not in 65536 nor 65536 in -65536) and may be written in groups, as the
    lessons write them: `-65,536` and `70_000` (Python's `:,` and `:_`). Only a well-formed run
    of groups is read as one number: in a list written without spaces, `3,70000` is 3 and 70000."""
    if not text.removeprefix("-").isdigit():
        return text in message
    ungrouped = _GROUPED.sub(lambda run: re.sub("[,_]", "", run[0]), message)
    return re.search(rf"(?<![\d-]){re.escape(text)}(?!\d)", ungrouped) is not None


def _right_kind(case: Case, outcome: dict) -> bool:
    """Did the call raise the kind of exception the case expects (whatever its message)?"""
    kinds = outcome.get("kinds")
    return (
        isinstance(case.expected, Raises)
        and isinstance(kinds, list)
        and case.expected.error.__name__ in kinds
    )


def describe_failure(case: Case, target: str | None, got: str) -> str:
    """A failed case as the learner reads it: the call (`target` None for a value, not a
    function), the expected answer, and what came instead (`got`, from `verdict`)."""
    expected = f"expected: {show(case.expected)}\n"
    if target is None:
        return expected + got
    arguments = [show(a, 60) for a in case.args]
    arguments += [f"{key}={show(value, 60)}" for key, value in case.kwargs.items()]
    return f"input:    {target}({', '.join(arguments)})\n{expected}{got}"
