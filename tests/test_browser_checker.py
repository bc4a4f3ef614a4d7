"""The browser checker (tests/browser_checker.py) fails on broken pages.

Fixture pages have their formulas typeset as the book's build typesets them
(book/_ext/prerender_math.py: MathJax in Node, the fonts of sphinx-mathjax-offline)
and the book's own style sheet and script; everything from local files only.
"""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from browser import offline_browser
from browser_checker import check_page

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from prerender_math import CSS, prerender  # noqa: E402

MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static" / "mathjax"
STATIC = ROOT / "book" / "_static"
PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005fe02fe0d1b0b6b0000000049454e44ae426082"
)
#: The theme's colour mode in its "auto" setting (pydata-sphinx-theme): it follows the system's.
THEME_MODE = ("<script>(() => { const dark = matchMedia('(prefers-color-scheme: dark)');"
              " const set = () => { document.documentElement.dataset.theme = dark.matches ? 'dark' : 'light'; };"
              " set(); dark.addEventListener('change', set); })();</script>")
#: The theme's rule for display math (pydata-sphinx-theme, _math.scss): the number beside the formula.
THEME_MATH = ("<style>div.math { display: flex; flex-direction: row-reverse; align-items: center; gap: .5em;"
              " overflow: hidden; } div.math mjx-container { flex-grow: 1; overflow: auto; }</style>")


def page(tmp_path, body: str, *, typeset: bool = True, head: str = THEME_MODE, outside: str = "", edit=None) -> Path:
    """A fixture page: ``body`` inside a ``<main>`` landmark under a heading (``outside`` after it).

    Its formulas are typeset as the build typesets them (``typeset``), then ``edit`` (a function of
    the page's HTML) may plant a fault; the page has the book's style sheet and its scripts for
    formulas and boxes that scroll.
    """
    (tmp_path / "dot.png").write_bytes(PNG_1x1)
    (tmp_path / "_static").mkdir(exist_ok=True)
    if not (tmp_path / "_static" / "mathjax").exists():
        (tmp_path / "_static" / "mathjax").symlink_to(MATHJAX)
    links = ((f'<link rel="stylesheet" href="_static/{CSS}">' if typeset else "") + THEME_MATH +
             f'<link rel="stylesheet" href="{(STATIC / "book.css").as_uri()}">'
             f'<script defer src="{(STATIC / "scroll-stops.js").as_uri()}"></script>'
             f'<script defer src="{(STATIC / "scroll-sign.js").as_uri()}"></script>')
    path = tmp_path / "page.html"
    path.write_text(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fixture</title>{links}{head}</head>'
        f"<body><main><h1>Fixture</h1>{body}</main>{outside}</body></html>"
    )
    if typeset:
        prerender(tmp_path)
    if edit is not None:
        path.write_text(edit(path.read_text()))
    return path


GOOD = (
    r'<p>Inline <span class="math">\(x^2 + \frac{1}{2}\)</span>.</p>'
    r'<div class="math" id="equation-a"><span class="eqno">(1)<a class="headerlink" href="#equation-a">#</a></span>\[ a = b \]</div>'
    '<a href="dot.png"><img src="dot.png" alt="A single black dot: the risk does not change with the number of bins."></a>'
)
#: A display formula wider than a phone's column, numbered.
WIDE = (r'<div class="math" id="equation-w"><span class="eqno">(2)<a class="headerlink" href="#equation-w">#</a></span>\[ '
        + " + ".join(f"x_{{{i}}}" for i in range(14)) + r" \]</div>")


def _without(script):
    """An edit of a fixture page that removes one of the book's scripts."""
    return lambda text: re.sub(rf'<script defer src="[^"]*{script}"></script>', "", text)


#: The page without the book's scroll-stops.js.
no_book_script = _without("scroll-stops.js")


@pytest.fixture(scope="module")
def browser():
    with offline_browser() as (context, blocked):
        yield context, blocked


def test_good_page_passes(tmp_path, browser):
    report = check_page(browser[0], page(tmp_path, GOOD))
    assert report["problems"] == [] and report["math"] == 2
    assert report["violations"] == [] and report["widths"] == {1280: 1280, 390: 390}


