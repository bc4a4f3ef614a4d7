"""Sphinx extension: search results keep their snippets when the book is opened from disk.

Sphinx's search page shows, under each result, a snippet of the page found,
which it reads by ``fetch``-ing that page.  A browser refuses ``fetch`` of
one ``file://`` page from another, so a reader of the offline book got
results without snippets and two console errors.  This extension writes the
text of every page into ``_static/search_texts.js`` (loaded by a plain
``<script>``, which ``file://`` allows) and, on the search page only, serves
Sphinx's snippet requests from it: a page with an anchored result keeps the
element of that anchor, so the snippet is the section's text as in the
online search.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag

TEXTS = "search_texts.js"

#: On the search page: answer Sphinx's snippet ``fetch`` of a page of this book from the shipped texts.
_SHIM = """(() => {
  const texts = window.BOOK_SEARCH_TEXTS || {};
  const root = new URL(document.documentElement.dataset.content_root || "./", document.baseURI);
  const nativeFetch = window.fetch.bind(window);
  window.fetch = (resource, init) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), document.baseURI);
    const path = decodeURIComponent(url.pathname);
    const base = decodeURIComponent(root.pathname);
    if (path.startsWith(base)) {
      const doc = path.slice(base.length).replace(/\\.html$/, "");
      if (Object.prototype.hasOwnProperty.call(texts, doc))
        return Promise.resolve(new Response(texts[doc], {headers: {"Content-Type": "text/html"}}));
    }
    return nativeFetch(resource, init);
  };
})();"""

_SKIP = {"script", "style", "img", "svg", "noscript", "template"}


def _skeleton(node: Tag) -> str:
    """The text of ``node`` as HTML with only the elements that carry an id (the anchors of search results)."""
    parts = []
    for child in node.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:
                parts.append(html.escape(str(child), quote=False))
        elif isinstance(child, Tag) and child.name not in _SKIP and "headerlink" not in child.get("class", []):
            inner = _skeleton(child)
            ident = child.get("id")
            parts.append(f'<div id="{html.escape(ident)}">{inner}</div>' if ident else inner)
    return "".join(parts)


def page_text(page_html: str) -> str:
    """The part of a built page that Sphinx's snippet code reads (``[role="main"]``), reduced to text and anchors."""
    main = BeautifulSoup(page_html, "html.parser").find(attrs={"role": "main"})
    return f'<div role="main">{_skeleton(main)}</div>' if main else ""


def _add_scripts(app, pagename, templatename, context, doctree):
    if pagename == "search":
        context["script_files"] = [*context["script_files"], *_search_scripts(app)]


def _search_scripts(app):
    from sphinx.builders.html._assets import _JavaScript

    return [_JavaScript(f"_static/{TEXTS}"), _JavaScript("", body=_SHIM)]


def _write_texts(app, exception):
    if exception is not None or app.builder.format != "html" or app.builder.name == "singlehtml":
        return
    outdir = Path(app.outdir)
    texts = {}
    for docname in sorted(app.env.found_docs):
        page = outdir / f"{docname}{app.builder.out_suffix}"
        if page.is_file():
            texts[docname] = page_text(page.read_text(encoding="utf-8"))
    payload = json.dumps(texts, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    (outdir / "_static" / TEXTS).write_text(f"window.BOOK_SEARCH_TEXTS = {payload};\n", encoding="utf-8")


def setup(app):
    app.connect("html-page-context", _add_scripts)
    app.connect("build-finished", _write_texts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
