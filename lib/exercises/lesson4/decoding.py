"""Lesson 4: `vocab_from_merges`, `first_bad_token` and `stream_decode`, from ids back to text.

Expected values come from `lib` (`bpe.build_vocab` for vocabularies) or from the reference
functions below, built on Python's own UTF-8 decoder: `bad_token` (which token a broken text's
first bad character starts in) and `reference_stream` (the chunks a chat UI should print). The
tokenizers behind the cases are trained on a few sentences written for these checks, in several
scripts, so that many tokens end in the middle of a character.
"""

from __future__ import annotations

import functools
import itertools

from lib import bpe
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng
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


def bad_token(ids: list[int], vocab: dict[int, bytes]) -> int | None:
    """The index in `ids` of the token where the joined bytes' first broken character starts
    (None if they are valid UTF-8): where Python's strict decoder first fails."""
    try:
        b"".join(vocab[i] for i in ids).decode("utf-8")
        return None
    except UnicodeDecodeError as error:
        ends = itertools.accumulate(len(vocab[i]) for i in ids)
        return next(k for k, end in enumerate(ends) if end > error.start)


def _blamed(tok: Tokenizer, sequences: list[list[int]]) -> list[Case]:
    vocab = dict(tok.vocab)
    return [Case(args=(ids, vocab), expected=bad_token(ids, vocab)) for ids in sequences]


def _bad_token_cases() -> list[Case]:
    tok = _tokenizer(400)
    return _blamed(tok, _id_sequences(tok)[:12] + _broken_streams(tok))


def _hidden_bad_token_cases() -> list[Case]:
    tok = _tokenizer(350)
    return _blamed(tok, _hidden_id_sequences(tok))


def reference_stream(ids: list[int], vocab: dict[int, bytes]) -> list[str]:
    """The chunks a chat UI prints: one per id (the text that became certain when it arrived),
    then what is left when the stream ends. Bytes that can never become a character show as
    "\ufffd" as soon as Python's strict decoder rejects them. (CPython's incremental decoder,
    behind `lib.streaming`, waits longer in one corner: after ed a0 to ed bf, the start of a
    surrogate, which no valid text holds.)"""
    chunks, pending = [], b""
    for i in ids:
        pending += vocab[i]
        shown = ""
        while pending:
            try:
                shown, pending = shown + pending.decode("utf-8"), b""
            except UnicodeDecodeError as error:
                shown += pending[: error.start].decode("utf-8")
                if error.reason == "unexpected end of data":  # unfinished: it may still come
                    pending = pending[error.start :]
                    break
                shown, pending = shown + "\ufffd", pending[error.end :]
        chunks.append(shown)
    return chunks + [pending.decode("utf-8", errors="replace")]


def _streamed(tok: Tokenizer, sequences: list[list[int]]) -> list[Case]:
    vocab = dict(tok.vocab)
    return [Case(args=(ids, vocab), expected=reference_stream(ids, vocab)) for ids in sequences]


