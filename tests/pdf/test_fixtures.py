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
<p>See <a href="#second">the second section</a> and <a href="https://www.python.org/">Python</a>.{{links}}</p>
<div class="math">\\[ {LONG_TEX} \\]</div>
<pre>{LONG_CODE}</pre>
<p>Expanding, <span class="math">\\( {LONG_TEX[:140]} \\)</span>, and \\(x + y\\) stays.</p></section>
<section id="second"><h2>Second section</h2><p>The end.</p></section></section>
</body></html>"""
CHAPTERS = [("Chapter one", ["First section with $k$ classes", "Second section"])]


def fixture(tmp_path: Path, *, links: str = "", css: str = "") -> tuple[Path, Path]:
    (tmp_path / "mathjax").symlink_to(MATHJAX)
    shutil.copyfile(ROOT / "book" / "_static" / "print.css", tmp_path / "print.css")
    page = tmp_path / "page.html"
    page.write_text(PAGE.replace("{links}", links).replace("{extra}", css))
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
