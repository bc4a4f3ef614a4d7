"""Print the single-page HTML build of the book to a PDF in headless Chromium (``make pdf``).

Usage: ``python book/_ext/print_pdf.py _build/singlehtml _build/pdf/book.pdf``.

Sphinx's ``singlehtml`` builder writes the whole book into one page
(``book/intro.html``) whose relative links are written from the build root.
The page is served at the root of a private origin (:data:`ORIGIN`) whose
requests are answered from the build directory by the browser's request
routing: no server, no network, no ``file://`` access.  Before printing, the
page's document is prepared for paper (:func:`prepare`):

* a title page (title, edition date, where the code is) opens the book;
* a heading for each part of ``_toc.yml`` is inserted and every chapter starts
  on a new page, so the PDF's bookmark outline reads parts, chapters, sections;
* every link is rewritten: a link into the book becomes ``#id`` (a named
  destination of the PDF), an ``http(s)`` link stays, a download link
  (``_downloads/``, only in the HTML build) becomes plain text; anything else
  is an error;
* in print layout (``@media print``, the width of the text column), every
  code block wraps (``book/_static/print.css``), a table wider than the column
  is set smaller, and a display formula wider than the column is scaled down
  to fit, as a fallback: each one is listed in ``overflow_report.txt`` beside
  the PDF so that its source can be broken with ``aligned``/``split``/``multline``.

The PDF is tagged and carries the outline (Chromium's ``tagged``/``outline``).
"""

from __future__ import annotations

import datetime
import os
import re
import html
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml
from browser import offline_browser, wait_for_mathjax
from print_typeset import (UNPRINTED_NOTE, UNPRINTED_NOTE_ID, add_running_heads, destination_pages,
                           frame_code_lines, keep_headings, keep_titles, leave_out, number_contents,
                           unprinted_pages)

ROOT = Path(__file__).resolve().parents[2]
#: The private origin the page is served from (answered by request routing, never resolved).
ORIGIN = "http://book.print.invalid"
PAGE_PATH = "/book.html"
#: The page loads the search index of the multi-page site, which the singlehtml builder does not write;
#: search is no part of paper, so the request is answered with an empty script.
NO_SEARCH_INDEX = "/searchindex.js"
PAGE_WIDTH_MM, PAGE_HEIGHT_MM = 210.0, 297.0  # A4
MARGIN_MM = {"top": 18.0, "bottom": 18.0, "left": 16.0, "right": 16.0}
PX_PER_MM = 96 / 25.4
#: Width of the text column in CSS pixels: the viewport width of the print layout.
COLUMN_PX = (PAGE_WIDTH_MM - MARGIN_MM["left"] - MARGIN_MM["right"]) * PX_PER_MM
#: A heading and the block after it print as one box if that block is at most this high (40 % of the text area).
KEEP_TALLEST_PX = 0.4 * (PAGE_HEIGHT_MM - MARGIN_MM["top"] - MARGIN_MM["bottom"]) * PX_PER_MM
#: A box may exceed its column by this much (sub-pixel rounding) before it counts as too wide.
TOLERANCE_PX = 1.0

