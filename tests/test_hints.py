"""Every exercise's hints stop short of the code: no line of its solution, and no expression that
does the work (what a line assigns, returns or appends, or what a branch or loop tests), appears
in any hint. `solution()` is there for a learner who wants the code; a hint that spells it out
takes away the last step the learner could have taken alone.

The comparison ignores whitespace and the kind of quotes, so a line copied into a hint with other
spacing is still found. Short fragments (under 12 characters, e.g. `ids = []`) and lines that only
name things (`def`, `import`, `return ids`) are left out: naming a function is not solving it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lib.exercises import Exercise, all_exercises

SHORTEST = 12  # characters, once whitespace is removed
# Lines that name or close things rather than compute: def f(...):, import x, return name, ]
NAMING = re.compile(r"^(def |class |import |from |@|return \w+$|[\]\)\}]|else:$|try:$)")
# The part of a line that does the work: what is assigned, returned, appended or extended.
COMPUTES = re.compile(r"[(+*/|&%-]|<<|>>")
WORK = re.compile(r"(?:^[\w\[\]., ]+ [-+*/|]?= |^return |\.append\(|\.extend\()(.+)$")
# What a branch or loop tests or walks over (`if i + 1 < len(ids) and ...:`, `for x in range(...)`),
# and each side of an `and`/`or` in it.
HEADER = re.compile(r"^(?:if|elif|while|for .+? in) (.+?):?$")
# A call of a name on names only, `patterns.split_text(piece, pattern)`: naming an API, not solving.
NAMED_CALL = re.compile(r"[\w.]+\((?:[A-Za-z_]\w*,?)*\)")


def squash(code: str) -> str:
    """Code without whitespace and with one kind of quote, for comparing."""
    return re.sub(r"\s+", "", code).replace("'", '"')


def telling_fragments(solution: str) -> set[str]:
    """The solution's lines that compute something, and the expressions inside them that do."""
    fragments = set()
    for line in solution.splitlines():
        code = line.split("  #")[0].strip()
        if not code or code.startswith("#") or NAMING.match(code):
            continue
        fragments.add(squash(code))
        work = WORK.search(code)
        if work and COMPUTES.search(work.group(1)):  # text[start:end] alone only names a slice
            fragments.add(squash(work.group(1)).removesuffix(")"))
        header = HEADER.match(code)
        for test in [header[1], *re.split(r" (?:and|or) ", header[1])] if header else []:
            if COMPUTES.search(test) and not NAMED_CALL.fullmatch(squash(test)):
                fragments.add(squash(test))
    return {fragment for fragment in fragments if len(fragment) >= SHORTEST}


def given_away(exercise: Exercise) -> list[str]:
    hints = squash(" ".join(exercise.hints))
    return sorted(
        fragment for fragment in telling_fragments(exercise.solution_code) if fragment in hints
    )


@pytest.mark.parametrize("exercise", all_exercises(), ids=lambda e: f"L{e.lesson}-{e.name}")
def test_no_hint_gives_away_a_line_of_the_solution(exercise):
    assert given_away(exercise) == [], f"{exercise.name}'s hints hold its solution's code"


def test_the_check_finds_a_solution_line_copied_into_a_hint():
    """The test above can fail: a last hint that is the solution's line is caught, with other
    spacing and quotes too, and so is the expression it assigns."""
    solution = (
        "def f(ids):\n    counts = {}\n    counts[p] = counts.get(p, 0) + 1\n"
        "    for n in range(256, vocab_size):\n        if i + 1 < len(ids) and ids[i] == 5:\n"
        "            pass\n    for p in patterns.split_text(piece, pattern):\n"
        "        pass\n    return counts\n"
    )
    for hint in (
        "counts[p] = counts.get(p, 0) + 1",
        "Then:  counts[p]=counts.get( p, 0 )+1 .",
        "Add one with counts.get(p, 0) + 1 each time.",
        # What a loop or a branch tests: lesson 3's merge and train_bpe gave these away.
        "Before looking at ids[i + 1], make sure it exists (i + 1 < len(ids)).",
        "Loop over range(256, vocab_size).",
    ):
        exercise = Exercise(
            name="f",
            lesson=0,
            target="f",
            cases=list,
            hints=("Count.", hint),
            solution_code=solution,
        )
        assert given_away(exercise), hint
    fine = Exercise(
        name="f",
        lesson=0,
        target="f",
        cases=list,
        hints=("A dict counts. patterns.split_text(piece, pattern) cuts a piece.",),
        solution_code=solution,
    )
    assert given_away(fine) == []


# Every lesson's comment under each check names every further hint: `# Stuck? ex.X.hint(), then
# hint(2) and hint(3), or ex.X.solution()`, or for a prediction `# A nudge first? ex.X.hint(),
# then hint(2)`. (Lessons 1-4 once said only `hint()  or  solution()`, and a newcomer met the
# ladder first there.)
NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("0*_*.ipynb"))
STUCK = re.compile(r"# (?:Stuck\?|A nudge first\?) ex\.(\w+)\.hint\(\)(.*)")


def hints_named(notebook: Path) -> dict[str, list[int]]:
    """{exercise: the hint numbers after the first that its `# Stuck?` comment names}."""
    named = {}
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for found in STUCK.finditer("".join(cell["source"])):
            named[found[1]] = [int(n) for n in re.findall(r"hint\((\d+)\)", found[2])]
    return named


def test_every_lesson_is_checked():
    assert [int(path.name[:2]) for path in NOTEBOOKS] == list(range(1, 10))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_the_stuck_comment_names_every_hint_there_is(notebook):
    lesson = int(notebook.name[:2])
    hints = {e.name: len(e.hints) for e in all_exercises() if e.lesson == lesson}
    named = hints_named(notebook)
    assert set(named) == set(hints)  # one comment per exercise
    assert named == {exercise: list(range(2, n + 1)) for exercise, n in hints.items()}
