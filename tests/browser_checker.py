"""Open built pages in headless Chromium with the network cut off, and list what a reader would see go wrong.

Pages are opened from ``file://`` URLs, as a reader opens ``_build/html``
without a connection, in a browser with no special file permissions (a
page that reads other files by ``fetch``/XHR fails here as it fails for the
reader); every request to anything but a local file is aborted and
reported.  On each page:

* every formula typeset when the book was built (no raw ``\\(`` or ``$$``
  left in the text, a MathJax container in every math node, no MathJax
  error) and none by MathJax in the browser: the page loads no typesetter;
  no search index (but the search page) and no check of every block on load;
  formulas kept out of the tab order unless they scroll, each carrying its
  assistive MathML;
* no equation number drawn over its formula, at a desktop and a phone width;
* every box that scrolls sideways shows it, at both widths: an element whose
  ``overflow-x`` is ``auto``/``scroll`` and whose ``scrollWidth`` exceeds its
  ``clientWidth`` by more than 1 px has a visible scrollbar (``scrollbar-width``
  not ``none``) and a fade over its cut-off edge (a CSS mask, the same in light
  and dark mode): at its start the mask is on and ``data-clipped`` says
  "right", scrolled to its end the mask is on, different, and ``data-clipped``
  says "left"; no box that fits carries the sign;
* with ``fit_tables`` (the pages that are not chapters), every table fits its
  column at 1280 px: no box around it scrolls and it ends inside the column;
* every image in the article is a link to an image file at least as large (a
  figure opens at full resolution on a tap), and a figure's smallest text
  (:data:`FIGURE_TEXT_PT` at the PNG's dpi, ``pHYs``) is at least
  :data:`READABLE_PX` CSS pixels either as the page shows it or opened at full
  size (one image pixel per CSS pixel);
* one search box; the colour mode (``data-theme``) following the system's
  ``prefers-color-scheme``; no TeX command (``\\texttt``...) left in the text;
* every image loaded with a non-zero size and an alt text that describes
  it (not empty, not a file name or a path, not a bare "Figure 3");
* no failed request, no console error;
* the document no wider than the window, at a desktop and a phone width;
* no axe-core violation, with colour contrast checked in light and dark
  mode, except on elements the caller excuses (markup that the book does
  not control).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser import offline_browser

#: Window widths (px) at which no page may scroll sideways: a desktop and a phone.
WIDTHS = (1280, 390)

#: The smallest text of the book's figures, in points: legends at ``fontsize=7`` (tests/test_figure_text.py
#: checks that no figure of the book sets a smaller size).
FIGURE_TEXT_PT = 7.0

#: A figure's text is readable from this height in CSS pixels (the cap-to-descender em box): 10 px, a
#: figure caption's size on a phone.  Figures of the book reach it opened at full size, not in a 390 px column.
READABLE_PX = 10.0

#: Run in the page once MathJax has finished: counts of what went wrong.
_PAGE_REPORT = """() => {
  const visible = (el) => !el.closest('pre, code, script, style, mjx-container, .MathJax');
  const math = [...document.querySelectorAll('.math, .amsmath')].filter(
      (el) => !el.parentElement.closest('.math, .amsmath'));
  const untypeset = math.filter((el) => !el.querySelector('mjx-container')).map((el) => el.textContent.slice(0, 60));
  const errors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')].map(
      (el) => (el.getAttribute('data-mjx-error') || el.textContent).slice(0, 80));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!visible(node.parentElement)) continue;
    const text = node.textContent;
    if (/\\\\\\(|\\\\\\)|\\\\\\[|\\\\\\]|\\$\\$|\\\\begin\\{|\\\\(texttt|emph|textit|textbf|mathrm|mathbb|mathcal|frac|url|cite)\\b/.test(text))
      raw.push(text.trim().slice(0, 80));
  }
  const images = [...document.images].filter((img) => !img.complete || img.naturalWidth === 0)
      .map((img) => img.getAttribute('src'));
  const formulas = [...document.querySelectorAll('mjx-container')];
  // a display formula wider than its box scrolls and must be reachable by keyboard; no other formula
  const tabStops = formulas.filter((el) => el.hasAttribute('tabindex') && el.tabIndex >= 0
      && !(el.getAttribute('display') === 'true' && el.scrollWidth > el.clientWidth)).length;
  const noMathML = formulas.filter((el) => !el.querySelector('mjx-assistive-mml math')).length;
  const badAlt = [];
  for (const img of document.images) {
    const src = img.getAttribute('src') || '';
    const file = decodeURIComponent(src.split(/[?#]/)[0].split(/[\\/\\\\]/).pop());
    const stem = file.replace(/\\.[^.]+$/, '');
    const alt = (img.getAttribute('alt') || '').trim();
    let why = null;
    if (!alt) why = 'no alt text';
    else if (/[\\/\\\\]/.test(alt) && !/\\s/.test(alt)) why = 'alt text is a path';
    else if (/\\.(png|svg|jpe?g|gif|webp|pdf)$/i.test(alt) || alt === file || alt === stem) why = 'alt text is a file name';
    else if (/^(figure|fig\\.?|image|img|plot|graph|chart|picture)\\s*[\\d.]*$/i.test(alt)) why = 'alt text only names the figure';
    if (why) badAlt.push(`${src} (${why}: ${JSON.stringify(alt.slice(0, 60))})`);
  }
  // search fields a reader sees (the theme's search dialog is hidden until opened)
  const searches = [...document.querySelectorAll('.search-button-field, form.bd-search')].filter(
      (el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden' && !el.closest('dialog:not([open])')).length;
  return {math: math.length, untypeset, errors, raw, images, badAlt, tabStops, noMathML, searches,
          formulas: formulas.length,
          proofs: document.querySelectorAll('div.proof, div.admonition.theorem, div.theorem').length,
          exercises: document.querySelectorAll('div.exercise, div.solution').length};
}"""

#: The document's width against the window's, and the elements that stick out.
_WIDTH_REPORT = """() => {
  const root = document.documentElement;
  const limit = root.clientWidth;
  if (root.scrollWidth <= limit) return {scroll: root.scrollWidth, client: limit, wide: []};
  const clipped = (el) => {
    for (let p = el; p && p !== document.body; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (p !== el && style.overflowX !== 'visible' || style.position === 'fixed') return true;
      if (style.display === 'none' || style.visibility === 'hidden') return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + [...el.classList].slice(0, 3).map((c) => '.' + c).join('');
  const wide = [...document.body.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > limit + 1 && !clipped(el))
      .filter((el, _, all) => !all.includes(el.parentElement))
      .slice(0, 5)
      .map((el) => `${name(el)} (${Math.round(el.getBoundingClientRect().right)} px: ${JSON.stringify(el.textContent.trim().slice(0, 50))})`);
  return {scroll: root.scrollWidth, client: limit, wide};
}"""

#: Display formulas whose equation number is drawn over the formula as the reader sees it: the
#: formula's glyph box clipped by every box between it and its math block that clips or scrolls.
_EQNO_REPORT = """() => {
  const over = [];
  for (const div of document.querySelectorAll('div.math')) {
    const eqno = div.querySelector(':scope > .eqno'), math = div.querySelector('mjx-container mjx-math');
    if (!eqno || !math || !eqno.getClientRects().length) continue;
    let [left, top, right, bottom] = ((r) => [r.left, r.top, r.right, r.bottom])(math.getBoundingClientRect());
    for (let p = math.parentElement; p && p !== div.parentElement; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const r = p.getBoundingClientRect();
      left = Math.max(left, r.left); right = Math.min(right, r.right);
      top = Math.max(top, r.top); bottom = Math.min(bottom, r.bottom);
    }
    const e = eqno.getBoundingClientRect();
    const wide = Math.min(right, e.right) - Math.max(left, e.left), high = Math.min(bottom, e.bottom) - Math.max(top, e.top);
    if (wide > 1 && high > 1) over.push(`${eqno.textContent.replace(/#$/, '').trim()} (${Math.round(wide)} px)`);
  }
  return over;
}"""

#: Every box that scrolls sideways, measured at its start and at its end: its cut-off edges as the page
#: marks them (``data-clipped``), its CSS mask (the fade over those edges) and its scrollbar.
_SCROLL_SIGN_REPORT = """async () => {
  const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const name = (el) => el.tagName.toLowerCase() + [...el.classList].slice(0, 2).map((c) => '.' + c).join('')
      + ` (${JSON.stringify(el.textContent.trim().slice(0, 30))}, ${el.scrollWidth} px in ${el.clientWidth} px)`;
  const state = (el) => ({clipped: el.dataset.clipped || '', mask: getComputedStyle(el).maskImage,
                          bar: getComputedStyle(el).scrollbarWidth});
  const boxes = [...document.body.querySelectorAll('*')].filter((el) => el.scrollWidth > el.clientWidth + 1
      && ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.getClientRects().length);
  const kept = boxes.map((el) => el.scrollLeft);
  boxes.forEach((el) => { el.scrollLeft = 0; });
  await frames();
  const start = boxes.map(state);
  boxes.forEach((el) => { el.scrollLeft = el.scrollWidth; });
  await frames();
  const end = boxes.map(state);
  boxes.forEach((el, i) => { el.scrollLeft = kept[i]; });
  await frames();
  const unsigned = boxes.filter((el, i) => !(start[i].clipped === 'right' && start[i].mask !== 'none' && start[i].bar !== 'none'
      && end[i].clipped === 'left' && end[i].mask !== 'none' && end[i].mask !== start[i].mask)).map(name);
  const falseSigns = [...document.querySelectorAll('[data-clipped]')].filter((el) => el.scrollWidth <= el.clientWidth + 1
      || getComputedStyle(el).overflowX === 'visible').map(name);
  return {boxes: boxes.length, unsigned, falseSigns};
}"""

#: Tables wider than their column: a box around the table that scrolls, or a table that ends past the article.
_TABLE_FIT_REPORT = """() => {
  const article = document.querySelector('article') || document.querySelector('main');
  const right = article.getBoundingClientRect().right;
  const wide = [];
  for (const table of article.querySelectorAll('table')) {
    let box = table.parentElement;
    while (box !== article && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    const over = Math.max(box.scrollWidth - box.clientWidth, table.getBoundingClientRect().right - right);
    if (over > 1) wide.push(`${JSON.stringify(table.querySelector('th, td').textContent.trim().slice(0, 30))}`
        + ` (${Math.round(table.getBoundingClientRect().width)} px wide, ${Math.round(over)} px out of view)`);
  }
  return wide;
}"""

#: Every image of the article: its file, sizes, and the file it links to (``null`` if it is no link).
_IMAGE_REPORT = """() => [...(document.querySelector('article') || document.querySelector('main') || document.body).querySelectorAll('img')].map((img) => ({
  src: img.currentSrc || img.src, natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
  link: img.closest('a[href]') ? img.closest('a[href]').href : null}))"""

#: Run axe-core (already injected) and mark each failing element that lies inside the selector excused for its rule.
_AXE_RUN = """async ([excused, options]) => {
  const results = await axe.run(document, options);
  return results.violations.map((v) => ({
    id: v.id, help: v.help,
    nodes: v.nodes.map((n) => {
      const target = n.target[0];
      const el = typeof target === 'string' ? document.querySelector(target) : null;
      return {target: n.target.join(' '), html: n.html.slice(0, 100),
              excused: !!(el && excused[v.id] && el.closest(excused[v.id])),
              summary: (n.failureSummary || '').split('\\n').slice(1, 2).join('').trim().slice(0, 140)};
    }),
  }));
}"""

#: axe-core options: report violations only; no ``preload`` of the style sheets, which axe
#: would fetch by XHR (refused between ``file://`` pages) and which only css-orientation-lock needs.
_AXE_OPTIONS = {"resultTypes": ["violations"], "preload": False}

#: MathJax's typesetter on the page (its loader script or its global): formulas are typeset at build time.
_TYPESETTER = """() => {
  const src = [...document.scripts].map((s) => s.getAttribute('src') || '').find((s) => /mathjax\\/(tex|mml|startup|latest)/i.test(s));
  if (src) return 'loads ' + src;
  return window.MathJax && (window.MathJax.startup || window.MathJax.typesetPromise) ? 'window.MathJax is running' : '';
}"""

#: Work on load that a long page cannot afford on a phone (benchmarks/bench_typesetting.py): Sphinx's search
#: index loaded by a page other than the search page, Font Awesome's icon script (1.5 MB, watching every node
#: the page inserts; book/_ext/inline_icons.py writes the icons at build time), and the theme's overflow check
#: of every block at once (it marks each block that does not scroll ``tabindex="-1"``; scroll-stops.js checks
#: each block as it comes near the window and marks none so).
_SLOW_ON_LOAD = """() => {
  const slow = [];
  const index = [...document.scripts].map((s) => s.getAttribute('src') || '').find((s) => /(^|\\/)searchindex\\.js/.test(s));
  if (index && !/(^|\\/)search\\.html$/.test(location.pathname)) slow.push('loads the search index ' + index);
  const icons = [...document.scripts].map((s) => s.getAttribute('src') || '').find((s) => /(^|\\/)fontawesome(\\.min)?\\.js/.test(s));
  if (icons) slow.push('loads the Font Awesome script ' + icons + ' (icons are inline SVG from the build)');
  const marked = document.querySelectorAll('pre[tabindex="-1"], .cell_output > .output[tabindex="-1"], '
      + '.pst-scrollable-table-container[tabindex="-1"]').length;
  if (marked) slow.push(`the theme checked every block for overflow on load (${marked} marked tabindex=-1)`);
  return slow;
}"""

_SET_MODE = "(mode) => { document.documentElement.dataset.theme = mode; document.documentElement.dataset.mode = mode; }"


def _axe_script() -> str:
    from axe_playwright_python.base import AXE_SCRIPT

    return AXE_SCRIPT


def axe_violations(page, *, excused: dict[str, tuple[str, str]] | None = None) -> list[dict]:
    """axe-core violations of the open page, light mode (all rules) then dark mode (colour contrast).

    ``excused`` maps a rule id to ``(CSS selector, reason)``.  Each violation is
    ``{"id", "help", "mode", "nodes"}``; every node carries ``excused=True``
    when it lies inside the selector excused for its rule.
    """
    selectors = {rule: selector for rule, (selector, _reason) in (excused or {}).items()}
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(_axe_script())
        # colours are judged as they settle: no transition half-way between light and dark
        page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important; }")
    found = []
    for mode, options in (
        ("light", {**_AXE_OPTIONS}),
        ("dark", {**_AXE_OPTIONS, "runOnly": ["color-contrast"]}),
    ):
        page.evaluate(_SET_MODE, mode)
        found += [{**v, "mode": mode} for v in page.evaluate(_AXE_RUN, [selectors, options])]
    page.evaluate(_SET_MODE, "light")
    return found


def _png(url: str) -> tuple[int, float | None] | None:
    """``(width in pixels, dpi or None)`` of a local PNG file named by a ``file://`` URL; ``None`` if it is not one."""
    from urllib.parse import unquote, urlparse

    from PIL import Image

    path = Path(unquote(urlparse(url.split("#")[0]).path))
    if not url.startswith("file://") or path.suffix.lower() != ".png" or not path.is_file():
        return None
    with Image.open(path) as image:
        dpi = image.info.get("dpi")
        return image.width, (float(dpi[0]) if dpi else None)


def figure_problems(images: list[dict], width: int) -> list[str]:
    """What :data:`_IMAGE_REPORT` shows wrong at one window ``width``: no full-size link, unreadable text."""
    problems = []
    for image in images:
        src = image["src"].rsplit("/", 1)[-1]
        target = _png(image["link"]) if image["link"] else None
        if target is None or target[0] < image["natural"]:
            problems.append(f"figure {src} does not open at full size (its link: {image['link']})")
            continue
        own = _png(image["src"])
        if not own or not own[1] or not image["natural"]:
            continue  # no dpi: no text size to measure
        in_page = FIGURE_TEXT_PT * own[1] / 72 * image["shown"] / image["natural"]
        full_size = FIGURE_TEXT_PT * target[1] / 72 if target[1] else 0.0
        if max(in_page, full_size) < READABLE_PX:
            problems.append(f"figure {src}: smallest text {in_page:.1f} px in the page at {width} px and {full_size:.1f} px"
                            f" at full size, below {READABLE_PX:g} px")
    return problems


def check_page(
    context,
    path: Path,
    *,
    screenshot: Path | None = None,
    axe: bool = True,
    excused: dict[str, tuple[str, str]] | None = None,
    fit_tables: bool = False,
) -> dict:
    """Open one page, wait for its fonts, and return its report.

    The report holds ``problems`` (a list of messages; empty when the page is
    fine), the counts ``math``, ``proofs`` and ``exercises``, the document's
    width and the number of boxes that scroll sideways (``scroll_boxes``) at
    each of :data:`WIDTHS`, and ``violations``: every axe-core
    violation found, those on elements inside the selector that ``excused``
    gives for the rule included and marked ``excused`` (only the others are
    problems).  With ``fit_tables`` every table must fit the column at
    ``WIDTHS[0]`` (the pages that are not chapters).
    """
    page = context.new_page()
    failed, console = [], []
    page.on("requestfailed", lambda req: failed.append(f"{req.url} ({req.failure})"))
    page.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: console.append(str(exc)))
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})
    page.goto(Path(path).resolve().as_uri(), wait_until="load")
    typesetter = page.evaluate(_TYPESETTER)
    slow = page.evaluate(_SLOW_ON_LOAD)
    # every block laid out, as the reader sees it once scrolled there (book.css defers off-screen blocks)
    page.add_style_tag(content="* { content-visibility: visible !important; }")
    page.evaluate("() => window.dispatchEvent(new Event('resize'))")  # the page's scripts see that layout
    page.evaluate("() => document.fonts.ready.then(() => true)")
    report = page.evaluate(_PAGE_REPORT)
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot), full_page=False)
    violations = axe_violations(page, excused=excused) if axe else []
    schemes = {}
    for scheme in ("dark", "light"):  # the reader's system setting, changed while the page is open
        page.emulate_media(color_scheme=scheme)
        try:  # once the page has handled the change
            page.wait_for_function("(s) => document.documentElement.dataset.theme === s", arg=scheme, timeout=5_000)
        except PlaywrightTimeout:
            pass
        schemes[scheme] = page.evaluate("() => document.documentElement.dataset.theme")
    widths, overlaps, signs, figures, wide_tables = {}, {}, {}, {}, []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        widths[width] = page.evaluate(_WIDTH_REPORT)
        overlaps[width] = page.evaluate(_EQNO_REPORT)
        signs[width] = page.evaluate(_SCROLL_SIGN_REPORT)
        figures[width] = figure_problems(page.evaluate(_IMAGE_REPORT), width)
        if fit_tables and width == WIDTHS[0]:
            wide_tables = page.evaluate(_TABLE_FIT_REPORT)
    page.close()
    name = Path(path).name
    problems = []
    if typesetter:
        problems.append(f"{name}: the page typesets formulas in the browser on load ({typesetter})")
    problems += [f"{name}: slow on load: {t}" for t in slow]
    problems += [f"{name}: formula not typeset: {t!r}" for t in report["untypeset"]]
    problems += [f"{name}: MathJax error: {t!r}" for t in report["errors"]]
    problems += [f"{name}: raw TeX in the page text: {t!r}" for t in report["raw"]]
    if report["tabStops"]:
        problems.append(f"{name}: {report['tabStops']} of {report['formulas']} formulas are in the tab order")
    if report["noMathML"]:
        problems.append(f"{name}: {report['noMathML']} of {report['formulas']} formulas have no assistive MathML")
    problems += [f"{name}: image not loaded: {src}" for src in report["images"]]
    problems += [f"{name}: image without a describing alt text: {a}" for a in report["badAlt"]]
    problems += [f"{name}: failed request: {r}" for r in failed]
    problems += [f"{name}: console error: {m}" for m in console]
    for width, w in widths.items():
        if w["scroll"] > w["client"]:
            problems.append(
                f"{name}: {w['scroll']} px wide in a {width} px window (scrolls sideways); sticking out: {'; '.join(w['wide'])}"
            )
    if report["searches"] > 1:
        problems.append(f"{name}: {report['searches']} search boxes shown at {WIDTHS[0]} px (one is enough)")
    if schemes != {"dark": "dark", "light": "light"}:
        problems.append(f"{name}: the colour mode does not follow the system setting (prefers-color-scheme -> data-theme: {schemes})")
    for width, over in overlaps.items():
        if over:
            problems.append(f"{name}: {len(over)} equation numbers drawn over their formula at {width} px: {', '.join(over[:8])}")
    for width, sign in signs.items():
        if sign["unsigned"]:
            problems.append(f"{name}: {len(sign['unsigned'])} of {sign['boxes']} boxes scroll sideways at {width} px without"
                            f" showing it: {'; '.join(sign['unsigned'][:5])}")
        if sign["falseSigns"]:
            problems.append(f"{name}: the scroll sign on boxes that do not scroll at {width} px: {'; '.join(sign['falseSigns'][:5])}")
    problems += [f"{name}: table wider than the column at {WIDTHS[0]} px: {t}" for t in wide_tables]
    problems += sorted({f"{name}: {p}" for found in figures.values() for p in found})
    for v in violations:
        own = [n for n in v["nodes"] if not n["excused"]]
        if own:
            where = "; ".join(f"{n['target']} {n['summary']}" for n in own[:3])
            problems.append(f"{name}: axe {v['id']} ({v['mode']} mode, {len(own)} elements: {v['help']}): {where}")
    return {
        "problems": problems,
        "violations": violations,
        "widths": {width: w["scroll"] for width, w in widths.items()},
        "scroll_boxes": {width: sign["boxes"] for width, sign in signs.items()},
        **{k: report[k] for k in ("math", "proofs", "exercises")},
    }


def search_hits(context, search_page: Path, word: str) -> dict:
    """What the built search page shows for ``word``: number of results, of result snippets, console errors."""
    page = context.new_page()
    console = []
    page.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: console.append(str(exc)))
    page.goto(Path(search_page).resolve().as_uri() + f"?q={word}", wait_until="load")
    page.wait_for_function(
        "() => document.querySelector('#search-results p.search-summary, #search-results .search-summary')"
        " && !document.querySelector('#search-results p.search-summary').textContent.includes('Preparing')",
        timeout=20_000,
    )
    hits = page.evaluate("() => document.querySelectorAll('#search-results ul.search li').length")
    try:  # snippets are added asynchronously, one per page result
        page.wait_for_function("() => document.querySelector('#search-results ul.search li p.context')", timeout=5_000)
    except PlaywrightTimeout:
        pass
    snippets = page.evaluate("() => document.querySelectorAll('#search-results ul.search li p.context').length")
    page.close()
    return {"hits": hits, "snippets": snippets, "console": console}


def check_pages(
    html_root: Path, shots: dict[str, Path | None], excused: dict[str, tuple[str, str]] | None = None, fit_tables=frozenset()
) -> dict:
    """:func:`check_page` on each page ``shots`` names (``page -> screenshot path or None``), in one offline browser.

    The pages named in ``fit_tables`` must have every table fit the column.

    Returns ``{"reports": {page: report}, "blocked": [urls that tried to leave the local files]}``.
    """
    with offline_browser() as (context, blocked):
        reports = {
            page: check_page(context, Path(html_root) / f"{page}.html", screenshot=shot, excused=excused,
                             fit_tables=page in fit_tables)
            for page, shot in shots.items()
        }
        return {"reports": reports, "blocked": list(blocked)}


def check_pages_in_parallel(
    html_root: Path, shots: dict[str, Path | None], excused=None, workers: int | None = None, fit_tables=frozenset()
) -> dict:
    """:func:`check_pages` split over ``workers`` processes (default: one per core, at most 4), merged in page order.

    Each worker runs its own browser; axe-core's colour-contrast rule dominates the time and
    runs on one core per page, so the pages are shared out round-robin.
    """
    workers = workers or max(1, min(4, os.cpu_count() or 1))
    pages = list(shots)
    chunks = [{page: shots[page] for page in pages[i::workers]} for i in range(workers)]
    chunks = [chunk for chunk in chunks if chunk]
    with ProcessPoolExecutor(len(chunks), mp_context=multiprocessing.get_context("fork")) as pool:
        parts = list(pool.map(check_pages, [html_root] * len(chunks), chunks, [excused] * len(chunks), [fit_tables] * len(chunks)))
    reports = {page: report for part in parts for page, report in part["reports"].items()}
    return {"reports": {page: reports[page] for page in pages}, "blocked": [u for part in parts for u in part["blocked"]]}
