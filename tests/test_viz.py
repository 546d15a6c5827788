"""lib.viz: coloured tokens for our tokenizers and tiktoken's, and the lessons' chart helpers."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from bs4 import BeautifulSoup
from IPython.core.formatters import DisplayFormatter

from lib import data, token_view, viz
from lib.tokenizer import Tokenizer
from tests import unstyled

TEXTS = ["Hello world!\n\tindented", "नमस्ते दुनिया", "안녕하세요 👋🏽", "<b>bold</b> & café", ""]


@pytest.fixture(scope="module")
def cl100k():
    return data.tiktoken_encoding("cl100k_base")


@pytest.fixture(scope="module")
def ours():
    return Tokenizer.train("the cat sat on the mat. नमस्ते नमस्ते! " * 20, vocab_size=280)


@pytest.mark.parametrize("text", TEXTS)
def test_tokens_reassemble_to_the_text(text, cl100k, ours):
    for tokenizer in (cl100k, ours):
        view = viz.show_tokens(text, tokenizer)
        assert view.ids == list(tokenizer.encode(text))
        assert b"".join(view.pieces) == text.encode("utf-8")
        page = view._repr_html_()
        assert page.count('<span title="id ') == len(view.ids)
        assert f"<b>{len(view.ids)} token" in page


def test_readable_shows_whitespace_and_partial_characters():
    assert viz.readable(b" caf\xc3\xa9") == "·café"
    assert viz.readable(b"\n\t\r") == "↵→␍"
    assert viz.readable(b"\xe0\xa4") == "<e0 a4>"  # the first two bytes of a Devanagari letter
    assert viz.readable(b" \xf0\x9f\x91") == "·<f0 9f 91>"
    assert viz.readable(b"\x00\x1b") == "<00 1b>"


def test_partial_utf8_tokens_are_shown_as_bytes(cl100k):
    view = viz.show_tokens("नमस्ते", cl100k)  # cl100k_base splits some Devanagari letters
    partial = [p for p in view.pieces if viz.readable(p).startswith("<")]
    assert partial, "expected at least one token that is not valid UTF-8 on its own"
    assert html.escape(viz.readable(partial[0])) in view._repr_html_()
    assert viz.readable(partial[0]) in repr(view)


def test_text_is_escaped_in_html(cl100k):
    page = viz.show_tokens("<script>alert(1)</script>", cl100k)._repr_html_()
    assert "<script>" not in page and "&lt;" in page


def test_plain_text_fallback_lists_tokens_and_ids(cl100k):
    view = viz.show_tokens("Hello world", cl100k, show_ids=True)
    ids = list(cl100k.encode("Hello world"))
    assert (
        repr(view) == f"2 tokens · 11 characters · 11 bytes · 5.50 bytes per token\n"
        f"│Hello│·world│\nids: {ids}"
    )
    page = view._repr_html_()
    assert all(f'<span style="display:none"> (id </span>{i}<span' in page for i in ids)


def test_special_tokens_are_shown_as_one_token(cl100k):
    view = viz.show_tokens("hi<|endoftext|>", cl100k)
    assert view.pieces[-1] == b"<|endoftext|>"


def test_a_tokenizer_with_only_encode_and_decode():
    class Letters:  # like a character-level tokenizer: no special tokens, no bytes
        def encode(self, text):
            return [ord(c) for c in text]

        def decode(self, ids):
            return "".join(map(chr, ids))

    view = viz.show_tokens("añb", Letters())
    assert view.pieces == [b"a", "ñ".encode(), b"b"]


def test_charts_have_titles_and_axis_labels():
    bar = viz.bar_chart(["a", "b"], [3, 1], "Token counts", "token", "count (tokens)", log_y=True)
    grouped = viz.grouped_bar_chart(
        ["eng", "hin"],
        {"GPT-2": [1, 5], "GPT-4": [1, 3]},
        "Premium",
        "language",
        "tokens relative to English",
    )
    line = viz.line_chart(
        [10, 100], {"English": [1.5, 2.5]}, "Compression", "number of merges", "bytes per token"
    )
    for figure, title in ((bar, "Token counts"), (grouped, "Premium"), (line, "Compression")):
        assert figure.layout.title.text == title
        assert figure.layout.xaxis.title.text and figure.layout.yaxis.title.text
        assert figure.layout.template.layout.paper_bgcolor == "white"  # one template for all
        # Okabe-Ito: no red beside green for a reader with a colour-vision deficiency
        assert figure.layout.colorway[:3] == ("#0072B2", "#E69F00", "#009E73")
    assert bar.layout.yaxis.type == "log"
    assert grouped.layout.barmode == "group" and [t.name for t in grouped.data] == [
        "GPT-2",
        "GPT-4",
    ]
    assert list(line.data[0].y) == [1.5, 2.5]


def test_grouped_bars_can_start_at_one_and_put_the_legend_below():
    """Review rev26s F2, F4: on a log axis a bar from the floor has a meaningless length, and a
    legend at the side took half a phone's width."""
    premiums = {"A": [0.5, 2.0], "B": [1.0, 4.0]}
    chart = viz.grouped_bar_chart(
        ["x", "y"], premiums, "t", "x", "y", log_y=True, from_value=1, legend_below=True
    )
    for bar, values in zip(chart.data, premiums.values(), strict=True):
        assert bar.base == 1 and [1 + y for y in bar.y] == values  # 0.5 points down from 1
        assert list(bar.customdata) == values  # what the hover shows
    assert chart.layout.legend.orientation == "h" and chart.layout.legend.yref == "container"
    plain = viz.grouped_bar_chart(["x", "y"], premiums, "t", "x", "y")
    assert plain.data[0].base is None and plain.layout.legend.orientation is None


