"""A character-level tokenizer: one token per Unicode code point seen in a training corpus.

It is the simplest tokenizer that works, and lesson 2 uses it to show what every tokenizer must
decide: which symbols make up the vocabulary, what to do with text the vocabulary cannot spell, and
how many tokens a text costs.

    >>> tok = CharTokenizer.train("hello world")
    >>> tok.encode("hello")
    [3, 2, 4, 4, 5]
    >>> tok.decode([3, 2, 4, 4, 5])
    'hello'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

UnknownPolicy = Literal["error", "unk", "bytes"]


class CharTokenizer:
    """Maps each character of a fixed vocabulary to an id and back.

    The characters get the ids 0..n-1 in sorted (code point) order, so the same corpus always gives
    the same ids. What happens to a character outside the vocabulary depends on `unknown`:

    - "error": `encode` raises a ValueError (nothing is lost silently, but any new text can fail);
    - "unk": the id n (`unk_id`) stands for every unseen character (never fails, but loses them);
    - "bytes": byte fallback; the ids n..n+255 stand for the 256 byte values, and an unseen
      character is encoded as its UTF-8 bytes (never fails, loses nothing, costs 1-4 tokens).
    """

    UNK = "<unk>"

    def __init__(self, chars: Iterable[str], unknown: UnknownPolicy = "error") -> None:
        """Build a tokenizer from a collection of single characters (duplicates are ignored)."""
        if unknown not in ("error", "unk", "bytes"):
            raise ValueError(f'unknown must be "error", "unk" or "bytes", not {unknown!r}')
        chars = sorted(set(chars))
        for ch in chars:
            if not isinstance(ch, str) or len(ch) != 1:
                raise ValueError(f"every vocabulary entry must be one character, got {ch!r}")
        self.unknown: UnknownPolicy = unknown
        self.chars: list[str] = chars  # id -> character
        self.char_to_id: dict[str, int] = {ch: i for i, ch in enumerate(chars)}
        self.unk_id: int | None = len(chars) if unknown == "unk" else None
        self.byte_offset: int | None = len(chars) if unknown == "bytes" else None

    @classmethod
    def train(cls, text: str, unknown: UnknownPolicy = "error") -> CharTokenizer:
        """Learn the vocabulary from a corpus: every distinct character in `text`."""
        _require_str(text)
        return cls(text, unknown=unknown)

    @property
    def vocab_size(self) -> int:
        """How many ids there are: the characters, plus `UNK` or 256 byte ids, per the policy."""
        return len(self.chars) + {"error": 0, "unk": 1, "bytes": 256}[self.unknown]

    def encode(self, text: str) -> list[int]:
        """Turn text into a list of ids, one per known character."""
        _require_str(text)
        ids = []
        for position, ch in enumerate(text):
            if ch in self.char_to_id:
                ids.append(self.char_to_id[ch])
            elif self.unk_id is not None:
                ids.append(self.unk_id)
            elif self.byte_offset is not None:
                ids.extend(self.byte_offset + b for b in ch.encode("utf-8", "surrogatepass"))
            else:
                raise ValueError(
                    f"character {ch!r} (U+{ord(ch):04X}) at position {position} was never seen in "
                    f"training, so it has no id; train on text that contains it, or create the "
                    f'tokenizer with unknown="unk" or unknown="bytes" to encode unseen characters'
                )
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """Turn ids back into text; `unk_id` becomes "<unk>", runs of byte ids are decoded as UTF-8.

        Byte ids that do not form a whole character decode to U+FFFD (�) instead of raising.
        """
        pieces: list[str] = []
        pending = bytearray()  # byte tokens wait here until the character they spell is complete
        for token_id in ids:
            if not isinstance(token_id, int) or not 0 <= token_id < self.vocab_size:
                last = self.vocab_size - 1
                raise ValueError(f"id {token_id!r} is not in the vocabulary (ids are 0..{last})")
            if self.byte_offset is not None and token_id >= self.byte_offset:
                pending.append(token_id - self.byte_offset)
                continue
            pieces.append(pending.decode("utf-8", "replace"))
            pending.clear()
            pieces.append(self.UNK if token_id == self.unk_id else self.chars[token_id])
        pieces.append(pending.decode("utf-8", "replace"))
        return "".join(pieces)

    def compression_ratio(self, text: str) -> float:
        """UTF-8 bytes per token: how many bytes of text one token carries on average.

        Higher means shorter sequences. Without byte fallback a character tokenizer scores between
        1 (pure ASCII) and 4, because one character is 1 to 4 bytes in UTF-8.
        """
        n_tokens = len(self.encode(text))
        if n_tokens == 0:
            raise ValueError("an empty text has no compression ratio (0 bytes / 0 tokens)")
        return len(text.encode("utf-8", "surrogatepass")) / n_tokens

    def __repr__(self) -> str:
        return f"CharTokenizer(vocab_size={self.vocab_size}, unknown={self.unknown!r})"


def _require_str(text: object) -> None:
    """Fail early and clearly when given bytes, a list or None instead of a str."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
