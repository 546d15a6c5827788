"""Arguments a learner's function changed: reading the runner's report of them, and saying so.

A function that appends to the list it was given, or adds keys to the dict it was given, can
return the right answer and still break its caller, who finds their own data changed. Every
exercise's function must leave its arguments as they were (`Exercise.keeps_arguments`), so a case
whose call changed one fails, with words that name the argument.
"""

from __future__ import annotations

import ast
from typing import Any

from lib.exercises.cases import Case, show
from lib.exercises.plain import NotPlain, from_wire

NOT_PLAIN = object()
"""What an argument became when it is no longer plain data."""

KINDS = {list: "list", dict: "dict", set: "set", bytearray: "bytearray"}


def changes(outcome: dict) -> list[tuple[int | str, Any]]:
    """The arguments the runner saw change, as (position or keyword, value after the call); the
    report comes from an untrusted kernel, so anything malformed is left out."""
    found = outcome.get("changed")
    if not isinstance(found, list):
        return []
    read = []
    for item in found[:20]:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) in (int, str)):
            continue
        try:
            after = NOT_PLAIN if item[1] is None else from_wire(item[1])
        except NotPlain:
            after = NOT_PLAIN
        read.append((item[0], after))
    return read


def parameter_names(solution_code: str, target: str) -> list[str]:
    """The positional parameters of `target` in the reference solution ([] if it has none)."""
    try:
        tree = ast.parse(solution_code)
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == target:
            return [a.arg for a in node.args.posonlyargs + node.args.args]
    return []


def name_of(where: int | str, names: list[str]) -> str:
    """`rows` for position 0 of grow_embeddings(rows, ...); "argument 3" if no name is known."""
    if isinstance(where, str):
        return where
    return names[where] if 0 <= where < len(names) else f"argument {where + 1}"


def given(case: Case, where: int | str) -> Any:
    """The value the case passed at `where` (None if it passed nothing there)."""
    if isinstance(where, str):
        return case.kwargs.get(where)
    return case.args[where] if 0 <= where < len(case.args) else None


def changed_line(case: Case, where: int | str, after: Any, names: list[str]) -> str:
    """The line under a failed case's answer: what the argument became."""
    became = "something that is not plain data" if after is NOT_PLAIN else show(after, 80)
    return f"changed:  {name_of(where, names)} was {show(given(case, where), 60)}, now {became}"


def tip(case: Case, where: int | str, after: Any, names: list[str]) -> str:
    """The 💡 for a changed argument. It names the argument (or the item inside it that changed)
    and its type, never a value, so it tells nothing of a hidden case's input."""
    name, before = name_of(where, names), given(case, where)
    inner = _changed_item(before, after)
    if inner is not None:
        where_words = f"`{name}[{inner}]`, inside its argument `{name}`"
        name, before = f"{name}[{inner}]", before[inner]
    else:
        where_words = f"`{name}`, its argument"
    kind = KINDS.get(type(before))
    build = f"build a new {kind} of your own" if kind else "work on a copy"
    return (
        f"your function changed {where_words}: {build} and leave `{name}` as it was"
        " (the caller may still need it)"
    )


def _changed_item(before: Any, after: Any) -> int | None:
    """The one item of a list that changed, when the list kept its length (e.g. the first of
    several dicts, used to add the others into); None otherwise."""
    if type(before) is not list or type(after) is not list or len(before) != len(after):
        return None
    differ = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    return differ[0] if len(differ) == 1 else None
