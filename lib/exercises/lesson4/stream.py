"""Lesson 4's `stream_decode`: the chunks a chat UI prints while the ids arrive, written without
codecs' incremental decoder. `reference_stream` is the reference, built on Python's strict UTF-8
decoder; `_stream_turns` names the usual mistakes."""

from __future__ import annotations

from lib.exercises.core import Case, Exercise
from lib.exercises.lesson4.ids import (
    broken_streams,
    hidden_id_sequences,
    id_sequences,
    tokenizer,
    with_token_bytes,
)
from lib.tokenizer import Tokenizer


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


def _stream_decode_cases() -> list[Case]:
    # 256: no merges at all, every token is a single byte
    return [
        case
        for size in (256, 400)
        for tok in [tokenizer(size)]
        for case in _streamed(tok, id_sequences(tok)[:12] + broken_streams(tok))
    ]


def _hidden_stream_decode_cases() -> list[Case]:
    return _streamed(tokenizer(350), hidden_id_sequences(tokenizer(350)))


def _same_but_for_count(shown: str, wanted: str) -> bool:
    """The same characters, and a '\ufffd' in `shown` only if there is one in `wanted`."""
    bad = "\ufffd"
    return shown.replace(bad, "") == wanted.replace(bad, "") and (bad in shown) == (bad in wanted)


def _stream_turns(cases: list[Case], answers: list) -> str | None:
    """Name the mistake the first wrong answer shows: a string missing or extra, the end of the
    stream forgotten, the right characters with too many or too few '\ufffd', a '\ufffd' for
    bytes that a later token completes, or the right text shown too early or too late."""
    for case, answer in zip(cases, answers, strict=True):
        expected = case.expected
        if not isinstance(answer, list) or answer == expected:
            continue
        if len(answer) != len(expected) or not all(isinstance(a, str) for a in answer):
            return (
                "The list needs one string per id, then one more for the end of the stream "
                "(a '�' if a character was left unfinished, else '')."
            )
        if answer[:-1] == expected[:-1] and "\ufffd" not in answer[-1]:
            return (
                "The end of the stream: bytes still waiting can never be finished, so the "
                "last string is '�' for them."
            )
        shown, wanted = "".join(answer), "".join(expected)
        bad, bad_wanted = shown.count("\ufffd"), wanted.count("\ufffd")
        # Checked before blaming early output: holding back right but writing '\ufffd' per bad
        # byte gives more of them too, in the very strings where they belong.
        if bad != bad_wanted and all(map(_same_but_for_count, answer, expected)):
            return (
                f"Your characters are right, but your strings hold {bad} '�' where "
                f'{bad_wanted} belong. Joined, they must equal b"".join(...).decode("utf-8", '
                "errors=\"replace\"): one '�' per piece Python's replace replaces, "
                "the bytes from a UnicodeDecodeError's start to its end (b'\\xe2\\x82A' gives "
                "'�A', not '��A')."
            )
        if bad > bad_wanted:
            return (
                "Your answer shows '�' for bytes that a later token completes: hold "
                "the beginning of an unfinished character back until its last byte arrives."
            )
        if shown == wanted:
            return (
                "Your text is right but comes at the wrong time: show a character as soon as "
                "its last byte arrives, and a '�' as soon as its bytes can no longer "
                "become a character, not later. Strict decoding tells you: every reason but "
                "'unexpected end of data' means broken, 'invalid continuation byte' too (a "
                "character cut short, or a second byte no character has, as in e0 80)."
            )
    return None


stream_decode = Exercise(
    name="stream_decode",
    lesson=4,
    points=2,
    target="stream_decode",
    cases=_stream_decode_cases,
    hidden_cases=_hidden_stream_decode_cases,
    wrong_turns=with_token_bytes(_stream_turns),
    hints=(
        "Keep the bytes not shown yet in one bytes object. After each token, they split into "
        "text you can show now, maybe bytes that are broken for good, and maybe the beginning "
        "of a character at the very end, which must wait. At the end of the stream, whatever "
        "still waits is broken.",
        "Section 2 printed two reasons for a failed decode: 'unexpected end of data' and "
        "'invalid start byte'. Lesson 1's table of broken bytes (section 7) shows a third, "
        "'invalid continuation byte', for a character cut short. Only one of the three means "
        "'wait for more': which? Every other means 'this can never be a character'. A "
        "UnicodeDecodeError also has start and end: where the trouble is.",
        "After a '�' the bytes after the bad ones may be fine, or bad again, or "
        "unfinished: keep going until nothing more can be shown. Check yourself: b'ok "
        "\\xf0\\x9f' shows 'ok ' and keeps b'\\xf0\\x9f'; the tokens b'\\xff' and b'a' "
        "give ['�', 'a', '']: the '�' at once, and one more string than ids.",
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
