"""The book's terms travel with what is handed out: downloaded notebooks, assignments and the wheel."""
from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "course"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import make_assignments  # noqa: E402
import reader_code  # noqa: E402


def test_every_downloaded_notebook_opens_with_the_licence(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# A chapter"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "_sources" / "book" / "ch01.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb))
    app = SimpleNamespace(builder=SimpleNamespace(format="html"), outdir=str(tmp_path), srcdir=str(ROOT))
    for _ in range(2):  # a second build does not add a second cell
        reader_code._licence_downloads(app, None)
    cells = json.loads(path.read_text())["cells"]
    assert [c["id"] for c in cells] == ["licence", "a"]
    assert "CC BY 4.0" in cells[0]["source"] and "BSD 3-Clause" in cells[0]["source"]
    assert "CITATION.cff" in cells[0]["source"]


def test_every_assignment_opens_with_the_licence():
    chapters, setups, titles = make_assignments.read_book()
    chapter = next(iter(chapters))
    nb = make_assignments.assignment(chapter, titles[chapter], setups[chapter], chapters[chapter],
                                     make_assignments.load_spec())
    header = "".join(nb["cells"][0]["source"])
    assert nb["cells"][0]["metadata"]["nbgrader"]["locked"] and "CC BY 4.0" in header and "BSD 3-Clause" in header


def test_the_wheel_states_its_licence():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "BSD-3-Clause"}
    assert "License :: OSI Approved :: BSD License" in project["classifiers"]


def test_how_to_cite_comes_from_the_citation_file():
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    text = reader_code.citation(ROOT)
    assert cff["title"] in text and str(cff["version"]) in text and "@book{" in text
    assert "{how-to-cite}" in (ROOT / "book" / "teaching.md").read_text()
