"""Drivers for the MSE decomposition (paper 000, sections 2-3).

Convergence of the binned empirical terms to the population terms of eq. (2)
(book ``eq-mse-decomposition``, ``eq-binned-decomposition``), and the
population terms across priors with a Monte Carlo check of the prior-free MSE
(book ``prop-mse-prior-free``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from .._checks import as_probabilities, as_rng, check_int, check_real, check_size
from .._memo import memoised
from .._numerics import loglog_fit
from ..scenarios import GaussianMixture
from .metrics import mse_decomposition

__all__ = ["DECOMPOSITION_TERMS", "decomposition_convergence", "decomposition_across_priors"]


#: Names of the terms returned by :func:`decomposition_convergence`, in order.
DECOMPOSITION_TERMS = ("mse", "variance", "sharpness", "calibration", "within_bin")


@memoised
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
    (:func:`~companion.calibration_sharpness.mse_decomposition`).  Binning is needed: with
    continuous forecasts every value is distinct, so grouping by value gives
    the degenerate ``E[Y | Z] = Y`` (calibration = MSE, sharpness = Var Y).

    Returns
    -------
    dict with ``n`` (array), ``n_bins`` (array), ``terms`` (names of the last
    axis), ``empirical`` of shape ``(len(n), n_reps, 5)``, ``exact`` of
    shape ``(5,)`` (population eq. (2) from
    :meth:`~companion.scenarios.GaussianMixture.decomposition`, ``within_bin = 0``),
    ``mean_abs_error`` of shape ``(len(n), 5)`` (over repetitions) and
    ``slopes`` of shape ``(5,)``, the least-squares log-log slope of each
    term's mean absolute error against ``n``.
    """
    n_values = np.array([check_int(n, "n_values entries", minimum=2) for n in np.atleast_1d(n_values)])
    if np.unique(n_values).size < 2:
        raise ValueError("n_values must hold at least two distinct sample sizes (a rate is fitted across them)")
    n_reps = check_size(n_reps, "n_reps", item_bytes=8 * n_values.size * len(DECOMPOSITION_TERMS),
                        what=f"{len(DECOMPOSITION_TERMS)} terms per sample size and repetition")
    rng = as_rng(rng)
    scenario = GaussianMixture(prior, mu)
    n_bins = np.ceil(n_values ** (1.0 / 3.0) - 1e-9).astype(int)
    empirical = np.empty((n_values.size, n_reps, len(DECOMPOSITION_TERMS)))
    for i, (n, b) in enumerate(zip(n_values, n_bins)):
        for r in range(n_reps):
            z, y = scenario.sample(n, rng)
            empirical[i, r] = mse_decomposition(z, y, bins=int(b))
    exact = np.array([*scenario.decomposition(), 0.0])
    error = np.abs(empirical - exact).mean(axis=1)
    slopes = np.array([loglog_fit(error[:, k], n_values)[0] for k in range(exact.size)])
    return {
        "n": n_values,
        "n_bins": n_bins,
        "terms": DECOMPOSITION_TERMS,
        "empirical": empirical,
        "exact": exact,
        "mean_abs_error": error,
        "slopes": slopes,
    }


@memoised
def decomposition_across_priors(
    priors=(0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99),
    mu: float = 2.0,
    n: int = 10**6,
    offset: float = 1.0,
    rng=0,
) -> dict:
    r"""Population terms of eq. (2) across priors, with an independent Monte Carlo MSE.

    For each prior, the exact terms of
    :meth:`~companion.scenarios.GaussianMixture.decomposition` and the two
    class-wise errors of :meth:`~companion.scenarios.GaussianMixture.class_conditional_mse`;
    then, from one sample of ``n`` pairs, the Brier score of ``f = sigmoid``
    (which book ``prop-mse-prior-free`` says is the same for every prior) and,
    as a control without the mirror symmetry, the Brier score of the shifted
    forecaster :math:`\sigma(X + \text{offset})`, each with its standard error.

    Returns
    -------
    dict with ``priors`` (array), ``terms`` (the names of the columns of
    ``exact``), ``exact`` of shape ``(len(priors), 4)`` (``mse``, ``variance``,
    ``sharpness``, ``calibration``), ``class_mse`` of shape
    ``(len(priors), 2)`` (:math:`\mathbb E[Z^2 \mid Y=0]`,
    :math:`\mathbb E[(1-Z)^2 \mid Y=1]`), ``mc_mse`` and ``mc_se`` (Brier
    score of ``f`` and its standard error), ``mc_mse_shifted`` and
    ``mc_se_shifted`` (the same for the shifted forecaster), all arrays of
    length ``len(priors)``.
    """
    priors = as_probabilities(np.atleast_1d(priors), "priors", open_interval=True)
    n = check_size(n, "n", minimum=2, item_bytes=64, what="eight float64 arrays of length n")
    offset = check_real(offset, "offset")
    rng = as_rng(rng)
    scenarios = [GaussianMixture(float(p), mu) for p in priors]
    exact = np.array([s.decomposition() for s in scenarios])
    class_mse = np.array([s.class_conditional_mse() for s in scenarios])
    mc = np.empty((priors.size, 2))
    se = np.empty((priors.size, 2))
    for i, scenario in enumerate(scenarios):
        z, y = scenario.sample(n, rng)
        x = np.log(z) - np.log1p(-z)  # the feature back from z = sigmoid(x)
        for k, forecast in enumerate((z, expit(x + offset))):
            loss = (y - forecast) ** 2
            mc[i, k] = loss.mean()
            se[i, k] = loss.std(ddof=1) / np.sqrt(n)
    return {
        "priors": priors,
        "terms": DECOMPOSITION_TERMS[:4],
        "exact": exact,
        "class_mse": class_mse,
        "mc_mse": mc[:, 0],
        "mc_se": se[:, 0],
        "mc_mse_shifted": mc[:, 1],
        "mc_se_shifted": se[:, 1],
    }
