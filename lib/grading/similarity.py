"""Which students handed in near-identical code for one exercise, and whose code is the published
solution: a hint for a human to look at, never a verdict.

The comparison is copydetect's (MOSS's winnowing): each code is tokenised by Pygments with names
replaced by `V`/`F`/`O`, strings by `S`, and whitespace and comments dropped; hashes of its
`K`-character windows are winnowed to fingerprints, and what the class was handed (every code cell
of the lesson's notebook, stub included) is boilerplate whose fingerprints never count. A pair's
score is the smaller of the two shares of fingerprinted code found in the other one, so a short
answer inside a long one is not "the same". Only the versions that count are compared.

Speed: a class of 300 compares 44,850 pairs per exercise; only pairs that share at least one
fingerprint (found through an index of fingerprints) are compared in full.
"""

from __future__ import annotations

import ast
import functools
import io
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import nbformat
import numpy as np

from lib.exercises import Exercise

if TYPE_CHECKING:  # copydetect itself is imported where a code is compared: importing it
    # imports matplotlib's pyplot (1.3 CPU s), which every grader start would otherwise pay, the
    # Gradescope runs too, which compare nothing.
    from copydetect import CodeFingerprint

K, WINDOW = 25, 6  # copydetect's defaults: matches under 25 characters of normalised code are noise
BASE = np.uint64(1_000_003)  # of the windows' polynomial hash (a prime; sums wrap at 2**64)
FLAGGED = 0.6  # each of a pair has at least this share of its code in the other (MOSS-like hint)
SAME_AS_SOLUTION = 0.9  # a code shares at least this much with the published solution, both ways


@dataclass(frozen=True)
class Reference:
    """What one exercise's code is compared against: the published solution, and what every
    student was handed (the lesson notebook's code cells, the stub among them)."""

    lesson: int
    solution: str
    handout: str = ""


@dataclass
class Entry:
    """One student's code for one exercise (from a counting version)."""

    student: str
    submission: str
    code: str
    opened: bool  # the notebook shows the exercise's solution() output
    solution_score: float = 0.0


@dataclass
class Findings:
    """One exercise's results: flagged pairs (a, b, score, slices of a, slices of b) by index
    into `entries`, clusters of three or more, and the unparsable and left-as-handed-out codes."""

    reference: Reference
    entries: list[Entry] = field(default_factory=list)
    pairs: list[tuple[int, int, float, np.ndarray, np.ndarray]] = field(default_factory=list)
    clusters: list[list[int]] = field(default_factory=list)
    unparsable: list[Entry] = field(default_factory=list)
    stubs: int = 0


def references(
    catalog: dict[int, list[Exercise]], lessons: Iterable[tuple[int, nbformat.NotebookNode]]
) -> dict[str, Reference]:
    """Each exercise's `Reference`: its solution from the catalog, its handout from the lesson's
    notebook among `lessons` (`notebook.handouts`; none when the lesson has no notebook there).
    Exercises whose answer is a value, not code, are left out."""
    handed = {lesson: _handout_code(notebook) for lesson, notebook in lessons}
    return {
        e.name: Reference(lesson, e.solution_code or "", handed.get(lesson, ""))
        for lesson, exercises in catalog.items()
        for e in exercises
        if _defines_code(e.solution_code or "")
    }


def _defines_code(solution: str) -> bool:
    """Does the solution define a function or class? A prediction (`predicted_words = {...}`)
    is not compared: every right answer is the same."""
    try:
        body = ast.parse(solution).body
    except SyntaxError:
        return False
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in body)


def _handout_code(notebook: nbformat.NotebookNode) -> str:
    return "\n\n".join(c.source for c in notebook.cells if c.cell_type == "code")


