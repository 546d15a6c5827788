"""What a notebook says, read without running it: its lesson, its written answers, the solutions
it opened; and the exercises of each lesson (the catalog) and the handouts they come from.

Students rename their files ("lesson1 final (2).ipynb") and metadata is easy to edit by mistake,
so the lesson is read from the content: which lesson's exercises and handout text it contains.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import nbformat

from lib.exercises import Exercise
from lib.exercises.core import SOLUTION_MIME
from lib.grading.submissions import UnreadableNotebook, clean, read_notebook

ANSWER_PREFIX = "**Your answer:**"
MAX_ANSWER = 20_000  # characters of one written answer kept for the instructor


def load_catalog(registry: str = "lib.exercises") -> dict[int, list[Exercise]]:
    """Each lesson's exercises as `registry.for_lesson(n)` lists them, for the lessons it has
    (`registry.LESSONS`, else 1 to 9). A lesson module that fails to import is an error here, at
    the start, rather than every notebook of that lesson graded as of no lesson."""
    module = importlib.import_module(registry)
    catalog = {}
    for lesson in getattr(module, "LESSONS", range(1, 10)):
        try:
            exercises = module.for_lesson(lesson)
        except LookupError:  # no such lesson
            continue
        except ModuleNotFoundError as error:  # no such lesson (yet), or a broken one?
            if not str(error.name).endswith(f"lesson{lesson}"):
                raise
            continue
        if exercises:
            catalog[lesson] = list(exercises)
    return catalog


def _code(notebook: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "code")


def _defined_names(code: str) -> set[str]:
    """Names the code defines at the top level (`def f`, `class C`, `x =`)."""
    # `[^=\n]`: an annotation ends with its line (were newlines allowed, each of 40,000 lines of
    # `x: int` would be matched to the end of the code: 63 s).
    pattern = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)|^(\w+)\s*(?::[^=\n]*)?=(?!=)", re.M)
    return {a or b for a, b in pattern.findall(code)}


def _prose(notebook: nbformat.NotebookNode) -> set[str]:
    """The notebook's markdown cells, whitespace-normalised: what a handout's text looks like."""
    return {" ".join(c.source.split()) for c in notebook.cells if c.cell_type == "markdown"} - {""}


def identify_lesson(
    notebook: nbformat.NotebookNode,
    catalog: dict[int, list[Exercise]],
    handouts: dict[int, set[str]] | None = None,
) -> tuple[int | None, str]:
    """The lesson a notebook belongs to, read from its content: the lesson with the most of its
    exercises in the code (target defined, or `.name.check(` called), then with the most of its
    handout's text (`handouts`: lesson -> markdown cells, from `handout_prose`). Returns the lesson
    (None when nothing matches or two lessons match equally) and a note when the notebook's
    metadata names another lesson: metadata is easy to edit by mistake, content is not."""
    code, prose = _code(notebook), _prose(notebook)
    defined = _defined_names(code)
    scores = {
        lesson: (
            sum(e.target in defined or f".{e.name}.check(" in code for e in exercises),
            len(prose & (handouts or {}).get(lesson, set())),
        )
        for lesson, exercises in catalog.items()
    }
    best = max(scores.values(), default=(0, 0))
    winners = [lesson for lesson, score in scores.items() if score == best]
    lesson = winners[0] if best > (0, 0) and len(winners) == 1 else None
    course = notebook.metadata.get("course")
    declared = course.get("lesson") if isinstance(course, dict) else None
    note = ""
    if declared is not None and declared != lesson:
        content = f"lesson {lesson}" if lesson else "no lesson"
        note = f"its metadata says lesson {str(declared)[:20]}, its content {content}"
    return lesson, note


def handouts(notebooks_dir: Path) -> Iterator[tuple[int, nbformat.NotebookNode]]:
    """The instructor's own lesson notebooks, as (lesson, notebook); unreadable ones skipped."""
    for path in sorted(notebooks_dir.glob("*.ipynb")):
        try:
            notebook = read_notebook(path)
        except UnreadableNotebook:
            continue
        lesson = (notebook.metadata.get("course") or {}).get("lesson")
        if isinstance(lesson, int):
            yield lesson, notebook


def handout_prose(lessons: Iterable[tuple[int, nbformat.NotebookNode]]) -> dict[int, set[str]]:
    """Each lesson's handout text (markdown cells), from the instructor's lesson notebooks
    (`handouts`)."""
    prose: dict[int, set[str]] = {}
    for lesson, notebook in lessons:
        prose.setdefault(lesson, set()).update(_prose(notebook))
    return prose


def _answer_text(source: str) -> str:
    text = source.strip()
    return text[len(ANSWER_PREFIX) :].strip() if text.startswith(ANSWER_PREFIX) else text


def written_answers(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """The free-text answers, found by content: every markdown cell that begins with
    `**Your answer:**`, the prefix removed ("" when the student wrote nothing). A cell with an
    `answer` id belongs to that question; one the student added belongs to the question before
    it (several cells for one question are joined). Each answer is capped at `MAX_ANSWER`."""
    answers: dict[str, list[str]] = {}
    current = "extra"  # an answer before any question: kept, under a name that says so
    for cell in notebook.cells:
        if cell.cell_type != "markdown" or not isinstance(cell.source, str):
            continue
        answer_id = cell.metadata.get("answer")
        if answer_id:
            current = clean(str(answer_id), 80)
        if answer_id or cell.source.lstrip().startswith(ANSWER_PREFIX):
            answers.setdefault(current, []).append(_answer_text(cell.source))
    return {
        key: clean("\n\n".join(p for p in parts if p), MAX_ANSWER) for key, parts in answers.items()
    }


def solutions_opened(notebook: nbformat.NotebookNode) -> list[str]:
    """The exercises whose `solution()` output is saved in the notebook (see `SOLUTION_MIME`)."""
    opened = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            mark = (
                (output.get("data") or {}).get(SOLUTION_MIME) if isinstance(output, dict) else None
            )
            name = mark.get("exercise") if isinstance(mark, dict) else None
            if isinstance(name, str) and name not in opened:
                opened.append(clean(name, 80))
    return opened


def answer_questions(
    lessons: Iterable[tuple[int, nbformat.NotebookNode]],
) -> dict[int, dict[str, str]]:
    """For the instructor's own lesson notebooks (`handouts`): lesson -> answer id -> the
    question, which is the markdown cell just before the answer cell."""
    questions: dict[int, dict[str, str]] = {}
    for lesson, notebook in lessons:
        for before, cell in zip(notebook.cells, notebook.cells[1:], strict=False):
            if cell.cell_type == before.cell_type == "markdown" and cell.metadata.get("answer"):
                asked = questions.setdefault(lesson, {})
                asked[str(cell.metadata["answer"])] = before.source.strip()
    return questions
