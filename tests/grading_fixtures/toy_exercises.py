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
    hints=("Add x to itself.",),
    solution_code="def double(x):\n    return 2 * x\n",
    # So that a kernel killed while grading is still tested: by `os.kill`, since an allowed
    # module offers its public names only (`os._exit` is out).
    allowed_lib=("os",),
)

shout = Exercise(
    name="shout",
    lesson=1,
    points=1,
    target="shout",
    time_limit=1,
    cases=lambda: [Case(args=(w,), expected=w.upper() + "!") for w in ("hi", "ok", "yes", "hello")],
    hints=("str.upper, then add the '!'.",),
    solution_code="def shout(word):\n    return word.upper() + '!'\n",
)

EXERCISES = [double, shout]


def for_lesson(n: int) -> list[Exercise]:
    if n != 1:
        raise LookupError(f"the toy course has no lesson {n}")
    return list(EXERCISES)
