"""Sphinx extension: the book's own HTML passes axe-core and shows the reader what the HTML writer hides.

* Citations of the bibliography: docutils marks each entry
  ``role="doc-biblioentry"`` inside a ``role="list"`` container; that role is
  deprecated in DPUB-ARIA 1.1, not allowed on a ``div``, and not a list item,
  so the list has no items for a screen reader.  Each entry becomes a
  ``role="listitem"`` (the ``citation-list`` container keeps ``role="list"``).
* Boxes that scroll sideways (display formulas, tables, code and output wider
  than the column) show it: ``_static/scroll-sign.js`` marks their cut-off
  edges, which ``book.css`` fades.  (A formula that scrolls is a tab stop:
  ``_static/scroll-stops.js``.)
* The tables of the pages that are not chapters (reproduction index, errata,
  benchmarks...) carry the class ``fit-column``: ``book.css`` sets them
  smaller and lets their cells wrap, so they fit the column at 1280 px with no
  hidden column (a chapter's wide table scrolls in its box instead).
* Figures open at full resolution: every image of a page that is not already
  a link becomes a link to its own file, which a phone shows at full size
  (its text is too small to read in a 390 px column; tests/browser_checker.py
  measures both).
"""

from __future__ import annotations

import posixpath

from docutils import nodes
from sphinx.util.osutil import relative_uri


def _citation_roles(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


def _images_link_full_size(app, doctree, docname):
    """Wrap every local image that is not inside a link in a link to the file the page shows."""
    if app.builder.name != "html":  # the PDF's single page and other builders keep plain images
        return
    images = relative_uri(app.builder.get_target_uri(docname), "_images")
    for image in list(doctree.findall(nodes.image)):
        candidates = image.get("candidates", {})
        uri = image["uri"] if "*" in candidates else candidates.get("image/png", image["uri"])
        if isinstance(image.parent, nodes.reference) or uri not in app.env.images:
            continue
        link = nodes.reference("", "", internal=True, refuri=posixpath.join(images, app.env.images[uri][1]),
                               classes=["full-size-image"])
        image.replace_self(link)
        link.append(image)


def _appendix_tables_fit(app, doctree, docname):
    """Mark the tables of every page that is not a chapter (``book/ch*``) ``fit-column``."""
    if not docname.startswith("book/ch"):
        for table in doctree.findall(nodes.table):
            table["classes"].append("fit-column")


def setup(app):
    app.add_js_file("scroll-sign.js", defer="defer")
    app.connect("html-page-context", _citation_roles)
    app.connect("doctree-resolved", _images_link_full_size)
    app.connect("doctree-resolved", _appendix_tables_fit)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
