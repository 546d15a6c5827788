"""The 💡 lines under a failed check: what the answers suggest went wrong, in the course's
own words. They may follow a hidden case's failure, so they quote none: an exercise's
`wrong_turns` hook sees shown cases only (`shown_only`), and an error's message is only matched.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from lib.exercises.cases import Case
from lib.exercises.shown_only import hook_words


def cause_of_errors(outcomes: list[dict]) -> str:
    """A 💡 for an error whose message names the symptom, not the cause ("" for none): Python's
    `re` raises "bad escape \\p" on the split patterns, which need the `regex` module. The
    message comes from the learner's kernel, possibly from a hidden case: it is only matched,
    and the words are this function's own."""
    messages = [str(o.get("message", "")) for o in outcomes if "raised" in o]
    if not any("bad escape \\p" in m.lower() for m in messages):  # \P{...} too: the negation
        return ""
    return tip_lines(
        "Python's own `re` has no \\p{...} classes, hence the 'bad escape \\p'. \\p{L}, "
        "\\p{N} and their kind are Unicode categories (letters, numbers) in any script, and "
        "the third-party `regex` module knows them: import it and use its functions in place "
        "of re's, with the same pattern."
    )


def wrong_turn_words(
    hook: Callable[[list[Case], list[Any]], str | None] | None,
    cases: list[Case],
    answers: list[Any],
) -> str:
    """An exercise's `wrong_turns` words on a known mistake the answers fit, as a last line
    ("" if none), quoting shown cases only (`shown_only`). A bug in the recogniser must never
    cost the learner their feedback."""
    if hook is None:
        return ""
    try:
        words = hook_words(hook, cases, answers)
    except Exception:
        return ""
    if not isinstance(words, str) or not words:
        return ""
    return tip_lines(words)


def tip_lines(words: str) -> str:
    """Words for the learner as a 💡 line under the failure, wrapped to the notebook's width."""
    lines = f"💡 {words}".split("\n")  # a hook may give several lines: each is wrapped
    wrap = [textwrap.fill(line, width=85, subsequent_indent="   ") for line in lines]
    return "\n" + "\n   ".join(wrap)
