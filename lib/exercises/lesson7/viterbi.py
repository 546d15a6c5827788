"""Lesson 7: `viterbi`, Unigram's best segmentation of a text under piece scores.

Expected values come from `lib.unigram`, which the tests prove equal to SentencePiece; the
texts avoid ties, so only one segmentation is right.
"""

from __future__ import annotations

from lib import unigram
from lib.exercises.cases import answers_fit
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng

_SCORES = {"a": -2.1, "b": -2.6, "c": -3.3, "ab": -3.9, "bc": -4.4, "abc": -7.2, "ca": -4.0}
_SCORES |= {"▁": -1.7, "▁a": -3.1, "▁ab": -5.3, "ा": -2.9, "क": -3.05, "का": -4.6, "▁का": -6.4}
_TEXTS = ["abc", "abcabc", "cab", "▁abc▁ca", "bcbc", "a", "▁का▁क", "काका", "▁abcab▁bca", "ccca"]
# Where a greedy answer (at each step, the piece with the best score per character) goes wrong:
# a piece that looks best where it starts costs more further on.
_TEXTS += ["▁ab", "aabc", "abcb"]


def _segmentations(text: str) -> list[list[str]]:
    if not text:
        return [[]]
    return [
        [text[:end], *rest]
        for end in range(1, len(text) + 1)
        if text[:end] in _SCORES
        for rest in _segmentations(text[end:])
    ]


def _has_tie(text: str) -> bool:
    totals = sorted(round(sum(_SCORES[p] for p in s), 9) for s in _segmentations(text))
    return len(totals) > 1 and totals[-1] == totals[-2]


def _right(text: str, scores: dict[str, float]) -> list[str]:
    model = unigram.Unigram([("<unk>", 0.0), *scores.items()])
    return [piece for piece, _, _ in model.segment(text)]


def _best(texts: list[str]) -> list[Case]:
    return [Case(args=(text, dict(_SCORES)), expected=_right(text, _SCORES)) for text in texts]


def _longest_first(text: str, scores: dict[str, float]) -> list[str]:
    """WordPiece's rule: at each position the longest piece, whatever it scores."""
    pieces, start = [], 0
    while start < len(text):
        end = max(end for end in range(start + 1, len(text) + 1) if text[start:end] in scores)
        pieces.append(text[start:end])
        start = end
    return pieces


def _viterbi_turns(cases: list[Case], answers: list) -> str | None:
    """Name the slip the answers fit: the longest piece first, the walk back's pieces not put
    back in order, or every character cut apart. The last is all the check can tell of several
    slips (the lowest total kept, the best piece at each step, the best average per piece): on
    these cases each of them gives single characters."""
    if answers_fit(cases, answers, _longest_first):
        return (
            "your answers fit taking the longest piece first (WordPiece's rule): Viterbi "
            "compares the totals of whole segmentations, as for 'abc' in the lesson."
        )
    if answers_fit(cases, answers, lambda text, scores: _right(text, scores)[::-1]):
        return (
            "your answers are the right pieces in reverse order: the walk back meets the "
            "last piece first."
        )
    if answers_fit(cases, answers, lambda text, scores: list(text)):
        return (
            "your answers cut every character apart, but a longer piece can score higher than "
            "its characters added up ('ab' -3.9 against 'a' + 'b' -4.7): compare the totals "
            "of whole segmentations and keep the highest (scores are logs of probabilities, "
            "so the best is nearest 0)."
        )
    return None


def _viterbi_cases() -> list[Case]:
    assert not any(map(_has_tie, _TEXTS)), "a visible case with two best segmentations"
    return _best(_TEXTS)


def _hidden_viterbi_cases() -> list[Case]:
    """Random strings of the scored letters, keeping only those with a single best answer."""
    draw = rng(72)
    texts = ["".join(draw.choices("abc▁", k=draw.randint(2, 9))) for _ in range(40)]
    texts += ["".join(draw.choices(["▁", "क", "ा", "a"], k=draw.randint(2, 7))) for _ in range(15)]
    return _best([text for text in texts if not _has_tie(text)][:25])


viterbi = Exercise(
    name="viterbi",
    lesson=7,
    points=2,
    target="viterbi",
    cases=_viterbi_cases,
    hidden_cases=_hidden_viterbi_cases,
    wrong_turns=_viterbi_turns,
    hints=(
        "Solve it for every prefix of the text, shortest first: the best way to spell "
        "text[:end] is the best way to spell some shorter prefix text[:start], plus one "
        "piece text[start:end].",
        "Remember for each end both the best total score and where its last piece starts;"
        " then walk back from the end of the text to collect the pieces.",
        "Fill the table by hand for 'abc' before you write the loop: the best for 'ab' is "
        "'ab' (-3.9), and for 'abc' 'a' + 'bc' (-6.5). Which entry must the empty prefix "
        "have, so that a first piece has something to add its score to? What must a "
        "prefix's entry say before you have tried any piece that ends there, so that the "
        "first one you try is kept? And in which order does the walk back meet the pieces?",
    ),
    solution_code="""\
def viterbi(text: str, scores: dict[str, float]) -> list[str]:
    best = [(0.0, 0)] + [None] * len(text)
    for end in range(1, len(text) + 1):
        for start in range(end):
            piece = text[start:end]
            if piece in scores and best[start] is not None:
                candidate = (best[start][0] + scores[piece], start)
                if best[end] is None or candidate[0] > best[end][0]:
                    best[end] = candidate
    pieces, end = [], len(text)
    while end > 0:
        start = best[end][1]
        pieces.append(text[start:end])
        end = start
    return pieces[::-1]
""",
)
