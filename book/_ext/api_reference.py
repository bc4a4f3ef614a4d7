"""Sphinx extension for the companion's API pages.

* ``.. api-topics:: companion.<package>`` documents every public module of a
  package, one section each, in the order of the package's ``from . import``
  line (its reading order), so a new module appears without editing the page;
* every documented function, class and constant gets a "Used in" line that
  links the chapters whose code cells name it (found by scanning the
  notebooks of ``_toc.yml`` when the build starts);
* a book label quoted in a docstring (``def-umb``) becomes a link to that
  statement, exercise, equation or section of the book (a label that resolves
  nowhere is a build warning, an error in the strict build), and
  "paper 000" ... "paper 003" link to that paper's section of the
  reproduction index, which names the paper.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


class ApiTopics(SphinxDirective):
    """One section per public submodule of a package, each an ``automodule`` with its members."""

    required_arguments = 1

    def run(self):
        package = importlib.import_module(self.arguments[0])
        lines = []
        order = _reading_order(package)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: (order.get(m.name, len(order)), m.name)):
            if info.name.startswith("_"):
                continue
            name = f"{package.__name__}.{info.name}"
            title = f"``{name}``"
            lines += [title, "-" * len(title), "", f".. automodule:: {name}", "   :members:", "   :undoc-members:", ""]
        container = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, source=self.arguments[0]), container)
        return container.children


def _reading_order(package) -> dict[str, int]:
    """Module name -> its position in the package's ``from . import ...`` line (its reading order)."""
    source = Path(package.__file__).read_text(encoding="utf-8")
    match = re.search(r"^from \. import \(?([\w,\s]+)\)?", source, flags=re.M)
    names = [m.strip() for m in match.group(1).split(",") if m.strip()] if match else []
    return {name: i for i, name in enumerate(names)}


def _chapter_code(app) -> dict[str, str]:
    """Docname -> the concatenated code cells of every notebook chapter."""
    code = {}
    for path in sorted(Path(app.srcdir, "book").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code[f"book/{path.stem}"] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return code


def _used_in(app, what, name, obj, options, lines):
    if what not in ("function", "class", "data", "exception"):
        return
    short = name.rsplit(".", 1)[-1]
    pattern = re.compile(rf"\b{re.escape(short)}\b")
    chapters = [
        doc for doc, code in app.env.companion_chapter_code.items() if doc in app.env.found_docs and pattern.search(code)
    ]
    if chapters:
        lines += ["", "*Used in:* " + ", ".join(f":doc:`/{doc}`" for doc in chapters)]


#: A label of the book quoted in a docstring: a statement (``def-umb``), an equation, a chapter or an erratum.
BOOK_LABEL = re.compile(r"``((?:alg|chap|cor|def|eq|err|ex|lem|prop|rem|sec|thm)-[a-z0-9-]+)``")
#: A source paper cited by its number, as the papers' files are named (paper 000 ... paper 003).
PAPER = re.compile(r"\b([Pp]aper) (00[0-3])\b")


#: The role that links a label, by the label's prefix: statements are sphinx-proof's, exercises
#: sphinx-exercise's; Sphinx's ``any`` finds chapters, sections and equations (not the other two).
ROLES = {**dict.fromkeys(("alg", "cor", "def", "lem", "prop", "rem", "thm"), "prf:ref"), "ex": "ref"}


def _book_link(match: re.Match) -> str:
    label = match.group(1)
    return f":{ROLES.get(label.split('-', 1)[0], 'any')}:`{label}`"


def _link_references(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        line = BOOK_LABEL.sub(_book_link, line)
        lines[i] = PAPER.sub(r":ref:`\1 \2 <paper-\2>`", line)


def _scan(app, env, docnames):
    env.companion_chapter_code = _chapter_code(app)


def setup(app):
    app.add_directive("api-topics", ApiTopics)
    app.connect("env-before-read-docs", _scan)
    app.connect("autodoc-process-docstring", _link_references)
    app.connect("autodoc-process-docstring", _used_in)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
