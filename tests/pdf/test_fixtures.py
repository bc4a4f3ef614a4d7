"""The PDF checks of ``test_pdf.py`` proven on small pages printed by the book's printer
(``book/_ext/print_pdf.py``): a good page passes every check, a broken one fails the check aimed at it."""

import shutil
import sys
import sysconfig
from pathlib import Path

import pytest
from pypdf import PdfReader

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import pagecheck  # noqa: E402
import pdfcheck  # noqa: E402
import print_pdf  # noqa: E402

MATHJAX = Path(sysconfig.get_paths()["purelib"]) / "sphinx-mathjax-offline" / "static" / "mathjax"
LONG_TEX = "+".join("abcdefghijklmnopqrstuvwxyz" * 2)
LONG_CODE = "x = [" + ", ".join(str(10**9 + i) for i in range(14)) + "]"
PAGE = f"""<!doctype html><html><head><meta charset="utf-8"><title>fixture</title>
<link rel="stylesheet" href="print.css"><style>body {{ margin: 0 }} {{extra}}</style>
<script>MathJax = {{}};</script><script defer src="mathjax/tex-chtml.js"></script></head><body>
<section id="one"><h1>Chapter one</h1>
<section id="first"><h2>First section with \\(k\\) classes</h2>
<p>See <a href="#second">the second section</a> and <a href="https://www.python.org/">Python</a>.{{links}}</p>{{tables}}
<div class="math">\\[ {LONG_TEX} \\]</div>
<pre>{LONG_CODE}</pre>
<p>Expanding, <span class="math">\\( {LONG_TEX[:140]} \\)</span>, and \\(x + y\\) stays.</p></section>
<section id="second"><h2>Second section</h2><p>The end.</p></section></section>
</body></html>"""
CHAPTERS = [("Chapter one", ["First section with $k$ classes", "Second section"])]


def fixture(tmp_path: Path, *, links: str = "", css: str = "", tables: str = "") -> tuple[Path, Path]:
    (tmp_path / "mathjax").symlink_to(MATHJAX)
    shutil.copyfile(ROOT / "book" / "_static" / "print.css", tmp_path / "print.css")
    page = tmp_path / "page.html"
    page.write_text(PAGE.replace("{links}", links).replace("{extra}", css).replace("{tables}", tables))
    return page, tmp_path / "page.pdf"


def problems(pdf: Path) -> dict[str, list]:
    reader = PdfReader(pdf)
    runs = list(pdfcheck.glyph_runs(reader))
    return {"margin": pdfcheck.glyphs_outside_column(reader, runs, print_pdf.MARGIN_MM["left"],
                                                     print_pdf.MARGIN_MM["right"]),
            "shrunk": pdfcheck.shrunk_pages(runs),
            "links": pdfcheck.bad_links(reader),
            "outline": pdfcheck.missing_from_outline(pdfcheck.outline_tree(reader), CHAPTERS),
            "untagged": [] if pdfcheck.tagged(reader) else ["untagged"]}


@pytest.fixture(scope="module", autouse=True)
def chromium():
    from browser import chromium_path

    try:
        chromium_path()
    except FileNotFoundError as err:
        pytest.fail(str(err))


def test_a_good_page_passes_every_check(tmp_path):
    page, pdf = fixture(tmp_path)
    summary = print_pdf.print_document(tmp_path, page, pdf)
    assert [r["kind"] for r in summary["scaled"]] == ["display math", "inline math"], summary["scaled"]
    assert summary["still_wide"] == [] and summary["failed_requests"] == []
    assert problems(pdf) == {"margin": [], "shrunk": [], "links": [], "outline": [], "untagged": []}
    assert pdfcheck.link_counts(PdfReader(pdf)) == {"internal": 1, "uri": 1}


# A table a little wider than the column whose last heading is a formula (as Table 3.1 of the book).
WIDE_TABLE = ("<table><thead><tr>" + "".join(f"<th>column {i}</th>" for i in range(8))
              + "<th>\\((3/4)^{k-1}\\)</th></tr></thead><tbody><tr>"
              + "".join(f"<td>{10**9 + i}</td>" for i in range(9)) + "</tr></tbody></table>")


