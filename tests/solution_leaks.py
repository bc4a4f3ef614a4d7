"""Search a build of the student edition for any part of a solution.

The solutions are read from the full notebooks, independently of the code that writes the
student edition (``book/_ext/student_source.py``): the cells of a notebook are joined into one
text, and a solution is everything from a ``{solution-start}`` marker to the next
``{solution-end}`` (code cells included), or a whole ``{solution}`` directive.  From each
solution's prose and code come *fragments*: runs of at least five plain words within one source
line (cut at every character that Markdown, MyST or Sphinx's smart quotes may rewrite) and
stripped code lines of at least 20 characters; a fragment that occurs anywhere outside the
solutions (the rest of the notebooks, the other pages, the companion's sources, which the site
ships as a wheel) is not distinctive and is dropped.  Images drawn by solution cells are
fingerprinted by their bytes.

:func:`leaks` searches every file of a build directory (a zip archive member by member, an HTML
page also as its text without tags) for each fragment in its plain, JSON-escaped and
HTML-escaped forms, and for the solution images' bytes and base64 text; :func:`pdf_leaks` searches
a PDF's text.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import subprocess
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
CELL_BREAK = "\n\x00CELL\x00\n"
_SOLUTION = re.compile(
    r"^(?P<fence>[`:]{3,})\{solution-start\}.*?^(?P=fence)\{solution-end\}[^\n]*\n(?P=fence)[ \t]*$"
    r"|^(?P<plain>[`:]{3,})\{solution\}.*?^(?P=plain)[ \t]*$",
    re.S | re.M,
)
#: Characters at which a line of prose is cut into fragments: markup, and what smart quotes rewrite.
_CUT = re.compile(r"[$`{}*_\\\[\]<>|~^#'\"]|--|\.\.\.|\x00")
MIN_WORDS, MIN_PROSE, MIN_CODE = 5, 30, 20
_ANCHOR = re.compile(r"[A-Za-z]{4,}")


@dataclass
class Solutions:
    """The fragments of every solution (fragment -> solution) and the solution images (sha256 -> solution)."""

    count: int = 0
    fragments: dict[str, str] = field(default_factory=dict)
    images: dict[str, tuple[str, str]] = field(default_factory=dict)  # sha256 -> (solution, base64 excerpt)


def notebook_stream(path: Path) -> tuple[str, list[dict]]:
    """The cells of a notebook joined into one text (cells separated by :data:`CELL_BREAK`), and the cells."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    return CELL_BREAK.join("".join(c["source"]) for c in cells), cells


def split_solutions(path: Path) -> tuple[list[tuple[str, str]], str]:
    """(name, text) of every solution of a notebook, and the notebook's text without them."""
    stream, _ = notebook_stream(path)
    found = []
    for match in _SOLUTION.finditer(stream):
        head = match.group(0).split("\n", 1)[0]
        found.append((f"{path.name}: {head.strip()}", match.group(0)))
    return found, _SOLUTION.sub("", stream)


def _fragments(text: str) -> set[str]:
    out = set()
    for cell in text.split(CELL_BREAK):
        for line in cell.splitlines():
            stripped = line.strip()
            if len(stripped) >= MIN_CODE and not re.match(r"[`:]{3,}", stripped) and not stripped.startswith(":"):
                out.add(stripped)  # a code line, or a whole line of prose
            for piece in _CUT.split(line):
                piece = piece.strip(" ,;:.")
                if len(piece.split()) >= MIN_WORDS and len(piece) >= MIN_PROSE:
                    out.add(piece)
    return out