_PREPARE_JS = r"""
({title, author, edition, editionName, licence, parts, chapters}) => {
  document.body.classList.add('pdf-book');
  const article = document.querySelector('.bd-article');
  if (!article) throw new Error('no .bd-article in the page');
  // The title page, then the theme's printed table of contents (its heading a top-level bookmark).
  const tp = document.createElement('section');
  tp.id = 'pdf-title-page';
  tp.className = 'pdf-title-page';
  tp.innerHTML = `<p class="pdf-title">${title}</p><p class="pdf-author">${author}</p>`
    + (editionName ? `<p class="pdf-edition-name">${editionName}</p>` : '')
    + `<p class="pdf-edition">Edition of ${edition}</p>`
    + `<div class="pdf-code-note"><p>The code that computes every figure and table of this book is `
    + `the companion Python package <code>companion</code>. The HTML edition of the book ships it as a `
    + `wheel, with the pinned requirements, among its downloads, and every chapter can be downloaded `
    + `there as a Jupyter notebook. The page <a href="#run-the-code">Run the code</a> gives the `
    + `commands that install the wheel and run a chapter.</p></div>`
    + (licence ? `<p class="pdf-licence">${licence}</p>` : '');
  const printHeader = document.getElementById('jb-print-docs-body');
  const toc = document.getElementById('jb-print-toc');
  const contents = document.createElement('section');
  contents.id = 'pdf-contents';
  contents.className = 'pdf-contents';
  if (toc) {
    const heading = document.createElement('h1');
    heading.textContent = 'Contents';
    contents.append(heading);
    toc.querySelectorAll('h1, h2, h3').forEach(h => h.remove());
    toc.querySelectorAll('[role="heading"]').forEach(c => { c.removeAttribute('role'); c.removeAttribute('aria-level'); });
    contents.append(toc);
  }
  if (printHeader) printHeader.remove();
  article.prepend(tp, contents);
  // Parts and chapters: a part heading before the first chapter of each part; each chapter on a new page.
  const missing = [];
  for (const doc of chapters) {
    const anchor = document.getElementById('document-' + doc);
    const section = anchor && anchor.nextElementSibling;
    if (!section || section.tagName !== 'SECTION') { missing.push(doc); continue; }
    section.classList.add('pdf-chapter');
  }
  for (const [caption, first] of parts) {
    const anchor = document.getElementById('document-' + first);
    if (!anchor) { missing.push(first); continue; }
    const h = document.createElement('h1');
    h.className = 'pdf-part';
    h.id = 'pdf-part-' + caption.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    h.textContent = caption;
    anchor.before(h);
  }
  return missing;
}
"""

# Chromium's bookmark titles join the lines of a wrapped heading without a space and drop
# typeset math; the titles are set again afterwards from the headings' text (math as its MathML text).
_HEADINGS_JS = r"""
() => {
  const text = (h, math) => {
    const c = h.cloneNode(true);
    c.querySelectorAll('.headerlink').forEach(e => e.remove());
    c.querySelectorAll('mjx-container').forEach(m => {
      const mml = m.querySelector('mjx-assistive-mml');
      m.replaceWith(math && mml ? mml.textContent : '');
    });
    return c.textContent.replace(/\s+/g, ' ').trim();
  };
  return Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]'))
    .filter(h => h.getClientRects().length)
    .map(h => ({title: text(h, true), plain: text(h, false)}));
}
"""

_LINKS_JS = r"""
(pagePath) => {
  const ownPaths = new Set([pagePath, '/book/intro.html', '/index.html']);
  const out = {internal: 0, external: 0, unwrapped: [], dead: []};
  for (const a of Array.from(document.querySelectorAll('a[href]'))) {
    if (!a.getClientRects().length) continue;  // not printed: no link in the PDF
    const raw = a.getAttribute('href');
    let url;
    try { url = new URL(raw, document.baseURI); } catch (e) { out.dead.push(raw); continue; }
    if (url.origin === location.origin && ownPaths.has(url.pathname)) {
      const id = decodeURIComponent(url.hash.slice(1)) || document.body.firstElementChild.id;
      if (id && document.getElementById(id)) { a.setAttribute('href', '#' + id); out.internal++; }
      else out.dead.push(raw);
    } else if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== location.origin) {
      out.external++;
    } else if (url.origin === location.origin && url.pathname.startsWith('/_downloads/')) {
      const span = document.createElement('span');
      span.append(...a.childNodes);
      a.replaceWith(span);
      out.unwrapped.push(raw);
    } else {
      out.dead.push(raw);
    }
  }
  return out;
}
"""

