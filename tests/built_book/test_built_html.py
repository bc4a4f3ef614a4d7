"""The built book as a reader sees it (run by ``make html-check`` after the strict build)."""

from conftest import toc_files
from html_checker import site_problems


def test_every_toc_page_was_built(html_root):
    missing = [f for f in toc_files() if not (html_root / f"{f}.html").is_file()]
    assert not missing, f"pages of _toc.yml missing from the build: {missing}"


def test_rendered_pages_have_no_markup_leftovers_doubled_words_or_dangling_labels(html_root):
    problems = site_problems(html_root)
    assert not problems, "\n".join(problems)


def test_errata_page_lists_every_departure_anchored_in_a_chapter(html_root):
    """Each ``err-*`` target a chapter sets (a departure from its paper) has a row on the errata page."""
    from urllib.parse import urlsplit

    from bs4 import BeautifulSoup

    errata = BeautifulSoup((html_root / "book" / "errata.html").read_text(encoding="utf-8"), "html.parser")
    linked = {urlsplit(a["href"]).fragment for a in errata.select("article a[href]")}
    missing = []
    for page in sorted((html_root / "book").glob("ch*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        missing += [f"{page.name}#{tag['id']}" for tag in soup.find_all(id=True) if tag["id"].startswith("err-") and tag["id"] not in linked]
    assert not missing, f"departures anchored in a chapter but missing from the errata page: {missing}"
