"""Sphinx extension: the book's own HTML passes axe-core where the HTML writer's markup does not.

* Citations of the bibliography: docutils marks each entry
  ``role="doc-biblioentry"`` inside a ``role="list"`` container; that role is
  deprecated in DPUB-ARIA 1.1, not allowed on a ``div``, and not a list item,
  so the list has no items for a screen reader.  Each entry becomes a
  ``role="listitem"`` (the ``citation-list`` container keeps ``role="list"``).
* Display formulas wider than the column: formulas are not tab stops
  (``mathjax3_config`` in ``_config.yml``), but a formula that scrolls
  sideways inside its box (the theme sets ``overflow: auto``) must be
  reachable from the keyboard to be scrolled; it gets ``tabindex="0"``
  while, and only while, it is wider than its box.
"""

from __future__ import annotations


def _citation_roles(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


#: After MathJax has typeset the page, and on every resize: scrolling display formulas are tab stops.
_SCROLLING_FORMULAS = """document.addEventListener("DOMContentLoaded", () => {
  const mark = () => document.querySelectorAll('mjx-container[display="true"]').forEach((el) => {
    if (el.scrollWidth > el.clientWidth) el.setAttribute("tabindex", "0");
    else el.removeAttribute("tabindex");
  });
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(mark);
  window.addEventListener("resize", mark);
});"""


def setup(app):
    app.add_js_file(None, body=_SCROLLING_FORMULAS)
    app.connect("html-page-context", _citation_roles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
