"""The PDFs of the whole book and of the student edition (``make pdf-check``, after ``make pdf`` and
``make pdf-student``): every check runs on each; the student PDF must also hold no solution.

Each check of the layout, the links, the outline and the tags is proven on a broken fixture in
``test_fixtures.py``.
"""

import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

ROOT = Path(__file__).resolve().parents[2]
PDFS = {"full": ROOT / "_build" / "pdf" / "book.pdf", "student": ROOT / "_build" / "pdf" / "student.pdf"}
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import pagecheck  # noqa: E402
import pdfcheck  # noqa: E402
from print_pdf import MARGIN_MM  # noqa: E402
from solution_leaks import chapter_notebooks, collect_solutions, pdf_leaks  # noqa: E402
from student_source import strip_solutions  # noqa: E402
from print_typeset import UNPRINTED_NOTE, unprinted_pages  # noqa: E402
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}


def normalise(text: str) -> str:
    for lig, plain in LIGATURES.items():
        text = text.replace(lig, plain)
    return " ".join(text.split())


def chapters(edition="full"):
    """(title, number of figures) of every chapter notebook of the edition, the title without its math."""
    for path in sorted((ROOT / "book").glob("ch*.ipynb")):
        notebook = json.loads(path.read_text())
        cells = (strip_solutions(notebook)[0] if edition == "student" else notebook)["cells"]
        heading = next(line for c in cells if c["cell_type"] == "markdown"
                       for line in "".join(c["source"]).splitlines() if line.startswith("# "))
        figures = sum("image/png" in o.get("data", {}) for c in cells if c["cell_type"] == "code" for o in c["outputs"])
        yield heading[2:].split("$")[0].strip(), figures


def source_headings(path: Path) -> tuple[str, list[str]]:
    """(title, section titles) of a page of the book: its ``#`` heading and its ``##`` headings."""
    if path.suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                         if c["cell_type"] == "markdown")
    else:
        text = path.read_text()
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)  # no headings inside code fences
    title = re.search(r"^# (.+)$", text, re.M).group(1)
    return title, re.findall(r"^## (.+)$", text, re.M)


def toc_pages() -> list[Path]:
    """The source of every page in ``_toc.yml``: the root, the chapters and their sections."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def add(entries):
        for entry in entries:
            files.append(entry["file"])
            add(entry.get("sections", []))

    for part in toc["parts"]:
        add(part["chapters"])
    unprinted = set(unprinted_pages(ROOT / "_toc.yml"))
    return [next(ROOT.glob(f + ".*")) for f in files if f not in unprinted]


def spans_of_chapters(reader) -> list[tuple[str, int, int]]:
    """(bookmark title, first page, last page) of every chapter of ``_toc.yml``'s parts: its bookmark is
    the shallowest whose title holds the chapter's title (the intro's guide to the chapters repeats them)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    marks = pagecheck.outline_pages(reader)
    titles = []
    for part in toc["parts"]:
        for chapter in part["chapters"]:
            title, _ = source_headings(next(ROOT.glob(chapter["file"] + ".*")))
            found = [(depth, -i) for i, (t, _, depth) in enumerate(marks) if pdfcheck._found(title, [t]) is not None]
            assert found, f"no bookmark for the chapter {title!r}"
            titles.append(marks[-min(found)[1]][0])
    return pagecheck.chapter_spans(reader, titles)


@pytest.fixture(scope="module")
def pages(edition):
    """Every page as pagecheck reads it (glyphs, drawn boxes, tags): several minutes for the book."""
    path = PDFS[edition]
    if not path.is_file():
        pytest.fail(f"{path} does not exist: run `make pdf` and `make pdf-student` first")
    return pagecheck.read_pages(path, MARGIN_MM)


@pytest.fixture(scope="module", params=sorted(PDFS))
def edition(request):
    return request.param


