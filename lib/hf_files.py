"""Hugging Face `tokenizer.json` files for byte-level BPE, read and written.

A `tokenizer.json` (from the `tokenizers` package) describes a whole pipeline: normalizer,
pre-tokenizer, model, post-processor, decoder. We read the kind that matches our data model,
the byte-level BPE of GPT-2 and its successors:

- no normalizer; the model is "BPE" with its `vocab` (tokens written with GPT-2's byte-to-character
  mapping, see `lib.gpt2_files`) and its `merges` (as "left right" strings or as pairs);
- pre-tokenizer "ByteLevel" with `use_regex` (GPT-2's split pattern), or a "Sequence" of a
  "Split" by a regex and a "ByteLevel" without `use_regex` (how GPT-4-style patterns are stored);
- special tokens in `added_tokens`.

Anything else (WordPiece, a normalizer, byte fallback, dropout, ...) encodes differently, so
reading it raises ValueError saying what is not supported rather than giving different ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import regex

from lib import gpt2_files, patterns

_COUNTED_PLUS = regex.compile(r"\{\d+(?:,\d*)?\}\+")  # X{1,3}+: possessive here, not in HF
Parts = tuple[dict[int, bytes], list[tuple[bytes, bytes]], str | None, dict[str, int]]


def read(path: str | Path) -> Parts:
    """(vocab, merges, split pattern, special tokens) from a byte-level BPE tokenizer.json."""
    path = Path(path)
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        model = spec["model"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a Hugging Face tokenizer.json ({err!r})") from None

    def unsupported(what: str):
        return ValueError(f"{path}: {what} is not supported; only byte-level BPE can be read")

    if model.get("type") != "BPE":
        raise unsupported(f"model type {model.get('type')!r}")
    for option in ("dropout", "continuing_subword_prefix", "end_of_word_suffix", "byte_fallback"):
        if model.get(option):
            raise unsupported(f"the BPE option {option}={model[option]!r}")
    if spec.get("normalizer") is not None:
        raise unsupported(f"the normalizer {spec['normalizer'].get('type')!r}")
    pattern = _pattern(spec.get("pre_tokenizer"), unsupported)
    where = f"{path}: "
    vocab = {i: gpt2_files.token_bytes(text, where) for text, i in model["vocab"].items()}
    merges = []
    for merge in model["merges"]:
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        merges.append((gpt2_files.token_bytes(left, where), gpt2_files.token_bytes(right, where)))
    special = {}
    for added in spec.get("added_tokens", []):
        if not added.get("special") or added.get("lstrip") or added.get("rstrip"):
            raise unsupported(f"the added token {added.get('content')!r} (not a plain special)")
        special[added["content"]] = added["id"]
    return vocab, merges, pattern, special


def _pattern(pre_tokenizer: dict | None, unsupported) -> str | None:
    steps = [] if pre_tokenizer is None else [pre_tokenizer]
    if steps and steps[0].get("type") == "Sequence":
        steps = steps[0]["pretokenizers"]
    kinds = [step.get("type") for step in steps]
    if kinds == ["ByteLevel"] and not steps[0].get("add_prefix_space"):
        return patterns.GPT2_PATTERN if steps[0].get("use_regex", True) else None
    if kinds == ["Split", "ByteLevel"]:
        split, byte_level = steps
        expression = split.get("pattern", {}).get("Regex")
        if expression is not None and _COUNTED_PLUS.search(expression):
            raise unsupported(
                f"the split pattern {expression!r} ({{n,m}}+ repeats in Hugging Face's regex "
                "engine, Oniguruma, but is possessive in ours)"
            )
        if (
            expression is not None
            and split.get("behavior") == "Isolated"
            and not split.get("invert")
            and not byte_level.get("use_regex", True)
            and not byte_level.get("add_prefix_space")
        ):
            return expression
    raise unsupported(f"the pre-tokenizer {json.dumps(pre_tokenizer)[:200]}")


def _for_oniguruma(pattern: str) -> str:
    """`pattern` for Hugging Face's regex engine, Oniguruma, where `X{1,3}+` means "X{1,3}, one
    or more times", not possessive as in the `regex` package. Where such a quantifier ends an
    alternative (GPT-4's `\\p{N}{1,3}+|`), nothing follows that could backtrack into it, so the
    plain greedy `X{1,3}` means the same."""
    converted = regex.sub(r"(\{\d+(?:,\d*)?\})\+(?=\||$)", r"\1", pattern)
    if _COUNTED_PLUS.search(converted):
        raise ValueError(
            f"the split pattern {pattern!r} has a possessive {{n,m}}+ that Hugging Face's regex "
            "engine would read differently; it cannot be exported"
        )
    return converted


def dumps(
    ids: Mapping[bytes, int],
    merges: list[tuple[bytes, bytes]],
    pattern: str | None,
    special_tokens: Mapping[str, int],
) -> str:
    """A tokenizer.json that Hugging Face's `tokenizers` loads and encodes with the same ids."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}
    if pattern == patterns.GPT2_PATTERN:
        pre_tokenizer = {**byte_level, "use_regex": True}
    elif pattern is None:
        pre_tokenizer = {**byte_level, "use_regex": False}
    else:
        split = {"type": "Split", "pattern": {"Regex": _for_oniguruma(pattern)}}
        split["behavior"] = "Isolated"
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [{**split, "invert": False}, {**byte_level, "use_regex": False}],
        }
    added = [
        {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False}
        | {"normalized": False, "special": True}
        for s, i in special_tokens.items()
    ]
    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        # A chunk that is a token is taken whole, as tiktoken and our encoder do.
        "ignore_merges": True,
        "vocab": {gpt2_files.token_text(t): i for t, i in sorted(ids.items(), key=lambda x: x[1])},
        "merges": [[gpt2_files.token_text(a), gpt2_files.token_text(b)] for a, b in merges],
    }
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": {**byte_level, "add_prefix_space": True, "use_regex": True},
        "model": model,
    }
    return json.dumps(spec, ensure_ascii=False, indent=1)
