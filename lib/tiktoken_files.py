"""The bridge to tiktoken: read OpenAI's encodings into our data model, and export ours to it.

tiktoken stores an encoding as *ranks*: {token bytes: id}, where a lower id was merged earlier.
That is all an encoder needs; the merges behind it can be recovered (`lib.bpe.recover_merges`).
This module deals in plain data only, so that `Tokenizer` can build on it without a circle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

ENCODINGS = ("gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base")


def load(name: str) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """(ranks, split pattern, special tokens) of one of OpenAI's encodings, from tiktoken's files.

    The files come through `lib.data` (local cache, the offline mirror, or a download), and tiktoken
    checks their hashes as it parses them.
    """
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}")
    from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

    from lib import data

    data.ensure_tiktoken_cache(name)
    spec = ENCODING_CONSTRUCTORS[name]()
    return spec["mergeable_ranks"], spec["pat_str"], spec["special_tokens"]


def to_encoding(
    name: str, pattern: str | None, ranks: Mapping[bytes, int], special_tokens: Mapping[str, int]
) -> tiktoken.Encoding:
    """A tiktoken.Encoding with these ranks (ids), pattern and special tokens."""
    import tiktoken

    return tiktoken.Encoding(
        name=f"{name}-tiktoken",
        # tiktoken always splits with a pattern; "the whole text is one chunk" is what None means.
        pat_str=pattern if pattern is not None else r"[\s\S]+",
        mergeable_ranks=dict(ranks),
        special_tokens=dict(special_tokens),
    )
