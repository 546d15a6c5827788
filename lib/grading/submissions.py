"""Finding the submitted notebooks and reading them without trusting them.

A class comes as notebooks, folders of notebooks or a folder per student. Nothing here trusts a
file: symbolic links are listed but never followed, huge or broken files are refused with a
reason, and names and texts are made safe to store and show (`clean`). The file or folder name
only names the student; the lesson is read from the content (`notebook.identify_lesson`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import nbformat

CELL_TYPES = ("code", "markdown", "raw")  # nbformat 4's
MAX_BYTES = 64 * 2**20  # a notebook file larger than this is not read at all
# JSON values (counted as their opening brackets) a notebook may hold: bytes alone do not bound
# the memory read takes (64 MB of `[],` decode to tens of millions of lists, about 3 GB). A whole
# lesson with its outputs holds some tens of thousands.
MAX_ELEMENTS = 1_000_000


@dataclass(frozen=True)
class Submission:
    """One submitted notebook. `folder` is the student's own folder when submissions come as a
    folder per student (it is copied along, so data files next to the notebook still work)."""

    path: Path
    student: str
    sha256: str
    folder: Path | None = None
    refused: str = ""  # why it will not be read at all (a symbolic link)


class UnreadableNotebook(Exception):
    """The file is not a notebook we can read (not JSON, not nbformat, not UTF-8...)."""


def _hidden(path: Path) -> bool:
    return any(part.startswith(".") for part in path.parts)


def _submission(path: Path, student: str, folder: Path | None = None) -> Submission:
    refused = ""
    if path.is_symlink() or (folder is not None and folder.is_symlink()):
        # Never followed: it could point at another student's notebook or a private file.
        refused = "a symbolic link, which the grader never follows"
    elif not stat.S_ISREG(path.lstat().st_mode):  # a FIFO would hang whoever reads it
        refused = "not a regular file (a named pipe, a device or a socket)"
    if refused:
        digest = hashlib.sha256(os.fsencode(path)).hexdigest()
        return Submission(path, _name(student), digest, folder, refused=refused)
    digest = hashlib.sha256()
    with _opened(path) as file:
        while (chunk := file.read(2**20)) and file.tell() <= MAX_BYTES + 2**20:
            digest.update(chunk)  # a bigger file is refused when read: its start is enough
    return Submission(path=path, student=_name(student), sha256=digest.hexdigest(), folder=folder)


def _opened(path: Path):
    """`path` open for reading in binary, if it is a regular file: never through a link, and
    never waiting (opening a FIFO for reading waits for a writer)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnreadableNotebook("not a regular file (a named pipe, a device or a socket)")
    return os.fdopen(fd, "rb")


