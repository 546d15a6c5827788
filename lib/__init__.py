"""The course library: everything the nine lessons (six and three bonus) share, and a tokenizer
you can build on.

`Tokenizer` is a byte-level BPE tokenizer (train, encode, decode, save, load, the real GPT
tokenizers loaded from tiktoken's files, GPT-2 and Hugging Face files); `bpe` holds the algorithms
it is built on, `patterns` the pre-tokenization regexes, `data` the course's text files.

The public API, one example each (these run as tests):

>>> import tempfile, pathlib
>>> from lib import Tokenizer
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> text = "the cat sat on the mat. the end.<|endoftext|>a new text"
>>> tok = Tokenizer.train(text, 270, pattern="gpt4", special_tokens=["<|endoftext|>"])
>>> tok.merges[0], tok.vocab[256], tok.special_tokens["<|endoftext|>"]
((b't', b'h'), b'th', 269)
>>> ids = tok.encode("the cat<|endoftext|>", allowed_special="all")  # tiktoken's rules
>>> tok.decode(ids)
'the cat<|endoftext|>'
>>> list(tok.encode_iterable(["the c", "at"])) == tok.encode("the cat")  # lazy, for big files
True
>>> tok.save(folder / "tok.txt")
>>> Tokenizer.load(folder / "tok.txt").encode("the cat") == tok.encode("the cat")
True
>>> tok.to_tiktoken().encode("the cat") == tok.encode("the cat")
True
>>> tok.save_huggingface(folder / "tokenizer.json")
>>> Tokenizer.from_huggingface(folder / "tokenizer.json").encode("the mat") == tok.encode("the mat")
True
>>> tok.save_gpt2_files(folder / "vocab.json", folder / "merges.txt")
>>> gpt2_style = Tokenizer.from_gpt2_files(
...     folder / "vocab.json", folder / "merges.txt", ["<|endoftext|>"], pattern="gpt4")
>>> gpt2_style.encode("sat on") == tok.encode("sat on")
True
>>> Tokenizer.from_tiktoken("gpt2").encode("hello world")  # OpenAI's own ids
[31373, 995]
>>> Tokenizer(tok.vocab, [(b"zz", b"q")])  # checked on construction, errors name the entry
Traceback (most recent call last):
ValueError: merge 0 (b'zz', b'q') uses b'zz', not in the vocabulary
"""

from lib import bpe, patterns
from lib.tokenizer import Tokenizer

__all__ = ["Tokenizer", "CharTokenizer", "bpe", "patterns"]
# The course's version, a date (".2": the second release that day): a notebook's set-up cell on
# Colab says so when the clone it finds is older than the notebook (lib.notebooks.VERSION).
__version__ = "2026.11.26.1"


def __getattr__(name: str):
    # Imported on first use, so `import lib` stays quick and works while a module is missing.
    if name == "CharTokenizer":
        from lib.char_tokenizer import CharTokenizer

        return CharTokenizer
    if name in ("data", "viz", "exercises"):
        import importlib

        return importlib.import_module(f"lib.{name}")
    raise AttributeError(f"module 'lib' has no attribute {name!r}")
