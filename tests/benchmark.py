"""Our pure-Python BPE against the reference implementations, timed side by side.

Run it from the repository root (about four minutes on two cores; pytest does not collect it):

    python tests/benchmark.py                  # every job: the table in the README
    python tests/benchmark.py --rounds 3 --only encode

Each job runs in a fresh Python process that alternates our code and the reference, round after
round (after one untimed warm-up round), so that a busy machine slows both alike; the table gives
the median of the rounds, and as the ratio the median of each round's ours / reference, with the
load at the row's end. Peak memory is measured apart, one process per side: how much the work
raised the process's resident memory above what it held before, in MB. Hugging Face `tokenizers`
runs once with one thread (RAYON_NUM_THREADS=1) and once with its default threads. Every row
checks that what was timed is right (the same merges as the naive trainer, the same ids as
tiktoken); a failed check exits with status 1.

Training from files at scale is a separate table (`--only files`, about 15 minutes for the three
sizes): a generated multilingual corpus with Zipf-distributed words, trained to 10,000 tokens
by `bpe_files.train_from_files` and by Hugging Face's `Tokenizer.train` from the same file, each
run in a fresh process whose memory (with its workers) is polled while it runs:

    python tests/benchmark.py --only files --sizes 30,100,300 --rounds 1

Every lesson, solved, graded by the Gradescope bundle on Gradescope's default hardware (0.5 CPU,
768 MB, emulated with a cgroup; needs root and a writable v1 cgroup) is another table
(`--only gradescope`, `gradescope_benchmark.py`, a quarter of an hour on a busy machine).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lib import Tokenizer, bpe, bpe_files, data, patterns  # noqa: E402

# A job is "kind:corpus:vocab size or encoding". Training: (title, job, reference, target).
TRAIN = [
    ("train 512, no pattern, taylorswift", "train:taylorswift:512", "naive", ("faster", 60)),
    ("train 4096, gpt4 pattern, shakespeare", "train:shakespeare:4096", "hf1", ("ratio", 1.5)),
    ("  same, HF with default threads", "train:shakespeare:4096", "hf", ("ratio", 1.5)),
    ("train 16384, gpt4 pattern, FLORES x32", "train:flores:16384", "hf1", ("ratio", 1.5)),
    ("  same, HF with default threads", "train:flores:16384", "hf", ("ratio", 1.5)),
    ("CS336: corpus.en, 500, gpt2, eot", "cs336:corpus:500", "naive", ("seconds", 0.5)),
]
# Encoding against tiktoken: (title, job, caches to report, target).
ENCODE = [
    (
        "encode shakespeare, cl100k",
        "encode:shakespeare:cl100k_base",
        ["cold", "warm"],
        ("ratio", 3),
    ),
    ("encode FLORES x32, cl100k", "encode:flores:cl100k_base", ["cold", "warm"], ("ratio", 3)),
    (
        "encode shakespeare, o200k",
        "encode:shakespeare:o200k_base",
        ["cold", "warm"],
        ("ratio", 3),
    ),
    ("encode FLORES x32, o200k", "encode:flores:o200k_base", ["cold", "warm"], ("ratio", 3)),
    ("our 4096 tokenizer on shakespeare", "ours:shakespeare:4096", ["cold"], None),
    ("our 4096 tokenizer on FLORES x32", "ours:flores:4096", ["cold"], None),
]
ROWS = [(title, job, "", ref, target) for title, job, ref, target in TRAIN] + [
    (f"{title}, {cache} cache", job, cache, "tiktoken", target)
    for title, job, caches, target in ENCODE
    for cache in caches
]
REFERENCES = {"naive": "naive", "hf1": "HF 1 thr", "hf": "HF", "tiktoken": "tiktoken"}


def corpus(name: str, lines: int | None = None) -> str:
    """Tiny Shakespeare, a data file, or the 32 FLORES devtest files concatenated (or only their
    first `lines` lines each)."""
    if name == "shakespeare":
        return data.read_text("tinyshakespeare")
    if name != "flores":
        return data.read_text(name)
    codes = data.flores_languages()
    if lines is None:
        return "".join(data.read_text(f"flores200/devtest/{code}.devtest") for code in codes)
    return "".join("\n".join(data.flores(code)[:lines]) + "\n" for code in codes)


def verified(ok: bool, note: str, value: object = None) -> dict:
    """A side's check: whether it passed, what it says, and a digest of its output to compare."""
    return {"ok": ok, "note": note, "digest": hashlib.sha256(repr(value).encode()).hexdigest()[:12]}


