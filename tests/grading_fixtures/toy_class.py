"""The toy class for tests/test_grade.py: notebooks of the toy lesson (toy_exercises.py), each
student's expected points, and the hostile ones: endless loops, exits, kills, forgeries, a
student who deletes her folder and one who brings her own `lib/`.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

MIME = "application/vnd.tokenization-course.grade+json"
STUB = {
    "double": "def double(x):\n    raise NotImplementedError",
    "shout": "def shout(word):\n    raise NotImplementedError",
}
SOLVED = {
    "double": "def double(x):\n    return 2 * x",
    "shout": "def shout(word):\n    return word.upper() + '!'",
}
HALF_SHOUT = "def shout(word):\n    return word.upper() + '!' if len(word) < 3 else word"
# Sleeps, not spins: an ignored SIGINT reaches no Python code, so a sleeping cell ignores the
# interrupt as a spinning one does, and costs no CPU while the grader waits out its cell limit and
# its probe (`looper` is the one that spins). Spinning, test_grade's kernel test, run on each other
# Python at cell and probe limits of 10 s, took 54 CPU s instead of 32 (3.11, its cgroup measured).
IGNORE_CTRL_C = """\
import signal, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    time.sleep(1)"""
SWALLOW_EVERYTHING = """\
def double(x):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass"""
FAKE_GRADE = """\
lambda self, ns, time_limit=None: core.Result(self.name, 1, 9, 9, "passed", "forged")"""
FORGE = f"""\
import json, lib.exercises.core as core, lib.grading.kernel_side as kernel_side
from IPython.display import publish_display_data
full = {{"lesson": 1, "score": 9.0, "max_score": 9.0, "status": "passed", "reason": "forged"}}
for name in ("double", "shout"):  # printed and published results, with a guessed marker
    fake = {{"marker": "0" * 32, "result": {{**full, "name": name}}}}
    print(json.dumps(fake))
    publish_display_data({{"{MIME}": fake}})
core.Exercise.grade = {FAKE_GRADE}
kernel_side.grade_and_publish = lambda *args: print("passed")
ex.for_lesson = lambda n: []"""
TAMPER_WHILE_GRADED = f"""\
def double(x):
    import lib.exercises.core as core
    core.Exercise.grade = {FAKE_GRADE}
    return -1"""
VANDAL = """\
import os, pathlib, shutil
assert pathlib.Path("data.txt").read_text() == "dora's data"
for path in map(pathlib.Path, os.listdir(".")):
    shutil.rmtree(path) if path.is_dir() else path.unlink()
pathlib.Path("vandal.txt").write_text("was here")
pathlib.Path("../escaped.txt").write_text("and here")"""
SHADOW_KERNEL_SIDE = f"""\
def grade_and_publish(namespace, registry, lesson, name, marker):
    from IPython.display import publish_display_data
    full = {{"name": name, "lesson": 1, "score": 9.0, "max_score": 9.0, "status": "passed",
            "reason": "shadow"}}
    publish_display_data({{"{MIME}": {{"marker": marker, "result": full}}}})"""
SHADOW_EXERCISES = """\
class Full:
    def __init__(self, name): self.name = self.target = name
    def check(self): print("passed")
