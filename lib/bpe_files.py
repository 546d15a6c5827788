"""Train BPE on files too big for one string: read in chunks, count in parallel, merge once.

BPE training needs only how often each distinct chunk ("pre-token") occurs, never the text itself
(see `bpe.chunk_counts`). So the files are read block by block and cut where the split cannot
change (`lib.corpus_files`); worker processes split and count the chunks; the main process adds
their counts up and hands them to the same merge loop as `bpe.train`. Memory then grows with the
number of *distinct* pre-tokens, not with the size of the corpus, and the splitting, the slow
part, uses every core. The merges are exactly those of `bpe.train` on the files' concatenated text.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from lib import bpe, corpus_files, patterns

CHUNK_SIZE = 1 << 17  # characters per chunk: enough work per task, and a few MB per worker


def train_from_files(
    paths: Iterable[str | Path],
    *,
    vocab_size: int,
    pattern: str | None = "gpt4",
    special_tokens: Iterable[str] = (),
    workers: int | None = None,
    progress: bool = False,
    chunk_size: int = CHUNK_SIZE,
    timings: dict[str, float] | None = None,
) -> tuple[bpe.Vocab, bpe.Merges]:
    """Learn a byte-level BPE tokenizer from text files (UTF-8), as `bpe.train` would from their
    concatenated text: same vocabulary, same merges.

    `workers` processes split the text (default: one per CPU; 1 splits in this process).
    `chunk_size` is the number of characters handed to a worker at a time. Pass a dict as
    `timings` to get the seconds spent counting and merging.
    """
    specials = bpe.check_request(vocab_size, special_tokens)
    pattern = patterns.resolve(pattern)
    workers = (os.cpu_count() or 1) if workers is None else workers
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    paths = corpus_files.check_paths(paths)
    start = time.perf_counter()
    words = count_files(paths, pattern, specials, workers, progress, chunk_size)
    counted = time.perf_counter()
    # The counts are handed over: the trainer frees them once its own tables hold the chunks.
    result = bpe.train_from_counts(words, vocab_size, specials, progress=progress, consume=True)
    if timings is not None:
        timings.update(counting=counted - start, merging=time.perf_counter() - counted)
    return result


def count_files(
    paths: list[Path],
    pattern: str | None,
    specials: list[str],
    workers: int,
    progress: bool = False,
    chunk_size: int = CHUNK_SIZE,
) -> Counter:
    """{pre-token bytes: count} over the files, split and counted by `workers` processes."""
    from lib.progress import progress as bar

    total_bytes = sum(path.stat().st_size for path in paths)
    read = bar(total=total_bytes, desc="reading, splitting (bytes)", enabled=progress)
    texts = corpus_files.read_texts(paths, chunk_size, read.update)
    chunks = corpus_files.cut_chunks(texts, pattern, specials, chunk_size)
    count = partial(bpe.chunk_counts, pattern=pattern, special_tokens=specials)
    total: Counter = Counter()
    try:
        if workers == 1:
            for chunk in chunks:
                total.update(count(chunk))
            return total
        # The pool reads tasks as fast as it can; the semaphore keeps it at a few chunks ahead of
        # the workers, so the text in memory stays a few chunks long.
        ahead, stopped = threading.Semaphore(2 * workers), threading.Event()

        def tasks() -> Iterable[str]:
            for chunk in chunks:
                ahead.acquire()
                if stopped.is_set():
                    return
                yield chunk

        with multiprocessing.Pool(workers) as pool:
            try:
                for counts in pool.imap_unordered(count, tasks()):
                    ahead.release()
                    total.update(counts)
            finally:  # on an error, unblock the pool's reader so the pool can shut down
                stopped.set()
                ahead.release()
        return total
    finally:
        read.close()
