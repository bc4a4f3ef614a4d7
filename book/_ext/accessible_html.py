"""Sphinx extension: the book's own HTML passes axe-core where the HTML writer's markup does not.

* Citations of the bibliography: docutils marks each entry
  ``role="doc-biblioentry"`` inside a ``role="list"`` container; that role is
  deprecated in DPUB-ARIA 1.1, not allowed on a ``div``, and not a list item,
  so the list has no items for a screen reader.  Each entry becomes a
  ``role="listitem"`` (the ``citation-list`` container keeps ``role="list"``).
"""

from __future__ import annotations


def _citation_roles(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


def setup(app):
    app.connect("html-page-context", _citation_roles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