def _broken_streams(tok: Tokenizer) -> list[list[int]]:
    """Streams with bytes that can never become a character, which must show as "\ufffd" at once
    while the stream goes on: a byte that never occurs in UTF-8 (ff) first, a lone continuation
    byte (80) in the middle, a character cut short by the next one (e0, then "ok"), two bad
    bytes in a row (ff fe), a lead byte whose next byte rules out every character (e0 80: that
    would be an overlong form), and lone tokens that are fragments of a character."""
    ids, ok = tok.encode(_TEXTS[1]), tok.encode("ok")
    fragments = [
        [i] for i in sorted(tok.vocab) if i >= 256 and "\ufffd" in tok.decode([i], errors="replace")
    ]
    broken = [[0xFF, *ids], [*ids[:3], 0x80, *ids[3:]], [0xE0, *ok], [*ids[:2], 0xFF, 0xFE, *ok]]
    broken += [[*ok, 0xE0, 0x80, *ok], [*ids[:3], 0xC0, 0x80, *ok], [*ids[:5], 0xF8, *ok]]
    broken += [[*ok, 0xF4, 0x90, 0x80, *ok]]  # f4 90: past U+10FFFF, the last code point
    # Characters begun over two or three tokens and never finished, cut off or not.
    for k in (0, 4, 7):
        broken += [[*ids[:k], 0xE0, 0xA4, *ok], [*ids[:k], 0xF0, 0x9F, 0x91]]
    broken += [[*ids[:6], 0xF0, 0x9F, 0x91, *ids[6:]]]
    # A token that starts in the middle of one character and ends in the middle of another: its
    # first bytes are broken for good, its last wait for the next token, which finishes them.
    both = [i for [i] in fragments if _starts_and_ends_broken(tok.vocab[i])]
    broken += [[*prefix, i, *_finish(tok.vocab[i])] for i in both[:2] for prefix in ([], ids[:2])]
    return [*broken, *fragments[:3]]


def _starts_and_ends_broken(token: bytes) -> bool:
    return 0x80 <= token[0] < 0xC0 and bool(_finish(token))


def _finish(token: bytes) -> list[int]:
    """The continuation bytes that complete the unfinished character at the end of `token`."""
    for back in range(1, 4):
        if len(token) >= back and token[-back] >= 0xC0:
            need = 2 if token[-back] < 0xE0 else 3 if token[-back] < 0xF0 else 4
            return [0xA8] * (need - back) if need > back else []
    return []


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


def _alone_first(ids: list[int], vocab: dict[int, bytes]) -> int | None:
    """The first token that is not UTF-8 on its own: the token-by-token answer."""
    return next((k for k, i in enumerate(ids) if bad_token([i], vocab) is not None), None)


def _blame_turns(cases: list[Case], answers: list) -> str | None:
    """Name the mistake when every wrong answer fits one: tokens judged one by one, a position
    in bytes taken for a token's index, or the token before the right one."""
    wrong = [(c, a) for c, a in zip(cases, answers, strict=True) if a != c.expected]
    if not wrong:
        return None
    if all(a == _alone_first(*c.args) for c, a in wrong):
        return (
            "Your answers blame the first token that is not UTF-8 on its own, but the tokens "
            "after such a token may complete its character. Only the joined bytes can tell: "
            "decode them all at once and ask the error where it starts."
        )
    if any(isinstance(a, int) and a >= len(c.args[0]) for c, a in wrong):
        return (
            "One of your answers is past the last token: the error's position counts bytes of "
            "the joined text, not tokens."
        )
    late = [isinstance(a, int) and c.expected is not None and a > c.expected for c, a in wrong]
    if all(late):
        return (
            "Your answers blame a token after the one where the broken character begins: "
            "that is where the error starts, not where it ends."
        )
    if all(isinstance(a, int) and c.expected is not None and a == c.expected - 1 for c, a in wrong):
        return (
            "Your answers are one token early: a token whose bytes end exactly where the "
            "trouble starts holds none of it."
        )
    return None


first_bad_token = Exercise(
    name="first_bad_token",
    lesson=4,
    points=1,
    target="first_bad_token",
    cases=_bad_token_cases,
    hidden_cases=_hidden_bad_token_cases,
    wrong_turns=_blame_turns,
    hints=(
        "A token that is not UTF-8 on its own is not to blame if the next tokens complete its "
        "character: only the joined bytes can tell. What does Python's strict decoding of "
        "them give you when it fails?",
        "A UnicodeDecodeError knows where the trouble starts: see its attributes start, end "
        "and reason. Is start counted in tokens, in characters or in bytes? Then: which "
        "token's bytes cover that position?",
        "Check yourself: the tokens b'ok', b'\\xe0\\xa4', b'\\xa8!', b'\\x80' join to "
        "'ok' + 'न' + '!' and a stray byte at position 6, which is in token 3. Cut the same "
        "ids after b'\\xe0\\xa4' and token 1 is to blame.",
    ),
    solution_code="""\
def first_bad_token(ids: list[int], vocab: dict[int, bytes]) -> int | None:
    try:
        b"".join(vocab[i] for i in ids).decode("utf-8")  # strict: raises at the first problem
    except UnicodeDecodeError as error:
        end = 0
        for k, i in enumerate(ids):
            end += len(vocab[i])  # the joined bytes up to the end of token k
            if end > error.start:  # error.start is a position in bytes, not in tokens
                return k
    return None
""",
)


