"""Lesson 8's `may_cut`: a rule for where a text may be cut, from the characters around the cut.

The notebook gives the learner the experiment (split the two halves of a cut, compare with the
whole) as a tool; the exercise asks for what the experiment cannot be, a rule that decides from
a window of three characters: `before`, the two just before the cut (one at a text's start), and
`after`, the one just after it. Every case is a window and a verdict the experiment settles:

- False: the cut changes the pre-tokens of some text, `_WITNESSES` (for some pattern);
- True: a cut between two words of letters one space apart, before the space, which the course's
  rule allows (`lib.corpus_files.safe_cuts`) and its tests show never changes anything.

Windows the experiment leaves open (safe in every text tried, yet not between two words) are no
case: a rule may allow them or not. So a rule is graded on never allowing a trap and on allowing
the one cut a trainer cannot do without.
"""

from __future__ import annotations

from lib import patterns
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng

NAMES = ("gpt2", "gpt4", "gpt4o")

# Texts and a cut in each, chosen so that the plausible rules fail two of them at least: a space
# after whitespace (a run of spaces, "\n ", "\t "), a line break after punctuation (which GPT-4's
# punctuation rule takes with it), a letter after "\n\n" or " \n" (GPT-2's trap of section 3),
# cuts after a space or inside a word; and cuts between words, in three scripts, that a rule must
# allow.
_SHOWN = [
    ("the cat", 3),
    ("the cat", 4),
    ("the cat", 2),
    (" hello", 1),
    ("\t  b", 1),
    (".\nx", 1),
    ("\n\nx", 1),
    ("so   \n  far", 2),
    ("so   \n  far", 7),
    ("one   two", 4),
    ("x    y", 3),
    ("it's", 2),
    ("a\t  b", 2),
    ("x.\t  y", 3),
    ("ok\n  go", 3),
    ("Hi,\n  there", 4),
    ("end.\nNext", 4),
    ("Wait!\n\nGo", 5),
    ("2024 was\n\nlong", 10),
    ("so \nfar", 4),
    ("a b", 1),
    ("Über  alles", 4),
    ("да нет", 2),
    ("कम ज़्यादा", 2),
    ("日本 語", 2),
    ("I am", 1),
    ("a\xa0  b", 2),  # \s is more than space, tab and line break: a no-break space (French text
    ("a\r  b", 2),  # has them) and a carriage return end a run too (review rev26z)
    (".a b", 2),  # what stands before the word's last letter does not matter: the cut before
    ("1a b", 2),  # the space is still safe
]
# Hidden texts are drawn from this alphabet: whitespace runs are likely, and letters of several
# scripts, a Devanagari vowel sign, digits, punctuation and an apostrophe sit beside them.
_ALPHABET = ["a", "s", "é", "ж", "न", "ि", ".", "!", "1", "'", " ", " ", " ", "\n", "\t"]
_LETTERS = [ch for ch in _ALPHABET if ch.isalpha()]


def changed_by(text: str, cut: int) -> list[str]:
    """The patterns (of `NAMES`) whose pre-tokens of `text` change when `text[:cut]` and
    `text[cut:]` are split apart.

    >>> changed_by("so   \\n  far", 7), changed_by("so   \\n  far", 2)
    (['gpt4'], [])
    """
    return [
        name
        for name in NAMES
        if patterns.split_text(text[:cut], name) + patterns.split_text(text[cut:], name)
        != patterns.split_text(text, name)
    ]


def window(text: str, cut: int) -> tuple[str, str]:
    """What `may_cut` sees of a cut: the two characters before it and the one after it."""
    return text[max(0, cut - 2) : cut], text[cut]


def _between_words(before: str, after: str) -> bool:
    """A cut before the space between two words: one every rule must allow."""
    return before[-1].isalpha() and after == " "


def _case(text: str, cut: int) -> Case:
    """The window of this cut and its verdict: False if it changes the pre-tokens here."""
    before, after = window(text, cut)
    if changed_by(text, cut):
        return Case(args=(before, after), expected=False, kind="a cut that changes pre-tokens")
    assert _between_words(before, after), f"{text!r} at {cut} decides no case"
    return Case(args=(before, after), expected=True, kind="a cut between two words")


