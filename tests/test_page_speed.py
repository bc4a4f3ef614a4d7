"""sphinx-book-theme's script with its class lookups (book/_ext/page_speed.py) does what the theme's own does.

The oracle is the theme's script as released: the same page, with each script, in Chromium.
"""

import importlib.util
import sys
from pathlib import Path

import pytest
from sphinx.errors import ExtensionError

from browser import offline_browser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from page_speed import BOOK_THEME_QUERIES, by_class  # noqa: E402

THEME_JS = (Path(importlib.util.find_spec("sphinx_book_theme").origin).parent / "theme" / "sphinx_book_theme" / "static"
            / "scripts" / "sphinx-book-theme.js")

#: The theme's blocks that are not printed, and margin content of every kind the script looks for (one element
#: with two of its classes), far down a long page.
PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Theme</title></head><body>
<div class="sbt-scroll-pixel-helper"></div>
<header class="bd-header" id="h"></header><div class="bd-header-article" id="ha"></div>
<div class="bd-sidebar-primary" id="sp"></div><div class="bd-sidebar-secondary" id="ss"></div>
<main><div style="height: 3000px"></div>
<aside class="margin" id="m1">a</aside><div class="tag_full_width sidebar" id="m2">b</div>
<p class="marginnote" id="m3">c</p><div style="height: 3000px"></div></main>
<footer class="bd-footer" id="f"></footer><div class="bd-footer-article" id="fa"></div>
<script src="theme.js"></script></body></html>"""

#: What the script did: the blocks marked not to print, and whether the secondary sidebar hides, at the top
#: of the page and with the margin content in view.
_STATE = """async () => {
  const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const hidden = () => document.querySelector('.bd-sidebar-secondary').classList.contains('hide');
  await frames();
  const top = hidden();
  document.getElementById('m2').scrollIntoView();
  await frames(); await frames();
  const margin = hidden();
  window.scrollTo(0, 0);
  await frames(); await frames();
  return {noprint: [...document.querySelectorAll('.noprint')].map((el) => el.id), top, margin, back: hidden(),
          scrolled: document.body.classList.contains('scrolled')};
}"""


def _state(context, tmp_path: Path, script: str) -> dict:
    tmp_path.mkdir()
    (tmp_path / "theme.js").write_text(script)
    (tmp_path / "page.html").write_text(PAGE)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto((tmp_path / "page.html").as_uri(), wait_until="load")
    state = page.evaluate(_STATE)
    page.close()
    return state


def test_class_lookups_do_what_the_theme_script_does(tmp_path):
    theme = THEME_JS.read_text(encoding="utf-8")
    with offline_browser() as (context, _):
        original = _state(context, tmp_path / "theme", theme)
        patched = _state(context, tmp_path / "book", by_class(theme))
    assert original == {"noprint": ["h", "ha", "sp", "ss", "f", "fa"], "top": False, "margin": True, "back": False,
                        "scrolled": False}
    assert patched == original


def test_both_queries_are_rewritten_and_a_changed_theme_stops_the_build():
    theme = THEME_JS.read_text(encoding="utf-8")
    patched = by_class(theme)
    assert "querySelectorAll" not in patched and all(lookup in patched for lookup in BOOK_THEME_QUERIES.values())
    assert by_class(patched) == patched  # a build that finds the script already rewritten leaves it
    changed = theme.replace('document.querySelectorAll(n.join(", "))', 'document.querySelectorAll(n.join(","))')
    with pytest.raises(ExtensionError, match="no longer has"):
        by_class(changed)
