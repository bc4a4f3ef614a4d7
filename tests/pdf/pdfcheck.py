"""What the PDF checks read from a printed PDF, independently of the printer: where its glyphs are,
where its links go, its bookmarks and its tags (pypdf only, no browser)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pypdf import PdfReader
from pypdf.generic import ContentStream

MM = 72 / 25.4
#: The print origin of book/_ext/print_pdf.py: a link there leads nowhere once printed.
PRINT_HOST = "book.print.invalid"


def _mult(m, n):
    """Product of two PDF matrices (a, b, c, d, e, f): apply ``m`` first, then ``n``."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t, e * q + f * s + u)


class _Font:
    """Glyph widths (text space units per unit of font size) of a PDF font."""

    def __init__(self, font):
        font = font.get_object()
        self.two_byte = font.get("/Subtype") == "/Type0"
        self.widths: dict[int, float] = {}
        if self.two_byte:
            cid = font["/DescendantFonts"][0].get_object()
            self.default = float(cid.get("/DW", 1000)) / 1000
            w = list(cid.get("/W", []))
            i = 0
            while i < len(w):
                first = int(w[i])
                if isinstance(w[i + 1].get_object(), list):
                    for k, width in enumerate(w[i + 1].get_object()):
                        self.widths[first + k] = float(width) / 1000
                    i += 2
                else:
                    for code in range(first, int(w[i + 1]) + 1):
                        self.widths[code] = float(w[i + 2]) / 1000
                    i += 3
        else:
            scale = float(font["/FontMatrix"][0]) if "/FontMatrix" in font else 1 / 1000
            first = int(font.get("/FirstChar", 0))
            for k, width in enumerate(font.get("/Widths", [])):
                self.widths[first + k] = float(width) * scale
            self.default = 0.0

    def codes(self, data: bytes) -> list[int]:
        if self.two_byte:
            return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data) - 1, 2)]
        return list(data)


def glyph_runs(reader: PdfReader):
    """Every run of glyphs drawn: (page number from 1, left x, right x, scale).

    x in points of the page; ``scale`` is the horizontal scale from the font's text space (font size
    1) to the page: points per CSS pixel for Chromium, which sets its fonts in CSS pixels.
    """
    for number, page in enumerate(reader.pages, start=1):
        yield from ((number, *run) for run in _runs(page.get_contents(), page["/Resources"], reader,
                                                          (1, 0, 0, 1, 0, 0)))


def _runs(contents, resources, reader, ctm):
    if contents is None:
        return
    resources = resources.get_object() if resources is not None else {}
    fonts = {name: f for name, f in resources.get("/Font", {}).items()} if "/Font" in resources else {}
    xobjects = resources.get("/XObject", {}) if "/XObject" in resources else {}
    stack, cache = [], {}
    font, size, tc, tw, th = None, 0.0, 0.0, 0.0, 1.0
    tm = tlm = (1, 0, 0, 1, 0, 0)
    leading = 0.0
    for operands, op in ContentStream(contents, reader).operations:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop()
        elif op == b"cm":
            ctm = _mult(tuple(float(x) for x in operands), ctm)
        elif op == b"BT":
            tm = tlm = (1, 0, 0, 1, 0, 0)
        elif op == b"Tf":
            name = operands[0]
            font = cache.setdefault(name, _Font(fonts[name]))
            size = float(operands[1])
        elif op == b"Tc":
            tc = float(operands[0])
        elif op == b"Tw":
            tw = float(operands[0])
        elif op == b"Tz":
            th = float(operands[0]) / 100
        elif op == b"TL":
            leading = float(operands[0])
        elif op == b"Tm":
            tm = tlm = tuple(float(x) for x in operands)
        elif op in (b"Td", b"TD"):
            if op == b"TD":
                leading = -float(operands[1])
            tm = tlm = _mult((1, 0, 0, 1, float(operands[0]), float(operands[1])), tlm)
        elif op == b"T*":
            tm = tlm = _mult((1, 0, 0, 1, 0, -leading), tlm)
        elif op in (b"Tj", b"TJ", b"'", b'"'):
            if op in (b"'", b'"'):
                tm = tlm = _mult((1, 0, 0, 1, 0, -leading), tlm)
            items = operands[0] if op == b"TJ" else [operands[-1]]
            advance = 0.0
            for item in items:
                if isinstance(item, (bytes, str)) or hasattr(item, "original_bytes"):
                    data = item.original_bytes if hasattr(item, "original_bytes") else (
                        item if isinstance(item, bytes) else item.encode("latin-1"))
                    for code in font.codes(data):
                        width = font.widths.get(code, font.default)
                        advance += (width * size + tc + (tw if code == 32 and not font.two_byte else 0)) * th
                else:
                    advance -= float(item) / 1000 * size * th
            full = _mult(tm, ctm)
            xs = [full[0] * x + full[4] for x in (0.0, advance)]
            yield min(xs), max(xs), abs(full[0])
            tm = _mult((1, 0, 0, 1, advance, 0), tm)
        elif op == b"Do":
            xobject = xobjects[operands[0]].get_object()
            if xobject.get("/Subtype") == "/Form":
                matrix = tuple(float(x) for x in xobject.get("/Matrix", (1, 0, 0, 1, 0, 0)))
                yield from _runs(xobject, xobject.get("/Resources", resources), reader, _mult(matrix, ctm))


