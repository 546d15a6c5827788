"""The course as a static website, built from the stored notebooks without running anything.

    python -m lib.notebooks site --out _site

The README becomes the home page, then every lesson gets a page of its own: its text, code and
stored outputs, rendered by nbconvert's HTML exporter (the tool Jupyter itself uses to export a
notebook). Around them the site adds what a class needs and a notebook lacks: a list of the
lessons on every page, links to the previous and next lesson, an "Open in Colab" link, and a
search page. The content is plain HTML and CSS, readable without JavaScript and in light and dark
themes; JavaScript only adds the search and draws the plotly figures interactively, over the PNG
that `python -m lib.notebooks regenerate` stores beside each one. Nothing is loaded from the
internet, so the site also works from a folder (`file://`) in a classroom offline.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import nbformat
from bs4 import BeautifulSoup, NavigableString, Tag
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from pygments.formatters import HtmlFormatter

from lib.static_figures import PLOTLY, PNG, figure_outputs

COURSE = "Tokenization, from bytes to GPT-4"
ASSETS = Path(__file__).with_name("website_assets")
# Markdown of a badge that links somewhere, e.g. the README's "[![Open In Colab](badge.svg)](url)":
# the site shows its words as a plain link instead of an image fetched from the internet.
_HEADING = re.compile("^h[1-3]$")
_BADGE = re.compile(r"\[!\[([^\]]*)\]\([^)]*\)\]\(([^)]*)\)")


@dataclass
class Page:
    """One page of the site: its file, its title in the navigation, its main content (HTML), the
    lesson's notebook (empty for other pages) and its sections for the search index."""

    file: str
    title: str
    body: str
    notebook: str = ""
    sections: list[dict[str, str]] = field(default_factory=list)


def build_site(out: Path, notebooks: list[Path], readme: Path, repo_url: str) -> list[str]:
    """Write the site into `out` (replacing what a previous build left there) and return warnings
    a person should act on, e.g. a figure stored without its PNG."""
    if out.exists():
        shutil.rmtree(out)
    (out / "figures").mkdir(parents=True)
    warnings: list[str] = []
    links = {path.name: path.with_suffix(".html").name for path in notebooks}
    home = _page("index.html", _home_body(readme), links, f"{repo_url}/blob/main/")
    pages = [home] + [_lesson(path, out, links, repo_url, warnings) for path in notebooks]
    search = Page("search.html", "Search", (ASSETS / "search.html").read_text(encoding="utf-8"))
    render = _page_template()
    for i, page in enumerate([*pages, search]):
        html = render(
            course=COURSE,
            title=page.title,
            body=page.body,
            pages=pages,
            current=page.file,
            prev=pages[i - 1] if 0 < i < len(pages) else None,
            next=pages[i + 1] if i + 1 < len(pages) else None,
            figures="plotly-figure" in page.body,
            search=page is search,
            colab=page.notebook and _colab_url(repo_url, page.notebook),
            github=page.notebook and f"{repo_url}/blob/main/notebooks/{page.notebook}",
        )
        (out / page.file).write_text(html, encoding="utf-8")
    _write_assets(out / "assets", [entry for page in pages for entry in page.sections])
    return warnings


