"""The hidden inputs of lesson 3's `get_stats`, `merge` and `train_bpe`, each with its kind.

Lib writes some of each kind out; the grader draws more with its salt (`generated.rng`), so
that a student's share of the drawn cases, which caps their score (`salted_share`), tests each
kind too: a table of the written-out ones earns nothing for it.
"""

from __future__ import annotations

from lib.exercises.generated import ALPHABET, random_texts, rng

# A word said again: a pair that recurs, and merges built on merges. A run of one letter, or
# two ids in turn: pairs that overlap, which a loop must count and join left to right.
REPEATED, RUN, MADE_UP = "a word said again", "a run of one letter", "a short made-up text"
TURNS = "two ids in turn"
_HIDDEN_TEXTS = [
    (REPEATED, "abcabcabc"),
    (RUN, "zzzz zzz"),
    (RUN, "ééé éé"),
    (REPEATED, "ok, ok. ok!"),
    (REPEATED, "日本語の日本"),
    (REPEATED, "abb b b a"),
]


def _drawn_texts() -> list[tuple[str, str]]:
    """Texts of each kind above, made up (secret when the grader makes them): at least 2 bytes."""
    source = rng(33)
    words = random_texts(34, 2, longest=3)
    letters = source.choices(ALPHABET, k=2)
    made = [(REPEATED, source.choice(" ,.!").join([word] * source.randint(2, 4))) for word in words]
    made += [(RUN, f"{c * source.randint(3, 6)} {c * source.randint(2, 5)}") for c in letters]
    made += [(MADE_UP, text) for text in random_texts(31, 8, longest=16)]
    return [(kind, text) for kind, text in made if len(text.encode()) >= 2]


def hidden_texts() -> list[tuple[str, str]]:
    """The texts above, and made-up ones, each with its kind."""
    return _HIDDEN_TEXTS + _drawn_texts()


def in_turn(seed: int) -> list[int]:
    """Two ids in turn, drawn (secret when the grader draws them), 4 to 9 of them."""
    source = rng(seed)
    a, b = source.sample(range(300), 2)
    return [(a, b)[i % 2] for i in range(source.randint(4, 9))]