def _notebooks_in(folder: Path, top: Path) -> list[Path]:
    """Every `.ipynb` under `folder`, not going into hidden folders or through symbolic links
    (a link is listed, to be refused, but never followed)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [Path(root, f) for f in sorted(files) if f.endswith(".ipynb")]
    return [p for p in found if not _hidden(p.relative_to(top))]


def find_submissions(paths: list[str | Path]) -> list[Submission]:
    """Every notebook in `paths`: files as given (student = file name without `.ipynb`), and in
    a folder both the notebooks directly in it (student = file name) and the notebooks anywhere
    in its sub-folders (student = the sub-folder's name). Hidden files and checkpoints are
    skipped; a notebook listed twice counts once; a symbolic link is listed as refused."""
    found: dict[str, Submission] = {}

    def add(notebook: Path, student: str, folder: Path | None = None) -> None:
        key = os.path.abspath(notebook)
        if key not in found:
            found[key] = _submission(notebook, student, folder)

    for given in map(Path, paths):
        if given.is_symlink() or (given.exists() and not given.is_dir()):
            add(given, given.stem)  # a file, or a link or special file to refuse
            continue
        if not given.is_dir():
            raise FileNotFoundError(f"no such file or folder: {clean(str(given))}")
        for notebook in sorted(given.glob("*.ipynb")):
            if not _hidden(notebook.relative_to(given)):
                add(notebook, notebook.stem)
        for folder in sorted(p for p in given.iterdir() if p.is_dir()):
            if _hidden(folder.relative_to(given)):
                continue
            if folder.is_symlink():
                add(folder / "(linked folder).ipynb", folder.name, folder)
                continue
            for notebook in _notebooks_in(folder, given):
                add(notebook, folder.name, folder)
    return list(found.values())


@dataclass(frozen=True)
class Handed:
    """A submission opened by the grader and handed to its reader as a descriptor (`read_apart`),
    so that the reader needs no right to open anything: `name` is the file's name (for words
    and tests), `fd` the descriptor, open for reading."""

    name: str
    fd: int


def opened_submission(path: Path) -> BinaryIO:
    """The submission at `path` open for reading (`_opened`), or `UnreadableNotebook` saying why
    not."""
    try:
        return _opened(path)
    except OSError as error:
        raise UnreadableNotebook(f"the file cannot be read ({error.strerror})") from None


def read_notebook(source: Path | Handed) -> nbformat.NotebookNode:
    """The notebook at `source` (a path, or a descriptor handed over) in nbformat 4, or
    `UnreadableNotebook` saying what is wrong. Only a regular file is read, of at most
    `MAX_BYTES` and `MAX_ELEMENTS`."""
    try:
        file = os.fdopen(source.fd, "rb") if isinstance(source, Handed) else _opened(source)
        with file:
            data = file.read(MAX_BYTES + 1)
    except OSError as error:
        raise UnreadableNotebook(f"the file cannot be read ({error.strerror})") from None
    if len(data) > MAX_BYTES:
        raise UnreadableNotebook(f"the file is larger than {MAX_BYTES // 2**20} MB")
    if data.count(b"[") + data.count(b"{") > MAX_ELEMENTS:
        raise UnreadableNotebook(f"the file holds more than {MAX_ELEMENTS:,} lists and objects")
    try:
        notebook = nbformat.reads(data.decode("utf-8"), as_version=4)
        for cell in notebook.cells:  # reading succeeds on some non-notebooks; touching cells won't
            cell.source, cell.cell_type, cell.metadata  # noqa: B018 (a check for the KeyError)
    except UnicodeDecodeError:
        raise UnreadableNotebook("the file is not UTF-8 text") from None
    except Exception as error:  # nbformat raises a mix of JSON, validation and key errors
        first_line = (str(error).strip().splitlines() or [""])[0][:200]
        why = f"{type(error).__name__}: {first_line}".rstrip(": ")
        raise UnreadableNotebook(f"not a valid notebook ({why})") from None
    # Checked once, here: every reader of a cell (the lesson's identification, the first run's
    # demonstrations, the own-code reading) joins or parses its source as text.
    for k, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type not in CELL_TYPES:  # nbformat only warns; the kernel would not run it
            found = clean(json.dumps(cell.cell_type), 40)
            raise UnreadableNotebook(
                f"cell {k} has an unknown type {found} (an old notebook?): make it a Markdown "
                "cell in Jupyter, save, and hand the notebook in again"
            )
        if not isinstance(cell.source, str):
            found = clean(json.dumps(cell.source), 40)  # JSON's own words: `{}`, `5`, `null`
            raise UnreadableNotebook(
                f"not a valid notebook (cell {k}'s source is not text: {found})"
            )
    return notebook


def _name(student: str) -> str:
    """A student's name from a file or folder name, on one line: a line break in a file name
    would let it write its own headings into the reports."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", clean(student))


def clean(text: str, limit: int | None = None) -> str:
    """Text safe to store and show: lone surrogates (from a broken notebook or a file name in
    another encoding) become �, and beyond `limit` characters it is cut with a visible note."""
    text = re.sub("[\ud800-\udfff]", "\ufffd", text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"\n\n[... cut by the grader: {len(text) - limit:,} more characters]"
    return text