def same(value: object) -> dict:
    """No check of its own: the output's digest must equal the other side's."""
    return verified(True, "same output", value)


def same_as_naive(text: str, vocab_size: int, pattern: str | None) -> dict:
    """The fast trainer against the lesson's naive loop, on a slice small enough for the latter."""
    fast = bpe.train(text, vocab_size, pattern)[1]
    ok = fast == bpe.train(text, vocab_size, pattern, method="naive")[1]
    kb = len(text.encode()) // 1000
    return verified(ok, f"fast == naive on a {kb} KB slice, vocab {vocab_size}")


def hf_setup(vocab_size: int, specials: list[str] = ()):
    """Hugging Face's byte-level BPE tokenizer and trainer, GPT-4 split pattern."""
    from tokenizers import Regex, models, pre_tokenizers, trainers
    from tokenizers import Tokenizer as HFTokenizer

    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(patterns.GPT4_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.add_special_tokens(list(specials))  # cut out of the text, as ours are
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=0,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=list(specials),
    )
    return tok, trainer


def hf_train(text: str, vocab_size: int) -> int:
    """Hugging Face's trainer on a string; returns the vocab size."""
    tok, trainer = hf_setup(vocab_size)
    lines = text.splitlines(keepends=True)  # batches of whole lines: work its threads can share
    tok.train_from_iterator(
        ["".join(lines[i : i + 200]) for i in range(0, len(lines), 200)], trainer
    )
    return tok.get_vocab_size()


def side(job: str, who: str):
    """(prepare, labels, run, check) for one side of a job: each round runs `prepare()` untimed,
    then times `run(prepared)` once per label; `check(result)` judges the last result."""
    kind, name, arg = job.split(":")
    text = data.read_text("cs336/corpus.en") if kind == "cs336" else corpus(name)
    if kind in ("train", "cs336"):
        size = int(arg)
        if who in ("hf", "hf1"):
            check = lambda n: verified(n == size, f"HF vocab {n}")  # noqa: E731
            return None, [""], lambda _: hf_train(text, size), check
        pattern, specials = ("gpt4", []) if kind == "train" else ("gpt2", ["<|endoftext|>"])
        pattern = None if name == "taylorswift" else pattern
        method = "naive" if who == "naive" else "fast"

        def train(_):
            return bpe.train(text, size, pattern, specials, method=method)[1]

        if kind == "cs336" or name == "taylorswift":
            return None, [""], train, same  # the naive trainer is the other side
        probe = corpus(name, lines=10) if name == "flores" else text[:100_000]
        return None, [""], train, lambda _: same_as_naive(probe, 600, pattern)
    if kind == "encode":
        tok = Tokenizer.from_tiktoken(arg)
        enc = data.tiktoken_encoding(arg)
    else:  # "ours": a tokenizer we trained, its pure-Python encode against its tiktoken export
        tok = Tokenizer.train(corpus("shakespeare"), int(arg), "gpt4")
        enc = tok.to_tiktoken()
    if who == "tiktoken":
        return lambda: enc, [""], lambda enc: enc.encode_ordinary(text), same

    def cold() -> Tokenizer:
        # Each round starts with no chunk remembered. The batch encoder's table of pairs, a
        # function of the vocabulary built on first use, is kept, as tiktoken keeps its own.
        tok._plain.cache.clear()
        return tok

    return cold, ["cold", "warm"], lambda tok: tok.encode_ordinary(text), same


