"""A pretend lesson 1 with two exercises, for the grader's tests (tests/test_grade.py).

It is an exercise registry like `lib.exercises`: exercises as attributes, `EXERCISES`, and
`for_lesson(n)`. It uses the real `Exercise` class, so the grader is tested against the real
framework's statuses and partial credit.
"""

from lib.exercises.core import Case, Exercise

double = Exercise(
    name="double",
    lesson=1,
    points=2,
    target="double",
    time_limit=1,
    cases=lambda: [Case(args=(x,), expected=2 * x) for x in (0, 1, 5, -3)],
    hint="Add x to itself.",
    solution="def double(x):\n    return 2 * x\n",
    allowed_lib=("os",),  # so that a kernel killed while grading (`os._exit`) is still tested
)

shout = Exercise(
    name="shout",
    lesson=1,
    points=1,
    target="shout",
    time_limit=1,
    cases=lambda: [Case(args=(w,), expected=w.upper() + "!") for w in ("hi", "ok", "yes", "hello")],
    hint="str.upper, then add the '!'.",
    solution="def shout(word):\n    return word.upper() + '!'\n",
)

EXERCISES = [double, shout]


def for_lesson(n: int) -> list[Exercise]:
    if n != 1:
        raise LookupError(f"the toy course has no lesson {n}")
    return list(EXERCISES)