def test_page_not_typeset_at_build_time_is_caught(tmp_path, browser):
    problems = check_page(browser[0], page(tmp_path, GOOD, typeset=False))["problems"]
    assert any("formula not typeset" in p for p in problems), problems
    assert any("raw TeX in the page text" in p for p in problems)


def test_page_that_typesets_in_the_browser_is_caught(tmp_path, browser):
    """The book's formulas are typeset at build time: a page loading MathJax's typesetter fails, even if it typesets."""
    loader = f'<script defer src="{(MATHJAX / "tex-chtml.js").as_uri()}"></script>'
    problems = check_page(browser[0], page(tmp_path, GOOD, typeset=False, head=THEME_MODE + loader), axe=False)["problems"]
    assert any("typesets formulas in the browser on load (loads file://" in p for p in problems), problems


def test_broken_formula_is_caught(tmp_path, browser):
    broken = GOOD.replace(r"\frac{1}{2}", r"\frac{1}{2")
    problems = check_page(browser[0], page(tmp_path, broken))["problems"]
    assert any("MathJax error" in p or "not typeset" in p for p in problems), problems


def test_tex_that_mathjax_skipped_is_caught(tmp_path, browser):
    skipped = GOOD + r'<p class="mathjax_ignore">left raw: \(y\) and $$ y $$</p>'
    problems = check_page(browser[0], page(tmp_path, skipped))["problems"]
    assert any("raw TeX" in p for p in problems)


def test_remote_and_missing_images_are_caught(tmp_path, browser):
    body = GOOD + '<img src="https://example.org/remote.png" alt="A remote picture"><img src="missing.png" alt="A missing picture">'
    context, blocked = browser
    problems = check_page(context, page(tmp_path, body))["problems"]
    assert "https://example.org/remote.png" in blocked
    assert any("image not loaded: missing.png" in p for p in problems)
    assert any("failed request" in p for p in problems)


def test_fetch_of_another_local_page_is_caught(tmp_path, browser):
    """The browser has no special file permissions: a page that reads another file by fetch fails, as for a reader."""
    (tmp_path / "other.html").write_text("<p>other</p>")
    body = GOOD + "<script>fetch('other.html').then((r) => r.text());</script>"
    problems = check_page(browser[0], page(tmp_path, body), axe=False)["problems"]
    assert any("console error" in p for p in problems), problems


def test_page_wider_than_a_phone_is_caught(tmp_path, browser):
    body = GOOD + '<p><code class="wide" style="white-space: nowrap">a_very_long_identifier_' + "x" * 60 + "</code></p>"
    report = check_page(browser[0], page(tmp_path, body), axe=False)
    assert report["widths"][1280] == 1280 and report["widths"][390] > 390
    wide = [p for p in report["problems"] if "scrolls sideways" in p]
    assert len(wide) == 1 and "in a 390 px window" in wide[0] and "code.wide" in wide[0], report["problems"]


@pytest.mark.parametrize(
    ("alt", "why"),
    [
        (None, "no alt text"),
        ("  ", "no alt text"),
        ("../_images/dot.png", "alt text is a path"),
        ("_images/4b39307", "alt text is a path"),
        ("dot.png", "alt text is a file name"),
        ("dot", "alt text is a file name"),
        ("calibration_curve.svg", "alt text is a file name"),
        ("Figure 3", "alt text only names the figure"),
    ],
)
def test_image_without_a_describing_alt_text_is_caught(tmp_path, browser, alt, why):
    attribute = "" if alt is None else f' alt="{alt}"'
    body = GOOD + f'<img src="dot.png?v=2"{attribute}>'
    problems = check_page(browser[0], page(tmp_path, body), axe=False)["problems"]
    assert any("image without a describing alt text: dot.png?v=2" in p and why in p for p in problems), problems


def test_alt_text_with_a_fraction_is_not_a_path(tmp_path, browser):
    body = GOOD + '<a href="dot.png"><img src="dot.png" alt="The risk falls like 1/B as the number of bins B grows."></a>'
    assert check_page(browser[0], page(tmp_path, body), axe=False)["problems"] == []


