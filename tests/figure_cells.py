"""Run each figure cell of a chapter alone after the chapter's set-up cell.

A reader reproduces one figure by running the set-up cell (the first code
cell) and then that figure's cell, nothing else.  :func:`run_figure_cells`
does exactly that for every figure cell of a notebook: one kernel per
notebook; before each figure, the user namespace is emptied (``%reset -f``)
and every figure closed, then the set-up cell and the figure cell run.  What
persists between figures is only what persists for a reader too: imported
modules and the companion's memoised drivers (:mod:`companion._memo`).

A figure cell is a code cell with ``mystnb.figure`` metadata or a stored
``image/png`` output.  It fails when it raises or when it draws nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import nbformat
from jupyter_client.manager import start_new_kernel

RESET = "%reset -f\nimport matplotlib.pyplot as _plt\n_plt.close('all')\ndel _plt"


@dataclass
class FigureCell:
    index: int  # position among all cells of the notebook
    name: str  # the figure's label, or "cell <index>"
    source: str


@dataclass
class Outcome:
    cell: FigureCell
    error: str | None  # "NameError: name 'grid' is not defined", or None
    drew: bool  # an image/png was displayed


def figure_cells(nb) -> list[FigureCell]:
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        figure = cell.metadata.get("mystnb", {}).get("figure")
        draws = any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
        if figure or draws:
            found.append(FigureCell(i, (figure or {}).get("name", f"cell {i}"), cell.source))
    return found


def setup_source(nb) -> str:
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if not code:
        raise ValueError("the notebook has no code cell, so no set-up cell")
    return code[0].source


def _execute(client, source: str, timeout: float) -> tuple[str | None, bool, str]:
    """Run ``source``; return (error or None, whether a PNG was displayed, the text it printed)."""
    seen = {"error": None, "png": False, "text": []}

    def hook(msg):
        kind, content = msg["header"]["msg_type"], msg["content"]
        if kind == "error":
            seen["error"] = f"{content['ename']}: {content['evalue']}"
        elif kind in ("display_data", "execute_result") and "image/png" in content.get("data", {}):
            seen["png"] = True
        elif kind == "stream" and content.get("name") == "stdout":
            seen["text"].append(content["text"])

    reply = client.execute_interactive(source, output_hook=hook, timeout=timeout, allow_stdin=False)
    if reply["content"]["status"] == "error" and seen["error"] is None:
        seen["error"] = f"{reply['content']['ename']}: {reply['content']['evalue']}"
    return seen["error"], seen["png"], "".join(seen["text"])


def run_alone(path: Path, sources: list[str], timeout: float = 900) -> list[tuple[str | None, bool, str]]:
    """Each of ``sources`` run after a reset and the set-up cell of the notebook at ``path``, in one kernel.

    Returns, per source, (error or None, whether it drew a PNG, the text it printed).
    """
    path = Path(path)
    setup = setup_source(nbformat.read(path, as_version=4))
    # a reader's Jupyter draws inline, whatever backend the test process was given (make sets Agg)
    env = {**os.environ, "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(path.parent), env=env)
    results = []
    try:
        for source in sources:
            error, _, _ = _execute(client, RESET, timeout)
            if error is None:
                error, _, _ = _execute(client, setup, timeout)
                error = None if error is None else f"set-up cell: {error}"
            drew, text = False, ""
            if error is None:
                error, drew, text = _execute(client, source, timeout)
            results.append((error, drew, text))
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return results


def run_figure_cells(path: Path, timeout: float = 900) -> list[Outcome]:
    """Every figure cell of the notebook at ``path``, each run after a reset and the set-up cell."""
    cells = figure_cells(nbformat.read(Path(path), as_version=4))
    results = run_alone(path, [cell.source for cell in cells], timeout)
    return [Outcome(cell, error, drew) for cell, (error, drew, _) in zip(cells, results)]


def problems(outcomes: list[Outcome]) -> list[str]:
    found = []
    for o in outcomes:
        if o.error:
            found.append(f"{o.cell.name} (cell {o.cell.index}): {o.error}")
        elif not o.drew:
            found.append(f"{o.cell.name} (cell {o.cell.index}): ran but drew no figure")
    return found
