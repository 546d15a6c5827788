"""encode_iterable: exactly encode() of the joined text, however it is cut, in bounded memory."""

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import Tokenizer, data, lazy_encode

pytestmark = pytest.mark.scale  # memory bounds on large files

EOT = "<|endoftext|>"
SPECIALS = [EOT, "<|end|>", "<|user|>"]


@pytest.fixture(scope="module", params=["gpt2", "gpt4", "gpt4o", r"\S+|\s+"])
def tok(request):
    text = data.read_text("the-verdict")[:30000] + data.read_text("ramcharitmanas")[:5000]
    return Tokenizer.train(text, 500, pattern=request.param, special_tokens=SPECIALS)


@pytest.fixture(scope="module")
def tiny_blocks():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazy_encode, "BLOCK", 3)  # look for a cut after every few characters
        yield


# Whitespace runs, words, digits, contractions, scripts, fragments of special tokens and
# surrogate halves: the places where a careless cut changes the tokens.
atoms = st.sampled_from(
    [" ", "  ", "\n", "\n\n", "\r\n", "\t", "a", "dog", "Egg", "'s", "'ll", "123", "4", "ह", "नम",
     "👋", "é", "\ud83d", "\ude00", "<|", "end", "|>", "oftext", EOT, "<|end|>", ".", "!?", "/"]
)  # fmt: skip
texts = st.lists(atoms, max_size=40).map("".join)


def cuts(text, points):
    points = sorted({p % (len(text) + 1) for p in points})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@settings(max_examples=300, deadline=None)
@given(text=texts, points=st.lists(st.integers(0, 10_000), max_size=8))
def test_equals_encode_of_the_whole(tok, tiny_blocks, text, points):
    chunks = cuts(text, points)
    for allowed, disallowed in [("all", "all"), ({EOT}, ()), ((), ())]:
        expected = tok.encode(text, allowed_special=allowed, disallowed_special=disallowed)
        got = tok.encode_iterable(chunks, allowed_special=allowed, disallowed_special=disallowed)
        assert list(got) == expected
    if any(s in text for s in SPECIALS):
        with pytest.raises(ValueError, match="disallowed"):
            list(tok.encode_iterable(chunks))
    else:
        assert list(tok.encode_iterable(chunks)) == tok.encode(text)


def test_newlines_are_not_safe_cuts(tiny_blocks):
    """GPT-2 splits "a\\n\\n\\nb" as a | \\n\\n | \\n | b: a cut at a newline changes that."""
    gpt2 = Tokenizer.from_tiktoken("gpt2")
    text = "a\n\n\nb"
    assert [gpt2.decode([i]) for i in gpt2.encode(text)] == ["a", "\n\n", "\n", "b"]
    assert list(gpt2.encode_iterable(["a\n", "\n", "\n", "b"])) == gpt2.encode(text)
    assert list(gpt2.encode_iterable(text.splitlines(keepends=True))) == gpt2.encode(text)


def test_an_open_file_and_bad_input(tmp_path):
    tok = Tokenizer.from_tiktoken("cl100k_base")
    text = "\n".join(data.flores("hin_Deva"))[:20000] + EOT + data.read_text("the-verdict")[:9000]
    path = tmp_path / "text.txt"
    path.write_text(text, encoding="utf-8")
    with open(path, encoding="utf-8") as file:
        assert list(tok.encode_iterable(file, allowed_special="all")) == tok.encode(
            text, allowed_special="all"
        )
    with pytest.raises(TypeError, match="iterable of str"):
        next(tok.encode_iterable("a string"))
    with pytest.raises(TypeError, match="needs str pieces, got bytes"):
        next(tok.encode_iterable([b"bytes"]))


def peak_memory_of_encoding(tok, path) -> tuple[int, int]:
    """(number of ids, peak bytes allocated by Python) while streaming the file's ids."""
    tracemalloc.start()
    try:
        with open(path, encoding="utf-8") as file:
            count = sum(1 for _ in tok.encode_iterable(file, allowed_special="all"))
        return count, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_file(tmp_path):
    text = data.read_text("the-verdict")
    tok = Tokenizer.train(text, 500, pattern="gpt4", special_tokens=[EOT])
    block = text[:20000] + " नमस्ते 👋 " + EOT + "\n"  # ends where the pattern cuts anyway
    per_block = len(tok.encode(block, allowed_special="all"))
    tok.encode(block * 2, allowed_special="all")  # fill the chunk cache before measuring
    peaks = []
    for mb in (1, 4):
        path = tmp_path / f"{mb}mb.txt"
        copies = mb * 1_000_000 // len(block.encode("utf-8"))
        with open(path, "w", encoding="utf-8") as file:
            for _ in range(copies):
                file.write(block)
        count, peak = peak_memory_of_encoding(tok, path)
        assert count == copies * per_block
        peaks.append(peak)
        path.unlink()
    # Four times the text, the same memory: far less than the 4 MB the text takes.
    assert peaks[1] < 2_000_000 and peaks[1] < 1.5 * peaks[0], peaks
