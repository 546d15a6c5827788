"""The handout's demonstration cells a submission's first run may leave out.

The first kernel runs the student's notebook only for what its cells do (the errors and time-outs
the feedback reports); the grade comes from the kernels that run the program read of the
student's code (`execute`). Most of a lesson's cells are the instructor's demonstrations:
training tokenizers on corpora, loading GPT-4's vocabularies, counting tokens in 32 languages.
Run in a notebook no student changed, they report nothing, and they cost most of the first run.

The rule, as the README states it: the first run leaves out a demonstration only if

(a) the notebook's code cells, blank ones aside (they never run), are those of a notebook handed
    out for the lesson, in its order, changed only in its exercise cells: a cell added, deleted,
    moved or edited elsewhere, and everything runs;
(b) nothing of the student's reaches it: it mentions no name an exercise cell binds, mentions
    (reading a list may change it) or may change, where a use of an imported name other than
    calling a module's function inside a function (`m.f(...)`) may change every name bound to
    that module, inside it or around it (`module_paths`); nor a name a cell so reached sets;
(c) nothing kept needs it: it binds or changes nothing a kept cell reads, and neither sets
    interpreter-wide state (a call for its effect on a module outside `lib`, `random.seed(1)`,
    `warnings.simplefilter(...)`, or a change of one) nor names a file function (`FILES`);
(d) every exercise cell reads as own code, every statement of it, under its exercise's rules
    (`own_code.Notebook.cell_outside`: the modules `allowed` lists and its `allowed_lib`, nothing
    dynamic, the same allow-list the grade is read by), and every cell can be read
    (`cell_names`: the kernel's own names, a line IPython runs as a magic, a cell that does not
    parse or is nested too deep): else everything runs.

A lesson whose exercises may use a file module runs whole (`files_allowed`). No grade depends on
this run: the programs graded are read from the notebook and run in kernels of their own.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

import nbformat

from lib.exercises import Exercise
from lib.exercises.own_code import Notebook
from lib.grading.cell_names import FILES, CellNames, Unreadable, read_cell
from lib.grading.module_paths import Imports
from lib.grading.notebook import load_catalog
from lib.grading.prepare import is_check_cell, is_setup_cell


@dataclass(frozen=True)
class Version:
    """One notebook of a lesson as handed out: its non-blank code cells in order, the positions
    of its exercise cells among them, and the imports its cells make (name, dotted path)."""

    cells: tuple[str, ...]
    exercises: frozenset[int]
    imports: frozenset[tuple[str, str]]
    # Each exercise cell's rules, by position: its exercise's `allowed_lib` and `forbidden`.
    rules: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Handout:
    """Every notebook handed out for one lesson: a submission may follow any of them."""

    versions: tuple[Version, ...]


def _code(notebook: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode]]:
    """The code cells that run (blank ones never do), with their indices."""
    return [
        (i, c)
        for i, c in enumerate(notebook.cells)
        if c.cell_type == "code" and (not isinstance(c.source, str) or c.source.strip())
    ]


def handout_code(
    lessons: Iterable[tuple[int, nbformat.NotebookNode]],
    catalog: dict[int, list[Exercise]] | None = None,
) -> dict[int, Handout]:
    """Each lesson's `Handout`, from the instructor's lesson notebooks (`notebook.handouts`),
    with its exercises' rules from `catalog` (the course's own when None; an exercise cell the
    catalog does not name may use what `allowed` lists, nothing of `lib`)."""
    catalog = load_catalog() if catalog is None else catalog
    found: dict[int, list[Version]] = {}
    for lesson, notebook in lessons:
        exercises = {e.name: (e.allowed_lib, e.forbidden) for e in catalog.get(lesson, [])}
        code = [c for _, c in _code(notebook) if isinstance(c.source, str)]
        imports = frozenset().union(*(_imports(cell.source) for cell in code))
        names = {
            k: c.metadata["exercise"] for k, c in enumerate(code) if c.metadata.get("exercise")
        }
        rules = {k: exercises.get(name, ((), ())) for k, name in names.items()}
        version = Version(tuple(c.source for c in code), frozenset(names), imports, rules)
        found.setdefault(lesson, []).append(version)
    return {lesson: Handout(tuple(versions)) for lesson, versions in found.items()}


@functools.lru_cache(maxsize=1024)
def _imports(source: str) -> frozenset[tuple[str, str]]:
    """What a handout cell imports, as (name, module) pairs (none if it cannot be read). Kept:
    each batch reads the same handouts, 283 cells (0.2 CPU s)."""
    try:
        return frozenset(read_cell(source, student=False).imports.items())
    except Unreadable:
        return frozenset()


def files_allowed(exercises: Iterable[Exercise]) -> bool:
    """May one of `exercises` use a file or process module (`FILES`: `os`, `io`, `pathlib`...)?
    Then a file a demonstration writes could reach a graded function: nothing is left out."""
    return any(path.partition(".")[0] in FILES for e in exercises for path in e.allowed_lib)


def left_out(notebook: nbformat.NotebookNode, handout: Handout | None) -> frozenset[int]:
    """The indices of `notebook`'s code cells its first run may leave out (see the module's
    docstring); none without the lesson's `handout`."""
    code = _code(notebook)
    sources = [c.source for _, c in code]
    version = next((v for v in (handout.versions if handout else ()) if _follows(sources, v)), None)
    if version is None:
        return frozenset()
    try:
        # Check cells never run (`prepare` blanks them): no reading of them.
        cells = {
            i: read_cell(c.source, k in version.exercises)
            for k, (i, c) in enumerate(code)
            if k in version.exercises or not is_check_cell(c.source)
        }
        students = [code[k][0] for k in version.exercises]
        if not _own_code(notebook, students, version):
            return frozenset()
        # The grader's own set-up runs in place of the lessons' set-up cell: always kept.
        setup = {i for i, c in code if is_setup_cell(c.source)}
        return frozenset(cells) - _kept(cells, set(students), setup, version)
    except (Unreadable, RecursionError, MemoryError):
        return frozenset()