def page_scales(runs) -> dict[int, float]:
    """The scale of each page: the scale of most of its runs of glyphs (see :func:`glyph_runs`)."""
    weight: dict[int, dict[float, int]] = {}
    for number, _, _, scale in runs:
        bucket = weight.setdefault(number, {})
        bucket[round(scale, 4)] = bucket.get(round(scale, 4), 0) + 1
    return {number: max(bucket, key=bucket.get) for number, bucket in weight.items()}


def glyphs_outside_column(reader: PdfReader, runs, left_mm: float, right_mm: float, tolerance_pt: float = 1.0):
    """Runs of glyphs that reach into the left or right page margin: (page, left x, right x, limits).

    ``runs`` is ``list(glyph_runs(reader))``.  A run drawn at more than 1.5 times its page's scale is
    left out: MathJax builds a long bar or brace from one glyph stretched by a CSS transform (up to
    hundreds of times) and clipped to its box.
    """
    scales = page_scales(runs)
    out = []
    for number, x0, x1, scale in runs:
        width = float(reader.pages[number - 1].mediabox.width)
        lo, hi = left_mm * MM, width - right_mm * MM
        if x1 > x0 and scale <= 1.5 * scales[number] and (x0 < lo - tolerance_pt or x1 > hi + tolerance_pt):
            out.append((number, round(x0, 1), round(x1, 1), (round(lo, 1), round(hi, 1))))
    return out


def shrunk_pages(runs, points_per_px: float = 72 / 96, rel_tol: float = 0.005):
    """Pages whose text is not set at ``points_per_px``: (page, scale).

    Chromium shrinks a whole page to fit a box wider than the page's column, so a page set smaller
    than 0.75 pt per CSS pixel holds something too wide even if no glyph reaches into the margin.
    ``runs`` is ``list(glyph_runs(reader))``.
    """
    return [(number, scale) for number, scale in sorted(page_scales(runs).items())
            if abs(scale - points_per_px) > rel_tol * points_per_px]


def _named_destinations(reader: PdfReader) -> set[str]:
    return set(reader.named_destinations)


def bad_links(reader: PdfReader) -> list[tuple[int, str]]:
    """Link annotations that are neither a destination inside the PDF nor an http(s) URL elsewhere."""
    names = _named_destinations(reader)
    bad = []
    for number, page in enumerate(reader.pages, start=1):
        for annot in page.get("/Annots", []) or []:
            annot = annot.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A", {})
            action = action.get_object() if action else {}
            dest = annot.get("/Dest", action.get("/D") if action.get("/S") == "/GoTo" else None)
            if dest is not None:
                dest = dest.get_object()
                if isinstance(dest, list) or str(dest).lstrip("/") in names or str(dest) in names:
                    continue
                bad.append((number, f"destination {dest} not in the PDF"))
            elif action.get("/S") == "/URI":
                uri = str(action.get("/URI"))
                parts = urlsplit(uri)
                if parts.scheme not in ("http", "https") or parts.hostname in (None, PRINT_HOST):
                    bad.append((number, uri))
            else:
                bad.append((number, f"link with action {action.get('/S')}"))
    return bad


def link_counts(reader: PdfReader) -> dict[str, int]:
    """Number of link annotations by kind: internal destinations and http(s) URLs."""
    counts = {"internal": 0, "uri": 0}
    for page in reader.pages:
        for annot in page.get("/Annots", []) or []:
            annot = annot.get_object()
            if annot.get("/Subtype") == "/Link":
                action = annot.get("/A", {})
                counts["uri" if action and action.get_object().get("/S") == "/URI" else "internal"] += 1
    return counts


def outline_tree(reader: PdfReader) -> list[tuple[str, list]]:
    """The bookmarks as a tree: [(title, children), ...]."""
    def build(items):
        tree = []
        for item in items:
            if isinstance(item, list):
                tree[-1][1].extend(build(item))
            else:
                tree.append((str(item.title), []))
        return tree
    return build(reader.outline)


def tagged(reader: PdfReader) -> bool:
    """A tagged PDF: /MarkInfo /Marked true and a structure tree with content."""
    root = reader.trailer["/Root"]
    mark = root.get("/MarkInfo")
    tree = root.get("/StructTreeRoot")
    return bool(mark and mark.get_object().get("/Marked")) and tree is not None and "/K" in tree.get_object()


def letters(text: str) -> str:
    """Letters and digits only, lower case: how titles are compared (math and markup aside)."""
    return re.sub(r"\W|_", "", text).lower()


def _found(title: str, titles: list[str]) -> int | None:
    """Index of the first of ``titles`` that holds the letters of ``title`` (its math left out), in order."""
    pieces = [letters(p) for p in re.split(r"\$[^$]*\$", re.sub(r"\]\([^)]*\)", "", title))]
    pattern = re.compile(".*".join(re.escape(p) for p in pieces if p))
    return next((i for i, t in enumerate(titles) if pattern.search(letters(t))), None)


def missing_from_outline(tree: list[tuple[str, list]], chapters: list[tuple[str, list[str]]]) -> list[str]:
    """Chapters (title, section titles) that have no bookmark, or whose sections are not bookmarks below it."""
    def flatten(nodes):
        for title, children in nodes:
            yield title, children
            yield from flatten(children)

    nodes = list(flatten(tree))
    missing = []
    for title, sections in chapters:
        # The title may also be a bookmark elsewhere (a guide to the chapters): the best match counts.
        candidates = [children for t, children in nodes if _found(title, [t]) is not None]
        if not candidates:
            missing.append(f"chapter {title!r}")
            continue
        lacking = min(([s for s in sections if _found(s, [t for t, _ in flatten(children)]) is None]
                       for children in candidates), key=len)
        missing += [f"section {s!r} of {title!r}" for s in lacking]
    return missing
