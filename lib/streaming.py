"""Decode a stream of token ids the way a chat UI must: never print half a character.

A language model produces one token at a time, and a byte-level BPE token is a string of *bytes*,
not of characters. A token can end in the middle of a multi-byte UTF-8 character: in cl100k_base,
'👋' is spread over two tokens, and many Devanagari letters are too. Decoding each token on its own
then shows '�' (U+FFFD, the replacement character) where the pieces were cut apart, even though the
whole text is perfectly valid.

The fix is to keep the trailing bytes of an unfinished character back until the bytes that finish it
arrive. Python's incremental UTF-8 decoder (`codecs.getincrementaldecoder("utf-8")`) does exactly
that: it returns every complete character it has seen and remembers the rest.

With a tokenizer whose tokens are single bytes, "é👋" arrives as six tokens:

>>> from lib import Tokenizer
>>> tok = Tokenizer({b: bytes([b]) for b in range(256)}, [])
>>> dec = StreamingDecoder(tok)
>>> [dec.feed(token_id) for token_id in "é👋".encode("utf-8")]  # only complete characters
['', 'é', '', '', '', '👋']
>>> dec.feed(0xF0), dec.pending                 # a character begun, not finished
('', b'\xf0')
>>> dec.flush()                                 # the stream ends: it can never be finished
'�'
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from typing import Protocol


class BytesDecoder(Protocol):
    """Anything that turns token ids into bytes: our `Tokenizer` or a `tiktoken.Encoding`."""

    def decode_bytes(self, tokens: list[int]) -> bytes: ...


class StreamingDecoder:
    """Turn token ids into text chunk by chunk, holding back incomplete UTF-8 characters.

    `feed` returns only text that is complete; the bytes of a character that is still missing its
    continuation bytes wait inside the decoder. So concatenating everything `feed` and `flush`
    return gives exactly `tokenizer.decode(all_ids)`, and for valid text no '�' ever appears.

    `errors` is passed to the UTF-8 decoder, with the same meaning as in `bytes.decode`:
    "replace" (the default) turns bytes that can never be valid into '�', while "strict" raises
    `UnicodeDecodeError`, useful when invalid output should be treated as a bug.
    """

    def __init__(self, tokenizer: BytesDecoder, errors: str = "replace") -> None:
        self.tokenizer = tokenizer
        self.errors = errors
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors=errors)

    def feed(self, ids: int | Iterable[int]) -> str:
        """Add one token id (or several) to the stream; return the text that is now complete.

        The result may be "" when the new bytes only start a character: nothing can be shown yet.
        """
        batch = [ids] if isinstance(ids, int) else list(ids)
        return self._utf8.decode(self.tokenizer.decode_bytes(batch))

    @property
    def pending(self) -> bytes:
        """The bytes held back so far: the beginning of a character not finished yet."""
        held, _flags = self._utf8.getstate()
        return held

    def flush(self) -> str:
        """End the stream: return what is left and reset, so the decoder can be used again.

        Bytes still held back at the end can never be completed, so they are decoded as invalid:
        '�' with errors="replace", `UnicodeDecodeError` with errors="strict".
        """
        try:
            return self._utf8.decode(b"", final=True)
        finally:
            self._utf8.reset()
