"""Sphinx extension: a long chapter is drawn fast on a phone (benchmarks/bench_typesetting.py).

* Sphinx's search index (300 kB) and search code are loaded by the search page
  only: the theme loads them, parser-blocking, on every page for a
  search-as-you-type that the book leaves off (``book/_templates/layout.html``).
* ``_static/scroll-stops.js`` makes a block that scrolls inside its box (a wide
  display formula, code block, output or table) a tab stop, checking each block
  as it comes near the window, in place of the theme's check of every block on
  ``load``, which lays out the whole page (a second for a long chapter).
"""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[1] / "_templates"


def _templates(app, config):
    config.templates_path = [str(TEMPLATES), *config.templates_path]


def setup(app):
    app.connect("config-inited", _templates)
    app.add_js_file("scroll-stops.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
