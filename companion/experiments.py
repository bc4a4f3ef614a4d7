"""One driver per figure or table of the papers.

Each driver runs the simulation or computation at full scale (or at a scale
its arguments choose) and returns arrays or a table; it never plots.
Chapters plot the results, ``benchmarks/`` time them and ``tests/`` check them.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_rng, check_int
from .metrics import mse_decomposition
from .scenarios import GaussianMixture

# ---------------------------------------------------------------------------
# Chapter 1 (paper 000, sections 2-3)
# ---------------------------------------------------------------------------

DECOMPOSITION_TERMS = ("mse", "variance", "sharpness", "calibration", "within_bin")


def decomposition_convergence(
    n_values=(10**2, 10**3, 10**4, 10**5, 10**6),
    n_reps: int = 20,
    prior: float = 0.5,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""Binned empirical MSE decomposition against the exact population terms.

    For each sample size ``n`` and repetition, draw ``n`` pairs from
    :class:`~companion.scenarios.GaussianMixture` and decompose the MSE of
    ``f = sigmoid`` with ``B = ceil(n^(1/3))`` equal-width bins
    (:func:`~companion.metrics.mse_decomposition`).  Binning is needed: with
    continuous forecasts every value is distinct, so grouping by value gives
    the degenerate ``E[Y | Z] = Y`` (calibration = MSE, sharpness = Var Y).

    Returns
    -------
    dict with ``n`` (array), ``n_bins`` (array), ``terms`` (names of the last
    axis), ``empirical`` of shape ``(len(n), n_reps, 5)`` and ``exact`` of
    shape ``(5,)`` (population eq. (2), ``within_bin = 0``).
    """
    n_values = np.array([check_int(n, "n_values entries", minimum=2) for n in np.atleast_1d(n_values)])
    n_reps = check_int(n_reps, "n_reps", minimum=1)
    rng = as_rng(rng)
    scenario = GaussianMixture(prior, mu)
    n_bins = np.ceil(n_values ** (1.0 / 3.0) - 1e-9).astype(int)
    empirical = np.empty((n_values.size, n_reps, len(DECOMPOSITION_TERMS)))
    for i, (n, b) in enumerate(zip(n_values, n_bins)):
        for r in range(n_reps):
            z, y = scenario.sample(n, rng)
            empirical[i, r] = mse_decomposition(z, y, bins=int(b))
    exact = np.array([*scenario.decomposition(), 0.0])
    return {"n": n_values, "n_bins": n_bins, "terms": DECOMPOSITION_TERMS, "empirical": empirical, "exact": exact}

# ---------------------------------------------------------------------------
# Chapter 2 (paper 000, section 4 and Appendix E.1): Figures 1-2
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Chapter 5 (paper 000, section 5 and Appendix E.2): Table 1, Figure 4
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Chapter 8 (paper 003): Table 1, Figures 1-2
# ---------------------------------------------------------------------------
