"""The API reference lists every public name of every companion module (names from ``__all__``), and reads
as the book does: book labels link into the chapters, "paper 000" ... "paper 003" link to the paper's
section of the reproduction index, and every NamedTuple field says what it holds."""

import importlib
import pkgutil
import re

from bs4 import BeautifulSoup

import companion

#: A label of the book (``def-umb``, ``eq-umb-binwise``...) shown as it is written instead of as a link.
RAW_LABEL = re.compile(r"^(?:alg|chap|cor|def|eq|err|ex|lem|prop|rem|sec|thm)-[a-z0-9-]+$")
PAPER = re.compile(r"\b[Pp]aper (00[0-3])\b")


def public_modules():
    """Every module of the companion with an ``__all__`` (``_checks`` included: it is the shared vocabulary)."""
    for info in pkgutil.walk_packages(companion.__path__, "companion."):
        module = importlib.import_module(info.name)
        private = info.name.rsplit(".", 1)[-1].startswith("_") and info.name != "companion._checks"
        if hasattr(module, "__all__") and not info.ispkg and not private:
            yield module


def reading_problems(html: str, page: str) -> list[str]:
    """Raw book labels, "Alias for field number N" (a NamedTuple field with no description) and paper
    numbers that are not links to ``reproduction_index.html#paper-<number>``, on one API page."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup
    problems = [f"{page}: raw book label {code.get_text()!r}" for code in article.find_all("code")
                if RAW_LABEL.match(code.get_text().strip())]
    problems += [f"{page}: NamedTuple field without a description: {dd.find_previous('dt').get('id')}"
                 for dd in article.find_all("dd") if re.match(r"\s*Alias for field number \d+", dd.get_text())]
    for text in article.find_all(string=PAPER):
        link = text.find_parent("a")
        numbers = PAPER.findall(text)
        if link is None or not all(link.get("href", "").endswith(f"reproduction_index.html#paper-{n}") for n in numbers):
            problems.append(f"{page}: 'paper {numbers[0]}' is not a link to its section of the reproduction index:"
                            f" {text.strip()[:60]!r}")
    return problems


def test_every_public_name_has_an_api_entry(html_root):
    ids = set()
    for page in (html_root / "book" / "api").glob("*.html"):
        ids |= set(re.findall(r'id="(companion\.[\w.]+)"', page.read_text(encoding="utf-8")))
    modules = list(public_modules())
    assert len(modules) >= 10
    missing = [f"{m.__name__}.{name}" for m in modules for name in m.__all__ if f"{m.__name__}.{name}" not in ids]
    assert not missing, f"public names without an API entry (add the module to book/api/): {missing}"


def test_api_pages_link_labels_and_papers_and_describe_fields(html_root):
    pages = sorted((html_root / "book" / "api").glob("*.html"))
    assert len(pages) >= 10
    problems = [p for page in pages for p in reading_problems(page.read_text(encoding="utf-8"), page.name)]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
    index = (html_root / "book" / "reproduction_index.html").read_text(encoding="utf-8")
    for n in ("000", "001", "002", "003"):
        section = BeautifulSoup(index, "html.parser").find(id=f"paper-{n}")
        assert section is not None and f"Paper {n}:" in section.find_next(["h2"]).get_text(), f"no section names paper {n}"


def test_planted_faults_of_an_api_page_are_caught():
    planted = (
        '<article><p>Bound (book <code class="xref any docutils literal notranslate"><span class="pre">def-umb</span></code>)'
        ' of Paper 001 and <a href="../reproduction_index.html#paper-000">paper 001</a>.</p>'
        '<dl><dt id="companion.x.Result.mse">mse</dt><dd><p>Alias for field number 0</p></dd></dl></article>'
    )
    problems = reading_problems(planted, "planted.html")
    assert len(problems) == 4, problems
    assert "raw book label 'def-umb'" in problems[0]
    assert "field without a description: companion.x.Result.mse" in problems[1]
    assert all("'paper 001' is not a link" in p for p in problems[2:])
    good = ('<article><p>Bound (book <a href="../ch02.html#def-umb"><span>Definition 2.1</span></a>) of'
            ' <a href="../reproduction_index.html#paper-001"><span>paper 001</span></a>.</p>'
            '<dl><dt id="companion.x.Result.mse">mse</dt><dd><p>Mean squared error.</p></dd></dl></article>')
    assert reading_problems(good, "good.html") == []
