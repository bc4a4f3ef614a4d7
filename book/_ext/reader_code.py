"""Sphinx extension: the code one step from every chapter (page ``book/run_the_code.md``).

When an HTML build starts, two files are written into ``code/`` of the site:

* the companion as a wheel, ``code/shiftcal_companion-<version>-py3-none-any.whl``
  (distribution ``shiftcal-companion``, import name ``companion``), built by pip
  from a copy of ``pyproject.toml``, ``LICENSE`` and ``companion/`` (so the build leaves
  nothing behind in the checkout); the build fails when a module of the source
  tree is missing from the wheel (a subpackage left out of the package list, say).
  The wheel declares ranges (``numpy>=1.25``...), what a project that uses the
  estimators installs;
* ``code/requirements-reader.txt``: what a reader installs next to the wheel
  to run a downloaded chapter (the wheel's dependencies, its ``book`` extra and
  the notebook tools), pinned to the versions of ``requirements.txt``.  These
  stay exact pins on purpose: the file's one job is to reproduce the outputs
  printed in the book, which were computed with those versions (a SymPy form,
  a last digit, a figure can move with another release), and
  ``tests/built_book/test_run_the_code.py`` checks that the reader gets them.

When the build ends, every notebook behind a download button (``_sources/**/*.ipynb``) gets a
first Markdown cell with the book's title, its licences and how to cite it (from ``CITATION.cff``;
``licence_cell``), so a chapter passed on carries its terms.

The directive ``{how-to-cite}`` writes the book's reference and a BibTeX entry from ``CITATION.cff``.

The role ``{reader-file}`name``` links one of these files from a page and
fails the build when no file of that name is shipped (a wheel name left stale
by a version bump).  Outside the HTML builder (the single page printed as the
PDF) the name is set as code without a link, which a PDF could not follow.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles
from sphinx.util.osutil import relative_uri

CODE_DIR = "code"  # the site's folder of shipped files
REQUIREMENTS = "requirements-reader.txt"
# The extra of pyproject.toml the chapters need (SymPy, matplotlib).
BOOK_EXTRA = "book"
# Besides the companion's own dependencies and its book extra (pyproject.toml): SymPy's mpmath,
# the classifiers of the real-data chapters (also a dependency of the wheel: listed once) with
# their helpers, a Jupyter kernel and a notebook front end with its MyST renderer (exercise boxes,
# statements and references shown as on the site, not as raw markup).
READER_EXTRAS = ("mpmath", "scikit-learn", "joblib", "threadpoolctl", "ipykernel", "jupyterlab", "jupyterlab-myst")


def reader_requirements(root: Path) -> str:
    """The reader's requirements file: every package a chapter needs, pinned as in ``requirements.txt``.

    Those are the wheel's dependencies, its ``book`` extra and ``READER_EXTRAS``; pinned, not ranges,
    because the file reproduces the book's printed outputs (the module's docstring says more).
    """
    pins = {}
    for line in (root / "requirements.txt").read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line.strip())
        if match:
            pins[match[1].lower()] = match[0]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + project.get("optional-dependencies", {}).get(BOOK_EXTRA, [])
    wanted = [re.split(r"[<>=!~;\[ ]", dep, maxsplit=1)[0].lower() for dep in declared]
    wanted += [name for name in READER_EXTRAS if name not in wanted]
    unpinned = [name for name in wanted if name not in pins]
    if unpinned:
        raise ExtensionError(f"reader_code: requirements.txt pins no version of {', '.join(unpinned)}")
    header = [
        "# What a reader installs, with the companion's wheel, to run a chapter of the book",
        "# (its page \"Run the code\"): the versions the book's outputs were computed with.",
        "# For a project of your own, install the wheel alone: it declares ranges, not these pins.",
    ]
    return "\n".join(header + [pins[name] for name in wanted]) + "\n"


def missing_modules(wheel: Path, package: Path) -> list[str]:
    """Modules of the source folder ``package`` (``.py`` files) that the wheel does not hold."""
    held = set(zipfile.ZipFile(wheel).namelist())
    wanted = sorted(p.relative_to(package.parent).as_posix() for p in package.rglob("*.py"))
    return [name for name in wanted if name not in held]


def build_wheel(root: Path, dest: Path) -> Path:
    """Build the companion's wheel into ``dest`` from a copy of its sources; check that it is complete."""
    with tempfile.TemporaryDirectory(prefix="companion-wheel-") as tmp:
        source = Path(tmp, "source")
        shutil.copytree(root / "companion", source / "companion", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(root / "pyproject.toml", source)
        shutil.copy2(root / "LICENSE", source)  # setuptools puts it into the wheel's .dist-info
        out = Path(tmp, "wheel")
        run = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
             "--wheel-dir", str(out), str(source)],
            capture_output=True, text=True,
        )
        wheels = sorted(out.glob("*.whl"))
        if run.returncode != 0 or len(wheels) != 1:
            raise ExtensionError(f"reader_code: pip could not build the companion's wheel:\n{run.stdout}{run.stderr}")
        missing = missing_modules(wheels[0], root / "companion")
        if missing:
            raise ExtensionError(
                f"reader_code: the wheel {wheels[0].name} lacks {', '.join(missing)}: "
                "list every subpackage in pyproject.toml ([tool.setuptools.packages.find])"
            )
        for old in dest.glob("*.whl"):
            old.unlink()
        return Path(shutil.copy2(wheels[0], dest))


