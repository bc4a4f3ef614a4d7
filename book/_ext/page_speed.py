"""Sphinx extension: a long chapter is drawn fast on a phone (benchmarks/bench_typesetting.py).

* Sphinx's search index (300 kB) and search code are loaded by the search page
  only: the theme loads them, parser-blocking, on every page for a
  search-as-you-type that the book leaves off (``book/_templates/layout.html``).
* ``_static/scroll-stops.js`` makes a block that scrolls inside its box (a wide
  display formula, code block, output or table) a tab stop, checking each block
  as it comes near the window, in place of the theme's check of every block on
  ``load``, which lays out the whole page (a second for a long chapter).
* sphinx-book-theme's script finds the page's margin content and the blocks not
  to print with ``document.querySelectorAll`` of a list of 28 and 8 class
  selectors, which matches every element of the page against each (on a long
  chapter's 49,000 elements, about 0.1 s of a phone's time); the build rewrites
  those two calls as the union of ``getElementsByClassName`` of each class, the
  same elements (an element found twice is observed or marked once).
"""

from __future__ import annotations

from pathlib import Path

from sphinx.errors import ExtensionError

TEMPLATES = Path(__file__).resolve().parents[1] / "_templates"


def _templates(app, config):
    config.templates_path = [str(TEMPLATES), *config.templates_path]


#: sphinx-book-theme's script (its minified form in the theme's 1.1 release) and each selector-list query with
#: its equivalent by class: the margin content (``n``: selectors ``.marginnote``, ``.tag_margin``...) and the
#: blocks not printed (``e``: ``".bd-header,.bd-footer..."``).
BOOK_THEME_JS = Path("_static") / "scripts" / "sphinx-book-theme.js"
BOOK_THEME_QUERIES = {
    'document.querySelectorAll(n.join(", ")).forEach(':
        "n.flatMap((c=>[...document.getElementsByClassName(c.slice(1))])).forEach(",
    "document.querySelectorAll(e).forEach((e=>{e.classList.add(\"noprint\")}))":
        "e.split(\",\").flatMap((c=>[...document.getElementsByClassName(c.slice(1))])).forEach((e=>{e.classList.add(\"noprint\")}))",
}


def by_class(script: str) -> str:
    """sphinx-book-theme's script with its two selector-list queries made class lookups; an error if one is missing."""
    for query, lookup in BOOK_THEME_QUERIES.items():
        if script.count(query) != 1 and lookup not in script:
            raise ExtensionError(f"page_speed: {BOOK_THEME_JS} no longer has {query!r} once (a new theme release?): "
                                 "update BOOK_THEME_QUERIES in book/_ext/page_speed.py")
        script = script.replace(query, lookup)
    return script


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    path = Path(app.outdir) / BOOK_THEME_JS
    path.write_text(by_class(path.read_text(encoding="utf-8")), encoding="utf-8")


def setup(app):
    app.connect("config-inited", _templates)
    app.connect("build-finished", _build_finished)
    app.add_js_file("scroll-stops.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
