"""The lessons' exercises: `from lib.exercises import lesson1 as ex`, then `ex.utf8_encode.check()`.

Each lesson has one place: a module (`lesson7`), or a package when one module would be too long
to read (`lesson1` … `lesson6`, `lesson8`, `lesson9`: one module a part of the lesson). Either
defines the lesson's `Exercise` objects and lists them in `EXERCISES`; the framework itself is in
`core`.
"""

from __future__ import annotations

import importlib

from lib.exercises.core import Case, Exercise, Result
from lib.exercises.kernel_code import hints_as_text

__all__ = ["Case", "Exercise", "Result", "all_exercises", "for_lesson"]

LESSONS = range(1, 10)
hints_as_text()  # a lesson's set-up cell imports this: later cells' hints stay text, as graded


def for_lesson(n: int) -> list[Exercise]:
    """The exercises of lesson `n`, in the order the notebook asks them."""
    return list(importlib.import_module(f"lib.exercises.lesson{n}").EXERCISES)


def all_exercises() -> list[Exercise]:
    """Every exercise of every lesson written so far, lesson by lesson."""
    found = []
    for n in LESSONS:
        try:
            found += for_lesson(n)
        except ModuleNotFoundError as error:
            if error.name != f"lib.exercises.lesson{n}":  # a real import error inside the lesson
                raise
    return found
