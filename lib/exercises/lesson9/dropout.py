"""Lesson 9, section 5: BPE-dropout on one word, with its random numbers given (exercise 4).

Randomness makes a poor test: two right answers that draw differently disagree. So the learner's
`dropout_bpe(word, ranks, p, draws)` takes its random numbers as a list, one per candidate pair,
left to right, step after step, and the answer is then exact: `lib.bpe_dropout.segment` replaying
the same list is the reference. Hidden cases draw their words, p and draws per student.
"""

from __future__ import annotations

import warnings

from lib import bpe, bpe_dropout
from lib.exercises.cases import answers_fit
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng

_ABC = {b"ab": 0, b"bc": 1, b"abc": 2}
_TRAINING = (
    "low lower lowest newer newest wider widest tokenization tokens token "
    "नमस्ते नमस्कार नमन 日本語 日本 "
) * 3


def _ranks() -> dict[bytes, int]:
    """Merge ranks learned from a small text in three scripts: {token bytes: rank}."""
    with warnings.catch_warnings():  # the text may run out of pairs: fine here
        warnings.simplefilter("ignore")
        merges = bpe.train(_TRAINING, 330, pattern="gpt4")[1]
    ranks: dict[bytes, int] = {}
    for k, (left, right) in enumerate(merges):
        ranks.setdefault(left + right, k)
    return ranks


class _Replay:
    """The draws of a case, handed out in order (a `bpe_dropout.Draws`)."""

    def __init__(self, draws: list[float]):
        self.draws, self.used = draws, 0

    def random(self) -> float:
        self.used += 1
        return self.draws[self.used - 1]


def _case(
    word: bytes, ranks: dict[bytes, int], p: float, draws: list[float], kind: str = ""
) -> Case:
    expected = bpe_dropout.segment(word, ranks, p, _Replay(draws))
    return Case(args=(word, ranks, p, draws), expected=expected, kind=kind)


def _draws(seed: int, word: bytes) -> list[float]:
    """Enough draws for any order of merges: at most one per pair per step."""
    source = rng(seed)
    return [round(source.random(), 3) for _ in range(len(word) ** 2 + 1)]


def _shown_cases() -> list[Case]:
    ranks = _ranks()
    word, hindi = b" lowest", " नमस्ते".encode()
    return [
        _case(b"abc", _ABC, 0.5, [0.9, 0.1, 0.7]),
        _case(b"abc", _ABC, 0.5, [0.2, 0.6, 0.4]),
        _case(b"abc", _ABC, 0.5, [0.2, 0.3]),
        _case(b"abc", _ABC, 0.5, [0.5, 0.5, 0.5]),  # a draw equal to p is not below it: kept
        _case(b"abab", {b"ab": 0}, 0.5, [0.9, 0.9, 0.1]),  # one step, one merge: not both ab
        _case(b"aaaa", {b"aa": 0, b"aaaa": 1}, 0.0, [0.5] * 17),
        _case(word, ranks, 0.0, _draws(95, word)),
        _case(word, ranks, 0.3, _draws(96, word)),
        _case(hindi, ranks, 0.1, _draws(97, hindi)),
    ]


def _hidden_cases() -> list[Case]:
    """Mostly p where draws decide (at p = 0 or near 1 many wrong orders of draws still agree),
    a word with a pair twice, and draws that equal p."""
    ranks, source = _ranks(), rng(98)
    words = [w.encode() for w in _TRAINING.split()[:17]]
    cases = []
    for n in range(14):
        word = (b" " if n % 3 else b"") + source.choice(words)
        p = (0.0, 0.1, 0.3, 0.5, 0.2, 0.4, 0.6)[n % 7]
        cases.append(_case(word, ranks, p, _draws(200 + n, word), f"p = {p}"))
    for k, twice in enumerate((b" lowlow", b"tokentoken", "नमनमन".encode())):
        p = (0.3, 0.2, 0.1)[k]
        cases.append(_case(twice, ranks, p, _draws(230 + k, twice), "a pair twice"))
    cases.append(_case(b" lower", ranks, 0.5, [0.5] * 37, "draws equal to p"))
    word, p = b" " + source.choice(words), source.choice((0.2, 0.3, 0.4, 0.5))
    at_p = [p if source.random() < 0.5 else draw for draw in _draws(240, word)]
    cases.append(_case(word, ranks, p, at_p, "draws equal to p"))
    return cases