@pytest.fixture(scope="module")
def pdf(edition):
    path = PDFS[edition]
    if not path.is_file():
        pytest.fail(f"{path} does not exist: run `make pdf` and `make pdf-student` first")
    reader = PdfReader(path)
    return reader, normalise(" ".join(page.extract_text() for page in reader.pages))


def test_every_chapter_title_is_in_the_pdf(pdf):
    _, text = pdf
    missing = [title for title, _ in chapters() if normalise(title) not in text]
    assert not missing, f"chapter titles missing from the PDF: {missing}"


def test_every_figure_is_embedded_and_the_book_has_its_length(pdf, edition):
    reader, _ = pdf
    embedded = sum(len(page.images) for page in reader.pages)
    expected = sum(n for _, n in chapters(edition))
    assert embedded >= expected, f"{embedded} images embedded, the chapters have {expected} figures"
    assert len(reader.pages) >= 10 * len(list(chapters()))


def test_no_raw_tex_delimiters_in_the_text(pdf):
    """Untypeset math keeps its delimiters; LaTeX inside code listings (raw strings) has none, and
    prose that names the delimiters writes them around an ellipsis (``$$...$$``)."""
    _, text = pdf
    raw = re.findall(r".{0,30}(?:\\\(|\\\)|\\\[|\\\]|(?<!\.\.\.)\$\$(?!\.\.\.)).{0,30}", text)
    assert not raw, f"raw TeX in the PDF text: {raw[:5]}"


def test_nothing_is_wider_than_the_text_column(pdf):
    """No glyph in a side margin, and no page shrunk by Chromium to fit a box wider than the column."""
    reader, _ = pdf
    runs = list(pdfcheck.glyph_runs(reader))
    outside = pdfcheck.glyphs_outside_column(reader, runs, MARGIN_MM["left"], MARGIN_MM["right"])
    assert not outside, f"{len(outside)} runs of glyphs reach into a margin: (page, x0, x1, column) {outside[:10]}"
    shrunk = pdfcheck.shrunk_pages(runs)
    assert not shrunk, f"{len(shrunk)} pages set smaller to fit something too wide: (page, pt/px) {shrunk[:10]}"


def test_every_link_resolves_inside_the_pdf_or_is_http(pdf):
    reader, _ = pdf
    bad = pdfcheck.bad_links(reader)
    assert not bad, f"{len(bad)} dead links: {bad[:10]}"
    counts = pdfcheck.link_counts(reader)
    assert counts["internal"] > 1000, counts  # cross-references, citations, the contents


def test_the_outline_has_every_chapter_and_its_sections(pdf):
    reader, _ = pdf
    tree = pdfcheck.outline_tree(reader)
    chapters = [source_headings(path) for path in toc_pages()]
    assert len(chapters) > 12  # the printed pages: the root, 15 chapters (the API pages are not printed)
    missing = pdfcheck.missing_from_outline(tree, chapters)
    assert not missing, f"missing from the PDF's bookmarks: {missing}"
    parts = [p["caption"] for p in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]]
    assert [t for t, _ in tree if t in parts] == parts, f"top-level bookmarks: {[t for t, _ in tree]}"


def test_the_pdf_is_tagged(pdf):
    reader, _ = pdf
    assert pdfcheck.tagged(reader)


def test_the_title_page_gives_title_edition_licence_and_where_the_code_is(pdf, edition):
    reader, _ = pdf
    first = normalise(reader.pages[0].extract_text())
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert normalise(config["title"]) in first and normalise(config["author"]) in first
    assert re.search(r"Edition of \d{1,2} [A-Z][a-z]+ \d{4}", first), first
    assert "companion" in first and "Run the code" in first, first
    assert "CC BY 4.0" in first and "BSD 3-Clause" in first, first
    assert ("Student edition" in first) == (edition == "student"), first


def test_the_student_pdf_holds_no_solution():
    path = PDFS["student"]
    if not path.is_file():
        pytest.fail(f"{path} does not exist: run `make pdf-student` first")
    hits = pdf_leaks(path, collect_solutions(chapter_notebooks()))
    assert not hits, f"{len(hits)} solution fragments in the student PDF:\n" + "\n".join(hits[:50])