def test_a_formula_set_below_0_7_is_caught_and_a_wide_table_keeps_its_formula(tmp_path):
    """The fixture's long formulas (display and inline) fit only far smaller (caught); the formula in the
    last column of a table wider than the column is zoomed with its table, not set smaller on its own."""
    page, pdf = fixture(tmp_path, tables=WIDE_TABLE, css="@media print { td, th { padding: 0 0.6em } }")
    summary = print_pdf.print_document(tmp_path, page, pdf)
    small = pagecheck.scaled_below(print_pdf.report_text(summary["scaled"], summary["still_wide"]))
    assert [row.split(" |")[0] for row in small] == ["display math", "inline math"], small
    assert [r["kind"] for r in summary["scaled"]] == ["table", "display math", "inline math"], summary["scaled"]
    assert 0.7 <= summary["scaled"][0]["factor"] < 1, summary["scaled"]


def test_a_formula_and_a_code_line_wider_than_the_column_are_caught(tmp_path):
    """Not fitted and with code that does not wrap: Chromium shrinks the page or lets glyphs into the margin."""
    page, pdf = fixture(tmp_path, css="@media print { pre { white-space: pre !important; } }")
    summary = print_pdf.print_document(tmp_path, page, pdf, fit=False)
    assert {r["kind"] for r in summary["still_wide"]} == {"display math", "inline math", "pre"}
    found = problems(pdf)
    assert found["shrunk"] or found["margin"], found


def test_a_clipped_code_line_is_caught(tmp_path):
    """A code block that scrolls on screen and is clipped on paper still draws past the column."""
    page, pdf = fixture(tmp_path, css="@media print { pre { white-space: pre !important; overflow: hidden !important;"
                                      " max-width: 100%; } }")
    print_pdf.print_document(tmp_path, page, pdf)
    found = problems(pdf)
    assert found["margin"] or found["shrunk"], found


def test_links_to_files_are_caught(tmp_path):
    page, pdf = fixture(tmp_path, links=' <a href="other.html#x">another page</a> <a href="file:///etc/hosts">a file</a>')
    with pytest.raises(RuntimeError, match="2 links lead neither"):
        print_pdf.print_document(tmp_path, page, pdf)
    print_pdf.print_document(tmp_path, page, pdf, links=False)
    bad = problems(pdf)["links"]
    assert len(bad) == 2, bad


def test_a_missing_outline_is_caught(tmp_path):
    page, pdf = fixture(tmp_path)
    print_pdf.print_document(tmp_path, page, pdf, outline=False)
    assert problems(pdf)["outline"] == ["chapter 'Chapter one'"]


def test_an_untagged_pdf_is_caught(tmp_path):
    page, pdf = fixture(tmp_path)
    print_pdf.print_document(tmp_path, page, pdf, tagged=False)
    assert problems(pdf)["untagged"] == ["untagged"]


# A small book as the singlehtml builder writes it (contents, documents, an API page), with the
# theme's frames: each typesetting check is proven on it, good and with the fault planted.
CODE = "\n".join(f"value_{i} = compute({i})  # line {i}" for i in range(75))
CELLS = "".join(f"<td>Proposition {i}</td><td>0.000{775 + i}</td><td>floor division</td>" for i in range(6))
SQUARE = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='320' height='320'%3E"
          "%3Crect width='320' height='320' fill='%23999'/%3E%3C/svg%3E")
