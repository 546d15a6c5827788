"""WordPiece, the tokenizer of BERT: greedy longest-match-first over a fixed vocabulary.

Encoding has two steps. **Pre-tokenization** cuts the text into words: at whitespace, and around
every punctuation mark and every CJK ideograph (Chinese is written without spaces, so BERT treats
each ideograph as a word of its own). Then each word is cut into **pieces**, greedily: take the
longest prefix of the word that is in the vocabulary, then the longest prefix of what is left,
and so on. A piece that does not start a word is written with `##` in front (`"token"`,
`"##ization"`), so "izat" inside a word and "izat" as a word are different tokens.

If some part of a word matches no piece at all, the *whole word* becomes `[UNK]`: unlike
byte-level BPE, WordPiece can lose text. `vocab_from_bpe` builds a vocabulary from BPE pieces, as
Hugging Face's `WordPieceTrainer` does. This is what Hugging Face `tokenizers`' `WordPiece` model
does with `BertPreTokenizer` (and a `BertNormalizer` that only separates CJK characters); the tests
check it piece for piece, id for id and offset for offset. One difference is not the algorithm's:
punctuation is what Python's Unicode tables say it is, and Hugging Face's Rust tables are older, so
a mark added to Unicode lately (U+2E52, in 2020) cuts a word here and not there.

Every function here returns **offsets** with its tokens: the (start, end) character span of the
original text that each token came from, so `text[start:end]` is what the token stands for.
"""

from __future__ import annotations

import string
import unicodedata

Token = tuple[str, int, int]  # (piece, start, end): text[start:end] is what the piece covers

UNK = "[UNK]"
PREFIX = "##"
MAX_CHARS = 100  # BERT's limit: a longer "word" is [UNK] without even trying

# Rust's char::is_whitespace (Unicode White_Space); Python's str.isspace also accepts the four
# ASCII information separators, which are not whitespace to Hugging Face.
_NOT_WHITESPACE = frozenset("\x1c\x1d\x1e\x1f")

# The CJK Unified Ideographs blocks BERT puts spaces around (its `_is_chinese_char`). Japanese
# kana and Korean Hangul are not in them: those words stay whole.
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_whitespace(char: str) -> bool:
    return char.isspace() and char not in _NOT_WHITESPACE


def is_punctuation(char: str) -> bool:
    """ASCII punctuation (which includes symbols such as `$` and `+`) or any Unicode P* category."""
    return char in string.punctuation or unicodedata.category(char).startswith("P")


def is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def pre_tokenize(text: str) -> list[Token]:
    """Cut `text` into words with their spans: at whitespace (dropped), and around punctuation
    and CJK ideographs (each kept as a one-character word).

    >>> pre_tokenize("Hi, 世界!")
    [('Hi', 0, 2), (',', 2, 3), ('世', 4, 5), ('界', 5, 6), ('!', 6, 7)]
    """
    words: list[Token] = []
    start = None  # where the word being read began, if one is being read
    for i, char in enumerate(text):
        alone = is_punctuation(char) or is_cjk(char)
        if is_whitespace(char) or alone:
            if start is not None:
                words.append((text[start:i], start, i))
                start = None
            if alone:
                words.append((char, i, i + 1))
        elif start is None:
            start = i
    if start is not None:
        words.append((text[start:], start, len(text)))
    return words


def encode_word(word: str, vocab: dict[str, int] | set[str]) -> list[str]:
    """The pieces of one word, by greedy longest match first; `["[UNK]"]` if any part fails.

    >>> encode_word("unaffable", {"un", "##aff", "##able", "##a"})
    ['un', '##aff', '##able']
    """
    if len(word) > MAX_CHARS:
        return [UNK]
    pieces = []
    start = 0
    while start < len(word):
        prefix = PREFIX if start > 0 else ""
        # Try the longest candidate first and shrink it one character at a time.
        for end in range(len(word), start, -1):
            piece = prefix + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:  # not even one character matched: give up on the whole word
            return [UNK]
    return pieces


def tokenize(text: str, vocab: dict[str, int] | set[str]) -> list[Token]:
    """Every piece of `text` with its (start, end) span in `text`.

    An `[UNK]` spans its whole word; the span of a `##` piece leaves out the `##`, which is not
    in the text.
    """
    tokens: list[Token] = []
    for word, word_start, word_end in pre_tokenize(text):
        pieces = encode_word(word, vocab)
        if pieces == [UNK]:
            tokens.append((UNK, word_start, word_end))
            continue
        start = word_start
        for piece in pieces:
            end = start + len(piece) - (len(PREFIX) if piece.startswith(PREFIX) else 0)
            tokens.append((piece, start, end))
            start = end
    return tokens


def encode(text: str, vocab: dict[str, int]) -> list[int]:
    """The token ids of `text` (`vocab` maps each piece, `[UNK]` included, to its id)."""
    return [vocab[piece] for piece, _, _ in tokenize(text, vocab)]


def decode(pieces: list[str]) -> str:
    """Join pieces back into text: `##` pieces glue to the one before, others get a space.

    Decoding is lossy: the spaces around punctuation and what an `[UNK]` hid are gone.
    """
    text = ""
    for piece in pieces:
        text += piece[len(PREFIX) :] if piece.startswith(PREFIX) else " " * bool(text) + piece
    return text


def vocab_from_bpe(pieces: list[str], size: int) -> dict[str, int]:
    """A WordPiece vocabulary of `size` pieces (ids in order) from BPE pieces written in
    SentencePiece's notation, in the order they were learned.

    Hugging Face's `WordPieceTrainer` learns its vocabulary with BPE's merge loop, then writes
    the pieces the WordPiece way, but its vocabulary can differ from one run to the next.
    SentencePiece's BPE trainer is deterministic, and its `▁x` (x at the start of a word) is
    WordPiece's `x`, any other piece `y` is `##y`. First come `[UNK]` and every
    character (with its `##` form too, except punctuation and CJK ideographs, which are always
    words of their own), so that any word of known characters can be spelled; then the longer
    pieces in order until the vocabulary is full.
    """
    alone = {c for p in pieces for c in p if is_punctuation(c) or is_cjk(c)}
    chars = sorted({c for p in pieces for c in p if c != "▁"})
    vocab = dict.fromkeys(
        [UNK, *(form for c in chars for form in (c, PREFIX + c)[: 2 - (c in alone)])]
    )
    for piece in pieces:
        if len(vocab) >= size:
            break
        if len(piece.lstrip("▁")) > 1 and not alone & set(piece):
            vocab[piece[1:] if piece.startswith("▁") else PREFIX + piece] = None
    return {piece: i for i, piece in enumerate(list(vocab)[:size])}
