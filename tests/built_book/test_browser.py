"""Every page of the built book in headless Chromium with no network (run by ``make html-check``).

Each page of ``_toc.yml`` (sections included) is checked by
``tests/browser_checker.py``: typeset formulas out of the tab order, loaded
images with describing alt text, no console error or outside request, no
sideways scrolling at 1280 px and 390 px, every box that scrolls showing it,
figures that open at full size with readable text there, the tables of the
pages that are not chapters fitting the column, no axe-core violation except
on the markup listed in :data:`NOT_OURS`.
Screenshots of the front page and of every chapter go to
``<build>/screenshots/`` for a person to look at.
"""

from browser import offline_browser
from browser_checker import check_pages_in_parallel, search_hits
from conftest import toc_files

CHAPTER_PREFIX = "book/ch"

#: The one list of axe-core rules excused, each only on markup the book does not control:
#: rule id -> (CSS selector of that markup, reason).  The same rule anywhere else fails.
NOT_OURS: dict[str, tuple[str, str]] = {
    "region": (
        ".bd-sidebar-primary",
        "theme (sphinx-book-theme): the logo/title item of the left sidebar sits outside its <nav> landmark",
    ),
    "summary-name": (
        ".bd-sidebar-primary nav.bd-docs-nav",
        "theme (pydata-sphinx-theme): the expand/collapse toggles of the navigation tree are <summary> elements"
        " holding only an icon",
    ),
    "empty-table-header": (
        "th:has(mjx-assistive-mml)",
        "MathJax: a column header that is a formula (e.g. R^cal) is drawn with CSS glyphs and read by screen readers"
        " from its visually hidden assistive MathML, which axe's visible-text check does not count",
    ),
}


def test_every_page_renders_offline(html_root):
    shots = html_root.parent / "screenshots"
    pages = {
        page: shots / f"{page.replace('/', '_')}.png" if page.startswith(CHAPTER_PREFIX) or page == "book/intro" else None
        for page in toc_files(sections=True)
    }
    appendices = frozenset(page for page in pages if not page.startswith(CHAPTER_PREFIX))
    checked = check_pages_in_parallel(html_root, pages, excused=NOT_OURS, fit_tables=appendices)
    reports = checked["reports"]
    problems = [problem for report in reports.values() for problem in report["problems"]]
    problems += [f"request left the local files: {url}" for url in checked["blocked"]]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
    chapters = [p for p in reports if p.startswith(CHAPTER_PREFIX)]
    assert chapters, "no chapter pages in _toc.yml"
    for page in chapters:
        assert reports[page]["math"] > 0, f"{page}: no typeset formula at all"
        assert reports[page]["proofs"] > 0, f"{page}: no theorem, definition or proof box"


def test_search_page_finds_a_word_of_a_chapter(html_root):
    with offline_browser() as (context, blocked):
        found = search_hits(context, html_root / "search.html", "sharpness")
        assert not blocked
    assert found["hits"] > 0, "the search page found nothing"
    assert found["snippets"] > 0, "no search result shows a snippet of its page"
    assert not found["console"], "console errors on the search page:\n" + "\n".join(found["console"])