def _trap(*, restart: bool = False, every_pair: bool = False, merge_all: bool = False):
    """The exercise's loop with one known mistake: the count of draws restarting at each step,
    every neighbouring pair taking a draw (tokens or not), or a step merging every kept pair of
    the best rank (as lesson 3's `merge` replaces every occurrence)."""

    def segment(word: bytes, ranks: dict[bytes, int], p: float, draws: list[float]) -> list:
        pieces, used = [word[i : i + 1] for i in range(len(word))], 0
        while True:
            used = 0 if restart else used
            kept = []  # (rank, position) of each pair not dropped
            for i in range(len(pieces) - 1):
                joined = pieces[i] + pieces[i + 1]
                if joined in ranks or every_pair:
                    used += 1
                    if joined in ranks and draws[used - 1] >= p:
                        kept.append((ranks[joined], i))
            if not kept:
                return pieces
            best = min(kept)[0]
            at = [i for rank, i in kept if rank == best] if merge_all else [min(kept)[1]]
            for i in reversed(at):  # from the right, so earlier positions stay where they are
                if i + 1 not in at:  # of two overlapping pairs, the left one merges
                    pieces[i : i + 2] = [pieces[i] + pieces[i + 1]]

    return segment


def _dropout_turns(cases: list[Case], answers: list) -> str | None:
    """Name the traps of hint 2, and merging more than one pair in a step. Merging all is
    checked before restarting: on the shown 'abab' case the two give the same answer, and only
    restarting fails another shown case too."""
    if answers_fit(cases, answers, _trap(every_pair=True)):
        return (
            "your loop takes more draws than it should: only a pair whose joined bytes are a key "
            "of ranks takes a draw, and a pair that is no token takes none. (With too many draws "
            "taken, the list runs out: an IndexError.)"
        )
    if answers_fit(cases, answers, _trap(merge_all=True)):
        return (
            "a step merges one pair only: of the pairs not dropped, the one with the lowest rank "
            "(the leftmost of equals). Your steps merge every kept pair of that rank at once, as "
            "lesson 3's merge does; here each merge is a step with its own draws."
        )
    if answers_fit(cases, answers, _trap(restart=True)):
        return (
            "your count of draws starts again at each step. The draws are one list for the whole "
            "word: each step goes on from the draw where the step before stopped."
        )
    return None


dropout_bpe = Exercise(
    name="dropout_bpe",
    lesson=9,
    points=2,
    target="dropout_bpe",
    cases=_shown_cases,
    hidden_cases=_hidden_cases,
    hints=(
        "Keep the word as a list of pieces, one bytes object per byte to start with (word[i:i+1] "
        "is a bytes of length 1; word[i] would be an int). A step walks over the neighbouring "
        "pairs once, left to right, and then merges at most one pair.",
        "Two traps. The draws are one list for the whole word: the count of draws used moves "
        "forward across all the steps and never goes back to 0 at a new step. And only a pair "
        "whose joined bytes are a key of ranks takes a draw: a pair that is no token takes none. "
        "(A draw equal to p is not below p, so that pair stays.)",
        "Check yourself: b'xabc' with ranks {b'ab': 0, b'bc': 1, b'abc': 2}, p = 0.5 and draws "
        "[0.7, 0.2, 0.2] gives [b'x', b'ab', b'c'], and uses all three draws. [b'x', b'abc'] "
        "means your count of draws started again at step 2; [b'x', b'a', b'b', b'c'] means "
        "the pair (x, a), which is no token, took a draw.",
    ),
    solution_code="""\
def dropout_bpe(word: bytes, ranks: dict[bytes, int], p: float, draws: list[float]) -> list[bytes]:
    pieces = [word[i : i + 1] for i in range(len(word))]
    used = 0
    while True:
        best = None
        for i in range(len(pieces) - 1):
            joined = pieces[i] + pieces[i + 1]
            if joined in ranks:
                draw = draws[used]
                used += 1
                if draw >= p and (best is None or ranks[joined] < best[0]):
                    best = (ranks[joined], i)
        if best is None:
            return pieces
        i = best[1]
        pieces[i : i + 2] = [pieces[i] + pieces[i + 1]]
""",
    wrong_turns=_dropout_turns,
    well_done="That is BPE-dropout: lib.bpe_dropout.segment does the same, with random.Random.",
)
