"""Lesson 7: the WordPiece slips `wordpiece_word`'s 💡 names, each a model of a learner's loop
that the answers are compared with (`answers_fit`): pieces looked up without their '##', a loop
over the lengths that stops one short, the shortest match first, and going back at a dead end."""

from __future__ import annotations

from collections.abc import Callable

from lib import wordpiece
from lib.exercises.cases import Case, answers_fit, answers_match


def _unmarked_lookup(word: str, vocab: set[str]) -> list[str]:
    """Greedy WordPiece that looks a piece up without its '##' (but prints it): a word piece
    `x` in the vocabulary then matches inside words as if `##x` were there too."""
    words = {piece for piece in vocab if not piece.startswith("##")}
    return wordpiece.encode_word(word, words | {"##" + piece for piece in words})


def _unmarked_example(cases: list[Case], answers: list) -> str:
    """Where the first failed shown case shows the '##' mattering: a piece the learner took
    inside the word whose '##' form is not in the vocabulary ('token' in 'untoken'), else a
    '##' piece of the right answer whose bare text is not in it ('##aff' in 'unaffable')."""
    for case, answer in zip(cases, answers, strict=False):
        if case.hidden or answer == case.expected:
            continue
        word, vocab = case.args
        taken = answer[1:] if isinstance(answer, list) else []  # None where the call raised
        for text in (str(piece).removeprefix("##") for piece in taken):
            if text in vocab and "##" + text not in vocab:
                return f" (in {word!r}, {text!r} is in the vocabulary but {'##' + text!r} is not)"
        for bare in (piece.removeprefix("##") for piece in case.expected[1:]):
            if bare not in vocab:
                return (
                    f" (in {word!r} the vocabulary has {'##' + bare!r}, and {bare!r} is not in it)"
                )
        return ""  # only the first failure is quoted: it is the one on screen
    return ""


def _piece_at(word: str, start: int, vocab: set[str], longest: bool) -> str | None:
    """The longest (else the shortest) piece of the vocabulary at `start` ('##' inside the
    word), or None."""
    mark = "##" if start else ""
    ends = range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
    return next((mark + word[start:end] for end in ends if mark + word[start:end] in vocab), None)


def _greedy(word: str, vocab: set[str], ends: Callable[[int, int], range]) -> list[str]:
    """Greedy WordPiece that tries, at each position `start`, the pieces ending at
    `ends(start, len(word))` in that order: a model of the learner's loop over the lengths."""
    pieces, start = [], 0
    while start < len(word):
        mark = "##" if start else ""
        tried = (mark + word[start:end] for end in ends(start, len(word)))
        piece = next((piece for piece in tried if piece in vocab), None)
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        start += len(piece) - len(mark)
    return pieces


def _shortest_first(word: str, vocab: set[str]) -> list[str]:
    """Lengths tried from one character up: the shortest piece wins (and may reach a dead end)."""
    return _greedy(word, vocab, lambda start, n: range(start + 1, n + 1))


# Loops over the lengths that stop one short at either end, and what each never tries.
_ONE_SHORT = {
    "the piece that runs to the end of the word": lambda start, n: range(n - 1, start, -1),
    "a piece of one character": lambda start, n: range(n, start + 1, -1),
}


def _shorter_piece(cases: list[Case], answers: list) -> str:
    """Where the first failed shown case's shortest match first parts from the right answer,
    e.g. " (in 'unaffable', '##aff' and the shorter '##a' are both in the vocabulary)"."""
    for case, answer in zip(cases, answers, strict=False):
        if case.hidden or answer == case.expected:
            continue
        word, vocab = case.args
        start = 0
        for piece in case.expected:
            shortest = _piece_at(word, start, vocab, longest=False)
            if shortest not in (None, piece):
                return (
                    f" (in {word!r}, {piece!r} and the shorter {shortest!r} are both in the"
                    " vocabulary)"
                )
            start += len(piece.removeprefix("##"))
        return ""  # only the first failure is quoted: it is the one on screen
    return ""


def _backtracking(word: str, vocab: set[str], start: int = 0) -> list[str] | None:
    """The longest piece first, but at a dead end go back and try a shorter one: the first
    split the vocabulary allows, longest pieces first (None for no split, at the top too)."""
    if start == len(word):
        return []
    mark = "##" if start else ""
    for end in range(len(word), start, -1):
        rest = _backtracking(word, vocab, end) if mark + word[start:end] in vocab else None
        if rest is not None:
            return [mark + word[start:end], *rest]
    return None if start else ["[UNK]"]


def _dead_end(cases: list[Case], answers: list) -> str:
    """Where the first failed shown case's greedy match gets stuck, e.g. " (in 'unable', 'una'
    leaves 'ble', and no '##' piece starts it)"."""
    for case, answer in zip(cases, answers, strict=False):
        if case.hidden or answer == case.expected:
            continue
        word, vocab = case.args
        start, piece = 0, None
        while (found := _piece_at(word, start, vocab, longest=True)) is not None:
            piece, start = found, start + len(found.removeprefix("##"))
        if piece is None:
            return ""
        return f" (in {word!r}, {piece!r} leaves {word[start:]!r}, and no '##' piece starts it)"
    return ""


def wordpiece_turns(cases: list[Case], answers: list) -> str | None:
    """Name the learner's WordPiece slip: pieces looked up without their '##', a loop over the
    lengths that stops one short, going back at a dead end, or the shortest match taken first."""
    unmarked = [lambda w, v: [p.removeprefix("##") for p in _unmarked_lookup(w, v)]]
    if any(answers_fit(cases, answers, f) for f in [_unmarked_lookup, *unmarked]):
        return (
            "your answers fit looking pieces up without their '##': inside a word, look up "
            f"'##' + the text{_unmarked_example(cases, answers)}. See hint 2."
        )
    models = {never: (lambda w, v, e=ends: _greedy(w, v, e)) for never, ends in _ONE_SHORT.items()}
    short = {never: m for never, m in models.items() if answers_fit(cases, answers, m)}
    # both fit when only one-character pieces fail; the closer also gives the passed answers
    closer = [never for never, model in short.items() if answers_match(cases, answers, model)]
    if short:
        return (
            "your answers fit a loop over the lengths that stops one short: it never tries "
            f"{(closer or list(short))[0]}. At each position try every length, from the rest of"
            " the word down to one character: check where your range starts and stops."
        )
    if answers_fit(cases, answers, _backtracking):
        return (
            "your answers fit going back to a shorter piece at a dead end: WordPiece never goes "
            f"back, so the whole word is '[UNK]'{_dead_end(cases, answers)}."
        )
    if answers_fit(cases, answers, _shortest_first):
        return (
            "your answers fit taking the shortest piece that matches: at each position try the "
            f"longest piece first, then shorter ones{_shorter_piece(cases, answers)}."
        )
    return None