def _stream_turns(cases: list[Case], answers: list) -> str | None:
    """Name the mistake the first wrong answer shows: a string missing or extra, a '\ufffd' for
    bytes that a later token completes, the end of the stream forgotten, or the right text
    shown too early or too late."""
    for case, answer in zip(cases, answers, strict=True):
        expected = case.expected
        if not isinstance(answer, list) or answer == expected:
            continue
        if len(answer) != len(expected) or not all(isinstance(a, str) for a in answer):
            return (
                "The list needs one string per id, then one more for the end of the stream "
                "(a '\\ufffd' if a character was left unfinished, else '')."
            )
        if "".join(answer).count("\ufffd") > "".join(expected).count("\ufffd"):
            return (
                "Your answer shows '\\ufffd' for bytes that a later token completes: hold "
                "the beginning of an unfinished character back until its last byte arrives."
            )
        if answer[:-1] == expected[:-1]:
            return (
                "The end of the stream: bytes still waiting can never be finished, so the "
                "last string is '\\ufffd' for them."
            )
        if "".join(answer) == "".join(expected):
            return (
                "Your text is right but comes at the wrong time: show a character as soon as "
                "its last byte arrives, and a '\\ufffd' as soon as its bytes can no longer "
                "become a character (decoding them strictly tells you), not later."
            )
    return None


stream_decode = Exercise(
    name="stream_decode",
    lesson=4,
    points=2,
    target="stream_decode",
    cases=_stream_decode_cases,
    hidden_cases=_hidden_stream_decode_cases,
    wrong_turns=_stream_turns,
    hints=(
        "Keep the bytes not shown yet in one bytes object. After each token, they split into "
        "text you can show now, maybe bytes that are broken for good, and maybe the beginning "
        "of a character at the very end, which must wait. At the end of the stream, whatever "
        "still waits is broken.",
        "Section 2 printed two reasons for a failed decode: 'unexpected end of data' and "
        "'invalid start byte'. Which one means 'wait for more', and which 'this can never be "
        "a character'? A UnicodeDecodeError also has start and end: where the trouble is.",
        "After a '\\ufffd' the bytes after the bad ones may be fine, or bad again, or "
        "unfinished: keep going until nothing more can be shown. Check yourself: b'ok "
        "\\xf0\\x9f' shows 'ok ' and keeps b'\\xf0\\x9f'; b'\\xff' then b'a' shows "
        "'\\ufffda'. The list has one more string than ids.",
    ),
    solution_code="""\
def stream_decode(ids: list[int], vocab: dict[int, bytes]) -> list[str]:
    chunks, pending = [], b""  # pending: bytes not shown yet
    for i in ids:
        pending += vocab[i]
        shown = ""
        while pending:
            try:
                shown += pending.decode("utf-8")
                pending = b""
            except UnicodeDecodeError as error:
                shown += pending[: error.start].decode("utf-8")  # all fine up to the trouble
                if error.reason == "unexpected end of data":  # only unfinished: may still come
                    pending = pending[error.start :]
                    break
                shown += "\\ufffd"  # bytes that can never become a character
                pending = pending[error.end :]
        chunks.append(shown)
    chunks.append(pending.decode("utf-8", errors="replace"))  # the end: what waits is broken
    return chunks
""",
)
