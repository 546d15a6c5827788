"""The reader's reply, decoded by the grader into a closed set of typed fields (`Reading`).

The reader parsed text a student wrote, so whatever it sends may have been written by that
student (a parser bug reached by a cell, red team round 9). What comes back is therefore data
of a fixed shape, nothing more: each field has one type, any other key or type refuses the whole
reply (`BadReply`: the notebook's row says its reading failed), and no field is ever spread into
a record. The reply cannot name a student, set a score or add a row: rows for exercises that
are not graded are built here, by the grader, from an exercise name and a reason.

Before decoding, the reply's values are counted (`too_many_values`): JSON's parser holds the GIL
and builds one object per value, so 80 MB of `0,` would cost every other notebook's grading
seconds and the grader hundreds of megabytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import nbformat

from lib.exercises import Exercise
from lib.grading.grading_job import Program, result_row
from lib.grading.submissions import CELL_TYPES, clean

INFO = ("answers", "solutions", "code", "unparsable")  # what a record keeps of the reading
TOP = ("unreadable", "lesson", "label_note", "info", "not_own", "missing", "programs", "demos")
KEYS = {*TOP, "cells", "failed"}
NOTE_CHARS = 80  # the longest label note a reply may hold (`notebook.identify_lesson`'s: 68)
REASON_CHARS = 400  # a reason (why unreadable, not own, missing) is cut beyond this, visibly
_NOT_STRUCTURE = bytes(c for c in range(256) if c not in b'",[{')  # what `too_many_values` drops


class BadReply(ValueError):
    """The reply is not of the reading's shape: the words say what was wrong."""


@dataclass
class Reading:
    """What the grader needs of one notebook to run and grade it: `unreadable` (why, or ""), its
    lesson (None when its cells match none), a note about its label, the written answers, the
    solutions opened, each exercise's code and those whose cell cannot be parsed, the exercises
    not graded and why (`not_own`: code not the student's own; `missing`: no readable cell
    defines it), the programs graded, the cells a first run may leave out (`demos`) and each
    cell's type and source (`cells`)."""

    unreadable: str = ""
    lesson: int | None = None
    label_note: str = ""
    answers: dict[str, str] = field(default_factory=dict)
    solutions: list[str] = field(default_factory=list)
    code: dict[str, str] = field(default_factory=dict)
    unparsable: list[str] = field(default_factory=list)
    not_own: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    programs: list[Program] = field(default_factory=list)
    demos: frozenset[int] = frozenset()
    cells: list[tuple[str, str]] = field(default_factory=list)

    def record_fields(self) -> dict:
        """What a record keeps of the reading, by name (each field a fixed type)."""
        kept = {"answers": self.answers, "solutions": self.solutions}
        if self.lesson is not None:
            kept |= {"code": self.code, "unparsable": self.unparsable}
        return kept

    def skipped_rows(self, exercises: list[Exercise]) -> dict[str, dict]:
        """The rows of exercises not graded, made by the grader: zero, with the reader's reason."""
        rows = {}
        for e in exercises:
            if e.name in self.not_own:
                rows[e.name] = result_row(e, "not own code", self.not_own[e.name])
            elif e.name in self.missing:
                why = self.missing[e.name] + " (exec, a cell magic, a file?)"
                rows[e.name] = result_row(e, "missing", why)
        return rows

    def notebook(self) -> nbformat.NotebookNode:
        """The notebook as its kernels are given it: each cell's type and source, nothing else."""
        ran = {"outputs": [], "execution_count": None}
        cells = [
            {"cell_type": kind, "source": source, "metadata": {}} | (ran if kind == "code" else {})
            for kind, source in self.cells
        ]
        notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
        return nbformat.from_dict(notebook)


def too_many_values(body: bytes, cap: int) -> bool:
    """Whether the JSON text `body` may hold more than `cap` values, counted without parsing and
    outside strings: every value but the first of a list or an object follows a comma, every
    list or object opens with a bracket, every string is one value. A cell's source is one
    string however many commas it holds (a CSV pasted into a string, red team round 11).
    Linear, at C speed: escaped backslashes and quotes dropped, then all but quotes, commas and
    brackets; the pieces between strings joined."""
    if body.count(b",") + body.count(b"[") + body.count(b"{") <= cap:  # commas in strings too
        return False
    bare = body.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    if bare.count(b'"') > 2 * cap:
        return True
    return len(b"".join(bare.split(b'"')[::2])) > cap  # only commas and brackets are left


