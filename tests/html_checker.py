"""Checks of the built HTML that the strict Sphinx build cannot make.

A MyST directive or role that the parser never recognised is plain text to
Sphinx, so it builds without a warning and shows up on the page as
```` ```{prf:proof} ```` or ``{ref}`x```; a reference word typed before a
``{prf:ref}`` doubles ("Definition Definition 1.2").  An exercise written as a
plain list, or left without its collapsed solution, builds just as quietly.
These functions read the pages of ``_build/html`` and list every such problem.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

#: Source markup that must never reach a reader's eyes: fences, and the names of roles and directives.
MYST_LEFTOVERS = ("```", ":::{", "{prf:", "{ref}`", "{numref}`", "{eq}`", "{doc}`", "{cite", "{math}`", "{glue")
_ROLE_NAME = re.compile(r"\{(?:prf:[\w-]+|ref|numref|eq|doc|cite(?::\w+)?|math|glue(?::\w+)?|term|download|figure)\}")

#: Words that a reference role already renders; typed before it they appear twice.
REFERENCE_WORDS = (
    "Definition", "Theorem", "Lemma", "Proposition", "Corollary", "Remark", "Exercise", "Algorithm",
    "Example", "Assumption", "Figure", "Fig.", "Table", "Equation", "Section", "Chapter", "Proof",
)
_DOUBLED = re.compile(
    r"\b(" + "|".join(re.escape(w) for w in REFERENCE_WORDS) + r")(s?)\s+\1\b"
)
#: TeX that is not inside a math node: the text of a reference to a title with math in it, say.
_RAW_TEX = re.compile(r"[\^_]\{|\\(?:frac|mathrm|mathbb|mathcal|ell|hat|lambda|alpha|delta|varepsilon)\b")
#: How every exercise statement begins: its level, for the instructor guide and for students.
EXERCISE_LEVELS = ("Basic.", "Intermediate.", "Advanced.")
_MARKDOWN_HEADING = re.compile(r"^\s*#{2,6} \S", re.MULTILINE)
_CELL_CLASSES = {"cell_input", "cell_output"}
#: Pages Sphinx generates (index, search, sources, static files): linked to, not checked.
_GENERATED = ("_", "genindex", "search", "prf-")


def _article(soup: BeautifulSoup):
    return soup.select_one("article.bd-article") or soup.body or soup


def _in_notebook_cell(tag) -> bool:
    return any(_CELL_CLASSES & set(parent.get("class") or ()) for parent in tag.parents)


def _visible_text(article) -> str:
    """The article's prose: everything but code, scripts and styles, whitespace collapsed."""
    clone = BeautifulSoup(str(article), "html.parser")
    for tag in clone.select("pre, script, style, code, .MathJax, .math"):
        tag.decompose()
    return " ".join(clone.get_text(" ").split())


def exercise_problems(article, page: str, solutions: bool = True) -> list[str]:
    """Exercises that are not numbered, labelled boxes with a collapsed solution.

    Every ``Exercises`` section must hold exercise boxes and no bare list of
    exercises; every box states its level first (:data:`EXERCISE_LEVELS`); with ``solutions`` (the full edition) every box needs a
    solution box that links back to it and is collapsed (a dropdown); without
    (the student edition) no solution may be left on the page.
    """
    problems = []
    for section in article.select("section[id]"):
        if "exercises" in section["id"] and not section.select("div.exercise"):
            problems.append(f"{page}: section {section['id']!r} holds no exercise box")
        if "exercises" in section["id"] and section.find(["ol", "ul"], recursive=False):
            problems.append(f"{page}: section {section['id']!r} lists exercises outside exercise boxes")
    boxes = article.select("div.exercise")
    for box in boxes:
        clone = BeautifulSoup(str(box), "html.parser")
        for title in clone.select(".admonition-title"):
            title.decompose()
        if not clone.get_text(" ", strip=True).startswith(EXERCISE_LEVELS):
            problems.append(f"{page}: exercise {box.get('id')!r} does not start with its level {EXERCISE_LEVELS}")
    answers = article.select("div.solution")
    if not solutions:
        return problems + [f"{page}: the student edition shows a solution ({a.get('id')!r})" for a in answers]
    solved = {}
    for answer in answers:
        for link in answer.select(".admonition-title a[href^='#']"):
            solved[link["href"][1:]] = answer
    for box in boxes:
        label = box.get("id")
        if not label:
            problems.append(f"{page}: an exercise box without a label: {box.get_text(' ', strip=True)[:60]!r}")
        elif label not in solved:
            problems.append(f"{page}: exercise {label!r} has no solution")
        elif "dropdown" not in (solved[label].get("class") or ()):
            problems.append(f"{page}: the solution of exercise {label!r} is not collapsed (class dropdown)")
    return problems


