"""Lesson 7: `wordpiece_word`, WordPiece's greedy longest match with "##" continuations.

Expected values come from `lib.wordpiece`, which the tests prove equal to Hugging Face
`tokenizers`; the 💡s name a forgotten "##" and a shortest match.
"""

from __future__ import annotations

from lib import wordpiece
from lib.exercises.cases import of_kind
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng
from lib.exercises.lesson7.wordpiece_turns import wordpiece_turns

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

# A greedy dead end, with a vocabulary of its own: "una" leaves "ble", which no "##" piece
# starts, so the word is [UNK], though "un" + "##able" spells it (Hugging Face agrees).
DEAD_END = ("unable", {"un", "una", "##able"})


def _pieces(words: list[str]) -> list[Case]:
    return [
        Case(
            args=(word, set(WORDPIECE_VOCAB)), expected=wordpiece.encode_word(word, WORDPIECE_VOCAB)
        )
        for word in words
    ]


def _wordpiece_cases() -> list[Case]:
    word, vocab = DEAD_END
    return [*_pieces(_WORDS), Case(args=(word, set(vocab)), expected=["[UNK]"])]


def _dead_ends(count: int) -> list[Case]:
    """Words `a + b + c` with the vocabulary {a, a + b, "##" + b + c}: the longest first piece
    `a + b` leaves `c`, which no piece continues, so the answer is ['[UNK]'], where going back
    to `a` would have found a way through."""
    draw = rng(72)
    letters = "abdeiklmnorstuüनमसत"

    def part(longest: int) -> str:
        return "".join(draw.choices(letters, k=draw.randint(1, longest)))

    cases = []
    for _ in range(count):
        a, b, c = part(3), part(2), part(3)
        vocab = {a, a + b, "##" + b + c}
        cases.append(
            Case(args=(a + b + c, vocab), expected=wordpiece.encode_word(a + b + c, vocab))
        )
    return of_kind("a greedy dead end", cases)


def _hidden_wordpiece_cases() -> list[Case]:
    """Words glued from the vocabulary's pieces (some with a stray letter), never shown."""
    draw = rng(71)
    stems = sorted(piece.removeprefix("##") for piece in WORDPIECE_VOCAB if piece != "[UNK]")
    words = ["".join(draw.choices(stems, k=draw.randint(1, 4))) for _ in range(20)]
    return _pieces(words + [word + draw.choice("xyzü") for word in words[:5]]) + _dead_ends(5)


# Scores chosen so that no two segmentations of these texts tie (checked when the cases are made).
wordpiece_word = Exercise(
    name="wordpiece_word",
    lesson=7,
    points=1,
    target="wordpiece_word",
    cases=_wordpiece_cases,
    hidden_cases=_hidden_wordpiece_cases,
    wrong_turns=wordpiece_turns,
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
