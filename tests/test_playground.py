"""lib.playground and lib.token_cuts: tokenizers of every shape side by side, as HTML and widget."""

from __future__ import annotations

import html
import json
import pathlib
import re
import subprocess
import sys

import pytest

from lib import data, token_cuts, viz, wordpiece
from lib.char_tokenizer import CharTokenizer
from lib.playground import MAX_SHOWN, WIDGET_VIEW, Playground
from lib.tokenizer import Tokenizer
from lib.unigram import Unigram


@pytest.fixture(scope="module")
def cl100k():
    return data.tiktoken_encoding("cl100k_base")


@pytest.fixture(scope="module")
def ours():
    return Tokenizer.train(
        "the cat sat on the mat. " * 20, vocab_size=270, special_tokens=["<|endoftext|>"]
    )


def token_titles(page: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'<span title="([^"]*)"', page)]


def test_every_kind_of_tokenizer_is_cut_the_same_way(cl100k, ours):
    text = "the cat"
    unigram = Unigram([("<unk>", 0.0), ("▁the", -1.0), ("▁cat", -2.0), ("▁", -3.0)])
    vocab = {"[UNK]": 0, "the": 1, "ca": 2, "##t": 3}
    chars = CharTokenizer("the ca")
    kinds = {
        "cl100k_base": ("cl100k_base", [b"the", b" cat"], cl100k.encode(text)),
        "tiktoken": (cl100k, [b"the", b" cat"], cl100k.encode(text)),
        "ours": (ours, [ours.decode_bytes([i]) for i in ours.encode(text)], ours.encode(text)),
        "chars": (chars, [bytes([b]) for b in b"the cat"], chars.encode(text)),
        "unigram": (unigram, [b"\xe2\x96\x81the", b"\xe2\x96\x81cat"], [1, 2]),
        "wordpiece": (vocab, [b"the", b"ca", b"##t"], [1, 2, 3]),
        "function": (str.split, [b"the", b"cat"], [None, None]),
        "spans": (lambda t: wordpiece.tokenize(t, vocab), [b"the", b"ca", b"##t"], [None] * 3),
    }
    for name, (tokenizer, pieces, ids) in kinds.items():
        cut = token_cuts.cutter(tokenizer)(text if name != "unigram" else "▁the▁cat")
        assert (cut.pieces, cut.ids) == (pieces, ids), name


def test_sentencepiece_byte_tokens_are_bytes():
    assert token_cuts.piece_bytes("<0xE0>") == b"\xe0"
    assert token_cuts.piece_bytes("▁a") == "▁a".encode()


def test_a_function_returning_ids_is_told_what_to_return():
    with pytest.raises(TypeError, match="not token strings"):
        token_cuts.cutter(lambda text: [1, 2])("ab")


def test_an_unknown_kind_of_tokenizer_says_what_is_accepted():
    with pytest.raises(TypeError, match="tiktoken encoding's name"):
        token_cuts.cutter(42)


def test_rows_show_counts_bytes_per_token_and_tokens(cl100k, ours):
    pg = viz.playground({"GPT-4": cl100k, "ours": ours}, text="the cat sat")
    page = pg.html()
    assert "<b>GPT-4 · 3 tokens · 3.67 bytes per token</b>" in page
    n = len(ours.encode("the cat sat"))
    assert f"<b>ours · {n} token{'s' * (n != 1)} · {11 / n:.2f} bytes per token</b>" in page
    titles = token_titles(page)
    ids = cl100k.encode("the cat sat")
    assert titles == [
        f"id {i} · {p!r}" for i, p in zip(ids, [b"the", b" cat", b" sat"], strict=True)
    ] + [f"id {i} · {ours.decode_bytes([i])!r}" for i in ours.encode("the cat sat")]
    assert f"[{', '.join(map(str, cl100k.encode('the cat sat')))}]" in page  # the ids below


def test_changing_the_text_changes_the_rows(cl100k):
    pg = viz.playground([cl100k], text="hello")
    assert "1 token ·" in pg.html()
    pg.set_text("hello world, hello tokens")
    assert f"{len(cl100k.encode('hello world, hello tokens'))} tokens" in pg.html()


def test_empty_text_is_zero_tokens_not_an_error(cl100k, ours):
    pg = viz.playground([cl100k, ours, str.split], text="")
    page = pg.html()
    assert page.count("· 0 tokens · – bytes per token") == 3
    assert "error" not in page


def test_a_failing_tokenizer_shows_its_error_in_its_own_row(cl100k):
    def picky(text: str) -> list[str]:
        if "x" in text:
            raise ValueError("no x, please")
        return list(text)

    pg = viz.playground({"picky": picky, "GPT-4": cl100k}, text="xyz")
    page = pg.html()
    assert "picky · error: ValueError: no x, please" in page
    assert "GPT-4 · 1 token" in page  # the other row keeps working
    pg.set_text("yz")
    assert "error" not in pg.html()


