"""Training from files: the same counts and merges as `bpe.train` on the concatenated text."""

import tracemalloc
import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib import Tokenizer, bpe, bpe_files, corpus_files, patterns

pytestmark = pytest.mark.scale  # memory bounds on large generated corpora

EOT = "<|endoftext|>"
# Pieces chosen to break naive cuts: whitespace runs of every kind, multi-byte characters (2, 3
# and 4 bytes), contractions, digits, and special tokens, one a prefix of another.
PIECES = ["a", "b", "Ab", " ", "  ", "\n", "\r\n", "\t", "é", "日本", "😀", "'s", ".", "1", "<|"]
PIECES += ["\u00a0", "e\u0301", "ǅ", "12345", "?!", EOT, "<|end|>", "<|endoftext|>x"]
SPECIALS = st.sampled_from([[], [EOT], [EOT, "<|end|>"]])
PATTERN = st.sampled_from(["gpt2", "gpt4", "gpt4o", None, r"\w+|\s+|."])
TMP_PATH_IS_REUSED = HealthCheck.function_scoped_fixture  # fine: every example writes its files
FILES = st.lists(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join), min_size=1, max_size=4
)


def write(tmp: Path, texts: list[str]) -> list[Path]:
    paths = []
    for i, text in enumerate(texts):
        paths.append(tmp / f"{i}.txt")
        paths[-1].write_bytes(text.encode("utf-8"))
    return paths


def counts_from_files(paths, pattern, specials, chunk_size, workers=1):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the custom pattern's and no pattern's notes
        return bpe_files.count_files(paths, pattern, specials, workers, chunk_size=chunk_size)


@settings(max_examples=400, deadline=None, suppress_health_check=[TMP_PATH_IS_REUSED])
@given(texts=FILES, pattern=PATTERN, specials=SPECIALS, chunk_size=st.integers(1, 24))
def test_counts_equal_those_of_the_text(tmp_path, texts, pattern, specials, chunk_size):
    paths = write(tmp_path, texts)
    counts = counts_from_files(paths, pattern, specials, chunk_size)
    assert counts == bpe.chunk_counts("".join(texts), pattern, specials)


@settings(max_examples=60, deadline=None, suppress_health_check=[TMP_PATH_IS_REUSED])
@given(texts=FILES, pattern=PATTERN, specials=SPECIALS, chunk_size=st.integers(1, 24))
def test_merges_equal_those_of_train(tmp_path, texts, pattern, specials, chunk_size):
    paths = write(tmp_path, texts)
    size = 256 + len(specials) + 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = bpe.train("".join(texts), size, pattern, specials)
        got = bpe_files.train_from_files(
            paths,
            vocab_size=size,
            pattern=pattern,
            special_tokens=specials,
            workers=1,
            chunk_size=chunk_size,
        )
    assert got == expected


def test_chunks_are_cut_where_promised():
    text = "Hello world.\nNext line  here" + EOT + "tail"
    chunks = list(corpus_files.cut_chunks(text, "gpt4", [EOT], 1))  # read one character at a time
    assert "".join(chunks) == text
    # Before a space after a word, before a letter starting a line, and after the special token;
    # never inside the run of two spaces.
    assert chunks == ["Hello", " world.\n", "Next", " line", "  here" + EOT, "tail"]


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from(PIECES[:-3]), max_size=30).map("".join),
    pattern=st.sampled_from(["gpt2", "gpt4", "gpt4o"]),
)
def test_every_safe_cut_keeps_the_pre_tokens_of_the_whole(text, pattern):
    """The pre-tokens themselves, in order, not only their counts: lesson 8 says so."""
    whole = patterns.split_text(text, pattern)
    for cut in corpus_files.safe_cuts(text):
        halves = patterns.split_text(text[:cut], pattern) + patterns.split_text(text[cut:], pattern)
        assert halves == whole, (text, cut)


def test_handed_over_counts_are_freed_and_change_nothing():
    words = bpe.chunk_counts("the cat sat on the mat, the end " * 20, "gpt4")
    kept = Counter(words)
    assert bpe.train_from_counts(words, 268) == bpe.train_from_counts(kept, 268, consume=True)
    assert words and not kept  # emptied only when asked to


