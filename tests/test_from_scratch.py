"""Every method of the book appears three times, and they agree (DESIGN.md, "One picture").

Its algorithm box on the page, a from-scratch cell right after it, and the companion
function.  A from-scratch cell is a code cell tagged ``from-scratch`` whose metadata
``from_scratch`` names the method, the companion function it is compared with and the
tolerance the page states::

    {"tags": ["from-scratch"],
     "from_scratch": {"method": "BBSE (hard)", "companion": "companion.label_shift_weights.bbse",
                      "tolerance": 1e-12}}

The cell writes the method in plain numpy/scipy (its own functions, which never call the
companion's), then calls the companion on the same data and prints
``companion.display.agreement(...)``.  This test fails when a listed method has no such cell,
when the cell imports anything from the companion (the set-up cell imports what the
comparison calls), when its own functions call the companion function, when the from-scratch
part is longer than a page can show, when the stored or re-run comparison is not
``identical`` / ``agree to within <tolerance>``, or when the cell does not run alone after
the chapter's set-up cell (the way a reader runs it).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import nbformat
import pytest

from figure_cells import run_alone

BOOK = Path(__file__).resolve().parents[1] / "book"

#: method -> the chapter whose page shows it (the notebook's stem)
METHODS = {
    "equal-width binning": "ch01_calibration_sharpness",
    "binned calibration-sharpness decomposition": "ch01_calibration_sharpness",
    "uniform-mass binning": "ch02_uniform_mass_binning",
    "l_p calibrator": "ch03_multiclass_lp",
    "BBSE (hard)": "ch04_label_shift_weights",
    "BBSE (soft)": "ch04_label_shift_weights",
    "MLLS (EM)": "ch04_label_shift_weights",
    "BCTS + MLLS": "ch04_label_shift_weights",
    "RLLS": "ch04_label_shift_weights",
    "Bayes correction": "ch04_label_shift_weights",
    "composite estimator": "ch05_label_shift_recalibration",
    "canonical binning under label shift": "ch06_binning_label_shift",
    "split conformal threshold": "ch07_conformal_label_shift",
    "weighted conformal thresholds": "ch07_conformal_label_shift",
    "label-conditional conformal thresholds": "ch07_conformal_label_shift",
    "capped scaling": "ch08_target_prior",
    "FJS": "ch08_target_prior",
    "Platt/CSPD QMM": "ch08_target_prior",
    "ROC QMM": "ch08_target_prior",
    "two-parameter QMM": "ch08_target_prior",
}

#: lines of the from-scratch part (code, not comments or blank lines) a page shows at most
MAX_LINES = 14
LONGER = {"l_p calibrator": 26}  # pools, noise and the l_p rounding (the 24 lines)

AGREE = re.compile(r"^(?P<method>.+): from scratch and companion (identical|agree to within (?P<tol>\S+))$")


def _cells():
    found = []
    for path in sorted(BOOK.glob("ch*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and "from-scratch" in cell.metadata.get("tags", []):
                found.append((path, i, cell))
    return found


CELLS = _cells()
IDS = [f"{p.stem[:4]}-{c.metadata.get('from_scratch', {}).get('method', i)}" for p, i, c in CELLS]


def _meta(cell) -> dict:
    meta = cell.metadata.get("from_scratch")
    assert isinstance(meta, dict) and {"method", "companion", "tolerance"} <= set(meta), (
        "a from-scratch cell needs metadata from_scratch = {method, companion, tolerance}")
    return meta


def _companion_function(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name), name


def _own_code_lines(tree: ast.Module, source: str) -> int:
    """Lines of code (no comments, no blank lines) in the cell's function and class definitions."""
    lines = source.splitlines()
    count = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for line in lines[node.lineno - 1:node.end_lineno]:
                stripped = line.strip()
                count += bool(stripped) and not stripped.startswith("#")
    return count