# In print layout (the viewport is as wide as the text column): every display formula, table, code
# block, output and image that reaches past its container's content box or scrolls inside itself.
_MEASURE_JS = r"""
(tolerance) => {
  const content = (el) => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return [r.left + parseFloat(s.paddingLeft) + parseFloat(s.borderLeftWidth),
            r.right - parseFloat(s.paddingRight) - parseFloat(s.borderRightWidth)];
  };
  const chapterOf = (el) => {
    const s = el.closest('section.pdf-chapter');
    const h = s && s.querySelector('h1, h2');
    return h ? h.textContent.replace(/#$/, '').replace(/\s+/g, ' ').trim() : '(front matter)';
  };
  const texOf = (el) => {  // a formula typeset at build time (prerender_math.py) keeps its TeX in data-tex
    const math = el.closest('.math');
    if (math && math.dataset.tex) return math.dataset.tex.replace(/\s+/g, ' ').trim();
    const items = window.MathJax && MathJax.startup ? MathJax.startup.document.getMathItemsWithin(el) : [];
    return items.length ? items[0].math.replace(/\s+/g, ' ').trim() : '';
  };
  const rows = [];
  const article = document.querySelector('.bd-article') || document.body;
  const column = content(article);
  const boxes = article.querySelectorAll(
    'mjx-container, pre, table, div.cell_output > div, img, div.highlight');
  for (const el of boxes) {
    if (!el.getClientRects().length || el.parentElement.closest('mjx-container')) continue;
    let block = el.parentElement;  // the box whose width the element must keep to: its nearest block
    while (block !== article && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
    const own = content(block);
    // inside a table cell the cell is the bound: a table wider than the column is zoomed as a whole
    const inCell = el.tagName !== 'TABLE' && el.closest('td, th');
    const left = inCell ? own[0] : Math.max(own[0], column[0]), right = inCell ? own[1] : Math.min(own[1], column[1]);
    const math = el.tagName === 'MJX-CONTAINER';
    const box = (math ? el.querySelector('mjx-math') : el).getBoundingClientRect();
    const div = math && el.closest('div.math'), eqno = div && div.querySelector('.eqno');
    const eqnoWidth = eqno && eqno.getClientRects().length ? eqno.getBoundingClientRect().width + 8 : 0;
    // scrollWidth is in the element's own pixels: a zoomed table's are not the page's.
    const zoom = el.offsetWidth ? el.getBoundingClientRect().width / el.offsetWidth : 1;
    const natural = Math.max(box.width + eqnoWidth, el.scrollWidth * zoom);
    const inline = math && el.getAttribute('display') !== 'true';  // its scroll box counts glyph overhang
    if (box.right > right + tolerance || box.left < left - tolerance || (!inline
        && (el.scrollWidth > el.clientWidth + tolerance || natural > right - left + tolerance))) {
      el.setAttribute('data-pdf-wide', rows.length);
      const kind = math ? (el.getAttribute('display') === 'true' ? 'display math' : 'inline math')
                        : el.tagName.toLowerCase();
      rows.push({kind: kind, chapter: chapterOf(el),
                 label: eqno ? eqno.textContent.replace(/#$/, '').trim() : '',
                 start: (math ? texOf(el) : el.textContent.replace(/\s+/g, ' ').trim()).slice(0, 60),
                 natural: natural, available: right - left, eqno: eqnoWidth});
    }
  }
  return rows;
}
"""

# Display math is set smaller (its size is in em) and a table is zoomed, to the width of the column.
_SCALE_JS = r"""
([rows, tolerance]) => {
  const scaled = [];
  for (const el of document.querySelectorAll('[data-pdf-wide]')) {
    const index = Number(el.getAttribute('data-pdf-wide')), row = rows[index];
    el.removeAttribute('data-pdf-wide');
    if (el.tagName !== 'MJX-CONTAINER' && el.tagName !== 'TABLE') continue;
    // Inline math moves to a line of its own (inline-block) and is set smaller only if still too wide.
    if (row.kind === 'inline math') el.style.setProperty('display', 'inline-block', 'important');
    const factor = Math.min(1, Math.floor(100 * (row.available - row.eqno - tolerance) / (row.natural - row.eqno)) / 100);
    // no room at all: the formula sits in a table cell squeezed by its table, which is zoomed itself
    if (factor <= 0) continue;
    if (el.tagName === 'TABLE') el.style.setProperty('zoom', String(factor));
    else el.style.setProperty('font-size', (parseFloat(getComputedStyle(el).fontSize) * factor) + 'px', 'important');
    scaled.push([index, factor]);
  }
  return scaled;
}
"""


