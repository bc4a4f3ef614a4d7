"""Book order is import order (see tests/book_order.py): the companion and the notebooks, and the checker on planted violations."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import book_order as B  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GROUND_FLOOR = {"scenarios"}
TOP_FLOOR = frozenset({"estimators"})  # the practitioner's estimators: build on every chapter, imported by none


def test_the_companion_follows_book_order():
    problems = B.check(REPO / "companion", REPO / "_toc.yml", REPO / "book", GROUND_FLOOR, TOP_FLOOR)
    assert not problems, "\n".join(problems)


def test_the_checker_sees_the_real_layout():
    # independent of the checker's verdict: it must find the eight chapters and real edges to check
    slugs = B.chapter_slugs(REPO / "_toc.yml")
    assert slugs[0] == "calibration_sharpness" and slugs[-1] == "target_prior" and len(slugs) == 8
    graph = B.import_graph(REPO / "companion")
    assert "companion.label_shift_weights" in graph["companion.binning_label_shift.experiments"]
    assert "companion.label_shift_weights" in B.notebook_imports(REPO / "book" / "ch06_binning_label_shift.ipynb")
    assert "companion.multiclass_lp.level_sets" in graph["companion.multiclass_lp.structure"]


# ---------------------------------------------------------------------------
# Planted violations on a small tree: each rule must fire
# ---------------------------------------------------------------------------


def _tree(tmp_path: Path, files: dict[str, str], notebooks: dict[str, str] | None = None):
    root = tmp_path / "companion"
    for rel, text in {"__init__.py": "", "_checks.py": "", "first/__init__.py": "", "second/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    toc = tmp_path / "_toc.yml"
    toc.write_text("parts:\n  - chapters:\n      - file: book/ch01_first\n      - file: book/ch02_second\n")
    book = tmp_path / "book"
    book.mkdir()
    for name, code in (notebooks or {"ch01_first": "import numpy", "ch02_second": "from companion.first import a"}).items():
        cells = [{"cell_type": "code", "source": code.splitlines(keepends=True)}]
        (book / f"{name}.ipynb").write_text(json.dumps({"cells": cells}))
    return B.check(root, toc, book, set())


def _top_tree(tmp_path: Path, files: dict[str, str]):
    """A small tree with a top floor ``companion/top.py`` (checked with ``top_floor={"top"}``)."""
    root = tmp_path / "companion"
    for rel, text in {"__init__.py": "", "plotting.py": "", "first/__init__.py": "from . import a, derivations\n",
                      "first/a.py": "", "first/derivations.py": "", "second/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    toc = tmp_path / "_toc.yml"
    toc.write_text("parts:\n  - chapters:\n      - file: book/ch01_first\n      - file: book/ch02_second\n")
    (tmp_path / "book").mkdir()
    return B.check(root, toc, tmp_path / "book", set(), frozenset({"top"}))


def test_the_top_floor_may_import_the_chapters_algorithms(tmp_path):
    assert _top_tree(tmp_path, {"top.py": "from .first.a import x\nfrom ._checks import y\n", "_checks.py": ""}) == []


@pytest.mark.parametrize(("line", "target"), [("from .first import a", "companion.first"),
                                              ("from .first.derivations import d", "companion.first.derivations"),
                                              ("from . import plotting", "companion.plotting")])
def test_the_top_floor_importing_a_package_derivations_or_plotting_fails(tmp_path, line, target):
    problems = _top_tree(tmp_path, {"top.py": line + "\n"})
    assert any(p.startswith(f"companion.top (top floor) imports {target}:") for p in problems), problems


def test_a_chapter_importing_the_top_floor_fails(tmp_path):
    problems = _top_tree(tmp_path, {"top.py": "", "second/b.py": "def f():\n    from ..top import E\n"})
    assert problems == ["companion.second.b imports companion.top from the top floor (only the top floor builds on the chapters' algorithms)"]


def test_a_clean_tree_passes(tmp_path):
    assert _tree(tmp_path, {"first/a.py": "from .._checks import x\n", "second/b.py": "from ..first import a\n"}) == []


def test_an_earlier_chapter_importing_a_later_one_fails(tmp_path):
    problems = _tree(tmp_path, {"first/a.py": "def f():\n    from ..second.b import g\n", "second/b.py": "g = 1\n"})
    assert any("companion.first.a (chapter 1) imports companion.second.b from a later chapter" in p for p in problems)


def test_the_ground_floor_importing_a_chapter_fails(tmp_path):
    problems = _tree(tmp_path, {"plotting.py": "from .first import a\n", "first/a.py": ""})
    assert any("companion.plotting (ground floor) imports companion.first" in p for p in problems)


def test_a_cycle_fails(tmp_path):
    problems = _tree(tmp_path, {"second/a.py": "from .b import y\nx = 1\n", "second/b.py": "from .a import x\ny = 1\n"})
    assert "import cycle: companion.second.a -> companion.second.b" in problems


def test_a_module_importing_its_own_package_fails(tmp_path):
    problems = _tree(tmp_path, {"second/__init__.py": "from .a import x\n", "second/a.py": "from . import b\nx = 1\n", "second/b.py": ""})
    assert any("companion.second.a imports its own package companion.second" in p for p in problems)


def test_a_notebook_importing_a_later_chapter_fails(tmp_path):
    problems = _tree(tmp_path, {}, {"ch01_first": "%matplotlib inline\nfrom companion.second import z", "ch02_second": "x = 1"})
    assert problems == ["ch01_first.ipynb (chapter 1) imports companion.second from a later chapter (2, second)"]


def test_a_stray_package_fails(tmp_path):
    problems = _tree(tmp_path, {"third/__init__.py": ""})
    assert problems == ["companion/third/ is neither a chapter's package nor on the ground floor"]


def test_a_chapter_without_its_package_fails(tmp_path):
    _tree(tmp_path, {})
    (tmp_path / "companion" / "second" / "__init__.py").unlink()
    problems = B.layout_problems(tmp_path / "companion", ["first", "second"], set())
    assert problems == ["chapter 2 (second) has no package companion/second/"]


@pytest.mark.parametrize("limit_kind", ["module", "class"])
def test_sizes_a_reader_can_hold(limit_kind):
    """No module over 600 lines, no class over 250 (the layout issue's bar)."""
    import ast

    too_big = []
    for path in sorted((REPO / "companion").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if limit_kind == "module" and len(text.splitlines()) > 600:
            too_big.append(f"{path.relative_to(REPO)}: {len(text.splitlines())} lines")
        if limit_kind == "class":
            too_big += [f"{path.relative_to(REPO)}: class {n.name} {n.end_lineno - n.lineno + 1} lines"
                        for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef) and n.end_lineno - n.lineno + 1 > 250]
    assert not too_big, too_big
