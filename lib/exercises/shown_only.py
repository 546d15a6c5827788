"""A `wrong_turns` hook may quote shown cases only: what it says never tells a hidden case.

A hook compares the answers with the expected ones to name a mistake, and its words often
quote what it compared ("your strings hold 2 '�' where 1 belong"). Were that a hidden case,
its expected answer would leak, a number at a time. So the hook is asked twice at most:

1. with the shown cases alone: whatever it says can quote only what the learner sees anyway;
2. if that names no mistake (every shown case is right), with all the cases: then only its own
   words are kept, text written in its code (`own_words`), nothing it worked out from a case.
   A hook that must quote a value to be useful stays silent there.

The rule is the mechanism's, not each hook's: a new hook inherits it.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from lib.exercises.cases import Case

Hook = Callable[[list[Case], list[Any]], str | None]


def hook_words(hook: Hook, cases: list[Case], answers: list[Any]) -> str | None:
    """What `hook` may say of these answers to these cases, by the rule above."""
    shown = [(c, a) for c, a in zip(cases, answers, strict=False) if not c.hidden]
    try:
        words = hook([c for c, _ in shown], [a for _, a in shown])
    except Exception:  # a hook that looks for a case only the hidden ones hold
        words = None
    if words or len(shown) == len(cases):
        return words
    words = hook(cases, answers)
    return words if isinstance(words, str) and own_words(hook, words) else None


def own_words(hook: Callable, words: str) -> bool:
    """Is `words` made only of text written in `hook`'s code (its constants, its closures', and
    the functions and constants of its module it names), joined by spaces and punctuation? A
    value worked out from a case (a count, a character, a repr) leaves letters or digits."""
    rest = words
    for text in sorted(_texts(hook, set()), key=len, reverse=True):
        rest = rest.replace(text, " ")
    return not any(ch.isalnum() for ch in rest)


def _texts(function: Any, seen: set[int]) -> set[str]:
    """The string constants of `function`'s code and of the code it reaches: nested functions,
    closures (`with_token_bytes(turns)`), and the functions and constants its module binds to
    names it uses."""
    code = getattr(function, "__code__", None)
    if code is None or id(code) in seen:
        return set()
    seen.add(id(code))
    found: set[str] = set()
    codes = [code]
    while codes:
        current = codes.pop()
        for constant in current.co_consts:
            if isinstance(constant, str) and constant:
                found.add(constant)
            elif isinstance(constant, types.CodeType):
                codes.append(constant)
        for name in current.co_names:
            value = getattr(function, "__globals__", {}).get(name)
            if isinstance(value, types.FunctionType):
                found |= _texts(value, seen)
            elif isinstance(value, str | int | float) and not isinstance(value, bool):
                found.add(str(value))  # a constant of the module's (`MIX_THRESHOLD`)
    for cell in getattr(function, "__closure__", None) or ():
        try:
            found |= _texts(cell.cell_contents, seen)
        except ValueError:  # a cell not filled yet
            continue
    return found