def resident_mb(peak: bool = False, reset_peak: bool = False) -> float:
    """This process's resident memory now (or its peak), in MB. On Linux the peak can be reset,
    so that it measures the work alone, not the loading before it."""
    status = Path("/proc/self/status")
    if not status.exists():  # elsewhere: the peak since the start (ru_maxrss is bytes on macOS)
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak_kb / (1e6 if sys.platform == "darwin" else 1e3)
    if reset_peak:
        try:
            Path("/proc/self/clear_refs").write_text("5")
        except OSError:  # not allowed here: the peak then includes the loading
            pass
    field = "VmHWM:" if peak else "VmRSS:"
    line = next(line for line in status.read_text().splitlines() if line.startswith(field))
    return int(line.split()[1]) / 1e3  # kB


def worker(job: str, sides: list[str], rounds: int) -> dict:
    """Time the sides of `job` in turn, `rounds` times after one untimed warm-up round (imports,
    compiled patterns, the allocator's first growth); or, with one side, its peak memory in a
    single run."""
    setups = {who: side(job, who) for who in sides}
    base = resident_mb(reset_peak=True)
    times = {who: {label: [] for label in setups[who][1]} for who in sides}
    results = {}
    warm_up = len(sides) > 1
    for round_ in range(rounds + warm_up):
        for who, (prepare, labels, run, _) in setups.items():
            prepared = prepare() if prepare else None
            for label in labels:
                start = time.perf_counter()
                results[who] = run(prepared)
                if round_ >= warm_up:
                    times[who][label].append(time.perf_counter() - start)
    if len(sides) == 1:
        return {"peak_mb": resident_mb(peak=True) - base}
    checks = {who: setups[who][3](results[who]) for who in sides}
    return {"times": times, "checks": checks}


