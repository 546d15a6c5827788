"""Finding the submitted notebooks, and what can be learned from one without running it.

Students rename their files ("lesson1 final (2).ipynb"), so nothing here trusts a file name for
the lesson: the lesson comes from the notebook's metadata (`"course": {"lesson": N}`), or failing
that from which lesson's exercises its cells contain. The file name only names the student.
"""

from __future__ import annotations

import hashlib
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

ANSWER_PREFIX = "**Your answer:**"


@dataclass(frozen=True)
class Submission:
    """One submitted notebook. `folder` is the student's own folder when submissions come as a
    folder per student (it is copied along, so data files next to the notebook still work)."""

    path: Path
    student: str
    sha256: str
    folder: Path | None = None


@dataclass(frozen=True)
class ExerciseInfo:
    """What the grader needs to know about an exercise before running anything."""

    name: str
    target: str
    points: float


class UnreadableNotebook(Exception):
    """The file is not a notebook we can read (not JSON, not nbformat, not UTF-8...)."""


def _hidden(path: Path) -> bool:
    return any(part.startswith(".") for part in path.parts)


def _submission(path: Path, student: str, folder: Path | None = None) -> Submission:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Submission(path=path, student=student, sha256=digest, folder=folder)


def find_submissions(paths: list[str | Path]) -> list[Submission]:
    """Every notebook in `paths`: files as given (student = file name without `.ipynb`), and in
    a folder both the notebooks directly in it (student = file name) and the notebooks anywhere
    in its sub-folders (student = the sub-folder's name). Hidden files and checkpoints are
    skipped; a notebook listed twice counts once."""
    found: dict[Path, Submission] = {}

    def add(notebook: Path, student: str, folder: Path | None = None) -> None:
        if notebook.resolve() not in found:
            found[notebook.resolve()] = _submission(notebook, student, folder)

    for given in map(Path, paths):
        if given.is_file():
            add(given, given.stem)
        elif not given.is_dir():
            raise FileNotFoundError(f"no such file or folder: {given}")
        else:
            for notebook in sorted(given.glob("*.ipynb")):
                if not _hidden(notebook.relative_to(given)):
                    add(notebook, notebook.stem)
            for folder in sorted(p for p in given.iterdir() if p.is_dir()):
                for notebook in sorted(folder.rglob("*.ipynb")):
                    if not _hidden(notebook.relative_to(given)):
                        add(notebook, folder.name, folder)
    return list(found.values())


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook at `path` in nbformat 4, or `UnreadableNotebook` saying what is wrong."""
    try:
        notebook = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
        for cell in notebook.cells:  # reading succeeds on some non-notebooks; touching cells won't
            cell.source, cell.cell_type, cell.metadata  # noqa: B018 (a check for the KeyError)
        return notebook
    except UnicodeDecodeError:
        raise UnreadableNotebook("the file is not UTF-8 text") from None
    except Exception as error:  # nbformat raises a mix of JSON, validation and key errors
        first_line = (str(error).strip().splitlines() or [""])[0][:200]
        why = f"{type(error).__name__}: {first_line}".rstrip(": ")
        raise UnreadableNotebook(f"not a valid notebook ({why})") from None


def load_catalog(registry: str = "lib.exercises") -> dict[int, list[ExerciseInfo]]:
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
            catalog[lesson] = [ExerciseInfo(e.name, e.target, e.points) for e in exercises]
    return catalog


def _defined_names(notebook: nbformat.NotebookNode) -> set[str]:
    """Names the code cells define at the top level (`def f`, `class C`, `x =`)."""
    pattern = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)|^(\w+)\s*(?::[^=]*)?=(?!=)", re.M)
    names = set()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            names.update(a or b for a, b in pattern.findall(cell.source))
    return names


def identify_lesson(
    notebook: nbformat.NotebookNode, catalog: dict[int, list[ExerciseInfo]]
) -> int | None:
    """The lesson a notebook belongs to: its metadata says so, or else it is the one lesson whose
    exercises best match the notebook's exercise cells (by the `exercise` cell metadata, or by the
    functions the cells define). None when nothing matches or two lessons match equally well."""
    course = notebook.metadata.get("course")
    declared = course.get("lesson") if isinstance(course, dict) else None
    if isinstance(declared, int) and declared in catalog:
        return declared
    stubs = {
        str(cell.metadata.get("exercise")) for cell in notebook.cells if cell.cell_type == "code"
    }
    defined = _defined_names(notebook)
    matches = {
        lesson: sum(e.name in stubs or e.target in defined for e in exercises)
        for lesson, exercises in catalog.items()
    }
    best = max(matches.values(), default=0)
    winners = [lesson for lesson, count in matches.items() if count == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def _answer_text(source: str) -> str:
    text = source.strip()
    return text[len(ANSWER_PREFIX) :].strip() if text.startswith(ANSWER_PREFIX) else text


def written_answers(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """The free-text answers: markdown cells with an `answer` id in their metadata, the
    `**Your answer:**` prefix removed ("" when the student wrote nothing)."""
    return {
        str(cell.metadata["answer"]): _answer_text(cell.source)
        for cell in notebook.cells
        if cell.cell_type == "markdown" and cell.metadata.get("answer")
    }


def answer_questions(notebooks_dir: Path) -> dict[int, dict[str, str]]:
    """For the instructor's own lesson notebooks: lesson -> answer id -> the question, which is
    the markdown cell just before the answer cell."""
    questions: dict[int, dict[str, str]] = {}
    for path in sorted(notebooks_dir.glob("*.ipynb")):
        try:
            notebook = read_notebook(path)
        except UnreadableNotebook:
            continue
        lesson = (notebook.metadata.get("course") or {}).get("lesson")
        for before, cell in zip(notebook.cells, notebook.cells[1:], strict=False):
            if cell.cell_type == before.cell_type == "markdown" and cell.metadata.get("answer"):
                asked = questions.setdefault(lesson, {})
                asked[str(cell.metadata["answer"])] = before.source.strip()
    return questions
