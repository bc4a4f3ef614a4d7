"""Where a chapter page's time goes on a phone-class CPU: the page against variants of itself, each without one part.

Run: ``.venv/bin/python benchmarks/bench_page_parts.py [--build _build] [--page book/ch03_multiclass_lp]
[--rounds 5]`` after a book build.  Each variant is written into a copy of the built site (so that its style
sheets, scripts and fonts load as the page's do) and timed as ``bench_typesetting.py`` times a page: at 390 px
with the CPU throttled 4x, until the page is loaded, its fonts are ready and two frames are drawn; the pages
are visited alternately, each keeping its best of ``--rounds``, against the intro page.  All variants, the
page itself included, are written by the same HTML serializer, so that they differ only in what is removed:

* no formulas: each formula replaced by the letter x;
* no assistive MathML: the formulas without the MathML that screen readers read;
* no attributes in formulas: every attribute of the formulas' CommonHTML elements dropped (classes, styles);
* glyphs as text: each glyph of the TeX fonts as a character inside its element instead of CSS content;
* no web fonts: MathJax's ``@font-face`` rules dropped (the glyphs fall back to the system's fonts);
* one theorem: the chapter's title and the first ``--blocks`` blocks of its ``--section``-th section, nothing
  else (by default ch01's second section: a theorem box and its proof, 12 formulas): what a first screen of
  formulas costs on its own.

Issue 28 used it to find what stands between a chapter page and 1.3 times the intro page's time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from bs4 import BeautifulSoup

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_typesetting import BASELINE, best_visits  # noqa: E402

MATHJAX_CSS = "mathjax-chtml.css"
_FONT_FACE = re.compile(r"@font-face\s*(/\*.*?\*/\s*)?\{[^}]*\}", re.S)
_GLYPH = re.compile(r"^mjx-c([0-9A-F]+)$")


def _soup(page: str) -> BeautifulSoup:
    return BeautifulSoup(page, "html.parser")


def no_formulas(page: str) -> str:
    soup = _soup(page)
    for formula in soup.find_all("mjx-container"):
        formula.replace_with("x")
    return str(soup)


def no_assistive_mathml(page: str) -> str:
    soup = _soup(page)
    for mathml in soup.find_all("mjx-assistive-mml"):
        mathml.decompose()
    return str(soup)


def no_attributes_in_formulas(page: str) -> str:
    soup = _soup(page)
    for formula in soup.find_all("mjx-container"):
        for element in formula.find_all(True):
            if element.name.startswith("mjx-"):
                element.attrs = {}
    return str(soup)


def glyphs_as_text(page: str) -> str:
    soup = _soup(page)
    for glyph in soup.find_all("mjx-c"):
        code = next((m[1] for c in glyph.get("class", []) if (m := _GLYPH.match(c))), None)
        if code is not None:
            glyph.string = chr(int(code, 16))
    style = soup.new_tag("style")
    style.string = "mjx-c::before { content: none !important; padding: 0 !important; }"
    soup.head.append(style)
    return str(soup)


def no_web_fonts(page: str, css_name: str) -> str:
    """The page with MathJax's style sheet replaced by ``css_name`` (written by :func:`variants`)."""
    return str(_soup(page)).replace(MATHJAX_CSS, css_name)


def one_theorem(page: str, section: int, blocks: int) -> str:
    """The page with only its title and the first ``blocks`` blocks of its ``section``-th section (from 1)."""
    soup = _soup(page)
    top = soup.select_one("article.bd-article section")
    if top is None:
        raise ValueError("the page has no <article class=\"bd-article\"> with a <section>")
    sections = top.find_all("section", recursive=False)
    if not 1 <= section <= len(sections):
        raise ValueError(f"section must be in 1..{len(sections)} for this page, got {section}")
    kept = sections[section - 1]
    for child in list(top.children):
        if child is not kept and getattr(child, "name", None) not in (None, "h1"):
            child.extract()
    for child in [c for c in kept.children if getattr(c, "name", None)][1 + blocks:]:
        child.extract()
    return str(soup)


def variants(html: Path, into: Path, page: str, section: int, blocks: int) -> tuple[Path, list[str]]:
    """A copy of the built site ``html`` under ``into`` with the variants of ``page`` written beside it (as
    ``<page>--<variant>.html``); the copy's root and the pages to time (intro page first)."""
    site = into / "html"
    shutil.copytree(html, site)
    source = (site / f"{page}.html").read_text(encoding="utf-8")
    css = site / "_static" / MATHJAX_CSS
    (css.parent / f"no-fonts-{MATHJAX_CSS}").write_text(_FONT_FACE.sub("", css.read_text(encoding="utf-8")),
                                                        encoding="utf-8")
    written = {
        "page": str(_soup(source)),
        "no formulas": no_formulas(source),
        "no assistive MathML": no_assistive_mathml(source),
        "no attributes in formulas": no_attributes_in_formulas(source),
        "glyphs as text": glyphs_as_text(source),
        "no web fonts": no_web_fonts(source, f"no-fonts-{MATHJAX_CSS}"),
    }
    names = [BASELINE]
    for label, text in written.items():
        name = f"{page}--{label.replace(' ', '-')}"
        (site / f"{name}.html").write_text(text, encoding="utf-8")
        names.append(name)
    theorem_page = "book/ch01_calibration_sharpness"
    theorem = f"{theorem_page}--one-theorem"
    (site / f"{theorem}.html").write_text(
        one_theorem((site / f"{theorem_page}.html").read_text(encoding="utf-8"), section, blocks), encoding="utf-8")
    return site, [*names, theorem]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(HERE.parent / "_build"), help="the build directory that holds html/")
    parser.add_argument("--page", default="book/ch03_multiclass_lp", help="the chapter page to take apart")
    parser.add_argument("--section", type=int, default=2, help="ch01's section of the one-theorem page (from 1)")
    parser.add_argument("--blocks", type=int, default=2, help="blocks of that section kept")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    html = Path(args.build) / "html"
    if not (html / f"{args.page}.html").is_file():
        raise SystemExit(f"{html / args.page}.html not found: build the book first (make book)")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        site, names = variants(html, Path(tmp), args.page, args.section, args.blocks)
        best = best_visits({name: site / f"{name}.html" for name in names}, args.rounds)
    base, page = best[BASELINE]["s"], best[names[1]]["s"]
    print(f"4x CPU throttling, 390 px, best of {args.rounds}, load {max(load, os.getloadavg()[0]):.1f}\n")
    print("| variant | formulas | time (s) | / intro page | / the page |\n|---|---:|---:|---:|---:|")
    for name in names:
        row = best[name]
        print(f"| {name.split('/')[-1]} | {row['formulas']} | {row['s']:.2f} | {row['s'] / base:.2f} | "
              f"{row['s'] / page:.2f} |")


if __name__ == "__main__":
    main()