def _lesson(
    path: Path, out: Path, links: dict[str, str], repo_url: str, warnings: list[str]
) -> Page:
    """A lesson's page: the notebook without its set-up cell (the site runs nothing), each plotly
    figure as its stored PNG plus the JSON that site.js draws interactively."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if not c.source.startswith("# Set-up")]
    for number, output in enumerate(figure_outputs(nb), start=1):
        image = f"figures/{path.stem}-{number}.png"
        if PNG in output.data:
            (out / image).write_bytes(base64.b64decode(output.data[PNG]))
        else:
            image = ""
            warnings.append(
                f"{path.name}: figure {number} has no stored PNG, so the site shows it only where "
                f"JavaScript runs; run `python -m lib.notebooks regenerate {path}` to add one"
            )
        output.data = {"text/html": _figure_html(output.data[PLOTLY], image)}
    exporter = HTMLExporter(
        template_name="basic", exclude_input_prompt=True, exclude_output_prompt=True
    )
    body, _ = exporter.from_notebook_node(nb)
    page = _page(links[path.name], body, links, f"{repo_url}/blob/main/notebooks/")
    page.notebook = path.name
    return page


def _page(file: str, body: str, links: dict[str, str], repository: str) -> Page:
    """A page from its HTML, read once (parsing is most of the build's time): its title is its
    first heading; links to a lesson's notebook go to its page, and other relative links to the
    file in the `repository` (`datasets/README.md`, `lib/...`), which the site does not hold."""
    soup = BeautifulSoup(body, "html.parser")
    for link in soup.find_all("a", href=True):
        target, sep, anchor = link["href"].partition("#")
        if target and not re.match(r"[a-z]+:", target):
            name = target.rsplit("/", 1)[-1]
            link["href"] = (links[name] if name in links else repository + target) + sep + anchor
    heading = soup.find("h1")
    title = heading.get_text().strip("¶ ") if heading else file.removesuffix(".html")
    page = Page(file, title if file != "index.html" else "Home", str(soup))
    page.sections = _sections(soup, page)
    return page


def _figure_html(figure: dict, image: str) -> str:
    """A plotly figure: its PNG for every reader, its JSON for site.js to draw it where it can."""
    title = _plain((figure.get("layout", {}).get("title") or {}).get("text") or "A chart")
    spec = json.dumps(figure).replace("</", "<\\/")  # cannot end the <script> early
    shown = (
        f'<img src="{image}" alt="{jinja2.utils.markupsafe.escape(title)}" loading="lazy">'
        if image
        else '<noscript><p class="missing">This chart needs JavaScript.</p></noscript>'
    )
    data = f'<script type="application/json">{spec}</script>'
    return f'<figure class="plotly-figure">{data}{shown}</figure>'


def _plain(label: str) -> str:
    """A plotly label as plain text, for an image's alt text: a title split over two lines
    (`<br>`, then a `<sup>` subtitle) reads as one, and no tag is left for a reader to hear."""
    return re.sub(r"<[^>]*>", "", re.sub(r"\s*<br\s*/?>\s*", " ", label, flags=re.IGNORECASE))


def _home_body(readme: Path) -> str:
    """The README as HTML, its badges as plain links."""
    return markdown2html_mistune(_BADGE.sub(r"[\1](\2)", readme.read_text(encoding="utf-8")))


def _colab_url(repo_url: str, notebook: str) -> str:
    slug = repo_url.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/{notebook}"


def _sections(soup: BeautifulSoup, page: Page) -> list[dict[str, str]]:
    """The search index's entries for a page, one per section: its heading, its address and the
    words of its text and code up to the next heading (outputs and charts are left out: they
    would swamp the words). Takes `soup` apart."""
    for tag in soup.select("script, a.anchor-link, div.output_wrapper"):
        tag.decompose()
    sections: list[dict[str, str]] = []
    words: list[str] = []
    for node in soup.descendants:
        if isinstance(node, Tag) and _HEADING.fullmatch(node.name):
            words = []
            anchor = f"#{node['id']}" if node.get("id") else ""
            section = {"page": page.title, "section": node.get_text(" ", strip=True)}
            sections.append({**section, "url": page.file + anchor, "words": words})
        elif isinstance(node, NavigableString) and not node.find_parent(_HEADING):
            words.append(node)
    for section in sections:
        section["text"] = " ".join(" ".join(section.pop("words")).split())
    return sections


def _page_template():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ASSETS), autoescape=True)
    template = env.get_template("page.html")
    return lambda body, **values: template.render(
        body=jinja2.utils.markupsafe.Markup(body), **values
    )


def _write_assets(assets: Path, index: list[dict[str, str]]) -> None:
    """The style sheets, scripts and search index every page links to."""
    assets.mkdir()
    for name in ("style.css", "site.js"):
        shutil.copy(ASSETS / name, assets / name)
    import plotly

    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", assets)
    light = HtmlFormatter(style="default").get_style_defs(".highlight")
    dark = HtmlFormatter(style="github-dark").get_style_defs(".highlight")
    (assets / "pygments.css").write_text(
        f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n", encoding="utf-8"
    )
    data = json.dumps(index, ensure_ascii=False).replace("</", "<\\/")
    (assets / "search-index.js").write_text(f"window.COURSE_SEARCH = {data};\n", encoding="utf-8")
