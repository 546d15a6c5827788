"""The part of the grader that runs inside the student's kernel, after their notebook has run.

The grader sends one small cell per exercise. That cell first throws away every `lib` module the
notebook imported (or replaced, or shadowed with its own `lib/` folder), puts the instructor's copy
first on `sys.path`, imports this module fresh and calls `grade_and_publish`. The result leaves the
kernel as a display message with its own MIME type and a random marker that only the grader and
this one cell know: what a notebook prints, or any check it edited, is never read.
"""

from __future__ import annotations

import importlib
from contextlib import redirect_stderr, redirect_stdout
from types import FunctionType
from typing import Any

MIME = "application/vnd.tokenization-course.grade+json"
RESULT_FIELDS = ("name", "lesson", "score", "max_score", "status", "reason")

# The grading cell's source. `{paths}` are the folders that must win the import race (the
# instructor's repository root first), `{packages}` the top-level packages to import afresh.
CELL_TEMPLATE = """\
def _course_grader_{tag}(namespace):
    import importlib, sys
    for path in reversed({paths!r}):
        while path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
    for module in [m for m in list(sys.modules) if m.partition(".")[0] in {packages!r}]:
        del sys.modules[module]
    importlib.invalidate_caches()
    importlib.import_module("lib.grading.kernel_side").grade_and_publish(
        namespace, {registry!r}, {lesson!r}, {name!r}, {marker!r})
_course_grader_{tag}(globals())
"""


class _Discard:
    """A write-only file that forgets everything: graded code may print as much as it likes."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def grade_and_publish(namespace: dict, registry: str, lesson: int, name: str, marker: str) -> None:
    """Grade exercise `name` of `lesson` against `namespace` (the notebook's globals) and send
    the result to the grader as a display message tagged with `marker`."""
    from IPython.display import publish_display_data

    exercises = importlib.import_module(registry).for_lesson(lesson)
    exercise = next(e for e in exercises if e.name == name)
    borrowed = _from_lib(namespace.get(exercise.target))
    if borrowed:  # e.g. `from lib.bpe import get_stats`: the course's answer, not the student's
        row = {
            "name": name,
            "lesson": lesson,
            "score": 0.0,
            "max_score": float(exercise.points),
            "status": "not own code",
            "reason": f"`{exercise.target}` is {borrowed}, imported from the course's library "
            "instead of written in the notebook",
        }
    else:
        limit = getattr(exercise, "time_limit", None)  # each case gets the exercise's own limit
        with redirect_stdout(_Discard()), redirect_stderr(_Discard()):
            row = as_dict(exercise.grade(namespace, time_limit=limit))
    publish_display_data({MIME: {"marker": marker, "result": row}})


def _from_lib(target: Any) -> str:
    """`lib.x.f` when `target` is a function or class defined in the course's `lib` package."""
    module = getattr(target, "__module__", None)
    if isinstance(target, (FunctionType, type)) and str(module).partition(".")[0] == "lib":
        return f"{module}.{getattr(target, '__qualname__', '?')}"
    return ""


def as_dict(result: Any) -> dict:
    """A `Result` as plain JSON-ready values (the grader re-checks them on its side)."""
    row = {field: getattr(result, field) for field in RESULT_FIELDS}
    row["score"], row["max_score"] = float(row["score"]), float(row["max_score"])
    row["status"], row["reason"] = str(row["status"]), str(row["reason"] or "")
    return row