def edition_date() -> str:
    """The date of the last commit of the checkout (reproducible); today's date outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%cs"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    day = datetime.date.fromisoformat(out) if out else datetime.date.today()
    return f"{day.day} {day:%B %Y}"


def book_structure(toc_file: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """From ``_toc.yml``: (caption, first chapter) of every part, and every chapter's document name."""
    toc = yaml.safe_load(Path(toc_file).read_text())
    parts, chapters = [], []
    for part in toc.get("parts", []):
        docs = [c["file"] for c in part.get("chapters", [])]
        if docs:
            parts.append((part["caption"], docs[0]))
        chapters += docs
    return parts, chapters


def serve_directory(context, root: Path, page: Path, missing: list[str]) -> str:
    """Answer requests to :data:`ORIGIN` from the files under ``root`` (``page`` at :data:`PAGE_PATH`).

    Registered after the offline browser's own routing, so it takes precedence for this origin; a
    missing file is answered 404 and recorded in ``missing``.  Returns the page's URL.
    """
    root = Path(os.path.abspath(root))

    def handler(route):
        path = unquote(urlsplit(route.request.url).path)
        file = Path(page) if path == PAGE_PATH else Path(os.path.normpath(root / path.lstrip("/")))
        if path == NO_SEARCH_INDEX:
            route.fulfill(status=200, content_type="text/javascript", body="")
        elif file.is_file() and (path == PAGE_PATH or root in file.parents):
            route.fulfill(path=file)
        else:
            missing.append(route.request.url)
            route.fulfill(status=404, body="not found")

    context.route(ORIGIN + "/**", handler)
    return ORIGIN + PAGE_PATH


def measure_wide(page) -> list[dict]:
    """Every box wider than its column in the page's print layout (see ``_MEASURE_JS``), marked in the DOM."""
    return page.evaluate(_MEASURE_JS, TOLERANCE_PX)


def fit_to_column(page) -> tuple[list[dict], list[dict]]:
    """Scale every display formula and table wider than its column; returns (scaled, still too wide).

    Each row gives the kind of box, its chapter, its equation number and first characters (the TeX
    source for a formula), its natural and available width in CSS pixels, and ``factor`` if scaled.
    """
    wide = measure_wide(page)
    for index, factor in page.evaluate(_SCALE_JS, [wide, TOLERANCE_PX]):
        wide[index]["factor"] = factor
    still_wide = measure_wide(page)
    page.evaluate("() => document.querySelectorAll('[data-pdf-wide]').forEach(e => e.removeAttribute('data-pdf-wide'))")
    return [w for w in wide if "factor" in w], still_wide


def open_for_print(context, url: str):
    """A page at ``url`` in print layout: print media, the viewport as wide as the text column."""
    page = context.new_page()
    page.set_viewport_size({"width": round(COLUMN_PX), "height": 1000})
    page.emulate_media(media="print")
    page.goto(url, wait_until="load", timeout=600_000)
    wait_for_mathjax(page)
    page.evaluate("() => document.fonts.ready.then(() => true)")  # the fonts of formulas typeset at build time
    return page


def print_page(page, output: Path, *, outline: bool = True, tagged: bool = True) -> None:
    """Print the page as it is now to ``output`` (A4, the margins of :data:`MARGIN_MM`; the page numbers
    and running heads are CSS page-margin boxes: print.css and ``print_typeset.add_running_heads``)."""
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    page.pdf(
        path=str(output),
        width=f"{PAGE_WIDTH_MM}mm",
        height=f"{PAGE_HEIGHT_MM}mm",
        print_background=True,
        margin={k: f"{v}mm" for k, v in MARGIN_MM.items()},
        outline=outline,
        tagged=tagged,
    )


def _alnum(text: str) -> str:
    return re.sub(r"\W", "", text)