def test_low_contrast_from_the_page_css_is_caught(tmp_path, browser):
    """Links at 4.29:1 on a tinted box (the theme's blue on an exercise box before the fix)."""
    style = "<style>.box { background: #ecf3ff; } .box a { color: #176de8; }</style>"
    body = GOOD + '<div class="box"><p>See <a href="#x">Definition 1.1</a>.</p></div>'
    problems = check_page(browser[0], page(tmp_path, body, head=THEME_MODE + style))["problems"]
    assert any("axe color-contrast (light mode, 1 elements" in p for p in problems), problems


def test_low_contrast_in_dark_mode_only_is_caught(tmp_path, browser):
    style = '<style>html[data-theme="dark"] body { background: #121212; } html[data-theme="dark"] .note { color: #4a4a4a; }</style>'
    body = GOOD + '<p class="note">A note that is dark grey on black in dark mode.</p>'
    problems = check_page(browser[0], page(tmp_path, body, head=THEME_MODE + style))["problems"]
    contrast = [p for p in problems if "color-contrast" in p]
    assert len(contrast) == 1 and "dark mode" in contrast[0], problems


def test_excused_rules_are_excused_only_inside_their_markup(tmp_path, browser):
    """Content outside any landmark (axe's "region") excused in the theme's sidebar is not excused elsewhere."""
    excused = {"region": (".bd-sidebar-primary", "the theme's sidebar")}
    outside = '<div class="{cls}"><p>Text outside every landmark.</p></div>'
    themed = check_page(browser[0], page(tmp_path, GOOD, outside=outside.format(cls="bd-sidebar-primary")), excused=excused)
    assert themed["problems"] == [] and [v["id"] for v in themed["violations"]] == ["region"]
    own = check_page(browser[0], page(tmp_path, GOOD, outside=outside.format(cls="book-aside")), excused=excused)["problems"]
    assert any("axe region" in p for p in own), own


def test_formulas_in_the_tab_order_are_caught(tmp_path, browser):
    """MathJax's menu code in a browser made every formula a tab stop; the book's formulas are not."""
    def tab_stops(text):  # (and no book script, which would take a display formula that fits out again)
        return no_book_script(text).replace('<mjx-container class="MathJax"', '<mjx-container tabindex="0" class="MathJax"')

    problems = check_page(browser[0], page(tmp_path, GOOD, edit=tab_stops), axe=False)["problems"]
    assert any("2 of 2 formulas are in the tab order" in p for p in problems), problems


def test_formulas_without_assistive_mathml_are_caught(tmp_path, browser):
    def no_mathml(text):
        return re.sub(r"<mjx-assistive-mml.*?</mjx-assistive-mml>", "", text, flags=re.S)

    problems = check_page(browser[0], page(tmp_path, GOOD, edit=no_mathml), axe=False)["problems"]
    assert any("2 of 2 formulas have no assistive MathML" in p for p in problems), problems


def test_scrolling_formula_is_a_tab_stop_of_its_own(tmp_path, browser):
    """A display formula wider than the phone's column scrolls in its box, the number beside it; the book's
    script makes it (and only it) a tab stop; without the script axe finds a scroll box out of reach."""
    report = check_page(browser[0], page(tmp_path, GOOD + WIDE))
    assert report["problems"] == [], report["problems"]

    narrow = "<style>main { width: 300px; }</style>"
    problems = check_page(browser[0], page(tmp_path, GOOD + WIDE, head=THEME_MODE + narrow, edit=no_book_script))["problems"]
    assert any("axe scrollable-region-focusable" in p for p in problems), problems


def test_equation_number_over_its_formula_is_caught(tmp_path, browser):
    """The number floated over a formula that does not fit (no scroll box of its own): caught at the phone width only."""
    over = ("<style>div.math { display: block !important; position: relative; overflow: visible !important; }"
            " div.math mjx-container { overflow: visible !important; }"
            " div.math .eqno { position: absolute; right: 0; top: 40%; }</style>")
    problems = check_page(browser[0], page(tmp_path, GOOD + WIDE, head=THEME_MODE + over), axe=False)["problems"]
    overlaps = [p for p in problems if "equation numbers drawn over their formula" in p]
    assert len(overlaps) == 1 and "at 390 px: (2)" in overlaps[0], problems


