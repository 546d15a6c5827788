"""GPT-2's tokenizer files, `vocab.json` and `merges.txt`, read and written.

OpenAI released GPT-2's tokenizer as two text files, and Hugging Face and many other projects
kept the format. Both files need tokens as *text*, but a byte-level token is bytes and need not be
valid UTF-8. So every byte is first written as one printable character: the bytes that already
look like printable Latin-1 characters ("!" to "~", "¡" to "¬", "®" to "ÿ") stand for
themselves, and the 68 others (space, control bytes, ...) take the characters from U+0100 on, in
order. That is why a space shows up as "Ġ" (U+0120) and a newline as "Ċ" in these files.

>>> token_text(b" hello\\n")
'ĠhelloĊ'
>>> token_bytes("Ġhello")
b' hello'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path


def _byte_chars() -> list[str]:
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = [b for b in range(256) if b not in printable]
    chars = {b: chr(b) for b in printable} | {b: chr(256 + n) for n, b in enumerate(others)}
    return [chars[b] for b in range(256)]


BYTE_CHARS = _byte_chars()  # byte value -> the character that stands for it
CHAR_BYTES = {ch: b for b, ch in enumerate(BYTE_CHARS)}


def token_text(token: bytes) -> str:
    """A token's bytes as GPT-2's file text."""
    return "".join(BYTE_CHARS[b] for b in token)


def token_bytes(text: str, where: str = "") -> bytes:
    """The bytes a token of GPT-2's file text stands for; ValueError for a foreign character."""
    try:
        return bytes(CHAR_BYTES[ch] for ch in text)
    except KeyError as err:
        raise ValueError(
            f"{where}token {text!r} has the character {err.args[0]!r}, which stands for no byte "
            "in GPT-2's byte-to-character mapping (is this a byte-level BPE file?)"
        ) from None


def read(vocab_json: str | Path, merges_txt: str | Path) -> tuple[dict[int, bytes], list]:
    """(vocab {id: bytes}, merges in file order) from GPT-2's two files."""
    vocab_json, merges_txt = Path(vocab_json), Path(merges_txt)
    try:
        entries = json.loads(vocab_json.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{vocab_json}: not a vocab.json file ({err})") from None
    if not isinstance(entries, dict):
        raise ValueError(f"{vocab_json}: expected a JSON object {{token: id}}")
    vocab = {}
    for text, i in entries.items():
        if not isinstance(i, int) or i in vocab:
            raise ValueError(f"{vocab_json}: token {text!r} has id {i!r}, not a new integer id")
        vocab[i] = token_bytes(text, f"{vocab_json}: ")
    merges = []
    lines = merges_txt.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{merges_txt}, line {number}: expected 'left right', found {line!r}")
        where = f"{merges_txt}, line {number}: "
        merges.append((token_bytes(parts[0], where), token_bytes(parts[1], where)))
    return vocab, merges


def write(
    vocab_json: str | Path,
    merges_txt: str | Path,
    ids: Mapping[bytes, int],
    merges: list[tuple[bytes, bytes]],
) -> None:
    """Write {token bytes: id} and the merges as GPT-2's vocab.json and merges.txt."""
    entries = {token_text(token): i for token, i in sorted(ids.items(), key=lambda kv: kv[1])}
    Path(vocab_json).write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    lines = ["#version: 0.2", *(f"{token_text(a)} {token_text(b)}" for a, b in merges)]
    Path(merges_txt).write_text("\n".join(lines) + "\n", encoding="utf-8")