def test_charts_refuse_missing_labels_and_mismatched_lengths():
    with pytest.raises(ValueError, match="title"):
        viz.bar_chart(["a"], [1], "", "x", "y")
    with pytest.raises(ValueError, match="y_label"):
        viz.line_chart([1], {"s": [1]}, "t", "x", " ")
    with pytest.raises(ValueError, match="2 values for 1"):
        viz.grouped_bar_chart(["a"], {"s": [1, 2]}, "t", "x", "y")


def test_text_table_from_lists_or_dicts():
    table = viz.text_table(
        [["English", 52835, 1.0], ["Burmese", 618268, 11.7019]], ["language", "tokens", "premium"]
    )
    assert table.splitlines() == [
        "language   tokens  premium",
        "--------------------------",
        "English    52,835     1.00",
        "Burmese   618,268    11.70",
    ]
    rows = [{"a": 1, "long name": "x"}, {"a": 100, "long name": "yy"}]
    expected = ["  a  long name", "-" * 14, "  1  x", "100  yy"]
    assert viz.text_table(rows).splitlines() == expected


# What JupyterLab's themes give text that sets no colours of its own (its light and dark themes).
THEMES = {"light": ("#000000", "#ffffff"), "dark": ("#d4d4d4", "#111111")}


def luminance(colour: str) -> float:
    """WCAG relative luminance of "#rrggbb"."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


class TextColours(HTMLParser):
    """Each piece of text in a page with the text and background colour it is drawn in, when
    the page sits on a theme's (text, background)."""

    def __init__(self, theme: tuple[str, str]) -> None:
        super().__init__()
        self.stack, self.seen = [theme], []

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "wbr"):
            return
        style = dict(attrs).get("style") or ""
        ink, paper = self.stack[-1]
        ink = (re.search(r"(?:^|;)color:(#\w+)", style) or [None, ink])[1]
        paper = (re.search(r"background:(#\w+)", style) or [None, paper])[1]
        self.stack.append((ink, paper))

    def handle_endtag(self, tag):
        self.stack.pop()

    def handle_data(self, text):
        if text.strip():
            self.seen.append((text, *self.stack[-1]))


@pytest.mark.parametrize("show_ids", [False, True])
def test_token_view_is_readable_in_light_and_dark_themes(cl100k, show_ids):
    page = viz.show_tokens("Hello world!\n\tनमस्ते 👋", cl100k, show_ids)._repr_html_()
    drawn = {}
    for theme, colours in THEMES.items():
        parser = TextColours(colours)
        parser.feed(page)
        drawn[theme] = parser.seen
        for text, ink, paper in parser.seen:
            assert contrast(ink, paper) >= 4.5, (theme, text, ink, paper)
    assert drawn["light"] == drawn["dark"]  # every colour is the view's own, not the theme's
    assert len(drawn["light"]) > 10