def test_search_snippets_are_served_without_fetching_a_file(tmp_path, browser):
    """book/_ext/offline_search.py: Sphinx's snippet fetch of a page is answered from the shipped texts, no console error."""
    from offline_search import _SHIM, page_text

    built = (
        '<html><body><nav>Menu</nav><div role="main"><section id="sec"><h2>Sharpness<a class="headerlink">#</a></h2>'
        "<p>The sharpness risk <em>shrinks</em>.</p><script>var hidden = 1;</script></section></div></body></html>"
    )
    (tmp_path / "texts.js").write_text(f"window.BOOK_SEARCH_TEXTS = {json.dumps({'book/other': page_text(built)})};")
    read = (
        "fetch('./book/other.html').then((r) => r.text()).then((t) => { document.getElementById('out').textContent ="
        " new DOMParser().parseFromString(t, 'text/html').querySelector('[role=main] #sec').textContent; });"
    )
    body = f'<p id="out"></p><script src="texts.js"></script><script>{_SHIM}</script><script>{read}</script>'
    tab = browser[0].new_page()
    console = []
    tab.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    tab.goto(page(tmp_path, body, typeset=False).as_uri(), wait_until="load")
    tab.wait_for_function("() => document.getElementById('out').textContent")
    assert tab.evaluate("() => document.getElementById('out').textContent") == "SharpnessThe sharpness risk shrinks."
    tab.close()
    assert console == []


def test_mode_that_ignores_the_system_setting_is_caught(tmp_path, browser):
    """A page fixed in light mode (the book's old ``default_mode: light``) stays white on a phone set to dark."""
    problems = check_page(browser[0], page(tmp_path, GOOD, head='<script>document.documentElement.dataset.theme = "light";</script>'),
                          axe=False)["problems"]
    assert any("does not follow the system setting" in p and "'dark': 'light'" in p for p in problems), problems


def test_two_search_boxes_are_caught(tmp_path, browser):
    field = '<button class="search-button-field" aria-label="Search">Search</button>'
    problems = check_page(browser[0], page(tmp_path, GOOD, outside=f"<header>{field}</header><nav>{field}</nav>"),
                          axe=False)["problems"]
    assert any("2 search boxes shown" in p for p in problems), problems
    one = page(tmp_path, GOOD, outside=f"<header>{field}</header><nav><div hidden>{field}</div></nav>")
    assert check_page(browser[0], one, axe=False)["problems"] == []


def test_tex_command_in_the_text_is_caught(tmp_path, browser):
    """The bibliography once printed a note's TeX as it was: "bundled with scikit-learn as \\texttt load_digits"."""
    body = GOOD + '<div role="list"><p role="listitem">Bundled with scikit-learn as \\texttt load_digits.</p></div>'
    problems = check_page(browser[0], page(tmp_path, body), axe=False)["problems"]
    assert any("raw TeX in the page text" in p and "texttt load_digits" in p for p in problems), problems


#: Boxes wider than a phone's column that scroll in place: a table in the theme's container, a code block.
WIDE_BOXES = (
    '<div class="pst-scrollable-table-container"><table><tr><th>column</th><th>value</th></tr>'
    '<tr><td style="white-space: nowrap">' + "a long cell that does not wrap " * 8 + "</td><td>1</td></tr></table></div>"
    '<div class="highlight"><pre style="overflow-x: auto">' + "x = compute(" + ", ".join(f"arg{i}" for i in range(30)) + ")</pre></div>"
)


def test_boxes_that_scroll_show_it(tmp_path, browser):
    """A formula, a table and a code block wider than the column each fade at their cut-off edge."""
    report = check_page(browser[0], page(tmp_path, GOOD + WIDE + WIDE_BOXES), axe=False)
    assert report["problems"] == [], report["problems"]
    assert report["scroll_boxes"] == {1280: 2, 390: 3}  # the formula fits at 1280 px