double, shout = Full("double"), Full("shout")"""


def toy(
    double=STUB["double"],
    shout=STUB["shout"],
    before=(),
    after=(),
    answer="",
    lesson=1,
    checks=True,
):
    """A notebook of the toy lesson: stubs (or solutions) and check cells, plus `before`/`after`
    cells. Without `checks`, code that misbehaves only does so when the grader calls it."""
    cells = [
        new_markdown_cell("# Toy lesson"),
        new_code_cell("import toy_exercises as ex"),
        *map(new_code_cell, before),
    ]
    for name, source in (("double", double), ("shout", shout)):
        cells += [
            new_code_cell(source, metadata={"tags": ["exercise"], "exercise": name}),
            new_code_cell(f"ex.{name}.check()" if checks else ""),
        ]
    answer_cell = new_markdown_cell(
        f"**Your answer:** {answer}", metadata={"tags": ["answer"], "answer": "why"}
    )
    cells += [new_markdown_cell("Why double?"), answer_cell, *map(new_code_cell, after)]
    notebook = new_notebook(cells=cells)
    if lesson:
        notebook.metadata["course"] = {"lesson": lesson}
    return notebook


INTERRUPTED = "ran longer than 3 s and was interrupted"
RERUN = "the notebook was run again without it"
# student: (notebook, points for double, points for shout, a phrase in the notebook's events)
CLASS = {
    "alice": (toy(**SOLVED, answer="Adding x to itself."), 2, 1, None),
    "bob": (toy(), 0, 0, None),
    "carol": (toy(SOLVED["double"], HALF_SHOUT), 2, 0.5, None),
    "raiser": (
        toy(**SOLVED, before=["1 / 0"]),
        2,
        1,
        "cell 3 (`1 / 0`) raised ZeroDivisionError: division by zero",
    ),
    "looper": (toy(**SOLVED, before=["while True:\n    pass"]), 2, 1, INTERRUPTED),
    "sleeper": (toy(**SOLVED, before=["import time\ntime.sleep(600)"]), 2, 1, INTERRUPTED),
    "deaf": (
        toy(**SOLVED, before=[IGNORE_CTRL_C]),
        2,
        1,
        # A busy machine adds its note in between (", while the machine was busy (...)").
        ("ignored the interrupt, so the kernel was killed", RERUN),
    ),
    "exiter": (
        toy(**SOLVED, before=["import sys\nsys.exit('bye')"]),
        2,
        1,
        "raised SystemExit: bye",
    ),
    "os_exiter": (
        toy(**SOLVED, after=["import os\nos._exit(1)"]),
        2,
        1,
        f"cell 9 (`import os`) killed the kernel; {RERUN}",
    ),
    "killer": (
        toy(**SOLVED, before=["import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"]),
        2,
        1,
        "killed the kernel",
    ),
    "chatty": (
        toy(
            "def double(x):\n    print('y' * 10**6)\n    return 2 * x",
            SOLVED["shout"],
            before=["for _ in range(5):\n    print('x' * 10**6)"],
        ),
        2,
        1,
        None,
    ),
    "forger": (toy(TAMPER_WHILE_GRADED, before=[FORGE]), 0, 0, None),
    "slow_grading": (
        toy("def double(x):\n    while True:\n        pass", SOLVED["shout"], checks=False),
        0,
        1,
        None,
    ),
    "deaf_grading": (toy(SWALLOW_EVERYTHING, SOLVED["shout"], checks=False), 0, 1, None),
    "crash_grading": (
        toy(
            "def double(x):\n    import os\n    os.kill(os.getpid(), 9)",
            SOLVED["shout"],
            checks=False,
        ),
        0,
        1,
        None,
    ),
    "copier": (
        toy(shout=SOLVED["shout"], after=["from lib.bpe import merge as double"]),
        0,
        1,
        None,
    ),
    "renamed": (toy(**SOLVED, lesson=None), 2, 1, None),  # no metadata: found by its exercise cells
    "dora": (toy(**SOLVED, before=[VANDAL]), 2, 1, None),  # a folder: deletes and writes files
    "eve": (toy(), 0, 0, None),  # a folder with her own lib/ and toy_exercises.py
}
FOLDERS = {
    "dora": {"data.txt": "dora's data", "notes/keep.md": "keep me"},
    "eve": {
        "toy_exercises.py": SHADOW_EXERCISES,
        "lib/__init__.py": "",
        "lib/grading/__init__.py": "",
        "lib/grading/kernel_side.py": SHADOW_KERNEL_SIDE,
    },
}


def write_class(folder: Path) -> None:
    """The class as an instructor receives it: flat notebooks, two per-student folders, one file
    that is not JSON and one notebook of no lesson."""
    for student, (notebook, *_) in CLASS.items():
        if student in FOLDERS:
            path = folder / student / "lesson.ipynb"
        else:
            path = folder / f"{student}.ipynb"
        path.parent.mkdir(exist_ok=True)
        nbformat.write(notebook, path)
        for name, text in FOLDERS.get(student, {}).items():
            (path.parent / name).parent.mkdir(parents=True, exist_ok=True)
            (path.parent / name).write_text(text)
    (folder / "broken.ipynb").write_text("{this is not JSON")
    no_lesson = new_notebook(cells=[new_code_cell("print('hello')")])
    nbformat.write(no_lesson, folder / "anonymous.ipynb")
