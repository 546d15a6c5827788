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


def save(tok, path: Path) -> None:
    """Write `tok` to `path` in the format above."""
    byte_ids = [tok.ranks[bytes([b])] for b in range(256)]
    lines = [
        f"{HEADER} v{VERSION}",
        f"name {escape(tok.name.encode('utf-8'))}",
        f"pattern {json.dumps(tok.pattern)}",
        "bytes identity"
        if byte_ids == list(range(256))
        else "bytes " + " ".join(map(str, byte_ids)),
        f"specials {len(tok.special_tokens)}",
        *(f"{i} {escape(s.encode('utf-8'))}" for s, i in tok.special_tokens.items()),
        f"merges {len(tok.merges)}",
        *(f"{tok.ranks[a + b]} {escape(a)} {escape(b)}" for a, b in tok.merges),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def load(cls, path: Path):
    """Read a tokenizer file; any damage raises ValueError naming the file and the line."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a tokenizer file (not UTF-8 text: {err.reason})") from None
    if lines and lines[-1] == "":
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
    vocab = {i: bytes([b]) for b, i in enumerate(byte_ids)}
    specials = {}
    for _ in range(reader.parse(lambda: int(reader.field("specials")), "a count")):
        i, token = reader.parse(
            lambda: _id_and_tokens(reader.next("a special token"), 1), "an id and a token"
        )
        specials[token[0].decode("utf-8")] = i
    merges, known = [], set(vocab.values())
    for _ in range(reader.parse(lambda: int(reader.field("merges")), "a count")):
        i, (left, right) = reader.parse(
            lambda: _id_and_tokens(reader.next("a merge"), 2), "an id and two tokens"
        )
        if i in vocab or left not in known or right not in known:
            reader.fail(f"merge {i} joins tokens that do not exist yet, or reuses id {i}")
        vocab[i] = left + right
        known.add(left + right)
        merges.append((left, right))
    if reader.pos < len(lines):
        reader.pos += 1
        reader.fail("unexpected text after the last merge")
    vocab.update({i: s.encode("utf-8") for s, i in specials.items()})
    return cls(vocab, merges, pattern, specials, name=name)


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

    def __init__(self, path: Path, lines: list[str]):
        self.path, self.lines, self.pos = path, lines, 0

    def fail(self, message: str):
        raise ValueError(f"{self.path}, line {self.pos}: {message}")

    def next(self, what: str) -> str:
        if self.pos >= len(self.lines):
            self.fail(f"the file ends where {what} should be (truncated?)")
        self.pos += 1
        return self.lines[self.pos - 1]

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
            self.fail(f"expected {expected}, found {self.lines[self.pos - 1][:60]!r}")
