"""What a typesetter checks on every printed page, read from the PDF alone (pdfplumber for the glyphs,
drawn boxes and tags; pypdf for the links and bookmarks): frames split across a page break, words and
numbers broken inside table cells, the contents' page numbers, headings at the foot of a page, pages
left half empty, the running head and the page number; and, from the printer's overflow report beside
the PDF, formulas set much smaller to fit."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import logging

import pdfplumber
from pypdf import PdfReader

MM = 72 / 25.4
#: A frame (a code or output box) is at least this wide, in points; thinner boxes are rules and marks.
FRAME_MIN_WIDTH = 150.0
#: How close, in points, a box or line must come to the edge of the text area to touch it.
EDGE = 3.0
#: The margin above a block (1 em of body text, 10.5 pt): the block needed it on the page it left,
#: and the page break truncates it on the next.
BLOCK_MARGIN = 10.5
logging.getLogger("pdfminer").setLevel(logging.ERROR)  # fonts without a bounding box: harmless for reading positions


@dataclass
class Page:
    """One printed page: its lines of text, frames, images and tables, in points from the top left."""
    number: int
    height: float
    top: float  # the text area, between the top and bottom margins
    bottom: float
    lines: list = field(default_factory=list)  # (top, bottom, text, kinds): kinds of the tags holding it
    head: str = ""  # the text in the top margin (the running head)
    foot: str = ""  # the text in the bottom margin (the page number)
    foot_size: float = 0.0  # the smallest glyph in the bottom margin, in points
    frames: list = field(default_factory=list)  # (x0, top, x1, bottom) of drawn boxes
    images: list = field(default_factory=list)  # (top, bottom) of images
    blocks: list = field(default_factory=list)  # (top, bottom) of images, frames and tables
    cells: list = field(default_factory=list)  # lines of each table cell: [[text, ...], ...]


def _lines(chars) -> list[tuple[float, float, str, set]]:
    """Chars grouped into lines (top to bottom), with the spaces between words restored."""
    lines: list[list] = []
    for c in sorted(chars, key=lambda c: (round(c["top"]), c["x0"])):
        if lines and abs(c["top"] - lines[-1][0]["top"]) < 0.4 * max(c["size"], 1):
            lines[-1].append(c)
        else:
            lines.append([c])
    out = []
    for line in lines:
        line.sort(key=lambda c: c["x0"])
        text, last = "", None
        for c in line:
            if last is not None and c["x0"] - last["x1"] > 0.2 * c["size"] and not text.endswith(" "):
                text += " "
            text += c["text"]
            last = c
        out.append((min(c["top"] for c in line), max(c["bottom"] for c in line), " ".join(text.split()),
                    {c.get("kind") for c in line}))
    return [line for line in out if line[2]]


def _tag_kinds(tree) -> dict[int, str]:
    """Marked-content id -> ("H",) in a heading, ("TD", cell, table) in a table cell (ids of the tags)."""
    kinds: dict[int, tuple] = {}

    def walk(element, kind, table):
        own = element.get("type", "")
        if re.fullmatch(r"H[1-6]?", own):
            kind = ("H",)
        elif own == "Table":
            table = id(element)
        elif own in ("TD", "TH"):
            kind = ("TD", id(element), table)
        for mcid in element.get("mcids", []) or []:
            kinds[mcid] = kind
        for child in element.get("children", []):
            walk(child, kind, table)

    for element in tree:
        walk(element, None, None)
    return kinds


def read_pages(path, margin_mm: dict[str, float]) -> list[Page]:
    """Every page of the PDF at ``path`` (printed with the margins ``margin_mm``, in mm)."""
    pages = []
    with pdfplumber.open(path) as pdf:
        for p in pdf.pages:
            page = Page(p.page_number, float(p.height), margin_mm["top"] * MM,
                        float(p.height) - margin_mm["bottom"] * MM)
            left, right = margin_mm["left"] * MM, float(p.width) - margin_mm["right"] * MM
            kinds = _tag_kinds(p.structure_tree)
            body, cells, tables, cell_points = [], {}, {}, []
            for c in p.chars:
                if c["bottom"] <= page.top + EDGE:
                    page.head += c["text"]
                elif c["top"] >= page.bottom - EDGE:
                    page.foot += c["text"]
                    page.foot_size = min(page.foot_size or c["size"], c["size"])
                else:
                    kind = kinds.get(c.get("mcid")) or (None,)
                    c = dict(c, kind=kind[0])
                    body.append(c)
                    if kind[0] == "TD":
                        cells.setdefault(kind[1], []).append(c)
                        tables.setdefault(kind[2], []).append(c)
                        cell_points.append(((c["x0"] + c["x1"]) / 2, (c["top"] + c["bottom"]) / 2))
            page.head, page.foot = " ".join(page.head.split()), " ".join(page.foot.split())
            page.lines = _lines(body)
            page.cells = [[text for _, _, text, _ in _lines(chars)] for chars in cells.values()]
            for chars in tables.values():
                page.blocks.append((min(c["top"] for c in chars), max(c["bottom"] for c in chars)))
            for box in p.rects + p.curves:
                # drawn boxes as wide as a frame, on this page (Chromium draws a box whole and clips
                # it to the page), inside the column (a box's shadow reaches past it), not white
                # (the page's own background)
                top, bottom = max(box["top"], page.top), min(box["bottom"], page.bottom)
                colour = box.get("non_stroking_color") if box.get("fill") else box.get("stroking_color")
                white = isinstance(colour, (tuple, list)) and len(colour) in (1, 3) and min(colour) > 0.99
                inside = box["x0"] >= left - 1 and box["x1"] <= right + 1
                if box["x1"] - box["x0"] >= FRAME_MIN_WIDTH and bottom - top > 2 and inside and not white:
                    page.blocks.append((top, bottom))
                    # a shaded table row or head is no frame: rows are never cut, and the head repeats
                    if not any(box["x0"] <= x <= box["x1"] and top <= y <= bottom for x, y in cell_points):
                        page.frames.append((box["x0"], top, box["x1"], bottom))
            page.images = [(max(i["top"], page.top), min(i["bottom"], page.bottom)) for i in p.images]
            page.blocks += page.images
            pages.append(page)
    return pages


def scaled_below(report: str, least: float = 0.7) -> list[str]:
    """The rows of the printer's overflow report (``print_pdf.report_text``) of a formula set smaller, or a
    table zoomed (its formulas with it), to less than ``least`` of its size."""
    return [line.strip() for line in report.splitlines()
            if (m := re.search(r"scaled x(\d+\.\d+)$", line)) and float(m.group(1)) < least]


def _lines_in(page: Page, frame) -> int:
    """Lines of text inside the frame; an image inside (a figure output) counts as two."""
    x0, top, x1, bottom = frame
    return (sum(1 for t, b, _, _ in page.lines if t >= top - 1 and b <= bottom + 1)
            + 2 * sum(1 for t, b in page.images if t >= top - 1 and b <= bottom + 1 and b - t > 2))


def split_frames(pages: list[Page], least: int = 2) -> list[tuple[int, str, int]]:
    """Frames cut by a page break with fewer than ``least`` lines of text on either side.

    (page, 'end' or 'start', lines): a frame that reaches the foot of the text area goes on over the
    page; its part at the top of the next page is the frame there that reaches the head of the text
    area and overlaps it sideways.  An empty frame left at the foot of a page has 0 lines.
    """
    faults = []
    for page, following in zip(pages, pages[1:] + [None]):
        for frame in page.frames:
            if frame[3] < page.bottom - EDGE:
                continue
            n = _lines_in(page, frame)
            if n < least:
                faults.append((page.number, "end", n))
            if following is None:
                continue
            # the part at the top of the next page is the outermost frame there: a box's title bar is a frame
            # nested in it, and a new box that starts at the head after one that ended at the foot has one too
            starts = [_lines_in(following, other) for other in following.frames
                      if other[1] <= following.top + EDGE and other[0] < frame[2] and frame[0] < other[2]]
            if starts and max(starts) < least:
                faults.append((following.number, "start", max(starts)))
    return sorted(set(faults))


LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}


def _word(token: str) -> str:
    for ligature, plain in LIGATURES.items():
        token = token.replace(ligature, plain)
    return token.strip(".,;:()[]{}\"'\u201c\u201d\u2019").lower()


def broken_table_words(pages: list[Page]) -> list[tuple[int, str, str]]:
    """Line breaks inside a table cell that fall inside a number or a word: (page, end of line, start of next).

    Inside a number: a digit or point at the end of the line and a digit at the start of the next.
    Inside a word: a letter on both sides, the two pieces joined are a word of the text outside the
    tables (which is never broken inside a word) and the piece before the break is none.
    """
    vocabulary = Counter(_word(t) for page in pages for _, _, text, kinds in page.lines
                         if kinds <= {None, "H"} for t in text.split())
    faults = []
    for page in pages:
        for cell in page.cells:
            for line, following in zip(cell, cell[1:]):
                before, after = line.split()[-1], following.split()[0]
                number = re.search(r"\d\.?$", before) and re.match(r"\d", after)
                word = (re.search(r"[A-Za-z]$", before) and re.match(r"[A-Za-z]", after)
                        and vocabulary[_word(before + after)] and not vocabulary[_word(before)])
                if number or word:
                    faults.append((page.number, before, after))
    return faults


def contents_numbers(reader: PdfReader, pages: list[Page], contents_pages: range) -> tuple[int, list]:
    """The page number printed at the right of each link of the contents against the page it leads to.

    Returns (links read, faults): a fault is (page, printed text, page of the destination).
    """
    names = {name: reader.get_destination_page_number(dest) + 1 for name, dest in reader.named_destinations.items()}
    faults, read = [], 0
    for number in contents_pages:
        page, height = pages[number - 1], float(reader.pages[number - 1].mediabox.height)
        for annot in reader.pages[number - 1].get("/Annots", []) or []:
            annot = annot.get_object()
            dest = annot.get("/Dest")
            if annot.get("/Subtype") != "/Link" or dest is None:
                continue
            dest = dest.get_object()
            target = (reader.get_destination_page_number(reader._build_destination("", dest)) + 1
                      if isinstance(dest, list) else names.get(str(dest).lstrip("/"), names.get(str(dest))))
            x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
            top, bottom = height - max(y0, y1), height - min(y0, y1)
            printed = [text for t, b, text, _ in page.lines if t < bottom and b > top]
            # the number ends one of the entry's lines (the first, when the title wraps)
            numbers = [int(m) for line in printed for m in re.findall(r"\s(\d+)$", line)]
            read += 1
            if numbers != [target]:
                faults.append((number, " / ".join(printed), target))
    # an entry whose link Chromium draws as two rectangles (title, number) is one entry
    return read, sorted(set(faults), key=faults.index)


def headings_at_foot(pages: list[Page]) -> list[int]:
    """Pages whose last line is a heading with no image, frame or table below it, on a page that holds
    more than headings."""
    return [p.number for p in pages if p.lines and p.lines[-1][3] == {"H"}
            and all(b <= p.lines[-1][1] + EDGE for _, b in p.blocks)
            and any(kinds != {"H"} for _, _, _, kinds in p.lines)]


def _filled(page: Page) -> float:
    """The lowest point of the page's text, frames, images and tables."""
    return max([b for _, b, _, _ in page.lines] + [b for _, b in page.blocks] + [page.top])


