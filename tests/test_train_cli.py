"""`python -m lib.train`, run as a learner would run it: in a subprocess."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken.load

from lib import Tokenizer, train

pytestmark = pytest.mark.scale  # trains on whole data files

ROOT = Path(__file__).resolve().parent.parent
EOT = "<|endoftext|>"
TEXT = "The cat sat on the mat.\nThe dog sat on the log.\n" * 40


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "lib.train", *map(str, args)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # finds `lib` from any folder
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def corpus(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "a.txt", tmp_path / "b.txt"]
    paths[0].write_text(TEXT + EOT)
    paths[1].write_text("Über " + TEXT)
    return paths


def test_trains_and_saves_what_the_library_trains(corpus, tmp_path):
    out, held_out = tmp_path / "cats.tok", tmp_path / "held_out.txt"
    held_out.write_text("The cat sat on the log.\n")
    result = run(*corpus, "--vocab-size", 270, "--special-token", EOT, "--workers", 2,
                 "--out", out, "--held-out", held_out)  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = "".join(path.read_text() for path in corpus)
    expected = Tokenizer.train(text, 270, "gpt4", [EOT])
    saved = Tokenizer.load(out)
    assert saved.merges == expected.merges and saved.special_tokens == {EOT: 269}
    summary = result.stdout
    for phase in ("counting", "merging", "saving", "peak memory"):
        assert phase in summary
    ids = expected.encode_ordinary("The cat sat on the log.\n")
    assert f"compression on all 24 bytes of held-out text from {held_out}: " in summary
    assert f"{24 / len(ids):.2f} bytes per token" in summary


def test_held_out_text_is_measured_whole(corpus, tmp_path):
    """A held-out file longer than the training text's sample (SAMPLE_BYTES) is counted to its
    last byte, line endings as they are: lesson 8's file of six languages ran past the first
    megabyte, and a figure from its start left out the languages at its end."""
    held_out = tmp_path / "held_out.txt"
    start = "The cat sat on the mat.\n" * (train.SAMPLE_BYTES // 24 + 1)  # past SAMPLE_BYTES
    end = "Über 1234 Köpfe\r\n" * 20_000  # compresses otherwise, and keeps its \r
    held_out.write_bytes((start + end).encode("utf-8"))
    out = tmp_path / "cats.tok"
    result = run(*corpus, "--vocab-size", 270, "--out", out, "--held-out", held_out)
    assert result.returncode == 0, result.stderr
    n_bytes = held_out.stat().st_size
    n_tokens = len(Tokenizer.load(out).to_tiktoken().encode_ordinary(start + end))
    assert f"compression on all {n_bytes:,} bytes of held-out text from {held_out}: " in (
        result.stdout
    )
    assert f": {n_bytes / n_tokens:.2f} bytes per token" in result.stdout


def test_tiktoken_format_loads_in_tiktoken(corpus, tmp_path):
    out = tmp_path / "cats.tiktoken"
    result = run(*corpus, "--vocab-size", 270, "--pattern", "gpt2", "--out", out,
                 "--format", "tiktoken")  # fmt: skip
    assert result.returncode == 0, result.stderr
    expected = Tokenizer.train("".join(path.read_text() for path in corpus), 270, "gpt2")
    assert tiktoken.load.load_tiktoken_bpe(str(out)) == expected.ranks
    first = f"compression on the first {len(TEXT) + len(EOT):,} bytes of training text"
    assert first in result.stdout
    assert "(pass --held-out FILE for unseen)" in result.stdout


def test_the_advice_on_tiktoken_s_cache_is_right(corpus, tmp_path, monkeypatch):
    """tiktoken caches a loaded file under its path: training again into the same file and
    loading it returns the old ranks. The command says so, and its way out gives the new ones."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "cats.tiktoken"
    first = run(*corpus, "--vocab-size", 270, "--out", out, "--format", "tiktoken")
    assert "TIKTOKEN_CACHE_DIR=''" in first.stdout
    old = tiktoken.load.load_tiktoken_bpe(str(out))
    assert run(*corpus, "--vocab-size", 280, "--out", out, "--format", "tiktoken").returncode == 0
    assert tiktoken.load.load_tiktoken_bpe(str(out)) == old  # stale: 270 tokens, not 280
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert len(tiktoken.load.load_tiktoken_bpe(str(out))) == 280


def test_the_suggested_line_loads_this_file_from_anywhere(corpus, tmp_path, monkeypatch):
    """The printed `load_tiktoken_bpe(...)` names the file by its full path. With `--out
    ours.tiktoken` run in two folders, the relative name printed before was one cache entry for
    both (tiktoken keys its cache by the path string), so the second folder got the first's
    ranks; and from the learner's own folder it named no file at all."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    loaded = []
    for folder, size in (("d1", 270), ("d2", 280)):
        (tmp_path / folder).mkdir()
        result = run(*corpus, "--vocab-size", size, "--out", "ours.tiktoken",
                     "--format", "tiktoken", cwd=tmp_path / folder)  # fmt: skip
        assert result.returncode == 0, result.stderr
        path = ast.literal_eval(re.search(r"load_tiktoken_bpe\(('[^']*')\)", result.stdout)[1])
        assert Path(path) == tmp_path / folder / "ours.tiktoken"
        loaded.append(tiktoken.load.load_tiktoken_bpe(path))  # from this test's folder, ROOT
    assert [len(ranks) for ranks in loaded] == [270, 280]


def test_huggingface_format_loads_in_hugging_face_tokenizers(corpus, tmp_path):
    import tokenizers

    out = tmp_path / "tokenizer.json"
    result = run(*corpus, "--vocab-size", 280, "--out", out, "--format", "huggingface")
    assert result.returncode == 0, result.stderr
    expected = Tokenizer.train("".join(path.read_text() for path in corpus), 280, "gpt4")
    theirs = tokenizers.Tokenizer.from_file(str(out))
    sample = "The cat sat on the mat. Über alles, 2024!"
    assert theirs.encode(sample).ids == expected.encode(sample)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.txt", "--vocab-size", "300"], "missing.txt: no such file"),
        (["{a}", "--vocab-size", "100"], "vocab_size must be an integer of at least 256"),
        (["{a}", "--vocab-size", "lots"], "argument --vocab-size: invalid int value"),
        (["{a}", "--vocab-size", "300", "--workers", "0"], "--workers must be at least 1"),
        (["{a}", "--vocab-size", "300", "--pattern", "(["], "invalid split pattern"),
    ],
)
def test_clear_errors_before_any_work(corpus, tmp_path, args, message):
    out = tmp_path / "out.tok"
    result = run(*(arg.format(a=corpus[0]) for arg in args), "--out", out)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_unwritable_output_and_invalid_text(corpus, tmp_path):
    result = run(corpus[0], "--vocab-size", 300, "--out", tmp_path / "no" / "such" / "dir.tok")
    assert result.returncode == 2 and "does not exist" in result.stderr
    result = run(corpus[0], "--vocab-size", 300, "--out", tmp_path)
    assert result.returncode == 2 and "is a directory" in result.stderr
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café".encode("latin-1"))
    result = run(bad, "--vocab-size", 300, "--out", tmp_path / "x.tok")
    assert result.returncode == 1
    assert f"error: {bad}: invalid UTF-8 at byte 3 " in result.stderr
    assert "Traceback" not in result.stderr
