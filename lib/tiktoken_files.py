"""The bridge to tiktoken: read OpenAI's encodings into our data model, and export ours to it.

tiktoken stores an encoding as *ranks*: {token bytes: id}, where a lower id was merged earlier.
That is all an encoder needs. The merges (which two tokens made each token) are not stored, but
they can be recovered: run BPE on a token's own bytes using only the tokens ranked before it, and it
stops at exactly the two parts that were merged to make it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

    from lib.tokenizer import Tokenizer

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


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merges behind `ranks`, in rank order: each multi-byte token split in its two parents."""
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) > 1:
            parts = _bpe_below(token, ranks, rank)
            if len(parts) != 2:
                raise ValueError(
                    f"token {token!r} (rank {rank}) is not the merge of two earlier tokens"
                )
            merges.append((parts[0], parts[1]))
    return merges


def _bpe_below(token: bytes, ranks: dict[bytes, int], max_rank: int) -> list[bytes]:
    """BPE on `token` with only the tokens ranked below `max_rank`: lowest-ranked pair first."""
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 1:
        best, best_rank = None, max_rank
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best, best_rank = i, rank
        if best is None:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return parts


def to_encoding(tok: Tokenizer) -> tiktoken.Encoding:
    """`tok` as a tiktoken.Encoding with the same ids, pattern and special tokens."""
    import tiktoken

    if len(tok.ranks) + len(tok.special_tokens) != len(tok.vocab):
        raise ValueError(
            "two token ids share the same bytes; tiktoken needs every token to be unique"
        )
    return tiktoken.Encoding(
        name=f"{tok.name}-tiktoken",
        # tiktoken always splits with a pattern; "the whole text is one chunk" is what None means.
        pat_str=tok.pattern if tok.pattern is not None else r"[\s\S]+",
        mergeable_ranks=tok.ranks,
        special_tokens=tok.special_tokens,
    )
