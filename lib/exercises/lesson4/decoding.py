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


def _by_ids(merges: list[tuple[bytes, bytes]]) -> dict[tuple[int, int], int]:
    """The same merges as Karpathy's minbpe keeps them: {(left id, right id): new id}."""
    ids: dict[bytes, int] = {}
    for i, token in bpe.build_vocab(merges).items():
        ids.setdefault(token, i)  # the first id with these bytes: always older than its merges
    return {(ids[left], ids[right]): 256 + i for i, (left, right) in enumerate(merges)}


def _in_order(merges: dict, order: str, seed: int = 0) -> dict:
    """The same dict listed in another order: as learned, reversed, or shuffled."""
    items = list(merges.items())
    if order == "reversed":
        items.reverse()
    elif order == "shuffled":
        rng(seed).shuffle(items)
    return dict(items)


def _id_merge_case(merges: list[tuple[bytes, bytes]], order: str, seed: int = 0) -> Case:
    return Case(args=(_in_order(_by_ids(merges), order, seed),), expected=bpe.build_vocab(merges))


def _made_up_merges(seed: int, count: int) -> list[tuple[bytes, bytes]]:
    """Merges of any two tokens made so far (secret when the grader draws them), each new."""
    draw = rng(seed)
    tokens, merges = [bytes([b]) for b in range(256)], []
    while len(merges) < count:
        left, right = draw.choice(tokens), draw.choice(tokens)
        if left + right not in tokens:  # one id per byte string, as training makes them
            merges.append((left, right))
            tokens.append(left + right)
    return merges


def _out_of_order(cases: list[Case], answers: list) -> str | None:
    """Name the order mistake: an answer that raised on a dict not listed in id order."""
    for case, answer in zip(cases, answers, strict=True):
        new_ids = list(case.args[0].values())
        if answer is None and new_ids != sorted(new_ids):
            return (
                "Your code raised on a dict that does not list its merges in the order they were "
                "learned. Both halves of a merge must be in your vocabulary before the merge is."
            )
    return None


def _vocab_from_merges_cases() -> list[Case]:
    cases = [_id_merge_case([], "as learned")]
    for vocab_size, order in ((260, "as learned"), (300, "reversed"), (400, "shuffled")):
        cases.append(_id_merge_case(list(_tokenizer(vocab_size).merges), order, vocab_size))
    return cases


def _hidden_vocab_from_merges_cases() -> list[Case]:
    """Other trained merges, and made-up ones, each in a shuffled order."""
    cases = [_id_merge_case(list(_tokenizer(size).merges), "shuffled", size) for size in (257, 333)]
    for seed in range(8):
        merges = _made_up_merges(220 + seed, 1 + 3 * seed)
        cases.append(_id_merge_case(merges, "shuffled", seed))
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


def _broken_streams(tok: Tokenizer) -> list[list[int]]:
    """Streams with bytes that can never become a character, which must show as "\ufffd" at once
    while the stream goes on: a byte that never occurs in UTF-8 (ff) first, a lone continuation
    byte (80) in the middle, a character cut short by the next one (e0, then "ok"), and lone
    tokens that are fragments of a character."""
    ids, ok = tok.encode(_TEXTS[1]), tok.encode("ok")
    fragments = [
        [i] for i in sorted(tok.vocab) if i >= 256 and "\ufffd" in tok.decode([i], errors="replace")
    ]
    return [[0xFF, *ids], [*ids[:3], 0x80, *ids[3:]], [0xE0, *ok], *fragments[:3]]


def _stream_decode_cases() -> list[Case]:
    # 256: no merges at all, every token is a single byte
    return [
        case
        for size in (256, 400)
        for tok in [_tokenizer(size)]
        for case in _streamed(tok, _id_sequences(tok)[:12] + _broken_streams(tok))
    ]


def _hidden_stream_decode_cases() -> list[Case]:
    return _streamed(_tokenizer(350), _hidden_id_sequences(_tokenizer(350)))


vocab_from_merges = Exercise(
    name="vocab_from_merges",
    lesson=4,
    points=1,
    target="vocab_from_merges",
    cases=_vocab_from_merges_cases,
    hidden_cases=_hidden_vocab_from_merges_cases,
    wrong_turns=_out_of_order,
    hints=(
        "Ids 0 to 255 are the single bytes. Every other id's bytes are its two halves' bytes "
        "joined, and you can only join halves whose bytes you already know.",
        "A merge's two halves existed before it, so they have smaller ids than the merge "
        "itself. In which order can you go through the merges so that both halves are always "
        "known? The dict's own order may be any.",
    ),
    solution_code="""\
def vocab_from_merges(merges: dict[tuple[int, int], int]) -> dict[int, bytes]:
    vocab = {i: bytes([i]) for i in range(256)}  # ids 0..255: the single bytes
    # A merge's halves are older tokens: go in the order of the new ids, whatever the dict's.
    for (left, right), new_id in sorted(merges.items(), key=lambda item: item[1]):
        vocab[new_id] = vocab[left] + vocab[right]
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