def test_special_token_strings_are_ordinary_text_and_the_playground_says_so(cl100k, ours):
    text = "end<|endoftext|>"
    pg = viz.playground([cl100k, ours], text=text)
    rows = pg.rows()
    assert rows[0].cut.ids == cl100k.encode_ordinary(text)
    assert rows[1].cut.ids == ours.encode(text, disallowed_special=())
    assert "&lt;|endoftext|&gt; in the text is cut as ordinary text" in pg.html()
    assert not viz.playground([cl100k], text="end").notes()


def test_the_toggle_marks_whitespace_and_byte_fragments(cl100k):
    pg = viz.playground([cl100k], text=" a\n नमस्ते")
    plain = pg.html()
    pg.marks = True
    marked = pg.html()
    token = r'<span title="[^"]*" style="[^"]*">([^<]*)</span>'  # not the hidden bars between
    labels = [html.unescape(t) for t in re.findall(token, marked)]
    assert labels[:4] == ["·a", "↵", "·<e0 a4>", "<a8>"]
    labels = [html.unescape(t) for t in re.findall(token, plain)]
    assert labels[:4] == [" a", "\n", " �", "�"]


def test_a_pasted_page_is_counted_in_full_and_drawn_in_part(cl100k):
    page = data.read_text("the-verdict")[:12_000]
    pg = viz.playground([cl100k], text=page)
    n = len(cl100k.encode(page))
    assert n > MAX_SHOWN
    shown = pg.html()
    assert f"· {n:,} tokens ·".replace(",", "") in shown.replace(",", "")
    assert len(token_titles(shown)) == MAX_SHOWN
    assert f"… and {n - MAX_SHOWN:,} more tokens" in shown


def test_text_is_escaped(cl100k):
    page = viz.playground({"<i>x</i>": cl100k}, text="<script>alert(1)</script>")
    page = page._repr_mimebundle_()["text/html"]
    assert "<script>" not in page and "<i>x</i>" not in page


def test_outside_a_kernel_the_output_is_static_html_and_plain_text(cl100k):
    bundle = viz.playground([cl100k], text="hi there")._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "cl100k_base · 2 tokens" in bundle["text/plain"]
    assert "(run the cell to type your own)" in bundle["text/html"]


def test_the_widget_follows_its_text_box_and_toggle(cl100k):
    pytest.importorskip("ipywidgets")
    pg = Playground({"GPT-4": cl100k}, text="one")
    box, toggle, rows = pg.widget().children
    assert "1 token ·" in rows.value
    box.value = "one two three"  # no event loop here, so no debounce: the rows follow at once
    assert "3 tokens ·" in rows.value
    toggle.value = True
    assert "·two" in rows.value


def test_a_single_wordpiece_vocabulary_is_one_tokenizer():
    pg = Playground({"[UNK]": 0, "a": 1}, text="a b")
    assert [row.cut.ids for row in pg.rows()] == [[1, 0]]


def test_typing_in_a_live_kernel_redraws_the_rows_once_after_a_pause():
    """A real kernel and the widget messages a browser sends (tests/playground_in_a_kernel.py)."""
    script = pathlib.Path(__file__).with_name("playground_in_a_kernel.py")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["errors"] == []
    assert seen["formats"] == [WIDGET_VIEW, "text/html", "text/plain"]
    assert seen["static"][1] == "GPT-4 · 1 token · 5.00 bytes per token"
    assert seen["redraws_for_three_keystrokes"] == 1  # the debounce
    assert (
        seen["after_typing"][1] == "GPT-4 · 5 tokens · 3.40 bytes per token"
    )  # "hello world!  Egg"
    assert seen["marked_after_toggle"]


def test_hugging_face_and_sentencepiece_tokenizers_without_their_added_tokens():
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "the": 3, "cat": 4}
    bert = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    bert.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    bert.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    cut = token_cuts.cutter(bert)("the cat dog")
    assert (cut.pieces, cut.ids) == ([b"the", b"cat", b"[UNK]"], [3, 4, 0])  # no [CLS], [SEP]

    class FakeSentencePiece:  # the two methods the playground calls, as sentencepiece names them
        def encode_as_pieces(self, text: str) -> list[str]:
            return ["▁a", "<0xE0>"]

        def piece_to_id(self, piece: str) -> int:
            return {"▁a": 5, "<0xE0>": 227}[piece]

    cut = token_cuts.cutter(FakeSentencePiece())("a")
    assert (cut.pieces, cut.ids) == (["▁a".encode(), b"\xe0"], [5, 227])