def retitle_outline(pdf: Path, headings: list[dict]) -> int:
    """Set the PDF's bookmark titles from the page's headings (in document order); returns their number.

    Raises ``RuntimeError`` if the bookmarks and the headings do not correspond one to one.
    """
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    writer = PdfWriter(clone_from=str(pdf))
    items = []

    def walk(item):
        while item is not None:
            item = item.get_object()
            items.append(item)
            walk(item.get("/First"))
            item = item.get("/Next")

    outlines = writer._root_object.get("/Outlines")
    if outlines is not None:
        walk(outlines.get_object().get("/First"))
    if len(items) != len(headings):
        raise RuntimeError(f"{len(items)} bookmarks in the PDF for {len(headings)} headings in the page")
    for item, heading in zip(items, headings):
        # Chromium's title may repeat the heading's text, whole or word by word ("3.4. 3.4. The The ...", a
        # heading next to a page break): compare a prefix with the title's repeated words dropped.
        words = str(item["/Title"]).split()
        printed = _alnum("".join(w for i, w in enumerate(words) if i == 0 or w != words[i - 1]))
        plain = _alnum(heading["plain"])
        if plain[:12] not in printed:
            raise RuntimeError(f"bookmark {str(item['/Title'])!r} does not match heading {heading['title']!r}")
        item[NameObject("/Title")] = TextStringObject(heading["title"])
    writer.write(str(pdf))
    return len(items)


def print_document(root: Path, page_file: Path, output: Path, *, book: dict | None = None,
                   links: bool = True, fit: bool = True, outline: bool = True, tagged: bool = True,
                   contents_numbers: bool = True) -> dict:
    """Print ``page_file`` (served with the files under ``root``) to ``output``; returns a summary.

    ``book`` (``title``, ``author``, ``edition``, ``parts``, ``chapters``) adds the title page, the
    contents, the part headings and a page break before each chapter.  ``links``, ``fit`` and
    ``outline`` switch off the link rewriting, the fitting to the column and the outline, and
    ``contents_numbers`` the second print that writes the page numbers into the contents (the tests'
    broken fixtures).  ``book["unprinted"]`` (``docs``, ``noteId``, ``note``) leaves pages out.  Raises ``RuntimeError`` on a link that leads neither into the page nor to
    ``http(s)``, on a chapter missing from the page, or on bookmarks that do not match the headings.
    """
    start = time.perf_counter()
    missing: list[str] = []
    summary = {"links": {"internal": 0, "external": 0, "unwrapped": [], "dead": []}, "scaled": [], "still_wide": []}
    with offline_browser() as (context, blocked):
        page = open_for_print(context, serve_directory(context, root, page_file, missing))
        if book is not None:
            absent = page.evaluate(_PREPARE_JS, book)
            if absent:
                raise RuntimeError(f"chapters of _toc.yml not found in the page: {absent}")
            if book.get("unprinted"):
                summary["unprinted"] = leave_out(page, book["unprinted"])
            add_running_heads(page)
            number_contents(page, None)
        if links:
            summary["links"] = page.evaluate(_LINKS_JS, PAGE_PATH)
            if summary["links"]["dead"]:
                dead = sorted(set(summary["links"]["dead"]))
                raise RuntimeError(f"{len(dead)} links lead neither into the book nor to http(s): {dead[:20]}")
        if fit:
            summary["scaled"], summary["still_wide"] = fit_to_column(page)
        else:
            summary["still_wide"] = measure_wide(page)
        summary["code_boxes"] = frame_code_lines(page)
        summary["kept_titles"] = keep_titles(page)
        summary["kept_headings"] = keep_headings(page, KEEP_TALLEST_PX)
        headings = page.evaluate(_HEADINGS_JS)
        summary["seconds_layout"] = time.perf_counter() - start
        if book is not None and contents_numbers:
            # A first print, untagged (faster), gives the page of every destination for the contents.
            draft = Path(output).with_suffix(".draft.pdf")
            print_page(page, draft, outline=False, tagged=False)
            absent = number_contents(page, destination_pages(draft))
            draft.unlink()
            if absent:
                raise RuntimeError(f"contents entries with no destination in the PDF: {absent}")
            summary["seconds_draft"] = time.perf_counter() - start
        print_page(page, output, outline=outline, tagged=tagged)
    # Chromium writes the outline from the tags: no tags, no outline.
    summary["bookmarks"] = retitle_outline(Path(output), headings) if outline and tagged else 0
    summary["failed_requests"] = blocked + missing
    summary["seconds"] = time.perf_counter() - start
    return summary


