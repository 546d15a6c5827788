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


def tip(changed: list[tuple[Case, int | str, Any]], names: list[str], right: bool) -> str:
    """The 💡 for the arguments a function changed, each as (a case it changed in, position or
    keyword, value after). It names every argument (or the items inside one that changed) and
    its type, never a value, so it tells nothing of a hidden case's input. `right`: the answers
    were right apart from the changes, which the 💡 then says first, since expected and got
    look the same on the screen."""
    opening = "your function changed"
    opening = f"your answers are right, but {opening}" if right else opening
    advice = [_advice(*one, names) for one in changed]
    if len(advice) == 1:
        where, what, note = advice[0]
        it = "them" if where.startswith("the ") else "it"
        return f"{opening} {where}: {what} (the caller may still need {it}).{note}"
    each = "".join(f"\n- {where}: {what}.{note}" for where, what, note in advice)
    return f"{opening} {len(advice)} of its arguments (the caller may still need them):{each}"


def _advice(case: Case, where: int | str, after: Any, names: list[str]) -> tuple[str, str, str]:
    """For one argument: what changed, what to do instead, and a note (" A copy ..." or "")."""
    name, before = name_of(where, names), given(case, where)
    inner = _changed_items(before, after)
    if not inner:
        kind = KINDS.get(type(before))
        build = f"build a new {kind} of your own" if kind else "work on a copy"
        return f"`{name}`, its argument", f"{build} and leave `{name}` as it was", ""
    kind = KINDS[type(before[inner[0]])]
    # `dict(counts)` alone would change nothing: say so, or the learner comes round again
    note = f" A copy of `{name}` still shares the {kind}s inside it."
    several = "build new ones of your own and leave those as they were"
    if case.hidden:  # a dict's keys are input, and which list item changed is the code's
        # choice (a bit of the input it can tell by index): a hidden case names neither
        if len(inner) > 1:
            return f"the {kind}s inside its argument `{name}`", several, note
        build = f"build a new {kind} of your own and leave that one as it was"
        return f"a {kind} inside its argument `{name}`", build, note
    labels = [f"`{name}[{show(key, 30)}]`" for key in inner]
    if len(inner) == 1:
        build = f"build a new {kind} of your own and leave {labels[0]} as it was"
        return f"{labels[0]}, inside its argument `{name}`", build, note
    more = f" and {len(labels) - 2} more" if len(labels) > 2 else ""
    return (
        f"the {kind}s inside its argument `{name}` ({', '.join(labels[:2])}{more})",
        several,
        note,
    )


def _changed_items(before: Any, after: Any) -> list[Any]:
    """The items that changed inside a list or dict that kept its length or keys, when each is
    itself a list, dict, set or bytearray (e.g. the first of several dicts, used to add the
    others into); [] otherwise, where the container itself is what changed."""
    if type(before) is not type(after) or type(before) not in (list, dict):
        return []
    if type(before) is list:
        if len(before) != len(after):
            return []
        keys: list[Any] = list(range(len(before)))
    elif list(before) != list(after):
        return []
    else:
        keys = list(before)
    differ = [key for key in keys if before[key] != after[key]]
    if not all(
        type(before[key]) in KINDS and type(after[key]) is type(before[key]) for key in differ
    ):
        return []
    return differ
