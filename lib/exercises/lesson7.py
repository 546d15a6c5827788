"""Lesson 7 exercises: WordPiece's greedy match, Unigram's Viterbi, SentencePiece's byte fallback.

Expected values come from `lib.wordpiece` and `lib.unigram`, which the tests prove equal to
Hugging Face `tokenizers` and SentencePiece.
"""

from __future__ import annotations

from collections.abc import Callable

from lib import unigram, wordpiece
from lib.exercises.cases import answers_fit, answers_match
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng

# A small vocabulary written for these checks: English, German and Hindi pieces, with traps for
# a shortest-match or a forgotten "##".
WORDPIECE_VOCAB = {"[UNK]", "un", "##aff", "##able", "##a", "##ff", "a", "able", "token", "##izer"}
WORDPIECE_VOCAB |= {
    "##s",
    "##iz",
    "##er",
    "haus",
    "##haus",
    "##tür",
    "tür",
    "##en",
    "नम",
    "##स्",
    "##ते",
    "न",
}

_WORDS = [
    "unaffable",  # un ##aff ##able: the longest first, not ##a ##ff
    "tokenizer",
    "tokenizers",
    "able",
    "a",
    "haustür",
    "türhaus",
    "haustüren",
    "नमस्ते",
    "unaffablex",  # the x matches nothing: the whole word is [UNK]
    "xunaffable",
    "untoken",  # "token" is a word, but no "##token" continues one: [UNK], not un ##token
    "ट",
    "",
]


def _pieces(words: list[str]) -> list[Case]:
    return [
        Case(
            args=(word, set(WORDPIECE_VOCAB)), expected=wordpiece.encode_word(word, WORDPIECE_VOCAB)
        )
        for word in words
    ]


def _wordpiece_cases() -> list[Case]:
    return _pieces(_WORDS)


def _hidden_wordpiece_cases() -> list[Case]:
    """Words glued from the vocabulary's pieces (some with a stray letter), never shown."""
    draw = rng(71)
    stems = sorted(piece.removeprefix("##") for piece in WORDPIECE_VOCAB if piece != "[UNK]")
    words = ["".join(draw.choices(stems, k=draw.randint(1, 4))) for _ in range(20)]
    return _pieces(words + [word + draw.choice("xyzü") for word in words[:5]])


# Scores chosen so that no two segmentations of these texts tie (checked when the cases are made).
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


def _best(texts: list[str]) -> list[Case]:
    model = unigram.Unigram([("<unk>", 0.0), *_SCORES.items()])
    return [
        Case(args=(text, dict(_SCORES)), expected=[p for p, _, _ in model.segment(text)])
        for text in texts
    ]


def _viterbi_cases() -> list[Case]:
    assert not any(map(_has_tie, _TEXTS)), "a visible case with two best segmentations"
    return _best(_TEXTS)


def _hidden_viterbi_cases() -> list[Case]:
    """Random strings of the scored letters, keeping only those with a single best answer."""
    draw = rng(72)
    texts = ["".join(draw.choices("abc▁", k=draw.randint(2, 9))) for _ in range(40)]
    texts += ["".join(draw.choices(["▁", "क", "ा", "a"], k=draw.randint(2, 7))) for _ in range(15)]
    return _best([text for text in texts if not _has_tie(text)][:25])


_FALLBACK_TEXTS = ["A", "é", "ஆ", "€", "😀", "aஆ", "", "世界", "ü", "\n"]


def _fallbacks(texts: list[str]) -> list[Case]:
    return [Case(args=(text,), expected=unigram.byte_fallback(text)) for text in texts]


def _byte_fallback_cases() -> list[Case]:
    return _fallbacks(_FALLBACK_TEXTS)


def _hidden_byte_fallback_cases() -> list[Case]:
    return _fallbacks(random_texts(73, 20, longest=6))


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


def _shortest_at(word: str, start: int, vocab: set[str]) -> str | None:
    """The shortest piece of the vocabulary at `start` ('##' inside the word), or None."""
    mark = "##" if start else ""
    pieces = (mark + word[start:end] for end in range(start + 1, len(word) + 1))
    return next((piece for piece in pieces if piece in vocab), None)


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
            shortest = _shortest_at(word, start, vocab)
            if shortest not in (None, piece):
                return (
                    f" (in {word!r}, {piece!r} and the shorter {shortest!r} are both in the"
                    " vocabulary)"
                )
            start += len(piece.removeprefix("##"))
        return ""  # only the first failure is quoted: it is the one on screen
    return ""


def _wordpiece_turns(cases: list[Case], answers: list) -> str | None:
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
    if answers_fit(cases, answers, _shortest_first):
        return (
            "your answers fit taking the shortest piece that matches: at each position try the "
            f"longest piece first, then shorter ones{_shorter_piece(cases, answers)}."
        )
    return None


wordpiece_word = Exercise(
    name="wordpiece_word",
    lesson=7,
    points=1,
    target="wordpiece_word",
    cases=_wordpiece_cases,
    hidden_cases=_hidden_wordpiece_cases,
    wrong_turns=_wordpiece_turns,
    hints=(
        "Greedy means: at each position take the longest piece the vocabulary has, then "
        "carry on from where it ends. Two details: pieces inside a word carry '##', and a"
        " dead end loses the whole word. Which lengths do you try at a position, and in what "
        "order?",
        "The '##' belongs to the piece you look up, not only to what you print: in the "
        "middle of a word only '##able' matches, never 'able'. Check yourself: 'unable' is "
        "['un', '##able'] with the vocabulary {'un', 'able', '##able'}, but ['[UNK]'] with "
        "{'un', 'able'}; with {'u', 'un', 'una', '##ble', '##able'} it is ['una', '##ble']: "
        "the longest first piece wins, though 'un' + '##able' spells the word too.",
    ),
    solution_code="""\
def wordpiece_word(word: str, vocab: set[str]) -> list[str]:
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = ("##" if start > 0 else "") + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return ["[UNK]"]
    return pieces
""",
)

viterbi = Exercise(
    name="viterbi",
    lesson=7,
    points=2,
    target="viterbi",
    cases=_viterbi_cases,
    hidden_cases=_hidden_viterbi_cases,
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

byte_fallback = Exercise(
    name="byte_fallback",
    lesson=7,
    points=1,
    target="byte_fallback",
    cases=_byte_fallback_cases,
    hidden_cases=_hidden_byte_fallback_cases,
    hints=(
        "One piece per UTF-8 byte of the text, not per character, each written like <0xE0>.",
        "Iterating over the bytes of text.encode('utf-8') gives integers. Python's Format "
        "Specification Mini-Language (in the documentation of `format`) can write an "
        "integer in hexadecimal with a fixed number of digits. Check yourself: 'é' gives "
        "['<0xC3>', '<0xA9>'], and '\\n' gives ['<0x0A>'], not '<0xA>' or '<0x0a>'.",
    ),
    solution_code="""\
def byte_fallback(text: str) -> list[str]:
    return [f"<0x{b:02X}>" for b in text.encode("utf-8")]
""",
)

EXERCISES = [wordpiece_word, viterbi, byte_fallback]  # in the order the notebook asks them