def _text(value: object, what: str) -> str:
    if type(value) is not str:
        raise BadReply(f"{what} is not text")
    return value


def _number(value: object, what: str) -> int:
    if type(value) is not int:
        raise BadReply(f"{what} is not a whole number")
    return value


def _texts(value: object, what: str) -> list[str]:
    if type(value) is not list:
        raise BadReply(f"{what} is not a list")
    return [_text(v, what) for v in value]


def _named(value: object, what: str, limit: int | None = None) -> dict[str, str]:
    if type(value) is not dict:
        raise BadReply(f"{what} is not an object")
    texts = {k: _text(v, what) for k, v in value.items()}
    return texts if limit is None else {k: clean(v, limit) for k, v in texts.items()}


def _note(value: object) -> str:
    """The label's note: at most `NOTE_CHARS` (an honest one says two lessons: under 70)."""
    if len(note := _text(value, "label_note")) > NOTE_CHARS:
        raise BadReply(f"label_note is longer than {NOTE_CHARS} characters")
    return note


def _only(found: dict, keys: tuple | set, what: str) -> dict:
    if type(found) is not dict:
        raise BadReply(f"{what} is not an object")
    if extra := set(found) - set(keys):
        raise BadReply(f"{what} holds {len(extra)} unknown field(s)")
    return found


def _program(value: object) -> Program:
    if type(value) is not list or len(value) != 2:
        raise BadReply("a program is not a pair")
    names, cells = value
    indexed = {int(_text(k, "a cell index")): c for k, c in _named(cells, "a cell").items()}
    return Program(tuple(_texts(names, "a program's exercise")), indexed)


def _cell(value: object) -> tuple[str, str]:
    if type(value) is not list or len(value) != 2 or value[0] not in CELL_TYPES:
        raise BadReply("a cell is not a pair of a cell type and its source")
    return value[0], _text(value[1], "a cell's source")


def decoded(found: object) -> Reading:
    """The `Reading` in the reader's parsed JSON reply (`reading.read`), or `BadReply`."""
    found = _only(found, KEYS - {"failed"}, "the answer")
    info = _only(found.get("info", {}), INFO, "info")
    lesson = found.get("lesson")
    return Reading(
        unreadable=clean(_text(found.get("unreadable", ""), "unreadable"), REASON_CHARS),
        lesson=None if lesson is None else _number(lesson, "lesson"),
        label_note=_note(found.get("label_note", "")),
        answers=_named(info.get("answers", {}), "an answer"),
        solutions=_texts(info.get("solutions", []), "a solution's name"),
        code=_named(info.get("code", {}), "an exercise's code"),
        unparsable=_texts(info.get("unparsable", []), "an exercise's name"),
        not_own=_named(found.get("not_own", {}), "a not-own reason", REASON_CHARS),
        missing=_named(found.get("missing", {}), "a missing reason", REASON_CHARS),
        programs=[_program(p) for p in _list(found.get("programs", []), "programs")],
        demos=frozenset(_number(i, "a cell index") for i in _list(found.get("demos", []), "demos")),
        cells=[_cell(c) for c in _list(found.get("cells", []), "cells")],
    )


def _list(value: object, what: str) -> list:
    if type(value) is not list:
        raise BadReply(f"{what} is not a list")
    return value


def checked(read: Reading, catalog: dict[int, list[Exercise]]) -> Reading:
    """`read`, if every exercise it names is one of its lesson's (`BadReply` otherwise)."""
    if read.lesson is None or read.lesson not in catalog:
        named = set(read.code) | set(read.unparsable) | set(read.not_own) | set(read.missing)
        if named or read.programs or read.cells or read.demos:
            raise BadReply("an answer without a lesson that names exercises or cells")
        return read
    known = {e.name for e in catalog[read.lesson]}
    names = [*read.code, *read.unparsable, *read.not_own, *read.missing]
    names += [n for p in read.programs for n in p.exercises]
    if set(names) - known:
        raise BadReply(f"an answer naming exercises not in lesson {read.lesson}")
    return read