def half_empty(pages: list[Page], openers: set[int], fraction: float = 0.5) -> list[tuple[int, float, bool]]:
    """Pages inside a chapter (the next page is none of ``openers``, the first pages of chapters and parts)
    with more than ``fraction`` of the text area empty at the foot: (page, empty fraction, whether the
    next page's first block, an image, frame or table starting in its first 80 points with the lines
    set close under it (a caption), and the margin above it, is taller than the room that was left)."""
    out = []
    for page, following in zip(pages, pages[1:]):
        room = page.bottom - _filled(page)
        empty = room / (page.bottom - page.top)
        if empty <= fraction or following.number in openers or not page.lines:
            continue
        firsts = [b for t, b in following.blocks if t < following.top + 80]
        end = max(firsts, default=following.top)
        for t, b, _, _ in following.lines:  # the caption and lines set close under it belong to the block
            if firsts and end - 1 < t < end + 14:
                end = max(end, b)
        out.append((page.number, round(empty, 2), bool(firsts) and end - following.top + BLOCK_MARGIN > room))
    return out


def ends_above(pages: list[Page], openers: set[int], height: float = 0.6) -> list[int]:
    """Pages inside a chapter whose content ends above ``height`` of the text area."""
    return [p for p, empty, _ in half_empty(pages, openers, 1 - height)]


