"""Lesson 4: `vocab_from_merges`, `decode` and `stream_decode`, from ids back to text.

Expected values come from `lib`: `bpe.build_vocab` for vocabularies, `Tokenizer.decode` for text and
`lib.streaming.StreamingDecoder` for the chunks a chat UI should print. The tokenizers behind the
cases are trained on a few sentences written for these checks, in several scripts, so that many
tokens end in the middle of a character.
"""

from __future__ import annotations

import functools

from lib import bpe
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng
from lib.streaming import StreamingDecoder
from lib.tokenizer import Tokenizer

# Written for these checks: English, Hindi, Korean, Russian, and emoji (a skin tone, a ZWJ family).
_TRAINING_TEXT = (
    "the cat sat on the mat, and the hat sat on the cat. "
    "नमस्ते! आज मौसम बहुत अच्छा है। मैं चाय पीता हूँ और किताब पढ़ता हूँ। "
    "안녕하세요, 오늘 날씨가 좋아요. "
    "Привет, как дела? Всё хорошо. "
    "👋🏽 👋🏽 🎉🎉 👨‍👩‍👧 "
) * 3

_TEXTS = [
    "the cat sat",
    "नमस्ते, आज चाय?",
    "안녕하세요 👋🏽",
    "Всё хорошо 🎉",
    "👨‍👩‍👧 family",
    "",
]


@functools.cache
def _tokenizer(vocab_size: int) -> Tokenizer:
    """A byte-level tokenizer with no split pattern: its merges cross characters freely."""
    return Tokenizer.train(_TRAINING_TEXT, vocab_size)


def _id_sequences(tok: Tokenizer) -> list[list[int]]:
    """Whole texts, plus cut-off ones and lone tokens whose bytes are not valid UTF-8."""
    seqs = [tok.encode(text) for text in _TEXTS]
    long_ids = tok.encode(_TEXTS[1] + _TEXTS[2])
    seqs += [long_ids[:k] for k in range(1, len(long_ids), 3)]
    seqs += [[i] for i in sorted(tok.vocab) if i >= 256][:10]
    return seqs


def _hidden_id_sequences(tok: Tokenizer, random_ids: bool = True) -> list[list[int]]:
    """Texts check() never shows, whole and cut short, and (if `random_ids`) runs of random ids,
    mostly not UTF-8."""
    draw = rng(21)
    seqs = [tok.encode(text) for text in random_texts(21, 10, longest=20)]
    seqs += [ids[: draw.randint(1, len(ids))] for ids in seqs if ids]
    if random_ids:
        seqs += [draw.choices(sorted(tok.vocab), k=draw.randint(1, 8)) for _ in range(10)]
    return seqs


def _hidden_vocab_from_merges_cases() -> list[Case]:
    """Other merge lists, and made-up ones: the vocabulary follows from any list of pairs."""
    draw = rng(22)
    pieces = [text.encode("utf-8") for text in random_texts(22, 30, longest=3)]
    made_up = []
    for _ in range(8):
        count = draw.randint(1, 20)
        made_up.append([tuple(draw.sample(pieces, 2)) for _ in range(count)])
    merge_lists = [list(_tokenizer(size).merges) for size in (257, 333)] + made_up
    return [Case(args=(merges,), expected=bpe.build_vocab(merges)) for merges in merge_lists]


def _vocab_from_merges_cases() -> list[Case]:
    cases = [Case(args=([],), expected=bpe.build_vocab([]))]
    for vocab_size in (260, 300, 400):
        merges = _tokenizer(vocab_size).merges
        cases.append(Case(args=(list(merges),), expected=bpe.build_vocab(merges)))
    return cases


def _decoded(tok: Tokenizer, sequences: list[list[int]]) -> list[Case]:
    return [Case(args=(ids, dict(tok.vocab)), expected=tok.decode(ids)) for ids in sequences]


def _decode_cases() -> list[Case]:
    return _decoded(_tokenizer(400), _id_sequences(_tokenizer(400)))


def _hidden_decode_cases() -> list[Case]:
    return _decoded(_tokenizer(350), _hidden_id_sequences(_tokenizer(350)))


