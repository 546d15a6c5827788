"""The part of the grader that runs inside a kernel: the one that runs the program graded (what
the grader read and accepted of the student's notebook, see `lib.exercises.own_code`).

Each cell of that program starts with `FUTURE` (type hints stay text, never run) and ends with
`SHOWS_NOTHING` (no display hook of the student's runs), and the first also starts with
`PATHS_FIRST`: the course's read-only copy comes first on `sys.path`, so that `lib` is
the course's, not a folder the student handed in, and the working folder is off it. Then, for
each exercise, the grader sends one small cell holding the test inputs (never the expected
answers). That cell throws away every `lib` module imported so far, puts the course's copy first
on `sys.path` again, imports this module fresh and calls `run_and_publish`: the student's
function is called on each input and what happened goes back as plain data
(`lib.exercises.running`), in a display message with its own MIME type. The grader judges it
in its own process, so a forged or tampered message can at best claim answers, and claiming the
right answers means computing them.
"""

from __future__ import annotations

import base64
import pickle
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

MIME = "application/vnd.tokenization-course.grade+json"

# The folders that must win the import race (`{paths}`, the course root first), put first; the
# working folder taken off: IPython puts it before site-packages, and the notebook's first run
# may have written a module there (`regex.py`) that an allowed import would otherwise find.
_PATHS_FIRST = """\
sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
for path in reversed({paths!r}):
    while path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)
"""
FUTURE = "from __future__ import annotations\n"
# Each cell of the program ends with it, so that IPython displays none of its values: to display
# one it calls the value's `_repr_pretty_(printer, cycle)`, a method the student may define, and
# the printer holds classes (`bytes`, `str`) that the reading never saw handed out.
SHOWS_NOTHING = "\npass  # the grader's: no value of this cell is displayed\n"
PATHS_FIRST = f"""\
def _course_paths_first():
    import os, sys
{textwrap.indent(_PATHS_FIRST, "    ")}\
_course_paths_first()
"""
# The grading cell's source: `{packages}` are the top-level packages to import afresh.
CELL_TEMPLATE = f"""\
def _course_grader_{{tag}}(namespace):
    import importlib, os, sys
{textwrap.indent(_PATHS_FIRST, "    ")}\
    for module in [m for m in list(sys.modules) if m.partition(".")[0] in {{packages!r}}]:
        del sys.modules[module]
    importlib.invalidate_caches()
    importlib.import_module("lib.grading.kernel_side").run_and_publish(
        namespace, {{exercise!r}}, {{target!r}}, {{inputs!r}}, {{seconds!r}}, {{marker!r}})
_course_grader_{{tag}}(globals())
"""


def pack(inputs: list[tuple[tuple, dict]]) -> str:
    """The test inputs as text for the grading cell (made by the grader, read by the kernel)."""
    return base64.b64encode(pickle.dumps(inputs, protocol=4)).decode("ascii")


class _Discard:
    """A write-only file that forgets everything: graded code may print as much as it likes."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def run_and_publish(
    namespace: dict, exercise: str, target: str, inputs: str, seconds: float, marker: str
) -> None:
    """Call `namespace[target]` on each of `inputs` (from `pack`) and publish the outcomes."""
    from IPython.display import publish_display_data

    from lib.exercises.running import run_cases

    report: dict[str, Any] = {"marker": marker, "exercise": exercise}
    if target not in namespace:
        report["missing"] = True
    else:
        function = namespace[target]
        report["callable"] = callable(function)
        with redirect_stdout(_Discard()), redirect_stderr(_Discard()):
            report["outcomes"] = run_cases(
                function, pickle.loads(base64.b64decode(inputs)), seconds
            )
    publish_display_data({MIME: report})