_WITNESSES = {window(text, cut): (text, cut) for text, cut in _SHOWN}


# How many hidden traps of each kind: most before whitespace, where the plausible rules differ.
_TRAPS = {"before whitespace": 8, "after whitespace": 5, "elsewhere": 5}


def _trap_kind(before: str, after: str) -> str:
    if after.isspace():
        return "before whitespace"
    return "after whitespace" if before[-1].isspace() else "elsewhere"


def _hidden_cases() -> list[Case]:
    """Windows made up for each student: 14 where some text's cut changes its pre-tokens (by
    `_TRAPS`), and 8 between two words of letters."""
    draw = rng(86)
    traps: dict[str, dict[tuple[str, str], Case]] = {kind: {} for kind in _TRAPS}
    while any(len(traps[kind]) < n for kind, n in _TRAPS.items()):
        text = "".join(draw.choices(_ALPHABET, k=draw.randint(3, 10)))
        cut = draw.randrange(1, len(text))
        seen = window(text, cut)
        found = traps[_trap_kind(*seen)]
        if len(found) < _TRAPS[_trap_kind(*seen)] and seen not in _WITNESSES:
            if changed_by(text, cut):
                found.setdefault(seen, _case(text, cut))
    words: dict[tuple[str, str], Case] = {}
    while len(words) < 8:  # a character, a letter, then a space
        word = draw.choice(_ALPHABET[:10]) + draw.choice(_LETTERS)
        if window(word + " ", len(word)) not in _WITNESSES:
            words.setdefault(window(word + " ", len(word)), _case(word + " x", len(word)))
    return [case for found in traps.values() for case in found.values()] + list(words.values())


def _trap_words(cases: list[Case], answers: list) -> str | None:
    """Show the text behind the first trap the rule allows, or name a cut it should allow."""
    for case, answer in zip(cases, answers, strict=False):
        if answer is True and case.expected is False and case.args in _WITNESSES:
            text, cut = _WITNESSES[case.args]
            name = changed_by(text, cut)[0]
            halves = patterns.split_text(text[:cut], name) + patterns.split_text(text[cut:], name)
            return (
                f"Your rule allows {case.args[0]!r} | {case.args[1]!r}, as in "
                f"{text[:cut]!r} | {text[cut:]!r}: with {name}'s pattern the whole text splits "
                f"into {patterns.split_text(text, name)}, the halves into {halves}."
            )
    if any(a is False and c.expected is True for c, a in zip(cases, answers, strict=False)):
        return (
            "Your rule refuses a cut between two words: safe, but a trainer whose rule cuts "
            "nowhere hands the whole corpus to one worker. Run show_cuts on a sentence and look "
            "where the bars are between its words."
        )
    return None


may_cut = Exercise(
    name="may_cut",
    lesson=8,
    points=2,
    target="may_cut",
    cases=lambda: [_case(text, cut) for text, cut in _SHOWN],
    hidden_cases=_hidden_cases,
    wrong_turns=_trap_words,
    hints=(
        "Run show_cuts on texts that mix words, runs of spaces, line breaks, tabs and "
        "punctuation, and sort the places where a bar appears from those where none does. "
        "Which character comes right after a bar between two words? And right before it?",
        "Cuts near whitespace are where the patterns look ahead. For each kind of whitespace "
        "that can come after the cut, ask: is there a text where the cut there changes the "
        "pre-tokens? Then ask the same of what may come before it: a letter, punctuation, "
        "another whitespace character.",
        "Check yourself: may_cut('he', ' ') must be True (the cut in 'the| cat'), and "
        "may_cut('e ', 'c') False ('the |cat' cuts ' cat' in two). may_cut('a\\t', ' ') must be "
        "False too: show_cuts('a\\t  b') says why.",
    ),
    solution_code="""\
def may_cut(before: str, after: str) -> bool:
    # Before a space that follows a non-space: the space starts the next pre-token in all
    # three patterns, and nothing before it looks ahead past the cut.
    return after == " " and not before[-1].isspace()
""",
)
