"""Read a corpus from files in pieces that pre-tokenize exactly as the whole text would.

Training on gigabytes cannot hold the text in one string, and cannot split it with the pattern in
one process. So the files are read block by block, and the text is cut into chunks that can be
counted separately, in parallel. A cut is only safe where it cannot change the split:

- right after a special token: `bpe.train` cuts there anyway, and no merge crosses one;
- for the named patterns (gpt2, gpt4, gpt4o), before a space that follows a non-space
  ("word| next"), or before a letter that starts a line after a non-space ("end.\\n|Next").
  No chunk of those patterns holds both characters around such a cut, and neither half reads
  across it. A cut inside a run of spaces would not be safe: `\\s+(?!\\S)` leaves the last space
  of "a   b" for " b", which only the text after the run decides; and a cut after a run of
  whitespace would let `\\s++$` see an end of text that is not there.

Any other pattern may look arbitrarily far ahead, so it is cut at special tokens only. The files
are read as one text, as if concatenated; each must be valid UTF-8 on its own.

`lib.lazy_encode` answers the same question (where may a stream be cut without changing how it
splits?) for encoding, the other way: it runs the split pattern on the text it holds and cuts at
the start of any match but the last, which works for every pattern. Training cannot afford that
here, because the point of cutting is to give the splitting itself to the worker processes; so it
cuts by the character rule above, which needs no split but holds only for the named patterns.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import regex

from lib import patterns

# Zero-width: matches at a cut position p (found from the end, hence REVERSE).
_PATTERN_CUT = regex.compile(r"(?<=\S)(?= )|(?<=\S\n)(?=\p{L})", regex.REVERSE)


def safe_cuts(text: str) -> list[int]:
    """Where the named patterns' rule allows a cut in `text`, if `text` were the whole corpus:
    `safe_cuts("end. Next")` is `[4]`, before the space (special tokens aside)."""
    return sorted(match.start() for match in _PATTERN_CUT.finditer(text))


def check_paths(paths: Iterable[str | Path]) -> list[Path]:
    """The paths as `Path`s, after checking that each is a readable file (fail before any work)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    checked = [Path(p) for p in paths]
    if not checked:
        raise ValueError("no files given: pass at least one path to a text file")
    for path in checked:
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file")
        if not path.is_file():
            raise ValueError(f"{path}: not a file (pass the text files themselves)")
        if not os.access(path, os.R_OK):
            raise PermissionError(f"{path}: not readable (check the file's permissions)")
    return checked


def read_texts(
    paths: list[Path], block_size: int, on_bytes: Callable[[int], object] = lambda n: None
) -> Iterator[str]:
    """The files' text, block by block; `on_bytes(n)` is told of every n bytes read.

    A character cut by a block's end waits for the next block. Invalid UTF-8 raises ValueError
    naming the file and the offset of the first bad byte, instead of changing the text quietly.
    """
    for path in paths:
        with path.open("rb") as file:
            pending, offset = b"", 0  # offset: where `pending` starts in the file
            while True:
                block = file.read(block_size)
                on_bytes(len(block))
                data = pending + block
                try:
                    text, pending = data.decode("utf-8"), b""
                except UnicodeDecodeError as err:
                    if block and err.reason == "unexpected end of data":  # finished next block
                        text, pending = data[: err.start].decode("utf-8"), data[err.start :]
                    else:
                        raise ValueError(
                            f"{path}: invalid UTF-8 at byte {offset + err.start} ({err.reason});"
                            " convert the file to UTF-8 or remove the bad bytes"
                        ) from None
                offset += len(data) - len(pending)
                if text:
                    yield text
                if not block:
                    break


def cut_chunks(
    texts: Iterable[str], pattern: str | None, specials: list[str], chunk_size: int
) -> Iterator[str]:
    """Regroup `texts` into chunks of about `chunk_size` characters, cut only where it is safe.

    A chunk is longer when no safe cut comes sooner: with a pattern we cannot cut and no special
    tokens, the whole text is one chunk (and a warning says so).
    """
    pattern = patterns.resolve(pattern)
    named = pattern in patterns.PATTERNS.values()
    if not named and pattern is not None:
        where = "at special tokens only" if specials else "nowhere: it is read as one piece"
        warnings.warn(
            f"no safe rule to cut text for a custom pattern, so the text is cut {where}."
            " Memory then grows with the longest stretch between cuts; separate documents"
            " with a special token (e.g. <|endoftext|>) to bound it.",
            stacklevel=3,
        )
    elif not named and not specials:
        warnings.warn(
            "without a pattern or special tokens the text is one chunk, read as one piece",
            stacklevel=3,
        )
    special_re = patterns.special_regex(tuple(sorted(specials))) if specials else None
    longest = max(map(len, specials), default=0)
    parts: list[str] = []
    size, wanted = 0, chunk_size
    for text in texts:
        parts.append(text)
        size += len(text)
        if size < wanted:
            continue
        buffer = "".join(parts)
        cut = _last_cut(buffer, named, special_re, longest)
        if cut:
            yield buffer[:cut]
            buffer = buffer[cut:]
        parts, size = [buffer], len(buffer)
        # With no cut found, look again after a quarter more text: each look reads it all, so
        # looking every `chunk_size` characters would take quadratic time on text without a cut.
        wanted = chunk_size if cut else size + max(chunk_size, size // 4)
    if size:
        yield "".join(parts)


def _last_cut(text: str, named: bool, special_re: regex.Pattern | None, longest: int) -> int:
    """The last safe cut in `text` (0 for none), knowing that more text may follow it."""
    best = 0
    if special_re is not None:
        # The scan for specials is the whole text's scan from `text`'s start (a cut), and a match
        # starting at least `longest` characters before the end cannot grow with the next text.
        for match in special_re.finditer(text):
            if match.start() <= len(text) - longest:
                best = match.end()
    if not named:
        return best
    end = len(text) - longest  # the character after a cut must be known, and any special near it
    while (match := _PATTERN_CUT.search(text, best, end)) is not None:
        cut = match.start()
        near = text[max(cut - 1 - longest, 0) : cut + longest]
        if special_re is None or not special_re.search(near):
            return cut
        end = cut  # a special token close by could straddle the cut: try further left
    return best
