"""The course's website (`python -m lib.notebooks site`), checked as a reader meets it: every
lesson has a page, every link and image on it is there, the search finds the lessons' words, and
in a real browser the pages load without errors and every figure shows."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest
from bs4 import BeautifulSoup
from one_browser import visit

from lib.notebooks import NOTEBOOKS, ROOT, main, notebook_paths
from lib.static_figures import PNG, figure_outputs
from lib.website import build_site

pytestmark = pytest.mark.scale  # builds the site with nbconvert: the same HTML on every Python

REPO = "https://github.com/ada/tokenization-course"
LESSONS = notebook_paths()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "_site"
    start = time.process_time()
    assert build_site(out, LESSONS, ROOT / "README.md", REPO) == []  # every figure has its PNG
    # CPU seconds, not wall time, so others' load on the machine does not count: about 10 s
    # here (nbconvert's export is most of it).
    assert time.process_time() - start < 40
    return out


@cache  # a page is parsed once (parsing is slow); the tests only read it
def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@cache
def ids(path: Path) -> set[str]:
    """The anchors a link into the page can name."""
    return {tag["id"] for tag in soup(path).select("[id]")}


def test_the_readme_is_the_home_page_then_every_lesson_in_order(site):
    pages = ["index.html"] + [path.with_suffix(".html").name for path in LESSONS]
    for i, name in enumerate(pages):
        page = soup(site / name)
        menu = [a["href"] for a in page.select("nav.lessons a")]
        assert menu == pages, name
        assert page.select_one('nav.lessons [aria-current="page"] a')["href"] == name
        following = page.select_one('.pager a[rel="next"]')
        assert (following and following["href"]) == (pages[i + 1] if i + 1 < len(pages) else None)
    home = soup(site / "index.html")
    assert home.h1.get_text().startswith("Tokenization, from bytes to GPT-4")
    assert "Start the course" in home.get_text() and not home.select("img")  # badges as links
    lesson = soup(site / "05_encoding.html")
    assert lesson.h1.get_text().startswith("Lesson 5")
    assert "# Set-up" not in lesson.get_text()  # the site runs nothing: no set-up cell


def test_each_lesson_links_to_colab_and_github_at_the_repository_set(site):
    for path in LESSONS:
        links = [
            a["href"] for a in soup(site / path.with_suffix(".html").name).select(".actions a")
        ]
        assert links == [
            f"https://colab.research.google.com/github/ada/tokenization-course/blob/main/notebooks/{path.name}",
            f"{REPO}/blob/main/notebooks/{path.name}",
        ]


def test_every_link_and_image_resolves_and_nothing_comes_from_the_internet(site):
    for page in site.glob("*.html"):
        for tag in soup(page).select("[href], [src]"):
            address = tag.get("href") or tag["src"]
            if tag.name != "a":  # style sheets, scripts and images: all in the site itself
                assert not re.match(r"[a-z]+:", address), (page.name, address)
            if address.startswith(("https://github.com/ada/", "https://colab.research.google")):
                continue
            if re.match(r"[a-z]+:", address):  # a lesson's reference (a paper, a data set)
                assert re.match(r"https?://", address), (page.name, address)
                continue
            target, _, anchor = address.partition("#")
            assert not target.endswith((".ipynb", ".md")), (page.name, address)  # not on the site
            target_path = site / target if target else page
            assert target_path.is_file(), (page.name, address)
            if anchor and target_path.suffix == ".html":
                assert anchor in ids(target_path) or unquote(anchor) in ids(target_path), address


def test_every_figure_has_its_png_and_its_data(site):
    for path in LESSONS:
        stored = list(figure_outputs(nbformat.read(path, as_version=4)))
        figures = soup(site / path.with_suffix(".html").name).select("figure.plotly-figure")
        assert len(figures) == len(stored), path.name
        for figure, output in zip(figures, stored, strict=True):
            image = site / figure.img["src"]
            assert image.read_bytes() == base64.b64decode(output.data[PNG])
            assert image.read_bytes()[:8] == PNG_MAGIC and figure.img["alt"]
            assert "<" not in figure.img["alt"], figure.img["alt"]  # plotly's tags, read out
            assert json.loads(figure.script.string)["data"]  # what site.js draws
    assert sum(1 for _ in (site / "figures").iterdir()) == 10  # the lessons' ten charts today


def test_a_chart_title_on_two_lines_is_one_plain_line_of_alt_text():
    """Lesson 7's chart title has a second, smaller line (`<br><sup>...</sup>`) so that it fits
    a phone's width; the PNG's alt text says both lines, without plotly's tags."""
    from lib.website import _figure_html

    title = "Premium of four tokenizers<BR/> <sup>trained on dev, measured on devtest</sup>"
    html = _figure_html({"data": [], "layout": {"title": {"text": title}}}, "figures/x.png")
    alt = BeautifulSoup(html, "html.parser").img["alt"]
    assert alt == "Premium of four tokenizers trained on dev, measured on devtest"


def search_index(site: Path) -> list[dict[str, str]]:
    text = (site / "assets" / "search-index.js").read_text(encoding="utf-8")
    return json.loads(text.removeprefix("window.COURSE_SEARCH = ").removesuffix(";\n"))