HEADS = "".join(f"<th>{name} {i}</th>" for i in range(6) for name in ("Result", "Value", "Operation"))
BOOK = f"""<!doctype html><html><head><meta charset="utf-8"><title>fixture book</title>
<link rel="stylesheet" href="print.css"><style>body {{ margin: 0; font-size: 14px }}
div.cell > div.cell_input {{ border: 1px solid #ccc; border-left: medium solid #4a4; border-radius: 4px;
  background: #f5f5f5; padding: 0 }}
div.highlight, div[class*=highlight-] {{ break-inside: avoid; display: flex; flex-direction: column }}
div.cell_input > div {{ margin: 0 !important }} .cell_input pre {{ margin: 0 }}
.bd-main .bd-content table {{ break-inside: avoid }}
div.admonition {{ background: #e5eefa; border-left: 2px solid #07f; padding: 0 0.8rem 0.6rem }}
.admonition-title {{ background: #d0e0f5; margin: 0 -0.8rem; padding: 0.4rem 0.8rem }} nav ul li a.nav-link {{ display: block }} {{extra}}</style></head><body>
<main class="bd-main"><div class="bd-content"><article class="bd-article">
<div id="jb-print-toc"><div><h2>Contents</h2></div><nav><ul>
<li class="toctree-l1"><a class="nav-link" href="#document-ch1">1. Chapter one</a></li>
<li class="toctree-l1"><a class="nav-link" href="#document-ch2">2. Chapter two</a></li>
<li class="toctree-l1"><a class="nav-link" href="#document-api">Reference</a><ul>
<li class="toctree-l2"><a href="#document-api/mod">The module</a></li></ul></li></ul></nav></div>
<span id="document-ch1"></span><section id="ch1"><h2>Chapter one</h2>
<p>Opening text, see <a href="#mod-func">the function</a>.</p><p>{{gap1}}</p>
<div class="cell"><div class="cell_input"><div class="highlight-ipython3"><div class="highlight"><pre>{CODE}</pre>
</div></div></div></div>
<p>After the code.</p><p>{{gap2}}</p>
<section id="sec"><h3>A section near the foot</h3><figure><img alt="a grey square" src="{SQUARE}"></figure>
<p>{"Text of the section on floor division and a Proposition. " * 30}</p></section>
<table><thead><tr>{HEADS}</tr></thead><tbody><tr>{CELLS}</tr><tr>{CELLS}</tr></tbody></table></section>
<span id="document-ch2"></span><section id="ch2"><h2 id="run-the-code">Chapter two</h2><p>{"Second chapter. " * 400}</p><p>{{gap3}}</p>
<div class="proof admonition"><p class="admonition-title">Definition 2.1 (A box)</p><section>
<p>{"Body of the box. " * 120}</p></section></div></section>
<span id="document-api"></span><section id="api"><span id="api-reference"></span><h2>Reference</h2>
<p>Every name.</p><div class="toctree-wrapper"><span id="document-api/mod"></span><section id="mod">
<h3>The module</h3><p id="mod-func">{"Reference text. " * 800}</p></section></div></section>
</article></div></div></main></body></html>"""
BOOK_DOCS = {"title": "Fixture book", "author": "A. Author", "edition": "1 January 2026",
             "parts": [("Chapters", "ch1"), ("Appendices", "api")], "chapters": ["ch1", "ch2", "api"],
             "unprinted": {"docs": ["api/mod"], "noteId": "api-reference", "note": "The module is online."}}
#: Lines of text that put the code cell across the first page break (gap1), the section heading at the
#: foot of a page (gap2), the title of chapter two's box at the foot of a page (gap3).
GAPS = {"gap1": 38, "gap2": 40, "gap3": 54}


def print_book(tmp_path: Path, *, css: str = "", unprinted: bool = True, **options):
    """Print the fixture book; returns (summary, PdfReader, pages read by pagecheck)."""
    shutil.copyfile(ROOT / "book" / "_static" / "print.css", tmp_path / "print.css")
    page = tmp_path / "book.html"
    text = BOOK.replace("{extra}", css)
    for key, value in GAPS.items():
        text = text.replace("{" + key + "}", "<br>".join(["A line of filler text."] * value))
    page.write_text(text)
    book = dict(BOOK_DOCS) if unprinted else {k: v for k, v in BOOK_DOCS.items() if k != "unprinted"}
    summary = print_pdf.print_document(tmp_path, page, tmp_path / "book.pdf", book=book, **options)
    return summary, PdfReader(tmp_path / "book.pdf"), pagecheck.read_pages(tmp_path / "book.pdf", print_pdf.MARGIN_MM)