def test_palette_is_okabe_ito_tints_and_tokens_have_borders(cl100k):
    okabe_ito = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7")
    tints = [
        "#" + "".join(f"{round(0.35 * int(c[i : i + 2], 16) + 0.65 * 255):02x}" for i in (1, 3, 5))
        for c in okabe_ito
    ]
    assert list(token_view.PALETTE) == tints
    assert min(contrast(token_view.INK, colour) for colour in tints) > 11
    page = viz.show_tokens("one two three four five six seven eight", cl100k)._repr_html_()
    styles = re.findall(r'<span title="[^"]*" style="([^"]*)"', page)
    assert len(styles) == 8 and all("border:1px solid" in style for style in styles)
    backgrounds = [re.search(r"background:(#\w+)", style)[1] for style in styles]
    assert all(a != b for a, b in zip(backgrounds, backgrounds[1:], strict=False))


def test_tokens_never_break_inside_and_whitespace_is_marked(cl100k):
    view = viz.show_tokens("a long word\nnext line", cl100k)
    page = view._repr_html_()
    tokens = re.findall(r'<span title="[^"]*" style="([^"]*)">([^<]*)</span>', page)
    assert [label for _, label in tokens] == ["a", "·long", "·word", "↵", "next", "·line"]
    assert all("white-space:pre" in style for style, _ in tokens)
    # Between two tokens only a break opportunity (and a line break after "↵"), and a bar that
    # only a renderer without styles shows.
    between = re.findall(r"</span>(<wbr>.*?)<span title", page)
    bar = '<span style="display:none">│</span>'
    assert between == [f"<wbr>{bar}"] * 3 + [f"<wbr><br>{bar}"] + [f"<wbr>{bar}"]


@pytest.mark.parametrize("show_ids", [False, True])
def test_without_styles_bars_mark_the_token_boundaries(cl100k, show_ids):
    """GitHub strips every style from the notebooks it shows: the tokens must not run together."""
    view = viz.show_tokens("नमस्ते!\n\thi", cl100k, show_ids)
    [(shown, expected)] = unstyled.token_rows(view._repr_html_())
    assert shown == expected
    tokens = repr(view).split("\n", 1)[1].split("\nids:")[0]  # the plain-text form's tokens
    assert tokens == "│न│म│स│्<e0 a4>│<a4>│े│!↵\n│→│hi│"
    if show_ids:
        ids = iter(view.ids)
        tokens = re.sub(r"(?<=[^│\n])(?=│|\n)", lambda _: f" (id {next(ids)})", tokens)
    assert shown == tokens
    # Where styles apply, the bars and the ids' brackets are hidden: the borders show the tokens.
    styled = BeautifulSoup(view._repr_html_(), "html.parser")
    for hidden in styled.find_all(style=re.compile(r"(^|;)display:none")):
        hidden.decompose()
    assert "│" not in styled.get_text() and "(id" not in styled.get_text()


def test_token_view_has_a_plain_text_form_beside_the_html(cl100k):
    view = viz.show_tokens("Hi there", cl100k)
    bundle, _ = DisplayFormatter().format(view)
    assert (
        bundle["text/plain"]
        == "2 tokens · 8 characters · 8 bytes · 4.00 bytes per token\n│Hi│·there│"
    )
    assert bundle["text/html"] == view._repr_html_()


def test_line_panels_share_the_x_axis_and_keep_each_series_colour():
    figure = viz.line_panels(
        [512, 1024],
        {
            "spread (max ÷ min)": {"a": [2, 1], "b": [3, 2]},
            "Gini": {"a": [0.2, 0.1], "b": [0.3, 0.2]},
        },
        "Two measures",
        "vocabulary size (tokens)",
    )
    assert [t.line.color for t in figure.data[:2]] == [t.line.color for t in figure.data[2:]]
    assert [t.line.color for t in figure.data[:2]] == list(viz.COLOURS[:2])
    assert [t.showlegend for t in figure.data] == [True, True, False, False]
    assert (figure.layout.yaxis.title.text, figure.layout.yaxis2.title.text) == (
        "spread (max ÷ min)",
        "Gini",
    )
    with pytest.raises(ValueError, match="y_label"):
        viz.line_panels([1], {" ": {"a": [1]}}, "t", "x")