def _ship(app) -> None:
    app.reader_files = None
    if app.builder.format != "html":
        return
    root, dest = Path(app.srcdir), Path(app.outdir, CODE_DIR)
    dest.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(root, dest)
    (dest / REQUIREMENTS).write_text(reader_requirements(root))
    app.reader_files = {wheel.name, REQUIREMENTS}


def licence_text(root: Path) -> str:
    """Title, licences and citation of the book, from ``CITATION.cff`` (also the assignments' header)."""
    import yaml

    cff = yaml.safe_load((Path(root) / "CITATION.cff").read_text(encoding="utf-8"))
    authors = ", ".join(a.get("name") or f"{a.get('given-names', '')} {a.get('family-names', '')}".strip()
                        for a in cff["authors"])
    return (f"*{cff['title']}*, {authors}, version {cff['version']}. The text and figures are licensed under "
            "CC BY 4.0, the code under the BSD 3-Clause licence (the repository's LICENSE); to cite it, see "
            "its CITATION.cff.")


def licence_cell(notebook: dict, text: str) -> dict:
    """The notebook with ``text`` as its first Markdown cell (once: a cell already there is kept)."""
    cells = notebook["cells"]
    if cells and cells[0].get("id") == "licence":
        return notebook
    cell = {"cell_type": "markdown", "id": "licence", "metadata": {"tags": ["licence"]}, "source": text}
    return dict(notebook, cells=[cell, *cells], nbformat_minor=max(notebook.get("nbformat_minor", 5), 5))


def _licence_downloads(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    import json

    text = licence_text(Path(app.srcdir))
    for path in Path(app.outdir, "_sources").rglob("*.ipynb"):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(licence_cell(notebook, text), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def citation(root: Path) -> str:
    """The section *How to cite* as MyST: the reference and a BibTeX entry, from ``CITATION.cff``."""
    import yaml

    cff = yaml.safe_load((Path(root) / "CITATION.cff").read_text(encoding="utf-8"))
    authors = " and ".join(a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}"
                           for a in cff["authors"])
    year = str(cff["date-released"])[:4]
    return "\n".join([
        f"{authors.replace(' and ', ', ')} ({year}). *{cff['title']}*, version {cff['version']}. "
        f"Licences: {', '.join(cff['license'])} (text and figures under the first, code under the second). "
        "The repository's `CITATION.cff` holds the same record for citation managers.", "",
        "```bibtex",
        f"@book{{recalibration_textbook_{year},",
        f"  title   = {{{cff['title']}}},",
        f"  author  = {{{{{authors}}}}},",
        f"  year    = {{{year}}},",
        f"  version = {{{cff['version']}}},",
        "}",
        "```"])


class HowToCite(SphinxDirective):
    """``{how-to-cite}``: the citation of the book, read from ``CITATION.cff`` at build time."""

    def run(self):
        root = Path(self.env.srcdir)
        self.env.note_dependency(str(root / "CITATION.cff"))
        container = nodes.Element()
        nested_parse_with_titles(self.state, StringList(citation(root).splitlines(), source="CITATION.cff"), container)
        return container.children


def _reader_file_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    shipped = inliner.document.settings.env.app.reader_files
    if shipped is not None and text not in shipped:
        msg = inliner.reporter.error(
            f"reader-file: no file {text!r} is shipped in {CODE_DIR}/ (shipped: {', '.join(sorted(shipped))})",
            line=lineno,
        )
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = nodes.reference(rawtext, "", nodes.literal(text, text), classes=["reader-file"])
    node["reader_file"] = text
    return [node], []


class ReaderFileLinks(SphinxPostTransform):
    """Point each ``reader-file`` link at ``code/`` from its page (HTML), or unlink it (other builders)."""

    default_priority = 5

    def run(self, **kwargs):
        for ref in list(self.document.findall(nodes.reference)):
            if "reader_file" not in ref:
                continue
            if self.app.builder.name == "html":
                page = self.app.builder.get_target_uri(self.env.docname)
                ref["refuri"] = relative_uri(page, f"{CODE_DIR}/{ref['reader_file']}")
            else:
                ref.replace_self(ref.children)


def setup(app):
    app.connect("builder-inited", _ship)
    app.connect("build-finished", _licence_downloads)
    app.add_role("reader-file", _reader_file_role)
    app.add_directive("how-to-cite", HowToCite)
    app.add_post_transform(ReaderFileLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