def spawn(job: str, sides: list[str], rounds: int) -> dict:
    threads = {"RAYON_NUM_THREADS": "1"} if "hf1" in sides else {}
    cmd = [sys.executable, __file__, "--worker", job, ",".join(sides), str(rounds)]
    out = subprocess.run(cmd, env=dict(os.environ, **threads), capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"the worker for {job} {sides} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def verdict(target: tuple | None, ratio: float, seconds: float) -> str:
    """Whether `ratio` (ours / reference, paired), or our `seconds`, meet the row's target."""
    if target is None:
        return "-"
    kind, value = target
    if kind == "faster":
        met = 1 / ratio >= value
        return f"{1 / ratio:.0f}x faster, >= {value}x: " + ("met" if met else "MISSED")
    if kind == "seconds":
        return f"< {value} s: " + ("met" if seconds < value else "MISSED")
    return f"<= {value}: " + ("met" if ratio <= value else "MISSED")


# -- training from files, at scale -------------------------------------------------------------
EOT = "<|endoftext|>"
FILES_VOCAB = 10_000
CORPUS_WORDS = 2_000_000  # candidate words; Zipf's law decides how many of them a size shows


def zipf_corpus(megabytes: int, folder: Path) -> tuple[Path, int]:
    """A made-up multilingual corpus of about `megabytes` MB and its number of distinct words.

    The words are those of the 32 FLORES languages (11 scripts), and compounds of them up to
    `CORPUS_WORDS`, drawn by Zipf's law (the r-th commonest has frequency ~1/r) into sentences of
    4 to 24 words, about 30 to a document, documents separated by <|endoftext|>. Made once per
    size and kept in `folder`.
    """
    path, meta = folder / f"zipf_{megabytes}mb.txt", folder / f"zipf_{megabytes}mb.json"
    if path.exists() and meta.exists():
        return path, json.loads(meta.read_text())["distinct_words"]
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(megabytes)
    lines = [line for code in data.flores_languages() for line in data.flores(code)]
    words = sorted({word for line in lines for word in line.split() if word.isalpha()})
    base = len(words)
    while len(words) < CORPUS_WORDS:  # a word and the end of another: new, with the same letters
        words.append(words[rng.randrange(base)] + words[rng.randrange(base)][-3:])
    rng.shuffle(words)
    cum_weights = list(itertools.accumulate(1 / rank for rank in range(1, len(words) + 1)))
    seen: set[str] = set()
    size = 0
    with path.open("wb") as file:
        while size < megabytes * 1_000_000:
            batch = rng.choices(words, cum_weights=cum_weights, k=200_000)
            seen.update(batch)
            pieces, i = [], 0
            while i < len(batch):
                n = rng.randint(4, 24)
                pieces.append(" ".join(batch[i : i + n]) + rng.choice([". ", ".\n", "? ", ",\n"]))
                pieces += [EOT] if rng.random() < 1 / 30 else []
                i += n
            size += file.write("".join(pieces).encode("utf-8"))
    meta.write_text(json.dumps({"distinct_words": len(seen)}))
    return path, len(seen)


def files_worker(who: str, path: str) -> dict:
    """Train to FILES_VOCAB tokens from the file at `path`: "ours" or "hf"; returns the time."""
    start = time.perf_counter()
    if who == "ours":
        vocab = bpe_files.train_from_files([path], vocab_size=FILES_VOCAB, special_tokens=[EOT])[0]
        n_vocab = len(vocab)
    else:
        tok, trainer = hf_setup(FILES_VOCAB, [EOT])
        tok.train([path], trainer)
        n_vocab = tok.get_vocab_size()
    return {"seconds": time.perf_counter() - start, "vocab": n_vocab}


def run_polled(who: str, path: Path) -> dict:
    """`files_worker` in a fresh process, with the peak of its resident memory (all its processes
    together, polled every 0.1 s; forked workers' pages shared with the parent count twice)."""
    import psutil

    cmd = [sys.executable, __file__, "--files-worker", who, str(path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tree, peak = psutil.Process(proc.pid), 0
    while proc.poll() is None:
        try:
            processes = [tree, *tree.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in processes))
        except psutil.Error:  # a process ended between listing and reading it
            pass
        time.sleep(0.1)
    out, err = proc.communicate()
    if proc.returncode:
        sys.exit(f"training from files ({who}) failed:\n{err}")
    return {**json.loads(out.splitlines()[-1]), "peak_mb": peak / 1e6}


def same_as_train(path: Path) -> bool:
    """train_from_files on the first 2 million characters of `path` (small chunks, 2 workers)
    against bpe.train."""
    with path.open(encoding="utf-8") as file:
        text = file.read(2_000_000)
    part = path.with_name("slice.txt")
    part.write_text(text, encoding="utf-8")
    ours = bpe_files.train_from_files(
        [part], vocab_size=1000, special_tokens=[EOT], workers=2, chunk_size=10_000
    )
    return ours == bpe.train(text, 1000, "gpt4", [EOT])


def files_table(sizes: list[int], rounds: int, folder: Path) -> bool:
    """Time and memory of both trainers at each corpus size; False if a check failed."""
    head = (
        f"{'corpus MB':>9} {'distinct words':>14} {'ours s':>7} {'HF s':>7} {'ours/HF':>7}"
        f" {'ours MB':>8} {'HF MB':>7}  targets: time <= 2x HF, memory <= 1000 MB"
    )
    print(head + "\n" + "-" * len(head))
    ok = True
    for megabytes in sizes:
        path, distinct = zipf_corpus(megabytes, folder)
        if megabytes == sizes[0]:
            ok = same_as_train(path)
            print(f"(train_from_files == bpe.train on 2M characters: {'ok' if ok else 'FAILED'})")
        runs = {who: [run_polled(who, path) for _ in range(rounds)] for who in ("ours", "hf")}
        ok = ok and all(r["vocab"] == FILES_VOCAB for side in runs.values() for r in side)
        t = {who: statistics.median(r["seconds"] for r in runs[who]) for who in runs}
        mb = {who: max(r["peak_mb"] for r in runs[who]) for who in runs}
        met = (
            ("met" if t["ours"] <= 2 * t["hf"] else "MISSED")
            + ", "
            + ("met" if mb["ours"] <= 1000 else "MISSED")
        )
        print(
            f"{path.stat().st_size / 1e6:9.0f} {distinct:14,} {t['ours']:7.1f} {t['hf']:7.1f}"
            f" {t['ours'] / t['hf']:7.2f} {mb['ours']:8.0f} {mb['hf']:7.0f}  {met}",
            flush=True,
        )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per job (3 if slow)")
    parser.add_argument("--only", default="", help="only the rows whose job contains this text")
    parser.add_argument("--sizes", default="30,100,300", help="corpus sizes in MB, for files")
    parser.add_argument(
        "--corpus-dir", type=Path, default=Path("/tmp/course-benchmark"), help="generated corpora"
    )
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--files-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        job, sides, rounds = args.worker
        print(json.dumps(worker(job, sides.split(","), int(rounds))))
        return
    if args.files_worker:
        print(json.dumps(files_worker(*args.files_worker)))
        return
    if args.only == "files":  # its own table: minutes per size, so only when asked for
        sizes = [int(size) for size in args.sizes.split(",")]
        print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; median of {args.rounds}")
        if not files_table(sizes, args.rounds, args.corpus_dir):
            sys.exit("correctness check failed for training from files")
        return
    data.ensure_tiktoken_cache(["cl100k_base", "o200k_base"])
    import tiktoken
    import tokenizers

    print(
        f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}; tiktoken {tiktoken.__version__}, tokenizers "
        f"{tokenizers.__version__}; median of {args.rounds} rounds ({min(3, args.rounds)} "
        f"when the reference is slow)\n"
    )
    head = (
        f"{'job':46} {'ours s':>7} {'ref':>8} {'ref s':>7} {'ours/ref':>8} {'MB ours/ref':>11}"
        "  target"
    )
    print(head + "\n" + "-" * len(head))
    timed: dict[tuple[str, str], dict] = {}
    memory: dict[tuple[str, str], float] = {}
    failed = []
    for title, job, label, ref, target in ROWS:
        if args.only not in job:
            continue
        ours = "ours" if label else "fast"
        if (job, ref) not in timed:
            slow = ref in ("naive", "hf", "hf1") or job.startswith("train:flores")
            timed[job, ref] = spawn(job, [ours, ref], min(3, args.rounds) if slow else args.rounds)
        for who in (ours, ref):
            if (job, who) not in memory:
                memory[job, who] = spawn(job, [who], 1)["peak_mb"]
        run = timed[job, ref]
        t_ours = statistics.median(run["times"][ours][label])
        t_ref = statistics.median(run["times"][ref][""])
        # The ratio is the median of each round's own ratio: the two sides of a round ran one
        # after the other, so a burst of load from elsewhere slows both, and cancels out.
        paired = zip(run["times"][ours][label], run["times"][ref][""], strict=True)
        ratio = statistics.median(a / b for a, b in paired)
        checks = [run["checks"][ours], run["checks"][ref]]
        ok = all(c["ok"] for c in checks)
        if all(c["note"] == "same output" for c in checks):
            ok = ok and checks[0]["digest"] == checks[1]["digest"]
        if not ok:
            failed.append(title)
        notes = "; ".join(dict.fromkeys(c["note"] for c in checks))
        mb = f"{memory[job, ours]:.0f}/{memory[job, ref]:.0f}"
        print(
            f"{title:46} {t_ours:7.3f} {REFERENCES[ref]:>8} {t_ref:7.3f} {ratio:8.2f} "
            f"{mb:>11}  {verdict(target, ratio, t_ours)}  [{'ok' if ok else 'FAILED'}: {notes}]"
            f"  load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    if args.only in ("", "grade"):
        import grading_benchmark  # the grader's rows: sandbox overhead and a 30-notebook class

        if not grading_benchmark.report(args.rounds):
            failed.append("grading")
    if args.only == "gradescope":  # every lesson on Gradescope's default hardware: minutes
        import gradescope_benchmark

        if not gradescope_benchmark.report():
            failed.append("gradescope")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    if failed:
        sys.exit(f"correctness check failed for: {', '.join(failed)}")


if __name__ == "__main__":
    main()