def page_problems(
    html: str,
    page: str,
    anchors: dict[str, set[str]] | None = None,
    incoming: set[tuple[str, str]] = frozenset(),
    solutions: bool = True,
) -> list[str]:
    """Problems on one page.

    ``page`` is the page's path relative to the site root (for messages and
    for resolving links); ``anchors`` maps every page of the site to its
    element ids, so that an internal link to a missing label is caught
    (without it only links within the page are checked); ``incoming`` holds
    the ``(page, id)`` pairs that other pages link to, so a figure referenced
    only from another page counts as referenced; ``solutions`` says whether
    the exercises' solutions belong on the page (see :func:`exercise_problems`).
    """
    soup = BeautifulSoup(html, "html.parser")
    article = _article(soup)
    problems = []
    text = _visible_text(article)
    for bad in MYST_LEFTOVERS:
        at = text.find(bad)
        if at >= 0:
            problems.append(f"{page}: unparsed MyST {bad!r} in the text: ...{text[max(0, at - 60):at + 60]}...")
    for match in _ROLE_NAME.finditer(text):
        at = match.start()
        problems.append(f"{page}: unparsed role or directive {match.group(0)!r}: ...{text[max(0, at - 60):at + 60]}...")
    for match in _DOUBLED.finditer(text):
        at = match.start()
        problems.append(f"{page}: doubled reference word {match.group(0)!r}: ...{text[max(0, at - 40):at + 60]}...")
    for match in _RAW_TEX.finditer(text):
        at = match.start()
        problems.append(f"{page}: TeX outside math (e.g. a title with math used as link text): ...{text[max(0, at - 60):at + 40]}...")
    if "??" in text:
        problems.append(f"{page}: '??' in the text (an unresolved numbered reference)")
    for para in article.find_all("p"):
        # its text without formulas (typeset at build time, their MathML text has bars of its own: |V|)
        line = "".join(t for t in para.find_all(string=True) if not t.find_parent(class_="math")).strip()
        if line.startswith("|") and line.count("|") >= 3:
            problems.append(f"{page}: a Markdown table left as text (a line between its rows broke it): {line[:80]!r}")
    for pre in article.find_all("pre"):
        if _in_notebook_cell(pre):
            continue
        code = pre.get_text()
        if any(bad in code for bad in MYST_LEFTOVERS) or _MARKDOWN_HEADING.search(code):
            problems.append(f"{page}: a code block holds markup or headings (a fence swallowed prose): {code[:80]!r}")
    for xref in article.select("span.xref, span.pending_xref"):
        if xref.find_parent("a") is None:
            problems.append(f"{page}: unresolved reference {xref.get_text()!r}")
    own = {tag["id"] for tag in soup.find_all(id=True)}
    site = dict(anchors or {})
    site.setdefault(page, own)
    linked = set()
    for link in article.find_all("a", href=True):
        parts = urlsplit(link["href"])
        if parts.scheme or parts.netloc or "headerlink" in (link.get("class") or ()):
            continue
        target = page if not parts.path else _resolve(page, unquote(parts.path))
        fragment = unquote(parts.fragment)
        if target == page:
            linked.add(fragment)
        if target not in site:
            if anchors is not None and target.endswith(".html"):
                problems.append(f"{page}: link to a missing page {link['href']!r}")
            continue
        if fragment and fragment not in site[target] and not target.startswith(_GENERATED):
            problems.append(f"{page}: link to a missing label {link['href']!r} ({link.get_text().strip()!r})")
    for figure in article.select("figure[id], div.figure[id]"):
        if figure["id"] not in linked and (page, figure["id"]) not in incoming:
            problems.append(f"{page}: figure {figure['id']!r} is never referenced from the text")
    return problems + exercise_problems(article, page, solutions)


def _resolve(page: str, path: str) -> str:
    """A link's target page, relative to the site root."""
    parts = list(Path(page).parent.parts)
    for piece in Path(path).parts:
        if piece == "..":
            parts = parts[:-1]
        elif piece != ".":
            parts.append(piece)
    return "/".join(parts)


def site_problems(root: Path, solutions: bool = True) -> list[str]:
    """Problems on every content page of a built site (search, index and genindex pages skipped).

    ``solutions=False`` checks a student edition: exercises without their solutions.
    """
    root = Path(root)
    every = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.html"))
    pages = {page: (root / page).read_text(encoding="utf-8") for page in every if not page.startswith(_GENERATED)}
    if not pages:
        raise ValueError(f"root holds no HTML pages: {root} (build the book first)")
    anchors = {page: set() for page in every}  # generated pages exist; their ids are not checked
    incoming = set()
    for page, html in pages.items():
        soup = BeautifulSoup(html, "html.parser")
        anchors[page] = {tag["id"] for tag in soup.find_all(id=True)}
        for link in _article(soup).find_all("a", href=True):
            parts = urlsplit(link["href"])
            if parts.path and not parts.scheme and parts.fragment and "headerlink" not in (link.get("class") or ()):
                incoming.add((_resolve(page, unquote(parts.path)), unquote(parts.fragment)))
    return [
        problem for page, html in pages.items() for problem in page_problems(html, page, anchors, incoming, solutions)
    ]
