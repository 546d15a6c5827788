"""Train a tokenizer on your own text files, from the command line.

    python -m lib.train corpus/*.txt --vocab-size 10000 --special-token "<|endoftext|>" \\
        --out my.tok

The files are read as one UTF-8 text, split by the pattern in parallel and never held in memory
whole (see `lib.bpe_files`). At the end it prints how long each phase took, the peak memory, and
the compression the tokenizer reaches (bytes per token: higher is better) on all of the held-out
file, or without one on the first megabyte of the training text.
"""

from __future__ import annotations

import argparse
import base64
import os
import resource
import sys
import time
from pathlib import Path

from lib import bpe, corpus_files, lazy_encode, patterns
from lib.bpe_files import train_from_files
from lib.tokenizer import Tokenizer

FORMATS = ("course", "tiktoken", "huggingface")
# Without --held-out, compression is measured on the training text's start: enough for a stable
# figure, quick to encode. A held-out file is measured whole, however long (streamed in pieces).
SAMPLE_BYTES = 1_000_000


def parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
        prog="python -m lib.train",
        description=__doc__.split("\n\n")[0],
        epilog="example: python -m lib.train corpus/*.txt --vocab-size 10000 --special-token"
        " '<|endoftext|>' --out my.tok  (lesson 8 of the course walks through it)",
    )
    cli.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, read in order")
    cli.add_argument(
        "--vocab-size", type=int, required=True, metavar="N",
        help="tokens in the vocabulary: 256 bytes + merges + special tokens",
    )  # fmt: skip
    cli.add_argument(
        "--pattern", default="gpt4", metavar="gpt2|gpt4|gpt4o|none|REGEX",
        help="split pattern: a name, 'none' (no splitting) or a regex (default: gpt4)",
    )  # fmt: skip
    cli.add_argument(
        "--special-token", action="append", default=[], metavar="T", dest="specials",
        help="a special token such as <|endoftext|>, never merged with text (repeatable)",
    )  # fmt: skip
    cli.add_argument(
        "--workers", type=int, default=None, metavar="N",
        help=f"processes that split the text (default: one per CPU, here {os.cpu_count()})",
    )  # fmt: skip
    cli.add_argument("--out", required=True, type=Path, metavar="PATH", help="file to write")
    cli.add_argument(
        "--format", choices=FORMATS, default="course",
        help="course: Tokenizer.save's text file (default); tiktoken: a .tiktoken ranks file;"
        " huggingface: a tokenizer.json for Hugging Face tokenizers",
    )  # fmt: skip
    cli.add_argument(
        "--held-out", type=Path, metavar="FILE",
        help="text not trained on; compression is measured on all of it"
        " (default: the first megabyte of the first FILE)",
    )  # fmt: skip
    return cli


def main(argv: list[str] | None = None) -> None:
    cli = parser()
    args = cli.parse_args(argv)
    pattern = None if args.pattern == "none" else args.pattern
    try:  # everything that can be checked before hours of work is checked now
        paths = corpus_files.check_paths(args.files)
        sample_path = corpus_files.check_paths([args.held_out or paths[0]])[0]
        bpe.check_request(args.vocab_size, args.specials)
        patterns.resolve(pattern)
        _check_output(args.out, args.format)
        if args.workers is not None and args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
    except (ValueError, TypeError, OSError) as err:
        cli.error(str(err))
    timings: dict[str, float] = {}
    try:
        vocab, merges = train_from_files(
            paths, vocab_size=args.vocab_size, pattern=pattern, special_tokens=args.specials,
            workers=args.workers, progress=True, timings=timings,
        )  # fmt: skip
    except ValueError as err:  # invalid UTF-8, named with its file and byte
        sys.exit(f"error: {err}")
    first_special = 256 + len(merges)
    specials = {vocab[i].decode(): i for i in range(first_special, len(vocab))}
    tok = Tokenizer(vocab, merges, pattern, special_tokens=specials, name=args.out.stem)
    start = time.perf_counter()
    _save(tok, args.out, args.format)
    timings["saving"] = time.perf_counter() - start
    print(_summary(tok, timings, sample_path, held_out=args.held_out is not None, out=args.out))
    if args.format == "tiktoken":
        print(
            "  a .tiktoken file holds the ranks only; in tiktoken, pass them with the pattern:"
            " tiktoken.Encoding(name, pat_str=..., mergeable_ranks=tiktoken.load."
            f"load_tiktoken_bpe({str(args.out.resolve())!r}), special_tokens={specials!r})\n"
            "  load_tiktoken_bpe caches a file by the path it is given: the full path above"
            " keeps another folder's file of the same name apart; after training into the same"
            " file again, load it with TIKTOKEN_CACHE_DIR='' (no cache) or write to a new name"
        )


def _check_output(out: Path, fmt: str) -> None:
    if out.is_dir():
        raise ValueError(f"--out {out} is a directory; give a file name")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"--out {out}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise ValueError(f"--out {out}: not writable; choose another place")


def _save(tok: Tokenizer, out: Path, fmt: str) -> None:
    if fmt == "course":
        tok.save(out)
    elif fmt == "tiktoken":  # tiktoken's own writer needs the optional blobfile package
        lines = (tiktoken_line(token, rank) + "\n" for token, rank in tok.ranks.items())
        out.write_text("".join(lines), encoding="ascii")
    else:
        tok.save_huggingface(out)


def tiktoken_line(token: bytes, rank: int) -> str:
    """One line of a .tiktoken file: the token's bytes in base64, a space, its rank (its id)."""
    return f"{base64.b64encode(token).decode('ascii')} {rank}"


def _summary(tok: Tokenizer, timings: dict, sample: Path, held_out: bool, out: Path) -> str:
    n_bytes, n_tokens = _measure(tok, sample, whole=held_out)
    ratio = f"{n_bytes / n_tokens:.2f} bytes per token" if n_tokens else "no text to measure"
    if held_out:
        where = f"all {n_bytes:,} bytes of held-out text"
    else:
        where = f"the first {n_bytes:,} bytes of training text (pass --held-out FILE for unseen)"
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3  # kB on Linux
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e3
    lines = [
        f"wrote {out}: {len(tok.vocab)} tokens ({len(tok.merges)} merges,"
        f" {len(tok.special_tokens)} special)",
        *(f"  {phase:9} {seconds:8.1f} s" for phase, seconds in timings.items()),
        f"  peak memory: {own:.0f} MB in this process, {worker:.0f} MB in the largest worker",
        f"  compression on {where} from {sample}: {ratio}",
    ]
    return "\n".join(lines)


def _measure(tok: Tokenizer, sample: Path, whole: bool) -> tuple[int, int]:
    """UTF-8 bytes and tokens of `sample`: all of it when `whole`, else its first SAMPLE_BYTES.
    A whole file is read in pieces that encode exactly as the whole text would (lib.lazy_encode),
    so a long held-out file is counted in full in little memory."""
    encoder = tok.to_tiktoken()
    if not whole:
        with sample.open("rb") as file:
            text = file.read(SAMPLE_BYTES).decode("utf-8", errors="ignore")  # a cut last character
        return len(text.encode("utf-8")), len(encoder.encode_ordinary(text))
    n_bytes = n_tokens = 0
    # Special-token text counts as ordinary text, as encode_ordinary counts it everywhere here.
    with sample.open(encoding="utf-8", errors="replace", newline="") as file:
        for piece in lazy_encode.pieces(file, tok.pattern, (), frozenset()):
            n_bytes += len(piece.encode("utf-8"))
            n_tokens += len(encoder.encode_ordinary(piece))
    return n_bytes, n_tokens


if __name__ == "__main__":
    main()