def report_text(scaled: list[dict], still_wide: list[dict]) -> str:
    """The overflow report: the boxes scaled to fit (widest first), and any still too wide."""
    def row(r):
        return (f"  {r['kind']} | {r['chapter']} | {r['label'] or '-'} | {r['start']!r} | natural {r['natural']:.0f} px"
                f" / column {r['available']:.0f} px = {r['natural'] / r['available']:.2f}")
    lines = [f"Boxes wider than their column in print layout (text column {COLUMN_PX:.0f} px; natural width"
             " includes the equation number).", "",
             f"Scaled down to fit ({len(scaled)}; x1.00: inline math moved to a line of its own); break the"
             " formulas with aligned/split/multline:"]
    lines += [row(r) + f", scaled x{r['factor']:.2f}" for r in sorted(scaled, key=lambda r: -r["natural"] / r["available"])]
    lines += ["", f"Still wider than the column ({len(still_wide)}):"] + [row(r) for r in still_wide]
    return "\n".join(lines) + "\n"


#: The title page's line for each edition that is not the full book (``--edition``).
EDITIONS = {"full": "", "student": "Student edition"}


def print_pdf(singlehtml: Path, output: Path, toc_file: Path = ROOT / "_toc.yml",
              config_file: Path = ROOT / "_config.yml", edition: str = "full") -> dict:
    """Print the book from its singlehtml build; writes ``overflow_report.txt`` beside the PDF.

    ``edition`` (a key of :data:`EDITIONS`) names the edition on the title page; the licence there is
    the site's footer (``html: extra_footer`` of the configuration).
    """
    singlehtml, output = Path(singlehtml), Path(output)
    root_page = singlehtml / "book" / "intro.html"
    if not root_page.is_file():
        raise FileNotFoundError(f"{root_page} not found: build with `jupyter-book build . --builder singlehtml` first")
    config = yaml.safe_load(Path(config_file).read_text())
    parts, chapters = book_structure(toc_file)
    book = {"title": html.escape(config["title"]), "author": html.escape(config.get("author", "")),
            "edition": edition_date(), "editionName": EDITIONS[edition],
            "licence": config.get("html", {}).get("extra_footer", ""), "parts": parts, "chapters": chapters,
            "unprinted": {"docs": unprinted_pages(toc_file), "noteId": UNPRINTED_NOTE_ID, "note": UNPRINTED_NOTE}}
    summary = print_document(singlehtml, root_page, output, book=book)
    report = "overflow_report.txt" if edition == "full" else f"overflow_report_{edition}.txt"
    (output.parent / report).write_text(report_text(summary["scaled"], summary["still_wide"]))
    return summary


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Print the singlehtml build of the book to a PDF.")
    parser.add_argument("singlehtml", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--edition", choices=sorted(EDITIONS), default="full")
    args = parser.parse_args()
    summary = print_pdf(args.singlehtml, args.output, edition=args.edition)
    links = summary["links"]
    print(f"PDF written: {args.output} in {summary['seconds']:.0f} s; links: {links['internal']} internal, "
          f"{links['external']} http(s), {len(links['unwrapped'])} download links set as text; "
          f"(page ready after {summary['seconds_layout']:.0f} s); {summary['bookmarks']} bookmarks; {len(summary['scaled'])} boxes scaled to fit (overflow_report.txt)")
    if summary["still_wide"]:
        print(f"{len(summary['still_wide'])} boxes are still wider than the text column: see overflow_report.txt",
              file=sys.stderr)
    if summary["failed_requests"]:
        sys.exit(f"{len(summary['failed_requests'])} requests failed while printing: {summary['failed_requests'][:10]}")