def solution_images(path: Path, solutions: list[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The PNG outputs of the code cells inside solutions: sha256 of the bytes -> (solution, base64 excerpt)."""
    stream, cells = notebook_stream(path)
    images, elsewhere, offset = {}, set(), 0
    spans = [(m.start(), m.end(), name) for m, (name, _) in zip(_SOLUTION.finditer(stream), solutions)]
    for cell in cells:
        inside = next((name for start, end, name in spans if start <= offset < end), None)
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                png = ("".join(png) if isinstance(png, list) else png).replace("\n", "")
                digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
                if inside:
                    images[digest] = (inside, png[200:260])
                else:
                    elsewhere.add(digest)
        offset += len("".join(cell["source"])) + len(CELL_BREAK)
    return {digest: found for digest, found in images.items() if digest not in elsewhere}


def outside_text(root: Path = ROOT) -> str:
    """Everything of the book's sources that is not a solution: notebooks without them, pages, the companion."""
    parts = []
    for path in sorted((root / "book").rglob("*")):
        if path.suffix == ".ipynb" and ".ipynb_checkpoints" not in path.parts:
            parts.append(split_solutions(path)[1])
        elif path.suffix in {".md", ".py", ".css", ".js", ".bib"}:
            parts.append(path.read_text(encoding="utf-8"))
    parts += [p.read_text(encoding="utf-8") for p in sorted((root / "companion").rglob("*.py"))]
    parts += [(root / name).read_text(encoding="utf-8") for name in ("_config.yml", "_toc.yml", "references.bib")]
    return "\n".join(parts)


def collect_solutions(notebooks: list[Path], root: Path = ROOT) -> Solutions:
    """The distinctive fragments and the images of every solution of ``notebooks``."""
    outside = outside_text(root)
    result = Solutions()
    for path in notebooks:
        solutions, _ = split_solutions(path)
        result.count += len(solutions)
        for name, text in solutions:
            body = text.split("\n", 1)[1] if "\n" in text else ""
            for fragment in _fragments(body):
                if fragment not in outside:
                    result.fragments.setdefault(fragment, name)
        result.images.update(solution_images(path, solutions))
    return result


def forms(fragment: str) -> set[str]:
    """The fragment as it may be written into a file: plain, JSON-escaped (both ways), HTML-escaped."""
    return {fragment, json.dumps(fragment)[1:-1], json.dumps(fragment, ensure_ascii=False)[1:-1],
            html.escape(fragment, quote=False), html.escape(fragment)}


def _texts(path: Path):
    """(name, text) of a file as searched: its bytes decoded, an HTML page also without tags, a zip archive per member."""
    data = path.read_bytes()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                yield f"{path}!{member}", archive.read(member).decode("utf-8", "replace"), archive.read(member)
        return
    text = data.decode("utf-8", "replace")
    yield str(path), text, data
    if path.suffix == ".html":
        yield f"{path} (text)", BeautifulSoup(text, "html.parser").get_text(), b""


def search_text(name: str, text: str, solutions: Solutions, anchors: dict[str, list[str]]) -> list[str]:
    """Hits of the fragments in one text: ``name: fragment (solution)``."""
    words = set(_ANCHOR.findall(text))
    hits = []
    for fragment, needed in anchors.items():
        if all(w in words for w in needed) and any(f in text for f in forms(fragment)):
            hits.append(f"{name}: {fragment!r} (from {solutions.fragments[fragment]})")
    for digest, (solution, excerpt) in solutions.images.items():
        if excerpt and excerpt in text:
            hits.append(f"{name}: base64 of an image of {solution}")
    return hits


def _anchors(solutions: Solutions) -> dict[str, list[str]]:
    """For each fragment, its two longest words of four or more letters (a file without them cannot hold it)."""
    return {f: sorted(_ANCHOR.findall(f), key=len)[-2:] for f in solutions.fragments}


def leaks(build: Path, solutions: Solutions) -> list[str]:
    """Every hit of a solution fragment or image in any file under ``build``, naming the file and the fragment."""
    anchors = _anchors(solutions)
    hits = []
    for path in sorted(p for p in Path(build).rglob("*") if p.is_file()):
        for name, text, data in _texts(path):
            if data and hashlib.sha256(data).hexdigest() in solutions.images:
                hits.append(f"{name}: an image of {solutions.images[hashlib.sha256(data).hexdigest()][0]}")
            hits += search_text(name, text, solutions, anchors)
    return hits


def pdf_leaks(pdf: Path, solutions: Solutions) -> list[str]:
    """Hits of the solution fragments in a PDF's text (``pdftotext``; NFKC, whitespace runs made single spaces)."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    def flat(t):  # ligatures as letters, one space between words
        return " ".join(unicodedata.normalize("NFKC", t).split())

    printed = Solutions(solutions.count, {flat(f): s for f, s in solutions.fragments.items()})
    return search_text(str(pdf), flat(text), printed, _anchors(printed))


def chapter_notebooks(root: Path = ROOT) -> list[Path]:
    """The chapter notebooks of the book (``book/ch*.ipynb``)."""
    return sorted((root / "book").glob("ch*.ipynb"))
