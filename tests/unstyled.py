"""Token views as GitHub shows them: every `style` attribute and `<style>` tag removed.

`token_rows(page)` gives, for each row of tokens in a page, the text a reader sees there without
styles (line breaks kept, hidden text shown) and the tokens' own labels, read from the styled
page, so a test can check that the one is the other with a `│` between and around each token.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag


def strip_styles(page: str) -> BeautifulSoup:
    """The page as a renderer that drops all CSS has it."""
    soup = BeautifulSoup(page, "html.parser")
    for sheet in soup.find_all("style"):
        sheet.decompose()
    for tag in soup.find_all(style=True):
        del tag["style"]
    return soup


def _shown(tag: Tag) -> str:
    """The text of `tag` as drawn, <br> as a new line (whitespace as written: no styles are
    left that could change it, and the tokens' labels are compared as written too)."""
    parts = []
    for node in tag.descendants:
        if isinstance(node, Tag):
            parts.append("\n" if node.name == "br" else "")
        else:
            parts.append(str(node))
    return "".join(parts)


def _rows(soup: BeautifulSoup) -> list[Tag]:
    # A row is the <div> whose children are the tokens' spans (each has a "title", its id).
    return [div for div in soup.find_all("div") if div.find("span", title=True, recursive=False)]


def token_rows(page: str) -> list[tuple[str, str]]:
    """Per row of tokens: (the text a reader sees there without styles, the text they should
    see), the second built from the styled page's token spans: each token's label between `│`
    bars, its printed id after it as " (id 123)", a new line where the styled view breaks one."""
    styled, bare = _rows(BeautifulSoup(page, "html.parser")), _rows(strip_styles(page))
    found = []
    for row, bare_row in zip(styled, bare, strict=True):
        expected = []
        for span in row.find_all("span", title=True, recursive=False):
            label = "".join(span.find_all(string=True, recursive=False))
            if small := span.find("small"):  # the id printed under the token
                label += f" (id {''.join(small.find_all(string=True, recursive=False))})"
            breaks = span.find_next_sibling(["span", "br"])
            expected.append(f"│{label}" + "\n" * (breaks is not None and breaks.name == "br"))
        found.append((_shown(bare_row), "".join(expected) + "│"))
    return found
