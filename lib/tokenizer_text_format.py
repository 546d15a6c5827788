"""Saving and loading tokenizers as plain text a person can read (never pickle).

    lib.Tokenizer v1
    name custom
    pattern "'(?:[sdmt]|ll|ve|re)| ?\\p{L}++| ..."       <- JSON string, or null for no pattern
    bytes identity                                       <- byte b has id b (else: 256 ids)
    specials 1
    1000 <|endoftext|>
    merges 243
    256 \\x20 t                                           <- id, left token, right token
    257 \\x20 a

Tokens are written as text where the bytes are valid UTF-8, with a backslash escape for anything
else: `\\x20` a byte (space, broken UTF-8), `\\u00a0` or `\\U0001f600` an invisible
character, `\\\\` a backslash. So "Ġt"-style byte maps are not needed, and every line splits
on single spaces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

HEADER = "lib.Tokenizer"
VERSION = 1


def escape(token: bytes) -> str:
    """Readable, space-free text for a token's bytes; `unescape` reverses it exactly."""
    out = []
    for ch in token.decode("utf-8", errors="surrogateescape"):
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not part of valid UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch == "\\":
            out.append("\\\\")
        elif ch.isprintable() and not ch.isspace():
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "".join(out)


def unescape(text: str) -> bytes:
    """The bytes that `escape` wrote as `text`."""
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        kind = text[i + 1 : i + 2]
        width = {"\\": 0, "x": 2, "u": 4, "U": 8}.get(kind)
        digits = text[i + 2 : i + 2 + (width or 0)]
        if (
            width is None
            or len(digits) != width
            or not all(c in "0123456789abcdef" for c in digits)
        ):
            raise ValueError(f"bad escape {text[i : i + 2 + (width or 0)]!r} in {text!r}")
        if kind == "\\":
            out += b"\\"
        elif kind == "x":
            out.append(int(digits, 16))
        else:
            out += chr(int(digits, 16)).encode("utf-8", errors="surrogatepass")
        i += 2 + width
    return bytes(out)


def dumps(tok) -> str:
    """`tok` (a `lib.Tokenizer`) as text in the format above."""
    ids, merges, specials = tok.ranks, tok.merges, tok.special_tokens
    if len(tok.vocab) != 256 + len(merges) + len(specials):
        raise ValueError(
            "this format stores bytes, merges and special tokens only, but the vocabulary has "
            f"{len(tok.vocab) - 256 - len(merges) - len(specials)} tokens that no merge makes"
        )
    byte_ids = [ids[bytes([b])] for b in range(256)]
    lines = [
        f"{HEADER} v{VERSION}",
        f"name {escape(tok.name.encode('utf-8'))}",
        f"pattern {json.dumps(tok.pattern)}",
        "bytes identity"
        if byte_ids == list(range(256))
        else "bytes " + " ".join(map(str, byte_ids)),
        f"specials {len(specials)}",
        *(f"{i} {escape(s.encode('utf-8'))}" for s, i in specials.items()),
        f"merges {len(merges)}",
        *(f"{ids[a + b]} {escape(a)} {escape(b)}" for a, b in merges),
    ]
    return "\n".join(lines) + "\n"


def read(path: Path) -> tuple[dict[int, bytes], list, str | None, dict[str, int], str]:
    """(vocab, merges, pattern, special tokens, name) from a tokenizer file; any damage raises
    ValueError naming the file and the line."""
    lines = path.read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    reader = _Reader(path, lines)
    header = reader.next("header")
    if not header.startswith(HEADER + " v"):
        reader.fail(f"not a tokenizer file: expected {HEADER} v{VERSION}, found {header[:60]!r}")
    if header != f"{HEADER} v{VERSION}":
        reader.fail(f"format {header!r}; this version of lib reads {HEADER} v{VERSION}")
    name = unescape(reader.field("name")).decode("utf-8")
    pattern = reader.parse(lambda: json.loads(reader.field("pattern")), "a JSON string or null")
    byte_field = reader.field("bytes")
    byte_ids = (
        list(range(256))
        if byte_field == "identity"
        else reader.parse(lambda: _ints(byte_field, 256), "'identity' or 256 ids")
    )
    if len(set(byte_ids)) != 256:
        reader.fail("two bytes share an id")
    vocab = {i: bytes([b]) for b, i in enumerate(byte_ids)}
    specials: dict[str, int] = {}
    for _ in range(reader.parse(lambda: int(reader.field("specials")), "a count")):
        i, token = reader.parse(
            lambda: _id_and_tokens(reader.next("a special token"), 1), "an id and a token"
        )
        special = reader.parse(token[0].decode, "a special token in UTF-8")
        if i in vocab or i in specials.values() or special in specials:
            reader.fail(f"special token {special!r} with id {i}: the id or the token is taken")
        specials[special] = i
    merges, known = [], set(vocab.values())
    for _ in range(reader.parse(lambda: int(reader.field("merges")), "a count")):
        i, (left, right) = reader.parse(
            lambda: _id_and_tokens(reader.next("a merge"), 2), "an id and two tokens"
        )
        if i in vocab or i in specials.values() or left not in known or right not in known:
            reader.fail(f"merge {i} joins tokens that do not exist yet, or reuses id {i}")
        vocab[i] = left + right
        known.add(left + right)
        merges.append((left, right))
    if reader.pos < len(lines):
        reader.pos += 1
        reader.fail("unexpected text after the last merge")
    return vocab, merges, pattern, specials, name


def _ints(text: str, count: int) -> list[int]:
    values = [int(v) for v in text.split(" ")]
    if len(values) != count:
        raise ValueError
    return values


def _id_and_tokens(line: str, count: int) -> tuple[int, list[bytes]]:
    fields = line.split(" ")
    if len(fields) != count + 1:
        raise ValueError
    return int(fields[0]), [unescape(f) for f in fields[1:]]


class _Reader:
    """Walks the lines of a tokenizer file and words errors as "file, line N: what is wrong"."""

    def __init__(self, path: Path, lines: list[bytes]):
        self.path, self.lines, self.pos = path, lines, 0

    def fail(self, message: str) -> NoReturn:
        raise ValueError(f"{self.path}, line {self.pos}: {message}")

    def next(self, what: str) -> str:
        if self.pos >= len(self.lines):
            self.fail(f"the file ends where {what} should be (truncated?)")
        self.pos += 1
        try:
            return self.lines[self.pos - 1].decode("utf-8")
        except UnicodeDecodeError as err:
            self.fail(f"not a tokenizer file (not UTF-8 text: {err.reason} at byte {err.start})")

    def field(self, key: str) -> str:
        line = self.next(f"'{key} ...'")
        if not line.startswith(key + " "):
            self.fail(f"expected '{key} ...', found {line[:60]!r}")
        return line[len(key) + 1 :]

    def parse(self, read, expected: str):
        try:
            return read()
        except (ValueError, UnicodeDecodeError) as err:
            if str(err).startswith(str(self.path)):
                raise
            found = self.lines[self.pos - 1][:60].decode("utf-8", errors="replace")
            self.fail(f"expected {expected}, found {found!r}")