def test_the_search_index_has_every_page_and_the_lessons_words(site):
    index = search_index(site)
    assert {entry["page"] for entry in index} == {
        soup(site / name).select_one('nav.lessons [aria-current="page"] a').get_text()
        for name in ["index.html"] + [p.with_suffix(".html").name for p in LESSONS]
    }
    graphemes = [e for e in index if "grapheme" in e["text"].lower()]
    assert any(e["url"].startswith("01_unicode_and_utf8.html#") for e in graphemes)
    assert any("Viterbi" in e["text"] and e["url"].startswith("07_") for e in index)
    for entry in index:  # each result opens at its heading
        page, _, anchor = entry["url"].partition("#")
        assert (
            anchor
            and soup(site / page).find(id=anchor)
            or soup(site / page).find(id=unquote(anchor))
        ), entry["url"]


def test_a_figure_without_its_png_is_named_and_left_interactive_only(tmp_path, capsys):
    nb = nbformat.read(NOTEBOOKS / "01_unicode_and_utf8.ipynb", as_version=4)
    for output in figure_outputs(nb):
        del output.data[PNG]
    nbformat.write(nb, tmp_path / "01_unicode_and_utf8.ipynb")
    out = tmp_path / "_site"
    argv = ["site", "--out", str(out), str(tmp_path / "01_unicode_and_utf8.ipynb")]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "warning: 01_unicode_and_utf8.ipynb: figure 1 has no stored PNG" in printed
    figure = soup(out / "01_unicode_and_utf8.html").select_one("figure.plotly-figure")
    assert figure.script and not figure.img and "needs JavaScript" in figure.noscript.get_text()


def test_building_again_replaces_the_old_site(tmp_path):
    out = tmp_path / "_site"
    build_site(out, LESSONS[:1], ROOT / "README.md", REPO)
    build_site(out, LESSONS[1:2], ROOT / "README.md", REPO)
    assert sorted(p.name for p in out.glob("*.html")) == [
        "02_character_tokenizer.html",
        "index.html",
        "search.html",
    ]


def browser() -> str | None:
    found = [
        os.environ.get("BROWSER_PATH"),
        shutil.which("chromium"),
        shutil.which("google-chrome"),
    ]
    return next((path for path in found if path), None)


@pytest.mark.end_to_end
@pytest.mark.skipif(browser() is None, reason="needs Chromium (apt-get install chromium)")
def test_in_chromium_every_page_loads_without_errors_and_every_figure_draws(site, tmp_path):
    """One screenshot per page stays for a person to look at: in $COURSE_SITE_SCREENSHOTS (CI
    keeps that folder), else in this test's temporary folder."""
    shots = Path(os.environ.get("COURSE_SITE_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    pages = sorted(site.glob("*.html"))
    addresses = [p.as_uri() + ("?q=byte+pair" if p.name == "search.html" else "") for p in pages]
    visits = visit(browser(), addresses, [shots / p.with_suffix(".png").name for p in pages])
    for page, seen in zip(pages, visits, strict=True):
        assert seen.console == [] and seen.settled, page.name
        dom = BeautifulSoup(seen.dom, "html.parser")
        figures = dom.select("figure.plotly-figure")
        assert len(figures) == len(soup(page).select("figure.plotly-figure"))
        for figure in figures:  # drawn by plotly (it removes the PNG then)
            assert "drawn" in figure["class"] and figure.select(".main-svg"), page.name
        if page.name == "search.html":
            assert len(dom.select("#search-results li")) > 3
        assert (shots / page.with_suffix(".png").name).read_bytes()[:8] == PNG_MAGIC


def test_the_readme_names_the_site_on_its_first_screen_and_set_repo_moves_it(tmp_path):
    from lib import notebooks

    slug = notebooks.REPO_URL.removeprefix("https://github.com/")
    owner, name = slug.split("/")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = readme[: readme.index("| 1 |")]  # before the lessons' table
    assert f"<https://{owner}.github.io/{name}/>" in first_screen
    (tmp_path / "lib").mkdir()
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copy(ROOT / "lib" / "notebooks.py", tmp_path / "lib" / "notebooks.py")
    (tmp_path / "notebooks").mkdir()
    notebooks.set_repo("ada/tokenization-course", root=tmp_path)
    moved = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "<https://ada.github.io/tokenization-course/>" in moved and owner not in moved


def test_set_repo_with_a_malformed_name_says_what_is_valid_and_changes_nothing(capsys):
    before = {path: path.read_bytes() for path in [ROOT / "README.md", *LESSONS]}
    with pytest.raises(SystemExit) as stop:
        main(["set-repo", "https://github.com/ada"])
    assert stop.value.code == 2
    assert "is not OWNER/NAME (e.g. ada/tokenization-course)" in capsys.readouterr().err
    assert {path: path.read_bytes() for path in before} == before


def test_text_outputs_keep_their_columns_and_scroll_sideways():
    """Review rev26s F8: with `pre-wrap` a 96-column table broke into rows that no longer lined
    up on a phone; unwrapped, it scrolls inside its own box."""
    css = (Path(__file__).parent.parent / "lib/website_assets/style.css").read_text()
    rule = re.search(r"\.output_area pre \{([^}]*)\}", css)
    assert rule and "white-space: pre;" in rule.group(1) and "overflow-x: auto" in rule.group(1)