def _window_hashes(code: str) -> np.ndarray:
    """A hash of every `K`-character window of `code`, the same in every run.

    copydetect hashes windows with Python's `hash`, which is salted anew in each process: winnowing
    then kept different windows and a pair's score moved between two runs on the same class (83%
    and 75% seen). A polynomial hash of the windows' code points does not depend on the process."""
    points = np.frombuffer(code.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(points) - K + 1
    hashes = np.zeros(max(count, 0), dtype=np.uint64)
    for offset in range(K if count > 0 else 0):
        hashes = hashes * BASE + points[offset : offset + count]
    return hashes


@functools.lru_cache(maxsize=64)
def _boilerplate(handout: str) -> np.ndarray:
    """The hashes of every window of what was handed out, which no comparison counts. Every
    window, not just the winnowed ones: winnowing picks by neighbourhood, so the stub inside the
    handout and the stub alone would keep different windows at their edges."""
    from copydetect.utils import filter_code

    filtered, _ = filter_code(handout, "handout.py", "python")
    return np.unique(_window_hashes(filtered))


@functools.lru_cache(maxsize=100_000)  # the reports are rewritten after every notebook
def _fingerprint(code: str, handout: str) -> CodeFingerprint:
    """copydetect's fingerprint of `code` (its normalising and winnowing), with our stable window
    hashes in place of its own, and the handout's windows left out."""
    from copydetect import CodeFingerprint
    from copydetect.utils import get_token_coverage, winnow

    printed = CodeFingerprint("code.py", K, WINDOW, fp=io.StringIO(code), language="python")
    hashes, where = winnow(_window_hashes(printed.filtered_code), WINDOW, remove_duplicates=False)
    if handout:
        kept = ~np.isin(hashes, _boilerplate(handout))
        hashes, where = hashes[kept], where[kept]
    places: dict[int, list[int]] = {}
    for value, index in zip(hashes.tolist(), where.tolist(), strict=True):
        places.setdefault(value, []).append(index)
    printed.hashes, printed.hash_idx = set(places), places
    printed.token_coverage = get_token_coverage(places, K, len(printed.filtered_code))
    return printed


def _compared(a: CodeFingerprint, b: CodeFingerprint) -> tuple[float, np.ndarray, np.ndarray]:
    """The pair's score (the smaller share) and where each code's matching parts are."""
    from copydetect import compare_files

    _, shares, (slices_a, slices_b) = compare_files(a, b)
    return float(min(shares)), slices_a, slices_b


def solution_score(code: str, reference: Reference) -> float:
    """How much of `code` and of the published solution each finds in the other (the smaller)."""
    if not reference.solution.strip():
        return 0.0
    mine = _fingerprint(code, reference.handout)
    published = _fingerprint(reference.solution, reference.handout)
    if mine.hashes and published.hashes:
        return _compared(mine, published)[0]
    # Too short for fingerprints (`return 2 * x`): the same once normalised, or not at all.
    return float(
        not mine.hashes and not published.hashes and mine.filtered_code == published.filtered_code
    )


def matches_solution(code: str, reference: Reference) -> bool:
    """Is this code the published solution, once names, whitespace and comments are set aside?"""
    return solution_score(code, reference) >= SAME_AS_SOLUTION


def compare(entries: list[Entry], reference: Reference, unparsable: list[Entry]) -> Findings:
    """Compare one exercise's codes with each other and with its solution."""
    findings = Findings(reference, unparsable=unparsable)
    prints = []
    for entry in entries:
        printed = _fingerprint(entry.code, reference.handout)
        if not printed.hashes:
            findings.stubs += 1  # nothing but what was handed out (the stub, say)
            continue
        entry.solution_score = solution_score(entry.code, reference)
        findings.entries.append(entry)
        prints.append(printed)
    holders: dict[int, list[int]] = {}
    for index, printed in enumerate(prints):
        for value in printed.hashes:
            holders.setdefault(value, []).append(index)
    candidates = {pair for group in holders.values() for pair in itertools.combinations(group, 2)}
    for a, b in sorted(candidates):
        score, slices_a, slices_b = _compared(prints[a], prints[b])
        if score >= FLAGGED:
            findings.pairs.append((a, b, score, slices_a, slices_b))
    findings.pairs.sort(key=lambda pair: -pair[2])
    findings.clusters = _clusters(len(prints), [(a, b) for a, b, *_ in findings.pairs])
    return findings


def _clusters(size: int, links: list[tuple[int, int]]) -> list[list[int]]:
    """Groups of three or more joined by flagged pairs (connected components)."""
    parent = list(range(size))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in links:
        parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in range(size):
        groups.setdefault(root(i), []).append(i)
    return sorted((g for g in groups.values() if len(g) >= 3), key=len, reverse=True)


def class_findings(counting: list[dict], refs: dict[str, Reference]) -> dict[str, Findings]:
    """Every exercise's `Findings` from the counting versions' records (their `code`)."""
    by_exercise: dict[str, tuple[list[Entry], list[Entry]]] = {}
    for record in counting:
        bad = set(record.get("unparsable") or [])
        for name, code in (record.get("code") or {}).items():
            if name not in refs:
                continue
            entry = Entry(
                record["student"], record["submission"], code, name in record["solutions"]
            )
            parsed, unparsed = by_exercise.setdefault(name, ([], []))
            (unparsed if name in bad else parsed).append(entry)
    return {
        name: compare(parsed, refs[name], unparsed)
        for name, (parsed, unparsed) in by_exercise.items()
    }
