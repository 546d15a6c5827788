"""Lesson 7: `decode_pieces`, reading SentencePiece's byte-fallback pieces back into text.

Expected values come from `lib.sentencepiece_text.decode_pieces`, which the tests prove equal to
SentencePiece's decoder with Llama 2's `remove_extra_whitespaces=False`, also on these cases
(with the default, it drops every ▁ before the first character, not only one). The point is
what happens to bytes that make no whole character: SentencePiece writes one U+FFFD for each,
where Python's `errors="replace"` writes one for a cut-off character as a whole (lesson 4).
The 💡s name that and four other slips.
"""

from __future__ import annotations

from lib.exercises.cases import Case, answers_fit
from lib.exercises.core import Exercise
from lib.exercises.generated import random_texts, rng
from lib.sentencepiece_text import SPACE, joined_bytes
from lib.sentencepiece_text import decode_pieces as reference
from lib.unigram import byte_fallback as byte_pieces

_PIECES = [
    ["▁a", "<0xE0>", "<0xAE>", "<0x86>", "b"],  # a whole Tamil letter
    ["▁a", "<0xE0>", "<0xAE>", "b"],  # its first two bytes only: two stray bytes
    ["▁Hello", "▁wor", "ld"],
    ["<0xE2>", "<0x82>", "<0xAC>", "▁5"],  # no ▁ in front: nothing to drop
    ["▁", "<0xC3>", "<0xA9>", "t", "<0xC3>", "<0xA9>"],
    ["<0xAE>", "▁x"],  # a continuation byte with no start
    ["<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "!"],
    ["<0xF0>", "<0x9F>", "<0x98>", "▁ok"],  # three of an emoji's four bytes
    ["<0xC3>", "<0xC3>", "<0xA9>"],  # a start byte whose character never comes, then é
    ["▁日本", "<0xE8>", "<0xAA>", "<0x9E>", "<0xE8>"],
    ["▁a", "▁"],  # only the ▁ at the start goes: the last one is a space
    ["▁", "▁a"],  # and only one ▁ (remove_extra_whitespaces=False): ' a', where lstrip gives 'a'
    ["<0x0A>", "▁a"],  # a newline first, so no ▁ to drop, and the space after it stays
    [],
]


def _cases(pieces: list[list[str]]) -> list[Case]:
    return [Case(args=(list(p),), expected=reference(p)) for p in pieces]


def _shown_cases() -> list[Case]:
    return _cases(_PIECES)


def _cut_pieces(seed: int, count: int) -> list[list[str]]:
    """Texts spelled partly in normal pieces, partly in byte pieces, some bytes left out. A
    space is always the normal piece ▁ (as a byte piece SentencePiece would keep it a space)."""
    draw = rng(seed)
    made = []
    for text in random_texts(seed + 1, count, longest=6):
        pieces: list[str] = [SPACE] if draw.random() < 0.5 and text[0] != " " else []
        for char in text:
            if char == " " or draw.random() < 0.3:
                pieces.append(char.replace(" ", SPACE))
            else:
                pieces += [p for p in byte_pieces(char) if draw.random() > 0.25]
        made.append(pieces)
    return made


def _hidden_cases() -> list[Case]:
    return _cases(_cut_pieces(75, 25))


def _replaced(pieces: list[str], errors: str = "replace") -> str:
    """Python's decoder on the joined bytes: one U+FFFD per cut-off character ("ignore": none)."""
    return joined_bytes(pieces).decode("utf-8", errors).replace(SPACE, " ").removeprefix(" ")


def _one_piece_at_a_time(pieces: list[str]) -> str:
    """Each piece decoded on its own: every byte of a character spelled in bytes is then stray."""
    return reference([reference([p]) if p.startswith("<0x") else p for p in pieces])


def _announced_length(first: int) -> int:
    """How many bytes a start byte announces (lesson 1): 110xxxxx two, 1110xxxx three,
    11110xxx four; any other byte one."""
    for length, top_bits in ((2, 0b110), (3, 0b1110), (4, 0b11110)):
        if first >> (7 - length) == top_bits:
            return length
    return 1


def _announced_skipped(pieces: list[str], spaces_first: bool) -> str:
    """Where the bytes a start byte announces make no character, one U+FFFD for all of them:
    the bytes after the start byte are skipped instead of read again. With `spaces_first`, each
    ▁ is made a space before the bytes are read (one byte then, not three)."""
    if spaces_first:
        pieces = [p if p.startswith("<0x") else p.replace(SPACE, " ") for p in pieces]
    data, text, start = joined_bytes(pieces), "", 0
    while start < len(data):
        length = _announced_length(data[start])
        try:
            text += data[start : start + length].decode("utf-8")
        except UnicodeDecodeError:
            text += "\ufffd"
        start += length
    return text.replace(SPACE, " ").removeprefix(" ")


def _space_kept(pieces: list[str]) -> str:
    """The right text, but with the space of a ▁ in front kept (an "x" first keeps it)."""
    return reference(["x", *pieces])[1:]


def _decode_turns(cases: list[Case], answers: list) -> str | None:
    """Name the slip the answers fit: Python's "replace" or "ignore", pieces decoded one by one,
    bytes skipped after a stray one, or the space in front kept."""
    if answers_fit(cases, answers, _replaced):
        return (
            "your answers fit Python's errors='replace': it writes one '\ufffd' for the start"
            " of a cut-off character as a whole, SentencePiece one for each stray byte."
        )
    if answers_fit(cases, answers, lambda p: _replaced(p, "ignore")):
        return "your answers drop the stray bytes: SentencePiece writes one '\ufffd' for each."
    if answers_fit(cases, answers, _one_piece_at_a_time):
        return (
            "your answers fit decoding each byte piece on its own: a character's bytes make "
            "it only together, so join the bytes first."
        )
    if any(
        answers_fit(cases, answers, lambda p, first=first: _announced_skipped(p, first))
        for first in (True, False)
    ):
        return (
            "your answers skip all the bytes a start byte announced when they make no "
            "character: after the one byte you give up on, go on at the very next byte "
            "(['▁a', '<0xE0>', '<0xAE>', 'b'] gives 'a\ufffd\ufffdb')."
        )
    if answers_fit(cases, answers, _space_kept):
        return "your answers keep the space in front: the ▁ that starts the text is dropped."
    return None


decode_pieces = Exercise(
    name="decode_pieces",
    lesson=7,
    points=1,
    target="decode_pieces",
    cases=_shown_cases,
    hidden_cases=_hidden_cases,
    wrong_turns=_decode_turns,
    hints=(
        "Work in bytes, not in text: a byte piece is one byte (its two hexadecimal digits), a "
        "normal piece is its text in UTF-8. Why must you join the bytes of all the pieces "
        "before you make any text?",
        "Read the joined bytes from the left. Lesson 1 tells you how many bytes a character "
        "takes and what its other bytes look like; Python's strict decoder tells you too, by "
        "raising. Where the bytes from here make no whole character, what is the one byte "
        "you give up on, and where do you go on? Check yourself: ['<0xE0>', '<0xAE>', '▁x'] "
        "gives '\ufffd\ufffd x': E0 starts a three-byte character, but after E0 AE comes "
        "▁x, not a third byte of it.",
    ),
    solution_code="""\
def decode_pieces(pieces: list[str]) -> str:
    data = b""
    for piece in pieces:
        if piece.startswith("<0x"):
            data += bytes([int(piece[3:5], 16)])
        else:
            data += piece.replace("▁", " ").encode("utf-8")
    text, start = "", 0
    while start < len(data):
        for end in range(start + 1, min(start + 4, len(data)) + 1):
            try:
                text += data[start:end].decode("utf-8")
                start = end
                break
            except UnicodeDecodeError:
                pass
        else:  # no character starts here
            text += "\\ufffd"
            start += 1
    return text.removeprefix(" ")
""",
)
