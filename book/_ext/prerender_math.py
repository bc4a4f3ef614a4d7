"""Sphinx extension: every formula is typeset when the book is built, none in the reader's browser.

MathJax typeset each page's formulas in the browser at every visit: 20 s and more
for a long chapter on a phone-class CPU.  After the build, this extension hands
every formula of every written page (``\\(...\\)`` and ``\\[...\\]`` in Sphinx's
``.math`` elements, the navigation's included) to one Node process running
MathJax 3's own package (``book/_ext/typeset_math.js``, ``mathjax-full`` from
``package-lock.json``, installed by ``make``), and writes its CommonHTML output
with the assistive MathML in their place: the same glyphs, fonts and screen-reader
text as before, with no script.  The MathJax loader is dropped from every page;
the CommonHTML style sheet (the characters of the TeX fonts that the book uses, read
from the fonts that ``sphinx-mathjax-offline`` ships, and the style common to every
formula's container) is ``_static/mathjax-chtml.css``, one file for all pages.

A formula MathJax cannot parse is a build warning (an error in the strict build)
naming the page and the TeX.  A display formula wider than its box scrolls inside
it; ``_static/scroll-stops.js`` (``page_speed``) makes such a formula a tab stop
(and only such a formula), as MathJax's menu code did.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("typeset_math.js")
NODE_MODULES = ROOT / "node_modules"
CSS = "mathjax-chtml.css"
#: Where the fonts are, relative to the style sheet in ``_static`` (copied there by sphinx-mathjax-offline).
FONT_URL = "mathjax/output/chtml/fonts/woff-v2"
#: The size of a formula relative to the text around it, as MathJax in the browser matched
#: the TeX fonts' x-height to the book's body font (it set ``font-size: 127.3%`` on the body text).
SCALE = 1.273

#: An element of class ``math`` (Sphinx's inline ``span`` and display ``div``) and its content.
_MATH = re.compile(
    r'<(?P<tag>span|div) class="(?P<cls>(?:[^"]*\s)?math(?:\s[^"]*)?)"(?P<attrs>[^>]*)>(?P<body>.*?)</(?P=tag)>', re.S
)
_EQNO = re.compile(r'^\s*(<span class="eqno">.*?</a></span>)', re.S)
_DELIMITERS = {r"\(": (r"\)", False), r"\[": (r"\]", True), "$$": ("$$", True)}


def _formula(body: str) -> tuple[str, str, bool] | None:
    """``(equation-number markup, TeX, display)`` of a math element's content; ``None`` if it holds no TeX."""
    eqno = _EQNO.match(body)
    prefix = eqno.group(1) if eqno else ""
    text = html.unescape(body[eqno.end():] if eqno else body).strip()
    for opening, (closing, display) in _DELIMITERS.items():
        if text.startswith(opening) and text.endswith(closing) and len(text) >= len(opening) + len(closing):
            return prefix, text[len(opening):len(text) - len(closing)], display
    return None


def _pages(outdir: Path) -> list[Path]:
    return sorted(p for p in outdir.rglob("*.html") if "_static" not in p.relative_to(outdir).parts)


def typeset(formulas: list[tuple[str, bool]]) -> dict:
    """MathJax's CommonHTML for ``[(tex, display), ...]``: ``{"html": [...], "errors": [[index, message]], "css"}``."""
    node = shutil.which("node")
    if node is None:
        raise ExtensionError("node not found: the book's formulas are typeset by Node.js at build time "
                             "(Debian: `apt-get install -y nodejs npm`; README, Prerequisites)")
    if not (NODE_MODULES / "mathjax-full").is_dir():
        raise ExtensionError(f"{NODE_MODULES / 'mathjax-full'} is missing: run `npm ci` in {ROOT} (make does)")
    request = {"formulas": formulas, "fontURL": FONT_URL, "scale": SCALE}
    done = subprocess.run([node, str(SCRIPT)], input=json.dumps(request), capture_output=True, text=True,
                          cwd=ROOT, check=False)
    if done.returncode != 0:
        raise ExtensionError(f"MathJax (node {SCRIPT.name}) failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def prerender(outdir: Path) -> int:
    """Typeset every formula of every page under ``outdir`` in place; the number of formulas typeset."""
    pages = {page: page.read_text(encoding="utf-8") for page in _pages(outdir)}
    found = []  # (page, match, eqno markup, tex, display)
    for page, text in pages.items():
        for match in _MATH.finditer(text):
            formula = _formula(match.group("body"))
            if formula is not None:
                found.append((page, match, *formula))
    result = typeset([(tex, display) for *_, tex, display in found])
    for index, message in result["errors"]:
        page, _, _, tex, _ = found[index]
        logger.warning(f"MathJax cannot typeset a formula of {page.relative_to(outdir)}: {message}: {tex[:80]!r}")
    by_page: dict[Path, list[tuple[re.Match, str, str, str]]] = {}
    for (page, match, eqno, tex, _), rendered in zip(found, result["html"]):
        by_page.setdefault(page, []).append((match, eqno, tex, rendered))
    for page, items in by_page.items():
        text, parts, last = pages[page], [], 0
        for match, eqno, tex, rendered in items:
            tag = match["tag"]
            source = f' data-tex="{html.escape(tex)}"' if tag == "div" else ""  # for the PDF's overflow report
            parts += [text[last:match.start()],
                      f'<{tag} class="{match["cls"]}"{match["attrs"]}{source}>{eqno}{rendered}</{tag}>']
            last = match.end()
        page.write_text("".join([*parts, text[last:]]), encoding="utf-8")
    static = outdir / "_static"
    static.mkdir(exist_ok=True)
    (static / CSS).write_text(result["css"], encoding="utf-8")
    return len(found)


def _drop_mathjax(app, pagename, templatename, context, doctree):
    """No MathJax loader and no MathJax configuration on the page: its formulas are already typeset."""
    scripts = context.get("script_files")
    if scripts is not None:
        context["script_files"] = [
            js for js in scripts
            if "mathjax/" not in str(js) and not getattr(js, "attributes", {}).get("body", "").startswith("window.MathJax")
        ]


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    count = prerender(Path(app.outdir))
    logger.info(f"prerender_math: {count} formulas typeset by MathJax at build time")


def setup(app):
    app.add_css_file(CSS)
    # after Sphinx's MathJax set-up (which adds the loader) and after the search texts are read
    app.connect("html-page-context", _drop_mathjax, priority=900)
    app.connect("build-finished", _build_finished, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
