"""The course library: everything the six lessons share.

`Tokenizer` is a byte-level BPE tokenizer (train, encode, decode, save, load, and the real GPT
tokenizers loaded from tiktoken's files); `bpe` holds the algorithms it is built on, `patterns` the
pre-tokenization regexes, `data` the course's text files.
"""

from lib import bpe, patterns
from lib.tokenizer import Tokenizer

__all__ = ["Tokenizer", "CharTokenizer", "bpe", "patterns"]


def __getattr__(name: str):
    # Imported on first use, so `import lib` stays quick and works while a module is missing.
    if name == "CharTokenizer":
        from lib.char_tokenizer import CharTokenizer

        return CharTokenizer
    if name in ("data", "viz", "exercises"):
        import importlib

        return importlib.import_module(f"lib.{name}")
    raise AttributeError(f"module 'lib' has no attribute {name!r}")