def _own_code(notebook: nbformat.NotebookNode, cells: list[int], version: Version) -> bool:
    """Does every statement of each exercise cell (indices `cells`, in `version.exercises`'
    order) read as own code under its exercise's rules (`own_code.Notebook.cell_outside`: the
    modules `allowed` lists and the exercise's `allowed_lib`, no dunder, nothing run from
    text)? What the graded programs are held to, asked of the whole cell: code that may reach
    the notebook's namespace or the course's modules some other way makes the whole notebook run."""
    code = Notebook(notebook)
    rules = [version.rules.get(k, ((), ())) for k in version.exercises]
    return not any(code.cell_outside(i, *r) for i, r in zip(cells, rules, strict=True))


def _follows(sources: list, version: Version) -> bool:
    """Are these the handout's code cells, in its order, changed only in exercise cells?"""
    return len(sources) == len(version.cells) and all(
        k in version.exercises or s == version.cells[k] for k, s in enumerate(sources)
    )


def _kept(
    cells: dict[int, CellNames], students: set[int], setup: set[int], version: Version
) -> set[int]:
    """The cells that run: the students' and what they reach, then what any of those needs."""
    imports = Imports(c.imports for c in cells.values())
    values = set().union(*(c.binds - set(c.imports) for c in cells.values()))
    reached, more, touched = set(), set(students), set()
    while more:  # each cell's touched names worked out once, when it is reached
        reached |= more
        touched |= set().union(
            *(_touched(cells[i], i in students, values, imports, version) for i in more)
        )
        more = {i for i, c in cells.items() if i not in reached and _mentions(c) & touched}
    interpreter = {i for i, c in cells.items() if _sets_state(c, imports)}
    kept = reached | setup | interpreter | {i for i, c in cells.items() if c.files}
    while True:
        wanted = set().union(*(cells[i].reads for i in kept))
        more = {i for i, c in cells.items() if i not in kept and _sets(c, imports) & wanted}
        if not more:
            break
        kept |= more
    return kept


def _sets_state(cell: CellNames, imports: Imports) -> bool:
    """Does `cell` call a function of a module for its effect, or change one: state every later
    cell may feel without naming the module (`warnings.simplefilter("error")`, `codecs.register`,
    `sys.x = ...`)? The course's own modules are read as any value is (`viz.playground(...)`)."""
    modules = {n for n in cell.effects | cell.changes if imports.surely_modules(n)}
    return any(path.partition(".")[0] != "lib" for path in imports.paths(modules))


def _mentions(cell: CellNames) -> set[str]:
    return cell.reads | cell.binds | cell.changes | cell.odd | cell.methods


def _touched(
    cell: CellNames, student: bool, values: set[str], imports: Imports, version: Version
) -> set[str]:
    """The names whose value `cell`, once reached, may have made differ from the handout's:
    what it binds (but an import the handout makes too), the values it mentions (a list or dict
    may change in place), and every name bound to a module it changes (`m.x = ...`) or, in a
    `student`'s cell, may change: an imported name used but by calling it or a function of it
    inside a function (`CellNames.odd`), or whose functions it calls when it may be no module."""
    same = {name for name, path in cell.imports.items() if (name, path) in version.imports}
    changes = cell.changes
    if student:
        changes = changes | cell.odd | {n for n in cell.methods if not imports.surely_modules(n)}
    reached = imports.reached(imports.paths(changes))
    return (cell.binds - same) | (_mentions(cell) & values) | reached


def _sets(cell: CellNames, imports: Imports) -> set[str]:
    """The names whose value `cell` sets: what it binds or changes, every name bound to a
    module it changes, and the names of modules it calls a function of for its effect."""
    changed = imports.reached(imports.paths(cell.changes))
    return cell.binds | cell.changes | changed | imports.of_modules(imports.paths(cell.effects))
