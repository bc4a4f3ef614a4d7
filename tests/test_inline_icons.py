"""The theme's icons written as SVG at build time (book/_ext/inline_icons.py) are those Font Awesome's bundle draws.

The oracle is the bundle itself: a page with the theme's icon elements and the bundle's script, opened in
Chromium, against the same page rewritten at build time with no script.
"""

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from browser import offline_browser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from inline_icons import BUNDLE, CSS, icon_sets, inline, inline_icons  # noqa: E402

THEME_STATIC = Path(importlib.util.find_spec("pydata_sphinx_theme").origin).parent / "theme" / "pydata_sphinx_theme" / "static"

#: The icon elements of pydata-sphinx-theme's and sphinx-book-theme's templates (components/*.html), an
#: alias (``fa-home`` is ``house``), a regular and a brands icon, and one with its own ``aria-hidden``.
ICONS = """
<i class="fa-solid fa-bars"></i><span class="fa-solid fa-list"></span>
<i class="fa-solid fa-magnifying-glass fa-lg"></i><i class="fa-solid fa-home"></i>
<i class="theme-switch fa-solid fa-sun                fa-lg" data-mode="light" title="Light"></i>
<i class="theme-switch fa-solid fa-circle-half-stroke fa-lg" data-mode="auto"  title="System Settings"></i>
<i class="fas fa-download"></i><i class="far fa-file"></i><i class="fa-brands fa-github fa-lg" aria-hidden="true"></i>
<span class="btn__icon-container"><i class="fas fa-file-pdf"></i></span>
"""

#: The icons as the page shows them: each SVG's markup (the title's generated id made neutral) and box.
_DRAWN = """() => [...document.querySelectorAll('svg')].map((svg) => {
  const r = svg.getBoundingClientRect();
  return [svg.outerHTML.replace(/svg-inline--fa-title-[A-Za-z0-9]+/g, 'TITLE'), r.x, r.y, r.width, r.height];
})"""


def _site(tmp_path: Path, body: str) -> Path:
    """A built site of one page as the theme writes its head: a style inside ``<noscript>``, the bundle's script,
    a style sheet."""
    (tmp_path / "_static" / "scripts").mkdir(parents=True)
    shutil.copy(THEME_STATIC / "scripts" / "fontawesome.js", tmp_path / BUNDLE)
    (tmp_path / "_static" / "theme.css").write_text("body { font-size: 20px; }\n")
    page = tmp_path / "page.html"
    page.write_text('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Icons</title>\n'
                    '<noscript><style>.pst-js-only { display: none !important; }</style></noscript>\n'
                    '  <script defer src="_static/scripts/fontawesome.js?digest=1"></script>\n'
                    '<link href="_static/theme.css" rel="stylesheet" />\n'
                    f"</head><body><main>{body}</main></body></html>")
    return page


@pytest.fixture(scope="module")
def browser():
    with offline_browser() as (context, blocked):
        yield context


def _drawn(context, page: Path, wait: str = "() => true") -> list:
    tab = context.new_page()
    tab.goto(page.resolve().as_uri(), wait_until="load")
    tab.wait_for_function(wait)
    drawn = tab.evaluate(_DRAWN)
    tab.close()
    return drawn


def test_build_time_icons_are_those_the_bundle_draws(tmp_path, browser):
    page = _site(tmp_path / "bundle", ICONS)
    by_bundle = _drawn(browser, page, "() => !document.querySelector('i, span[class*=fa-]')")
    built = _site(tmp_path / "built", ICONS)
    inline_icons(tmp_path / "built")
    text = built.read_text()
    assert "fontawesome.js" not in text and "<i " not in text
    assert text.index(f'href="_static/{CSS}"') < text.index('href="_static/theme.css"')  # where the bundle puts its style
    assert len(by_bundle) == 10 and _drawn(browser, built) == by_bundle


def test_icons_are_read_from_the_bundle():
    sets = icon_sets((THEME_STATIC / "scripts" / "fontawesome.js").read_text(encoding="utf-8"))
    # the bars icon of Font Awesome 6's solid set: 448 x 512, three rounded bars
    assert sets["fas"]["bars"][:3] == ("bars", 448, 512) and sets["fas"]["bars"][3].startswith("M0 96C0 78.3")
    assert sets["fas"]["search"][0] == "magnifying-glass" and "github" in sets["fab"] and "github" not in sets["fas"]


def test_unknown_icon_is_reported_and_left_alone():
    sets = icon_sets((THEME_STATIC / "scripts" / "fontawesome.js").read_text(encoding="utf-8"))
    page = '<head><link href="x.css" rel="stylesheet" /></head><i class="fa-solid fa-no-such-icon"></i><i class="x"></i>'
    text, missing = inline(page, sets, CSS)
    assert missing == ['<i class="fa-solid fa-no-such-icon"></i>'] and text.endswith(page[page.index("<i"):])
    assert re.search(rf'<link rel="stylesheet" type="text/css" href="{CSS}" />\s*<link href="x.css"', text)
