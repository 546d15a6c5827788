"""The toy lesson (toy_exercises.py) with no exercise that may use a file module: `double`
without `os`. The grader leaves a lesson's demonstrations out of the first run only when none of
its exercises may touch files (`demo_cells.files_allowed`), as in every shipped lesson; the
tests of that first run (tests/test_demo_cells.py, tests/test_red_team_demo_cells_graded.py)
grade against this registry.
"""

import dataclasses

from toy_exercises import double, shout

from lib.exercises.core import Exercise

EXERCISES = [dataclasses.replace(double, allowed_lib=()), shout]


def for_lesson(n: int) -> list[Exercise]:
    if n != 1:
        raise LookupError(f"the toy course has no lesson {n}")
    return list(EXERCISES)