def _calls_in_own_code(tree: ast.Module, name: str) -> list[str]:
    """The cell's own functions and classes that use ``name`` (the companion function)."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
                n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            if name in used:
                found.append(node.name)
    return found


def _comparison_lines(text: str, method: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"{method}: from scratch and companion")]


def test_every_method_has_a_from_scratch_cell():
    shown = {}
    for path, _, cell in CELLS:
        shown.setdefault(_meta(cell)["method"], set()).add(path.stem)
    missing = [f"{m} (expected in {ch})" for m, ch in METHODS.items() if ch not in shown.get(m, set())]
    unknown = sorted(set(shown) - set(METHODS))
    assert not missing, "methods without a from-scratch cell on their page: " + "; ".join(missing)
    assert not unknown, f"from-scratch cells for methods this test does not list: {unknown}"


@pytest.mark.parametrize("path,index,cell", CELLS, ids=IDS)
def test_the_cell_writes_the_method_itself(path, index, cell):
    meta = _meta(cell)
    function, name = _companion_function(meta["companion"])
    assert callable(function)
    tree = ast.parse(cell.source)
    imports = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
               and any("companion" in (a.name or "") for a in n.names) | ("companion" in (getattr(n, "module", "") or ""))]
    assert not imports, f"cell {index} imports from the companion: {imports}"
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defs, f"cell {index} defines no function: the from-scratch method must be the cell's own code"
    assert not _calls_in_own_code(tree, name), f"cell {index}: its own code calls the companion's {name}"
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)} | {
        n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert name in called, f"cell {index} never calls the companion's {name} to compare with it"
    assert "agreement" in called, f"cell {index} does not print companion.display.agreement(...)"
    limit = LONGER.get(meta["method"], MAX_LINES)
    assert _own_code_lines(tree, cell.source) <= limit, f"cell {index}: the from-scratch part is longer than {limit} lines"


@pytest.mark.parametrize("path,index,cell", CELLS, ids=IDS)
def test_the_stored_comparison_holds(path, index, cell):
    meta = _meta(cell)
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    lines = _comparison_lines(text, meta["method"])
    assert lines, f"cell {index} prints no comparison for {meta['method']!r}"
    for line in lines:
        match = AGREE.match(line)
        assert match, f"cell {index}: {line}"
        if match["tol"] is not None:
            assert float(match["tol"]) == float(meta["tolerance"]), f"cell {index}: printed tolerance differs from the metadata's"


def test_a_cell_that_calls_the_companion_inside_its_own_code_is_caught():
    source = "def bbse_mine(x):\n    return cl.bbse(x)\n\nprint(agreement('BBSE (hard)', bbse_mine(1), bbse(1)))\n"
    assert _calls_in_own_code(ast.parse(source), "bbse") == ["bbse_mine"]
    honest = "def bbse_mine(x):\n    return x\n\nprint(agreement('BBSE (hard)', bbse_mine(1), bbse(1)))\n"
    assert _calls_in_own_code(ast.parse(honest), "bbse") == []


def test_the_student_edition_keeps_every_from_scratch_cell():
    from student_source import strip_solutions

    for path in sorted({p for p, _, _ in CELLS}):
        kept = strip_solutions(nbformat.read(path, as_version=4))[0]
        tagged = [c for c in kept["cells"] if "from-scratch" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == sum(p == path for p, _, _ in CELLS), f"{path.stem}: the student edition drops a from-scratch cell"


def test_a_difference_above_the_tolerance_fails_the_stored_check():
    from companion.display import agreement

    line = agreement("m", [1.0, 2.0], [1.0, 2.1], tol=1e-12)
    assert not AGREE.match(line) and "DIFFER" in line
    assert AGREE.match(agreement("m", [1.0, 2.0], [1.0, 2.0 + 1e-13], tol=1e-12))


@pytest.mark.parametrize("path", sorted({p for p, _, _ in CELLS}), ids=lambda p: p.stem)
def test_from_scratch_cells_run_alone_and_agree(path):
    cells = [(i, c) for p, i, c in CELLS if p == path]
    results = run_alone(path, [c.source for _, c in cells])
    problems = []
    for (index, cell), (error, _, text) in zip(cells, results):
        method = _meta(cell)["method"]
        lines = _comparison_lines(text, method)
        if error:
            problems.append(f"cell {index} ({method}): {error}")
        elif not lines or not all(AGREE.match(line) for line in lines):
            problems.append(f"cell {index} ({method}): {lines or 'printed no comparison'}")
    assert not problems, "from-scratch cells that fail when run alone after the set-up cell:\n" + "\n".join(problems)