def book_faults(reader, pages) -> dict[str, list]:
    spans = pagecheck.chapter_spans(reader, ["Chapter one", "Chapter two", "Reference"])
    openers = pagecheck.openers(reader, spans)
    contents = [page for title, page, _ in pagecheck.outline_pages(reader) if title == "Contents"]
    return {"frames": pagecheck.split_frames(pages), "words": pagecheck.broken_table_words(pages),
            "contents": pagecheck.contents_numbers(reader, pages, range(contents[0], contents[0] + 1))[1],
            "headings": pagecheck.headings_at_foot(pages),
            "half_empty": [p for p in pagecheck.half_empty(pages, openers) if not p[2]],
            "furniture": pagecheck.furniture(pages, spans)}


GOOD = {"frames": [], "words": [], "contents": [], "headings": [], "half_empty": [], "furniture": []}


def test_a_good_book_passes_every_typesetting_check(tmp_path):
    summary, reader, pages = print_book(tmp_path)
    assert book_faults(reader, pages) == GOOD
    assert summary["unprinted"] == {"removed": 1, "redirected": 1}
    text = " ".join(p.extract_text() for p in reader.pages)
    assert "The module is online." in text and "Reference text." not in text
    assert pagecheck.contents_numbers(reader, pages, range(2, 3))[0] == 3  # the API page's own entry is gone


@pytest.mark.parametrize("check, css", [
    # the frame's first line stays at the foot of a page, the code goes over (an empty frame, almost)
    ("frames", "pre.pdf-code::before { content: 'In [1]:'; display: block } .pdf-lines-first { break-before: page !important }"),
    # the box's title left alone at the foot of a page, its box going on over the page
    ("frames", ".admonition-title > .pdf-room { display: none !important }"
               " div.admonition > section > p:last-child { break-before: auto !important }"),
    # cells wrapped anywhere: "Propos / ition", "0.000 / 775"
    ("words", "table td { overflow-wrap: anywhere !important }"),
    # the heading left alone when the figure after it moves over
    ("headings", ".pdf-keep { break-inside: auto !important } h3 { padding-bottom: 0 !important;"
                 " margin-bottom: 0.5rem !important; break-after: auto !important; break-inside: auto !important }"),
    # a page break after the figure leaves its page mostly empty
    ("half_empty", "#sec > p { break-before: page }"),
    # page numbers at 6 pt, no running head in chapter one
    ("furniture", "@page { @bottom-center { font-size: 6pt !important } }"
                  " @page pdf-chapter-0 { @top-center { content: none !important } }"),
])
def test_each_typesetting_fault_is_caught(tmp_path, check, css):
    _, reader, pages = print_book(tmp_path, css="@media print { " + css + " }")
    found = book_faults(reader, pages)
    assert found[check], found
    assert all(not faults for name, faults in found.items() if name != check), found


@pytest.mark.parametrize("options", [{"contents_numbers": False},  # the placeholders stay
                                     {"css": ".pdf-contents li > a { display: inline !important }"}])  # "Chapter one4"
def test_contents_without_page_numbers_are_caught(tmp_path, options):
    _, reader, pages = print_book(tmp_path, **options)
    assert [page for page, text, _ in book_faults(reader, pages)["contents"]] == [2, 2, 2]


def test_a_printed_reference_is_caught(tmp_path):
    """Printed, the module's reference pages make the appendix longer than its one page."""
    _, reader, pages = print_book(tmp_path, unprinted=False)
    span = [last - first + 1 for title, first, last in pagecheck.chapter_spans(reader, ["Reference"])]
    assert span[0] > 1 and "Reference text." in " ".join(p.extract_text() for p in reader.pages)
    _, reader, pages = print_book(tmp_path)
    assert [last - first + 1 for title, first, last in pagecheck.chapter_spans(reader, ["Reference"])] == [1]