def openers(reader: PdfReader, spans: list[tuple[str, int, int]]) -> set[int]:
    """The first page of every chapter (of ``spans``) and of everything outside them (parts, contents)."""
    inside = {page for _, first, last in spans for page in range(first + 1, last + 1)}
    return {page for _, page, _ in outline_pages(reader) if page not in inside} | {first for _, first, _ in spans}


def letters(text: str) -> str:
    return re.sub(r"\W|_", "", text).lower()


def furniture(pages: list[Page], chapters: list[tuple[str, int, int]], least_pt: float = 8.0) -> list[tuple]:
    """Faults of the page numbers and running heads: (page, what is wrong).

    Every page after the first carries its number in the bottom margin, set at ``least_pt`` or
    larger; every page of a chapter (title, first page, last page) after its first carries the
    chapter's title as its running head.
    """
    faults = []
    for page in pages[1:]:
        if page.foot != str(page.number):
            faults.append((page.number, f"page number {page.foot!r}"))
        elif page.foot_size < least_pt - 0.05:
            faults.append((page.number, f"page number at {page.foot_size:.1f} pt"))
    for title, first, last in chapters:
        for page in pages[first:last]:  # pages first + 1 .. last
            if letters(page.head) != letters(title):
                faults.append((page.number, f"running head {page.head!r}, chapter {title!r}"))
    return faults


def outline_pages(reader: PdfReader) -> list[tuple[str, int, int]]:
    """Every bookmark, in order: (title, page from 1, depth from 0)."""
    out = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                out.append((str(item.title), reader.get_destination_page_number(item) + 1, depth))

    walk(reader.outline, 0)
    return out


def chapter_spans(reader: PdfReader, titles: list[str]) -> list[tuple[str, int, int]]:
    """(title, first page, last page) of each chapter whose bookmark's title is in ``titles``: from its
    bookmark to the page before the next bookmark of a chapter, a part or the contents (depth <= that of
    the chapters' bookmarks)."""
    marks = outline_pages(reader)
    found = [(t, page, depth) for t, page, depth in marks if t in titles]
    if not found:
        return []
    deepest = max(depth for _, _, depth in found)
    starts = sorted({page for _, page, depth in marks if depth <= deepest})
    last = len(reader.pages)
    return [(t, page, next((s - 1 for s in starts if s > page), last)) for t, page, _ in found]