#: A notebook output wider than the column (the fourth kind of box scroll-sign.js and scroll-stops.js look for).
WIDE_OUTPUT = ('<div class="cell_output"><div class="output text_plain" style="overflow-x: auto"><pre style="margin: 0">'
               + " ".join(f"{i:.6f}" for i in range(40)) + "</pre></div></div>")


def test_every_kind_of_box_is_found(tmp_path, browser):
    """The scripts find each kind of box by tag or class: each one that scrolls is a tab stop (axe) and shows it."""
    report = check_page(browser[0], page(tmp_path, GOOD + WIDE + WIDE_BOXES + WIDE_OUTPUT))
    assert report["problems"] == [], report["problems"]
    assert report["scroll_boxes"] == {1280: 3, 390: 4}


def test_box_that_scrolls_without_a_sign_is_caught(tmp_path, browser):
    problems = check_page(browser[0], page(tmp_path, GOOD + WIDE + WIDE_BOXES, edit=_without("scroll-sign.js")), axe=False)["problems"]
    unsigned = [p for p in problems if "scroll sideways" in p and "without showing it" in p]
    assert len(unsigned) == 2 and "2 of 2 boxes" in unsigned[0] and "3 of 3 boxes scroll sideways at 390 px" in unsigned[1], problems
    assert "div.pst-scrollable-table-container" in unsigned[0] and "pre" in unsigned[0]


def test_scroll_sign_without_its_fade_is_caught(tmp_path, browser):
    """The edges marked, but nothing drawn: no sign a reader sees."""
    no_fade = "<style>[data-clipped] { mask-image: none !important; }</style>"
    problems = check_page(browser[0], page(tmp_path, GOOD + WIDE_BOXES, head=THEME_MODE + no_fade), axe=False)["problems"]
    assert any("2 of 2 boxes scroll sideways at 1280 px without showing it" in p for p in problems), problems


def test_scroll_sign_on_a_box_that_fits_is_caught(tmp_path, browser):
    body = GOOD + '<div class="note" data-clipped="right"><p>A short note.</p></div>'
    problems = check_page(browser[0], page(tmp_path, body, edit=_without("scroll-sign.js")), axe=False)["problems"]
    assert any("the scroll sign on boxes that do not scroll" in p and "div.note" in p for p in problems), problems


def test_table_wider_than_the_column_is_caught_where_tables_must_fit(tmp_path, browser):
    path = page(tmp_path, GOOD + WIDE_BOXES)
    assert check_page(browser[0], path, axe=False)["problems"] == []  # a chapter: the table scrolls, with its sign
    problems = check_page(browser[0], path, axe=False, fit_tables=True)["problems"]
    wide = [p for p in problems if "table wider than the column at 1280 px" in p]
    assert len(wide) == 1 and '"column"' in wide[0], problems
    narrow = GOOD + '<div class="pst-scrollable-table-container"><table><tr><th>column</th></tr><tr><td>short</td></tr></table></div>'
    assert check_page(browser[0], page(tmp_path, narrow), axe=False, fit_tables=True)["problems"] == []