def test_several_workers_give_the_same_tokenizer(tmp_path):
    texts = ["Über  the\n\n  lazy dog's 日本語" * 50, "", EOT + "no final newline", "😀 " * 99]
    paths = write(tmp_path, texts)
    tok = Tokenizer.train_from_files(paths, vocab_size=290, special_tokens=[EOT], workers=2)
    expected = Tokenizer.train("".join(texts), 290, "gpt4", [EOT])
    assert tok.merges == expected.merges and tok.vocab == expected.vocab
    assert tok.special_tokens == expected.special_tokens == {EOT: 289}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = bpe_files.train_from_files(paths, vocab_size=300, workers=2, chunk_size=7)
    assert small == bpe.train("".join(texts), 300, "gpt4")


def test_invalid_utf8_names_the_file_and_the_byte(tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("fine\n")
    bad.write_bytes("日本".encode() + b"ab\xe6\x97" + b"c")  # a 3-byte character cut short at 8
    for chunk_size in (1, 4, 100):
        with pytest.raises(ValueError, match=r"bad.txt: invalid UTF-8 at byte 8 "):
            bpe_files.train_from_files([good, bad], vocab_size=300, chunk_size=chunk_size)
    bad.write_bytes(b"ab\xe6")  # cut short by the end of the file
    with pytest.raises(ValueError, match="at byte 2 "):
        bpe_files.train_from_files([bad], vocab_size=300, workers=2, chunk_size=1)


def test_patterns_without_a_cut_rule_say_so(tmp_path):
    paths = write(tmp_path, ["ab ab"])
    with pytest.warns(UserWarning, match="custom pattern, so the text is cut at special tokens"):
        bpe_files.train_from_files(paths, vocab_size=258, pattern=r"\w+", special_tokens=[EOT])
    with pytest.warns(UserWarning, match="read as one piece"):
        bpe_files.train_from_files(paths, vocab_size=257, pattern=r"\w+")


@pytest.mark.parametrize(
    ("paths", "options", "error", "message"),
    [
        (["missing.txt"], {}, FileNotFoundError, "missing.txt: no such file"),
        ([], {}, ValueError, "no files given"),
        (["."], {}, ValueError, "not a file"),
        (["x"], {"vocab_size": 100}, ValueError, "vocab_size must be an integer of at least 256"),
        (["x"], {"workers": 0}, ValueError, "workers must be a positive integer"),
        (["x"], {"special_tokens": EOT}, TypeError, "must be a list of strings"),
    ],
)
def test_clear_errors(paths, options, error, message):
    with pytest.raises(error, match=message):
        bpe_files.train_from_files(paths, **{"vocab_size": 300, **options})


def test_memory_does_not_grow_with_the_file(tmp_path):
    # Text over a small vocabulary, 4 MB and then 16 MB of it: the distinct pre-tokens stay few,
    # so the peak must stay put while the file grows four times (it is ~5 MB of fixed costs).
    words = [f"{w}{i}" for i in range(500) for w in (" tokens", " vocab", "\nLine", " 日本語")]
    block = "".join(words[(i * 7919) % len(words)] for i in range(100_000))
    warm_up = tmp_path / "small.txt"
    warm_up.write_text(block[:1000])
    bpe_files.count_files([warm_up], "gpt4", [], workers=1)  # imports, compiled patterns: not text
    expected = bpe.chunk_counts(block, "gpt4")
    peaks = []
    for megabytes in (4, 16):
        repeats = megabytes * 1_000_000 // len(block.encode())
        path = tmp_path / f"{megabytes}.txt"
        path.write_text(block * repeats)
        tracemalloc.start()
        try:
            counts = bpe_files.count_files([path], "gpt4", [], workers=1)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert counts == {chunk: n * repeats for chunk, n in expected.items()}
    small, large = peaks
    assert large < 1.3 * small and large < 16e6 / 2, (
        f"peaks {small / 1e6:.1f}, {large / 1e6:.1f} MB"
    )
