"""Every figure cell of every chapter runs alone after the set-up cell (tests/figure_cells.py)."""

from pathlib import Path

import nbformat
import pytest

from figure_cells import figure_cells, problems, run_figure_cells

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = sorted(BOOK.glob("ch*.ipynb"))


def test_every_chapter_has_figure_cells():
    assert CHAPTERS and all(figure_cells(nbformat.read(p, as_version=4)) for p in CHAPTERS)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_figure_cells_run_alone(path):
    found = problems(run_figure_cells(path))
    assert not found, "figure cells that do not run alone after the set-up cell:\n" + "\n".join(found)


def _fixture(tmp_path, figure_source):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nSEED = 1"),
        nbformat.v4.new_code_cell("grid = [1, 2, 3]"),
        nbformat.v4.new_code_cell(figure_source, metadata={"mystnb": {"figure": {"name": "fig-planted"}}}),
    ]
    path = tmp_path / "planted.ipynb"
    nbformat.write(nb, path)
    return path


def test_planted_dependency_on_an_earlier_cell_is_caught(tmp_path):
    found = problems(run_figure_cells(_fixture(tmp_path, "fig, ax = plt.subplots()\nax.plot(grid)\nplt.show()")))
    assert len(found) == 1 and "fig-planted" in found[0] and "NameError" in found[0] and "grid" in found[0]


def test_a_figure_cell_that_draws_nothing_is_caught(tmp_path):
    found = problems(run_figure_cells(_fixture(tmp_path, "x = SEED + 1")))
    assert found == ["fig-planted (cell 2): ran but drew no figure"]


def test_a_self_contained_figure_cell_passes(tmp_path):
    assert problems(run_figure_cells(_fixture(tmp_path, "fig, ax = plt.subplots()\nax.plot([SEED, 2])\nplt.show()"))) == []