def _figure(tmp_path, name, width, dpi):
    from PIL import Image

    Image.new("RGB", (width, width // 2), "white").save(tmp_path / name, dpi=(dpi, dpi))
    return name


def _figure_problems(tmp_path, browser, img_html):
    body = GOOD + img_html.replace("<img ", '<img alt="Two curves that cross where the number of bins is 30." ')
    return [p for p in check_page(browser[0], page(tmp_path, body), axe=False)["problems"] if "figure" in p]


def test_wide_figure_opens_readable_at_full_size(tmp_path, browser):
    """7 pt at 110 dpi is 10.7 px at full size, though only 2-5 px in a phone's column: it passes."""
    wide = _figure(tmp_path, "wide.png", 1400, 110)
    assert _figure_problems(tmp_path, browser, f'<a href="{wide}"><img src="{wide}"></a>') == []


def test_figure_that_does_not_open_at_full_size_is_caught(tmp_path, browser):
    wide, thumb = _figure(tmp_path, "wide.png", 1400, 110), _figure(tmp_path, "thumb.png", 700, 110)
    for html in (f'<img src="{wide}">', f'<a href="#top"><img src="{wide}"></a>', f'<a href="{thumb}"><img src="{wide}"></a>'):
        found = _figure_problems(tmp_path, browser, html)
        assert len(found) == 1 and "figure wide.png does not open at full size" in found[0], (html, found)


def test_figure_with_unreadable_text_is_caught(tmp_path, browser):
    """At 72 dpi, 7 pt is 7 px even at full size; in a 390 px column a 1400 px figure shows it at under 2 px."""
    small = _figure(tmp_path, "small.png", 1400, 72)
    found = _figure_problems(tmp_path, browser, f'<a href="{small}"><img src="{small}"></a>')
    assert len(found) == 2 and all("smallest text" in p and "7.0 px at full size, below 10 px" in p for p in found), found
    assert any("in the page at 390 px" in p for p in found)


def test_search_index_on_a_page_other_than_search_is_caught(tmp_path, browser):
    """The theme loaded Sphinx's search index (300 kB, parser-blocking) on every page; only the search page needs it."""
    (tmp_path / "searchindex.js").write_text("window.SEARCH_INDEX = {};\n")
    index = '<script src="searchindex.js"></script>'
    problems = check_page(browser[0], page(tmp_path, GOOD, head=THEME_MODE + index), axe=False)["problems"]
    assert any("slow on load: loads the search index searchindex.js" in p for p in problems), problems


def test_font_awesome_script_is_caught(tmp_path, browser):
    """The theme loaded Font Awesome's 1.5 MB script on every page to draw a few icons; the build draws them."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "fontawesome.js").write_text("window.FontAwesome = {};\n")
    script = '<script defer src="scripts/fontawesome.js?digest=1"></script>'
    problems = check_page(browser[0], page(tmp_path, GOOD, head=THEME_MODE + script), axe=False)["problems"]
    assert any("slow on load: loads the Font Awesome script scripts/fontawesome.js" in p for p in problems), problems


#: pydata-sphinx-theme's overflow check (0.17, ``addTabStopsToScrollableElements``), deferred at the end of the
#: body: every code block and table container at once on ``load``, each that does not scroll marked tabindex=-1.
THEME_CHECK = """(() => {
  function I() {
    document.querySelectorAll(["pre", ".pst-scrollable-table-container"].join(", "))
      .forEach((e) => { e.tabIndex = e.scrollWidth > e.clientWidth ? 0 : -1; });
  }
  "complete" === document.readyState ? I() : window.addEventListener("load", I);
})();"""


def test_theme_check_of_every_block_on_load_is_left_out(tmp_path, browser):
    """scroll-stops.js keeps the theme's whole-page check from running on load (it laid out every block of a long
    chapter: a second on a phone) and checks each block as it comes near; without it the checker sees the theme's marks."""
    (tmp_path / "theme.js").write_text(THEME_CHECK)
    body = GOOD + "<pre>x = 1</pre>" + '<div class="pst-scrollable-table-container"><table><tr><td>1</td></tr></table></div>'
    theme = '<script defer src="theme.js"></script>'
    assert check_page(browser[0], page(tmp_path, body, outside=theme), axe=False)["problems"] == []

    problems = check_page(browser[0], page(tmp_path, body, outside=theme, edit=no_book_script), axe=False)["problems"]
    assert any("slow on load: the theme checked every block for overflow on load (2 marked" in p for p in problems), problems


def test_scrolling_code_block_is_a_tab_stop(tmp_path, browser):
    """The theme's work that scroll-stops.js took over: a code block wider than its box is reachable by keyboard."""
    body = GOOD + '<div class="highlight"><pre>' + " + ".join(f"weight_{i}" for i in range(30)) + "</pre></div>"
    narrow = "<style>main { width: 300px; } pre { overflow-x: auto; }</style>"
    assert check_page(browser[0], page(tmp_path, body, head=THEME_MODE + narrow))["problems"] == []

    problems = check_page(browser[0], page(tmp_path, body, head=THEME_MODE + narrow, edit=no_book_script))["problems"]
    assert any("axe scrollable-region-focusable" in p for p in problems), problems