def reference_stream(ids: list[int], tok: Tokenizer) -> list[str]:
    """The chunks a chat UI prints: one per id, then the flush at the end of the stream."""
    decoder = StreamingDecoder(tok)
    return [decoder.feed(i) for i in ids] + [decoder.flush()]


def _streamed(tok: Tokenizer, sequences: list[list[int]]) -> list[Case]:
    return [
        Case(args=(ids, dict(tok.vocab)), expected=reference_stream(ids, tok)) for ids in sequences
    ]


def _stream_decode_cases() -> list[Case]:
    # 256: no merges at all, every token is a single byte
    return [
        case
        for size in (256, 400)
        for case in _streamed(_tokenizer(size), _id_sequences(_tokenizer(size))[:12])
    ]


def _hidden_stream_decode_cases() -> list[Case]:
    return _streamed(_tokenizer(350), _hidden_id_sequences(_tokenizer(350), random_ids=False))


vocab_from_merges = Exercise(
    name="vocab_from_merges",
    lesson=4,
    points=1,
    target="vocab_from_merges",
    cases=_vocab_from_merges_cases,
    hidden_cases=_hidden_vocab_from_merges_cases,
    hints=(
        "Two parts: the 256 ids every byte-level vocabulary starts with, then one new id "
        "per merge, in order. What bytes does a merge's new token stand for?",
        "Id i below 256 stands for the one byte with value i (bytes of a one-item list "
        "makes it). Merge number i in the list (counting from 0) gets id 256 + i, and "
        "stands for its left and right halves put together. Check: the first merge gets "
        "id 256.",
    ),
    solution_code="""\
def vocab_from_merges(merges: list[tuple[bytes, bytes]]) -> dict[int, bytes]:
    vocab = {i: bytes([i]) for i in range(256)}  # ids 0..255: the single bytes
    for i, (left, right) in enumerate(merges):
        vocab[256 + i] = left + right  # a merge's token is its two halves joined
    return vocab
""",
)

decode = Exercise(
    name="decode",
    lesson=4,
    points=1,
    target="decode",
    cases=_decode_cases,
    hidden_cases=_hidden_decode_cases,
    hints=(
        "Section 2 did this by hand: look up, join, and only then turn bytes into text. "
        "Which errors= setting keeps going past bytes that are not UTF-8?",
        "Join first, decode once: a token may hold half a character, so decoding token by"
        " token would break characters that the next token completes. Decode the joined "
        "bytes with errors='replace', which turns invalid bytes into '\\ufffd' instead of "
        "raising.",
    ),
    solution_code="""\
def decode(ids: list[int], vocab: dict[int, bytes]) -> str:
    raw = b"".join(vocab[i] for i in ids)  # join the bytes first: tokens may split characters
    return raw.decode("utf-8", errors="replace")
""",
)

stream_decode = Exercise(
    name="stream_decode",
    lesson=4,
    points=2,
    allowed_lib=("codecs",),
    target="stream_decode",
    cases=_stream_decode_cases,
    hidden_cases=_hidden_stream_decode_cases,
    hints=(
        "Each token's bytes go into something that remembers what came before: it gives "
        "back only the characters that are complete, and the rest waits for the next "
        "token. At the end of the stream, whatever still waits must come out too.",
        "Section 5 showed a Python object that does exactly this remembering. Call it "
        "once per id, then once more, telling it the stream is over.",
        "The easy way is the incremental decoder of the codecs module, made with "
        "errors='replace' so that a bad byte mid-stream becomes '\\ufffd' and the stream "
        "goes on; look up how to tell it the input has ended. The hard way: keep a bytes "
        "buffer, look back at most 3 bytes from its end for a lead byte, and hold back a "
        "character that still needs more bytes. Either way the list has one more string "
        "than ids.",
    ),
    solution_code="""\
import codecs


def stream_decode(ids: list[int], vocab: dict[int, bytes]) -> list[str]:
    # The incremental decoder returns every complete character and keeps an unfinished one back.
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    chunks = [utf8.decode(vocab[i]) for i in ids]
    chunks.append(utf8.decode(b"", final=True))  # end of stream: leftovers can never complete
    return chunks
""",
)
