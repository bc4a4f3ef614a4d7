"""The Figure 1-2 grid of the uniform-mass binning chapter (paper 000, App. E.1): exact sampling against sorting.

Book: chap-uniform-mass-binning (fig-umb-figure1, fig-umb-figure2, prop-umb-exact-sampling).

Run: ``.venv/bin/python benchmarks/bench_figures_1_2.py``.

The grid is 11 sample sizes from 1e2 to 1e7, 24 bin counts from 6 to 1000
(B <= n/2) and 10 repetitions.  :func:`companion.uniform_mass_binning.umb_risk_grid`
mirrors the paper: it draws every sample point, sorts each sample once and
fits all bin counts from it, so it can never be faster than drawing the
samples, the floor of any method that draws every point (timed here: the
class counts and the normal draws of the driver, without the sort).
:func:`companion.uniform_mass_binning.umb_risk_grid_exact` draws the fits
themselves from their exact law (book ``prop-umb-exact-sampling``): the
order statistics at the ranks of Definition 6 by Dirichlet spacings and the
class-1 counts between them by binomials, at a cost that does not grow
with ``n``.  Both are called with a ``Generator`` so that no memoised result
is reused.
"""

from __future__ import annotations

import numpy as np

from companion.uniform_mass_binning import FIGURE1_N_BINS, FIGURE1_N_VALUES, umb_risk_grid, umb_risk_grid_exact
from harness import compare, power

N_REPS = 10


def draw_the_samples(rng: np.random.Generator) -> None:
    """The floor of the sort-based driver: the draws it makes for every (n, repetition), nothing else."""
    for n in FIGURE1_N_VALUES:
        for _ in range(N_REPS):
            ones = int(rng.binomial(n, 0.5))
            rng.standard_normal(ones)
            rng.standard_normal(int(n) - ones)


def comparisons():
    size = f"{FIGURE1_N_VALUES.size} n to {power(FIGURE1_N_VALUES.max())}, {FIGURE1_N_BINS.size} B, {N_REPS} repetitions"
    return compare(
        "Figures 1-2 grid by exact sampling of the fits", size,
        lambda: umb_risk_grid_exact(FIGURE1_N_VALUES, FIGURE1_N_BINS, N_REPS, rng=np.random.default_rng(0)),
        {"sort-based driver (draws and sorts every point)": (
            "baseline", lambda: umb_risk_grid(FIGURE1_N_VALUES, FIGURE1_N_BINS, N_REPS, rng=np.random.default_rng(0))),
         "drawing the samples (floor of any method that draws every point)": (
            "floor", lambda: draw_the_samples(np.random.default_rng(0)))},
    )


if __name__ == "__main__":
    comparisons()