# What a typesetter checks, each proven on the fixture book of test_fixtures.py.  The counts of main
# 5d65c01 (569 pages) before the print was set for paper are in the docstrings.


def test_no_frame_is_split_leaving_fewer_than_two_lines(pdf, pages):
    """A code or output box split over a page break keeps two lines on each side (before: 63 pages
    ended in a frame with fewer than two lines, 62 of them empty; then 18 in each edition, code boxes
    split under their top edge or before their last line, proof boxes after their title; then one, the
    last item of a lemma alone at the top of a page)."""
    faults = pagecheck.split_frames(pages)
    assert not faults, f"{len(faults)} frames cut with fewer than two lines on a side: (page, side, lines) {faults[:20]}"


def test_no_table_cell_breaks_inside_a_number_or_word(pdf, pages):
    """(before: 190 breaks on 23 pages, such as "0.0000 / 10", "(quadratur / e)")"""
    faults = pagecheck.broken_table_words(pages)
    assert not faults, f"{len(faults)} table cells broken inside a word or number: {faults[:20]}"


def test_the_contents_give_the_page_of_each_entry(pdf, pages):
    """Every entry of the contents ends with the page its link leads to (before: no number at all)."""
    reader, _ = pdf
    marks = pagecheck.outline_pages(reader)
    first = next(page for title, page, _ in marks if title == "Contents")
    last = min(page for _, page, _ in marks if page > first) - 1
    read, faults = pagecheck.contents_numbers(reader, pages, range(first, last + 1))
    assert read >= len(spans_of_chapters(reader)), read
    assert not faults, f"contents entries without their page number: (page, line, target) {faults}"


def test_no_heading_ends_a_page(pdf, pages):
    """(before: pages 361, 373, 381 and 400)"""
    faults = pagecheck.headings_at_foot(pages)
    assert not faults, f"pages that end with a heading: {faults}"


def test_a_page_inside_a_chapter_is_half_empty_only_before_a_block_taller_than_the_room(pdf, pages):
    """At most five such pages, each before a block that did not fit (before: 22, and 34 pages inside
    chapters ending above 60 % of their height)."""
    reader, _ = pdf
    found = pagecheck.half_empty(pages, pagecheck.openers(reader, spans_of_chapters(reader)))
    assert len(found) <= 5, f"{len(found)} pages more than half empty inside chapters: {found}"
    assert all(taller for _, _, taller in found), f"half-empty pages before a block that would fit: {found}"


def test_no_formula_is_printed_below_0_7_of_its_size(edition):
    """No display formula set smaller, and no table zoomed, to less than 0.7 to fit the column, as the
    printer's overflow report beside the PDF lists them (before: (3/4)^{k-1} in a ch03 table at 0.32)."""
    report = PDFS[edition].parent / ("overflow_report.txt" if edition == "full" else f"overflow_report_{edition}.txt")
    if not report.is_file():
        pytest.fail(f"{report} does not exist: run `make pdf` and `make pdf-student` first")
    small = pagecheck.scaled_below(report.read_text())
    assert not small, f"{len(small)} boxes printed below 0.7 of their size: {small}"


def test_the_api_reference_is_not_printed_and_the_pdf_says_where_it_is(pdf):
    reader, text = pdf
    appendix = [last - first + 1 for title, first, last in spans_of_chapters(reader) if "API reference" in title]
    assert appendix and appendix[0] <= 40, appendix
    assert normalise(UNPRINTED_NOTE) in text


def test_page_numbers_of_8_pt_and_the_chapter_as_running_head(pdf, pages):
    """(before: page numbers at 6 pt, no running head)"""
    reader, _ = pdf
    faults = pagecheck.furniture(pages, spans_of_chapters(reader))
    assert not faults, f"{len(faults)} faults of page numbers or running heads: {faults[:20]}"
