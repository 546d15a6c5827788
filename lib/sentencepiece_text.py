"""What happens to text before and after a SentencePiece model: normalization, `▁`, decoding.

SentencePiece (Kudo and Richardson, 2018) trains on raw sentences, with no pre-tokenizer that
splits at spaces. Instead the space becomes an ordinary symbol, `▁` (U+2581), that pieces may
contain: "▁the" is "the" at the start of a word. Decoding is then exact and language-independent,
just join the pieces and turn `▁` back into spaces, which matters for languages written without
spaces between words (Chinese, Japanese, Thai).

Before that, the text is **normalized**: NFKC folds characters that Unicode considers the same
content in a different form (full-width `Ａ` -> `A`, the ligature `ﬁ` -> `fi`, `①` -> `1`,
`½` -> `1⁄2`), and runs of spaces shrink to one. The model never sees the original characters, so
a token's span must be mapped back through these steps to point at the original text.

>>> to_sentencepiece("  Hello   world ")
'▁Hello▁world'
>>> decode_pieces(["▁Hello", "▁wor", "ld", "▁", "<0xE2>", "<0x82>", "<0xAC>"])
'Hello world €'
"""

from __future__ import annotations

import re
import unicodedata

SPACE = "▁"  # U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space
_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def nfkc_changes(text: str) -> dict[str, str]:
    """Each distinct character of `text` that NFKC rewrites on its own, and what it becomes.

    >>> nfkc_changes("ﬁnal Ａ½")
    {'ﬁ': 'fi', 'Ａ': 'A', '½': '1⁄2'}

    (NFKC can also *combine* characters, "e" + U+0301 -> "é", and put combining marks in a
    standard order; those changes involve several characters and are not listed here.)
    """
    return {char: nfkc(char) for char in dict.fromkeys(text) if nfkc(char) != char}


def to_sentencepiece(text: str, add_dummy_prefix: bool = True) -> str:
    """The text as a SentencePiece model segments it (after its normalization rule): spaces at
    the ends dropped, runs of spaces made one, every space written `▁`, and one `▁` in front so
    that the first word looks like every other word."""
    text = re.sub(" +", " ", text).strip(" ")
    return (SPACE if add_dummy_prefix and text else "") + text.replace(" ", SPACE)


def decode_pieces(pieces: list[str]) -> str:
    """Join pieces into text as SentencePiece does: byte pieces (`<0xE2>`) become their bytes,
    `▁` becomes a space, and the space that the dummy prefix added is removed.

    A byte that does not start a whole UTF-8 character becomes one U+FFFD, and decoding goes on
    at the next byte, so a cut-off character leaves one "\ufffd" per byte. (Python's
    `errors="replace"` writes one for the cut-off start as a whole: "a\ufffdb" for the example.)

    >>> decode_pieces(["▁a", "<0xE0>", "<0xAE>", "b"])
    'a\ufffd\ufffdb'
    """
    return _per_byte_replace(joined_bytes(pieces)).replace(SPACE, " ").removeprefix(" ")


def joined_bytes(pieces: list[str]) -> bytes:
    """The bytes that `pieces` spell: a byte piece (`<0xE2>`) its byte, any other its UTF-8."""
    return b"".join(
        bytes([int(m.group(1), 16)]) if (m := _BYTE_PIECE.fullmatch(p)) else p.encode("utf-8")
        for p in pieces
    )


def _per_byte_replace(data: bytes) -> str:
    """`data` decoded as UTF-8, each byte that starts no whole character read as U+FFFD."""
    text, start = [], 0
    while start < len(data):
        # A character is 1 to 4 bytes; the strict decoder says whether these make one.
        for end in range(start + 1, min(start + 4, len(data)) + 1):
            try:
                text.append(data[start:end].decode("utf-8"))
                start = end
                break
            except UnicodeDecodeError:
                continue
        else:
            text.append("\ufffd")
            start += 1
    return "".join(text)


def original_spans(text: str, tokens: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """Map the (start, end) spans of tokens of `to_sentencepiece(text)` back to spans of `text`.

    First record where each character of the `▁` text came from in `text`, skipping the spaces
    that were dropped (of a run of spaces, the last one stays). A `▁` that was a space spans
    that space; the dummy `▁` in front came from nowhere, and is charged to the first character,
    as Hugging Face does (so a lone dummy `▁` and the first character have the same span).
    `text` must be normalized already: NFKC can change the number of characters.
    """
    source = []  # source[j] = where character j of the ▁ text (after the dummy) is in `text`
    i = 0
    for char in to_sentencepiece(text)[1:]:
        while text[i] != char and not (char == SPACE and text[i] == " "):
            i += 1
        while char == SPACE and text[i + 1] == " ":  # of a run of spaces, the last one stays
            i += 1
        source.append(i)
        i += 1
    source.insert(0, source[0] if source else 0)  # the dummy prefix: the first character
    return [(source[start], source[end - 1] + 1) for _, start, end in tokens]
