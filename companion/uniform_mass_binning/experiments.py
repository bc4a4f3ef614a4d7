"""Drivers for uniform-mass binning (paper 000, section 4, App. B and E.1; book ``chap-uniform-mass-binning``).

Figures 1-2 of the paper (:func:`umb_risk_grid`, :func:`umb_figure_summary`),
the bin-wise risks of book ``eq-umb-binwise`` (:func:`umb_binwise_risks`) and
Monte Carlo checks of Lemmas 3 and 4 (:func:`umb_lemma_frequencies`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit
from scipy.stats import beta as beta_law

from .._checks import (
    _nonempty_rows,
    as_edges,
    as_labels,
    as_probabilities,
    as_real_array,
    as_rng,
    as_sizes,
    check_int,
    check_open_unit,
    check_positive,
)
from .._memo import memoised
from .._numerics import _log_normal_mass, _normal_mass, loglog_fit
from ..calibration_sharpness.binning import _uniform_mass_ranks
from ..scenarios import GaussianMixture
from .bounds import (
    LEMMA3_CONSTANT,
    optimal_n_bins,
    theorem1_optimal_n_bins,
    umb_calibration_bound,
    umb_sample_size,
    umb_sharpness_bound,
)
from .grid import _grid_from_sorted, _mixture


__all__ = [
    "FIGURE1_N_VALUES",
    "FIGURE1_N_BINS",
    "RISK_TERMS",
    "umb_risk_grid",
    "umb_binwise_risks",
    "umb_figure_summary",
    "umb_a3_regime_start",
    "umb_bin_statistics",
    "umb_balance_probability_bounds",
    "umb_lemma_frequencies",
]


#: Figure 1-2 grids (App. E.1 gives the ranges n in [1e2, 1e7], B in [6, 1e3], log-spaced; the counts are the book's).
FIGURE1_N_VALUES = np.unique(np.round(np.logspace(2, 7, 11)).astype(np.int64))


#: Bin counts of the Figure 1-2 grid: 24 log-spaced values from 6 to 1000 (the book's choice).
FIGURE1_N_BINS = np.unique(np.round(np.geomspace(6, 1000, 24)).astype(np.int64))


#: Risks stored per (n, B, repetition): pooled (Definitions 3-5) and bin-wise (book ``eq-umb-binwise``).
RISK_TERMS = ("cal", "sha", "risk", "mse", "cal_binwise", "sha_binwise", "tied_mass")


#: Largest sample size a driver draws (one sample of ``n`` forecasts is held in memory at a time).
_MAX_SAMPLE = 10**8


#: Largest number of stored results (``(n, B, repetition)`` cells of one array) a driver allocates.
_MAX_CELLS = 10**7


#: Largest ``n_max`` of :func:`umb_a3_regime_start` (its search calls :func:`~companion.uniform_mass_binning.theorem1_optimal_n_bins`).
_MAX_REGIME_N = 10**12


def _check_sample_sizes(n_values: np.ndarray, name: str) -> None:
    """Sample sizes at most ``_MAX_SAMPLE``, checked before anything is drawn (a ValueError naming ``name``)."""
    if n_values.max() > _MAX_SAMPLE:
        raise ValueError(f"{name} entries must be at most {_MAX_SAMPLE} (one sample is held in memory), got {int(n_values.max())}")


def _check_cells(cells: int, n_reps: int) -> None:
    """The result arrays hold at most ``_MAX_CELLS`` entries; checked before they are allocated."""
    if cells > _MAX_CELLS:
        raise ValueError(
            f"n_reps = {n_reps} is too large: the results would hold {cells} cells per array, at most {_MAX_CELLS}"
        )


def _array_of_any_shape(x, name: str) -> np.ndarray:
    """``np.asarray(x)``, or a ValueError naming ``name`` when ``x`` is not an array of one dtype (ragged, huge ints)."""
    try:
        return np.asarray(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an array of numbers, got {x!r}") from None


def _real_values(x, name: str) -> np.ndarray:
    """``x`` (a real scalar or an array of any shape) as a finite float array (a ValueError naming ``name`` otherwise)."""
    return as_real_array(x, name, ndim=np.ndim(_array_of_any_shape(x, name)))


def _check_gamma(gamma) -> float:
    """The balance constant of Lemma 3: a finite number greater than 1 (at 1 every bin must have mass exactly 1/B)."""
    gamma = check_positive(gamma, "gamma")
    if gamma <= 1.0:
        raise ValueError(f"gamma must be greater than 1 (gamma-well-balanced bins, Lemma 3), got {gamma!r}")
    return gamma


def _bin_masses(scenario: GaussianMixture, x_lo: np.ndarray, x_hi: np.ndarray):
    """``P[Z in I]`` and ``P[Z in I, Y = 1]`` for bins with logit edges ``x_lo < x_hi`` (any shape)."""
    pi, mu = scenario.prior, scenario.mu
    joint1 = pi * _normal_mass(x_lo - mu, x_hi - mu)
    return joint1 + (1.0 - pi) * _normal_mass(x_lo + mu, x_hi + mu), joint1


def _bin_means(scenario: GaussianMixture, x_lo: np.ndarray, x_hi: np.ndarray, mass: np.ndarray, joint1: np.ndarray):
    r""":math:`\theta_I = P[Z \in I, Y = 1] / P[Z \in I]`: the direct quotient where the bin mass and its class-1
    part are normal floats, else in logs (a tiny prior can underflow the class-1 part of a normal bin mass), :math:`\operatorname{expit}(\log\frac{\pi}{1-\pi} + \log m_1 - \log m_0)` with the class masses
    from :func:`~companion._numerics._log_normal_mass` (a bin far in a tail, e.g. forecasts near ``1e-300``)."""
    pi, mu = scenario.prior, scenario.mu
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = joint1 / mass
    far = ~((mass >= np.finfo(float).tiny) & (joint1 >= np.finfo(float).tiny))
    if np.any(far):
        lo, hi = x_lo[far], x_hi[far]
        log_odds = np.log(pi) - np.log1p(-pi) + _log_normal_mass(lo - mu, hi - mu) - _log_normal_mass(lo + mu, hi + mu)
        theta[far] = expit(log_odds)
    return theta


def umb_binwise_risks(edges_list, values_list, prior: float = 0.5, mu: float = 2.0) -> dict:
    r"""Bin-wise risks of piecewise-constant maps (book ``eq-umb-binwise``), in closed form.

    With :math:`p_I = P[Z\in I]` and :math:`\theta_I = \mathbb E[Y\mid Z\in I]`
    (normal distribution functions in ``logit z``), returns arrays (one entry
    per map): ``cal_binwise`` :math:`=\sum_I p_I(v_I-\theta_I)^2`,
    ``sha_binwise`` :math:`=\mathbb E[h^*(Z)^2]-\sum_I p_I\theta_I^2`,
    ``sha_pooled`` :math:`=\mathbb E[h^*(Z)^2]-\sum_G P_G\theta_G^2` over the
    groups ``G`` of bins with equal values (the sharpness risk of Definition 4,
    an independent check of the quadrature in
    :meth:`~companion.scenarios.GaussianMixture.population_risks_batch`), and
    ``tied_mass``, the probability of the bins whose value another bin shares.
    """
    edges_list = _nonempty_rows(edges_list, "edges_list")
    values_list = _nonempty_rows(values_list, "values_list")
    if len(edges_list) != len(values_list):
        raise ValueError(
            f"edges_list and values_list must have the same length, got {len(edges_list)} and {len(values_list)}"
        )
    scenario = GaussianMixture(prior, mu)
    values = [as_probabilities(v, "values_list entries") for v in values_list]
    edges = [as_edges(e, "edges_list entries") for e in edges_list]
    for e, v in zip(edges, values):
        if e.size != v.size + 1:
            raise ValueError("edges_list entries must have one more entry than the matching values_list entries")
    n_maps = len(values)
    map_of_bin = np.repeat(np.arange(n_maps), [v.size for v in values])
    with np.errstate(divide="ignore"):
        x_lo = logit(np.concatenate([e[:-1] for e in edges]))
        x_hi = logit(np.concatenate([e[1:] for e in edges]))
    risks = _closed_form_risks(scenario, x_lo, x_hi, np.concatenate(values), map_of_bin, n_maps)
    return {key: risks[key] for key in ("cal_binwise", "sha_binwise", "sha_pooled", "tied_mass")}


def _closed_form_risks(scenario: GaussianMixture, x_lo, x_hi, v, map_of_bin, n_maps: int) -> dict:
    """Risks of the maps with bins ``(x_lo, x_hi]`` (logit scale) and values ``v``, all in closed form.

    The keys of :func:`umb_binwise_risks`, and the pooled ``cal`` and ``mse``
    (Definition 3 and the MSE, as in
    :meth:`~companion.scenarios.GaussianMixture.population_risks_batch`).
    ``map_of_bin[i]`` is the map of bin ``i``.
    """
    mass, joint1 = _bin_masses(scenario, x_lo, x_hi)
    theta = np.divide(joint1, mass, out=np.zeros_like(mass), where=mass > 0)
    second_moment = scenario.expect(lambda x: scenario._posterior_x(x) ** 2)  # E[h*(Z)^2]
    order = np.lexsort((v, map_of_bin))
    new = np.ones(v.size, dtype=bool)
    new[1:] = (np.diff(map_of_bin[order]) != 0) | (np.diff(v[order]) != 0)
    group = np.empty(v.size, dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    group_mass, group_joint = np.bincount(group, mass), np.bincount(group, joint1)
    map_of_group = np.empty(group_mass.size, dtype=np.int64)
    map_of_group[group] = map_of_bin
    pooled = np.divide(group_joint**2, group_mass, out=np.zeros_like(group_mass), where=group_mass > 0)
    group_mean = np.divide(group_joint, group_mass, out=np.zeros_like(group_mass), where=group_mass > 0)
    tied = np.bincount(group)[group] > 1
    return {
        "cal": np.bincount(map_of_bin, mass * (v - group_mean[group]) ** 2, n_maps),
        "mse": np.bincount(map_of_bin, joint1 * (1.0 - v) ** 2 + (mass - joint1) * v**2, n_maps),
        "cal_binwise": np.bincount(map_of_bin, mass * (v - theta) ** 2, n_maps),
        "sha_binwise": second_moment - np.bincount(map_of_bin, mass * theta**2, n_maps),
        "sha_pooled": second_moment - np.bincount(map_of_group, pooled, n_maps),
        "tied_mass": np.bincount(map_of_bin, mass * tied, n_maps),
    }


@memoised
def umb_risk_grid(
    n_values=FIGURE1_N_VALUES,
    n_bins_values=FIGURE1_N_BINS,
    n_reps: int = 10,
    prior: float = 0.5,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""Population risks of uniform-mass binning over a grid of (n, B, repetition) (Figures 1-2).

    For each ``n`` and repetition one sample is drawn from
    :class:`~companion.scenarios.GaussianMixture`, class by class: the class-1
    count is Binomial(n, prior) and each class is drawn and sorted on its own,
    then the two sorted runs are merged (the same law as ``n`` IID pairs, at
    the cost of one sort).  All bin counts ``B <= n/2`` are fitted from it at
    once, as :func:`~companion.uniform_mass_binning.uniform_mass_grid` does.

    Returns
    -------
    dict with ``n`` and ``n_bins`` (the grids), ``valid`` (shape
    ``(len(n), len(n_bins))``, True where ``B <= n/2``) and, of shape
    ``(len(n), len(n_bins), n_reps)``, the pooled risks ``cal``, ``sha``,
    ``risk``, ``mse``
    (:meth:`~companion.scenarios.GaussianMixture.population_risks_batch`) and
    ``cal_binwise``, ``sha_binwise``, ``tied_mass`` (:func:`umb_binwise_risks`);
    NaN where ``valid`` is False.  Also ``prior`` and ``mu``.

    Memoised (:func:`companion._memo.memoised`): at the chapter's scale it
    takes over a minute, and a second call with the same arguments (an
    integer ``rng``) returns a copy of the first result.
    """
    n_values, n_bins_values, n_reps, valid, out = _grid_arguments(n_values, n_bins_values, n_reps, _check_sample_sizes)
    rng = as_rng(rng)
    scenario = GaussianMixture(prior, mu)
    for i, n in enumerate(n_values):
        bins = n_bins_values[valid[i]]
        if bins.size == 0:
            continue
        for r in range(n_reps):
            n_ones = int(rng.binomial(n, prior))
            ones = expit(np.sort(rng.standard_normal(n_ones)) + mu)
            zeros = expit(np.sort(rng.standard_normal(int(n) - n_ones)) - mu)
            z_sorted = np.sort(np.concatenate((zeros, ones)), kind="stable")  # merges two sorted runs
            fits = _grid_from_sorted(z_sorted, ones, bins)
            risks = scenario.population_risks_batch(fits.edges, fits.values)
            risks.update(umb_binwise_risks(fits.edges, fits.values, prior, mu))
            for key in RISK_TERMS:
                out[key][i, valid[i], r] = risks[key]
    return {"n": n_values, "n_bins": n_bins_values, "valid": valid, "prior": prior, "mu": mu, **out}


def _grid_arguments(n_values, n_bins_values, n_reps, check_sample_sizes):
    """Validated arguments of a Figure 1-2 grid driver, the mask of cells with ``B <= n/2`` and NaN-filled results."""
    n_values = np.array(as_sizes(n_values, "n_values", minimum=2, scalar=True), dtype=np.int64)
    n_bins_values = np.array(as_sizes(n_bins_values, "n_bins_values", minimum=1, scalar=True), dtype=np.int64)
    n_reps = check_int(n_reps, "n_reps", minimum=1)
    check_sample_sizes(n_values, "n_values")
    _check_cells(n_values.size * n_bins_values.size * n_reps, n_reps)
    valid = 2 * n_bins_values[None, :] <= n_values[:, None]
    if not np.any(valid):
        raise ValueError("n_values and n_bins_values leave no cell with n >= 2 * n_bins")
    out = {key: np.full((n_values.size, n_bins_values.size, n_reps), np.nan) for key in RISK_TERMS}
    return n_values, n_bins_values, n_reps, valid, out


def umb_a3_regime_start(delta: float, smoothness: float, n_max: int = 10**9) -> int:
    r"""Smallest ``n`` at which the minimizer of the Theorem 1 bound lies where :math:`8K^2/B^2 < 2/B`.

    Below it the stated bound :math:`\Delta_{\delta/2}^2 + \min(2/B, 8K^2/B^2)`
    is minimized on the :math:`2/B` branch (:math:`B^*` of order
    :math:`\sqrt n`); from it on, on the (A3) branch (order :math:`n^{1/3}`).
    Bisection on ``n`` up to ``n_max`` (at most ``10**12``), assuming the branch changes once.
    """
    delta = check_open_unit(delta, "delta")
    k = check_positive(smoothness, "smoothness")
    n_max = check_int(n_max, "n_max", minimum=4, maximum=_MAX_REGIME_N)
    on_a3 = lambda n: theorem1_optimal_n_bins(n, delta, k) > 4.0 * k * k  # noqa: E731
    if not on_a3(n_max):
        raise ValueError(f"n_max = {n_max} is too small: the minimizer is still on the 2/B branch there")
    lo, hi = 2, n_max
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if on_a3(mid) else (mid, hi)
    return hi


def _population_variance_factor(scenario: GaussianMixture, n_bins: np.ndarray) -> np.ndarray:
    r""":math:`V_B = \sum_I p_I\theta_I(1-\theta_I)` over the population uniform-mass bins (edges at quantiles b/B)."""
    out = np.empty(n_bins.size)
    for j, b in enumerate(n_bins):
        x = logit(scenario.quantile(np.arange(1, b) / b))
        x = np.concatenate(([-np.inf], x, [np.inf]))
        mass, joint1 = _bin_masses(scenario, x[:-1], x[1:])
        theta = joint1 / mass
        out[j] = np.sum(mass * theta * (1.0 - theta))
    return out


def _check_grid(grid) -> None:
    """Raise a ValueError naming ``grid`` unless it is a :func:`umb_risk_grid` result with at least one valid cell."""
    if not isinstance(grid, dict):
        raise ValueError(f"grid must be the dict returned by umb_risk_grid, got {type(grid).__name__}")
    missing = sorted({"n", "n_bins", "valid", "prior", "mu", *RISK_TERMS} - set(grid))
    if missing:
        raise ValueError(f"grid must be the dict returned by umb_risk_grid; it lacks the keys {missing}")
    n, b, valid = (np.asarray(grid[key]) for key in ("n", "n_bins", "valid"))
    if n.ndim != 1 or b.ndim != 1 or valid.shape != (n.size, b.size) or valid.dtype != bool:
        raise ValueError("grid must hold 1-D 'n' and 'n_bins' and a boolean 'valid' of shape (len(n), len(n_bins))")
    for key in RISK_TERMS:
        if np.shape(grid[key])[:2] != valid.shape:
            raise ValueError(f"grid[{key!r}] must have shape (len(n), len(n_bins), n_reps)")
        if not np.all(np.isfinite(np.asarray(grid[key])[valid])):
            raise ValueError(f"grid[{key!r}] must be finite in every valid cell (found NaN or infinity)")
    if not valid.any():
        raise ValueError("grid must have at least one valid cell (n >= 2 * n_bins)")


@memoised
def umb_figure_summary(grid: dict, delta: float = 0.1, tail_mass: float = 1e-12) -> dict:
    r"""Bounds, fitted rates, bound coverage and optimal bin counts for a :func:`umb_risk_grid` result.

    Returns a dict with

    - ``smoothness``: K of (A3) on the central ``1 - 2 tail_mass`` of the forecast law;
    - ``cal_bound``, ``sha_bound`` (2/B), ``sha_bound_a3`` (8K^2/B^2),
      ``risk_bound`` (book ``thm-umb-risk``: calibration bound plus the smaller
      sharpness bound), shape ``(len(n), len(n_bins))``, NaN where ``B > n/2``;
      ``theorem_applies`` (``n >= c B log(2B/delta)`` with the paper's c');
    - ``mean``: means over repetitions of every :data:`RISK_TERMS` entry;
    - ``exponents``: ``cal_n``, ``cal_B`` (fit of mean cal ~ n^a B^b over all
      valid cells), ``sha_B`` (mean sha ~ B^c at the largest n), ``risk_n``;
    - ``cal_fits``: rows ``(min n/B, cells, a, b, a_binwise, b_binwise, b_predicted)``
      of the same fit restricted to cells with at least 2, 10, 100 points per
      bin, for the pooled and the bin-wise calibration risk, and ``b_predicted``
      of :math:`(B/n) V_B` with :math:`V_B = \sum_I p_I\theta_I(1-\theta_I)`;
    - ``coverage`` / ``coverage_where_theorem_applies``: share of
      (n, B, repetition) cells where each bound held (``sha_binwise`` against
      the bound the book proves for it);
    - ``best_n_bins_empirical`` (grid argmin of the mean risk),
      ``best_n_bins_stated`` (minimizer of ``risk_bound`` over all integers),
      ``best_n_bins_a3`` (of the calibration bound plus 8K^2/B^2 alone),
      ``best_n_bins_zeta`` (of zeta, eq. (10)), their log-log slopes
      ``slope_*``, and ``a3_regime_start`` (:func:`umb_a3_regime_start`);
    - ``undefined``: every entry that is NaN although the grid is valid, mapped
      to the reason.  ``coverage_where_theorem_applies`` is NaN when no cell of
      the grid meets the theorem's sample-size condition (a share of zero
      cells); an exponent or slope is NaN when its cells do not determine the
      fit (fewer points than coefficients, e.g. a single ``n``, or no cell with
      ``n/B >= 100``); ``best_n_bins_empirical`` is NaN (and the array float)
      for an ``n`` with no valid ``B``.  Empty for a grid on which everything
      is defined, such as the chapter's.

    The arrays ``cal_bound`` ... ``risk_bound`` and ``mean`` are also NaN
    wherever ``B > n/2`` (cells of no fit, listed by ``valid``, not here).
    Memoised, like :func:`umb_risk_grid`.
    """
    _check_grid(grid)
    delta = check_open_unit(delta, "delta")
    n, b, valid = grid["n"], grid["n_bins"], grid["valid"]
    scenario = GaussianMixture(grid["prior"], grid["mu"])
    k = scenario.smoothness_constant(tail_mass)
    nn, bb = np.broadcast_arrays(n[:, None], b[None, :])
    nan = np.full(nn.shape, np.nan)
    cal_bound, sha_a3 = nan.copy(), nan.copy()
    cal_bound[valid] = umb_calibration_bound(nn[valid], bb[valid], delta)
    sha_bound = np.where(valid, 2.0 / bb, np.nan)
    sha_a3[valid] = umb_sharpness_bound(bb[valid], k)
    sha_stated = np.fmin(sha_bound, sha_a3)
    risk_bound = cal_bound + sha_stated
    applies = valid & (nn >= umb_sample_size(bb, delta))
    mean = {key: grid[key].mean(axis=2) for key in RISK_TERMS}  # NaN exactly where B > n/2

    undefined = {}

    def fit(name: str, cells: str, response, *regressors):
        """:func:`loglog_fit`, recording in ``undefined`` why a fit is NaN."""
        coef = loglog_fit(response, *regressors)
        if np.isnan(coef).any():
            undefined[name] = (f"the fit over {cells} has {response.size} point(s) for {len(regressors) + 1} "
                               "coefficients (or regressors that do not vary): not determined")
        return coef

    cal_n, cal_b = fit("exponents cal_n, cal_B", "all valid cells", mean["cal"][valid], nn[valid], bb[valid])
    variance = _population_variance_factor(scenario, b)
    predicted = bb / nn * variance[None, :]
    cal_fits = []
    for per_bin in (2, 10, 100):
        cells = valid & (nn >= per_bin * bb)
        where = f"the cells with n/B >= {per_bin}"
        a_pool, b_pool = fit(f"cal_fits row n/B >= {per_bin}", where, mean["cal"][cells], nn[cells], bb[cells])
        a_bin, b_bin = loglog_fit(mean["cal_binwise"][cells], nn[cells], bb[cells])
        _, b_pred = loglog_fit(predicted[cells], nn[cells], bb[cells])
        cal_fits.append((per_bin, int(cells.sum()), a_pool, b_pool, a_bin, b_bin, b_pred))
    top = valid[-1]
    (sha_b,) = fit("exponents sha_B", "the valid B at the largest n", mean["sha"][-1, top], b[top])
    has_cell = valid.any(axis=1)
    best_per_n = np.argmin(np.where(valid, mean["risk"], np.inf), axis=1)
    empirical = b[best_per_n]
    if not has_cell.all():
        empirical = np.where(has_cell, empirical, np.nan)
        undefined["best_n_bins_empirical"] = (
            f"no B of the grid satisfies B <= n/2 for n = {', '.join(str(int(v)) for v in n[~has_cell])}")
    (risk_n,) = fit("exponents risk_n", "the n with a valid B", mean["risk"][has_cell, best_per_n[has_cell]], n[has_cell])
    best = {
        "empirical": empirical,
        "stated": theorem1_optimal_n_bins(n, delta, k),
        "a3": theorem1_optimal_n_bins(n, delta, k, a3_only=True),
        "zeta": optimal_n_bins(n, delta, k),
    }

    held = {
        "cal": grid["cal"] <= cal_bound[..., None],
        "sha": grid["sha"] <= sha_stated[..., None],
        "sha_binwise": grid["sha_binwise"] <= sha_stated[..., None],
        "risk": grid["risk"] <= risk_bound[..., None],
    }
    coverage = {key: float(h[valid].mean()) for key, h in held.items()}
    coverage_applies = {key: (float(h[applies].mean()) if applies.any() else np.nan) for key, h in held.items()}
    if not applies.any():
        undefined["coverage_where_theorem_applies"] = (
            "no (n, B) cell of the grid meets n >= c B log(2B/delta) (theorem_applies is False everywhere; "
            f"for B = {int(b.min())} it needs n >= {umb_sample_size(int(b.min()), delta):.3g}): a share of zero cells")
    slopes = {key: fit(f"slope_{key}", "the n with a valid B", val[has_cell].astype(float), n[has_cell])[0]
              for key, val in best.items()}
    return {
        "delta": delta,
        "smoothness": k,
        "cal_bound": cal_bound,
        "sha_bound": sha_bound,
        "sha_bound_a3": sha_a3,
        "risk_bound": risk_bound,
        "theorem_applies": applies,
        "mean": mean,
        "exponents": {"cal_n": cal_n, "cal_B": cal_b, "sha_B": sha_b, "risk_n": risk_n},
        "cal_fits": cal_fits,
        "variance_factor": variance,
        "coverage": coverage,
        "coverage_where_theorem_applies": coverage_applies,
        **{f"best_n_bins_{key}": val for key, val in best.items()},
        **{f"slope_{key}": val for key, val in slopes.items()},
        "a3_regime_start": umb_a3_regime_start(delta, k),
        "undefined": undefined,
    }


# ---------------------------------------------------------------------------
# Lemmas 3 and 4 by simulation (book ``lem-umb-balance``, ``lem-umb-means``)
# ---------------------------------------------------------------------------


def _statistics_sorted(scenario: GaussianMixture, x_sorted: np.ndarray, y_sorted: np.ndarray, n_bins: int) -> dict:
    """Bin statistics for rows of sorted logit forecasts ``x_sorted`` and their labels (see :func:`umb_bin_statistics`)."""
    n = x_sorted.shape[1]
    ranks = _uniform_mass_ranks(n, n_bins)
    inf = np.full((x_sorted.shape[0], 1), np.inf)
    x_edges = np.concatenate((-inf, x_sorted[:, ranks - 1], inf), axis=1)
    mass, joint1 = _bin_masses(scenario, x_edges[:, :-1], x_edges[:, 1:])
    counts = np.diff(np.concatenate(([0], ranks, [n])))
    ones_below = np.cumsum(y_sorted, axis=1, dtype=np.int64)[:, np.concatenate((ranks, [n])) - 1]
    ones = np.diff(ones_below, axis=1, prepend=0)
    return {
        "edges": expit(x_edges),
        "mass": mass,
        "theta": _bin_means(scenario, x_edges[:, :-1], x_edges[:, 1:], mass, joint1),
        "theta_hat": ones / counts,
        "counts": counts,
    }


def umb_bin_statistics(z, y, n_bins: int, prior: float = 0.5, mu: float = 2.0) -> dict:
    r"""Uniform-mass bins of each row of ``z`` (one sample per row) with population and empirical bin means.

    Returns ``edges`` (rows of :math:`u_0, \dots, u_B`, Definition 6),
    ``mass`` (:math:`P[Z \in I]`), ``theta`` (:math:`\theta_I = \mathbb E[Y \mid Z \in I]`,
    closed form under the mixture), ``theta_hat`` (eq. (9)) and ``counts``
    (points per bin, the same for every row).  ``z`` in (0, 1), shape
    ``(reps, n)`` with distinct entries per row; ``y`` labels of the same shape;
    ``mu`` in (0, 40] (beyond, the bin masses underflow).
    """
    z = np.atleast_2d(_real_values(z, "z"))
    y_raw = _array_of_any_shape(y, "y")
    y = np.atleast_2d(as_labels(y_raw.ravel(), "y").reshape(y_raw.shape))
    if z.ndim != 2 or y.shape != z.shape:
        raise ValueError(f"z and y must be 2-D arrays of the same shape, got {z.shape} and {y.shape}")
    as_probabilities(z.ravel(), "z", open_interval=True)
    n_bins = check_int(n_bins, "n_bins")
    scenario = _mixture(prior, mu)
    if z.shape[1] < 2 * n_bins:
        raise ValueError(f"each row of z must hold at least 2 * n_bins = {2 * n_bins} samples, got {z.shape[1]}")
    order = np.argsort(z, axis=1)
    z_sorted = np.take_along_axis(z, order, axis=1)
    if np.any(np.diff(z_sorted, axis=1) == 0):
        raise ValueError("each row of z must hold distinct forecasts (assumption (A1))")
    x_sorted = logit(z_sorted)
    if np.any(np.diff(x_sorted, axis=1) == 0):
        raise ValueError("z holds distinct forecasts whose logits are equal in float64 (neighbours far in a tail, such as "
                         "1e-300 and the next float up): the bins are computed on the logit scale")
    return _statistics_sorted(scenario, x_sorted, np.take_along_axis(y, order, axis=1), n_bins)


def umb_balance_probability_bounds(n: int, n_bins: int, gamma: float = 2.0) -> tuple[float, float]:
    r"""Exact bounds on :math:`P[\text{the uniform-mass bins are } \gamma\text{-well-balanced}]` under (A1).

    By the probability integral transform the bin masses are spacings of
    uniform order statistics: bin ``b`` has mass
    :math:`\mathrm{Beta}(m_b, n + 1 - m_b)` with :math:`m_b` its number of
    rank steps (the last bin one more).  Returns the Bonferroni lower bound
    :math:`1 - \sum_b P[\text{bin } b \text{ out}]` (clipped at 0) and the
    upper bound :math:`\min_b P[\text{bin } b \text{ in}]`; distribution-free.
    """
    n = check_int(n, "n", minimum=2)
    n_bins = check_int(n_bins, "n_bins")
    gamma = _check_gamma(gamma)
    if n < 2 * n_bins:
        raise ValueError(f"n must be at least 2 * n_bins = {2 * n_bins}, got {n}")
    steps = np.diff(np.concatenate(([0], _uniform_mass_ranks(n, n_bins), [n + 1])))
    law = beta_law(steps, n + 1 - steps)
    out = law.cdf(1.0 / (gamma * n_bins)) + law.sf(min(gamma / n_bins, 1.0))
    return float(max(0.0, 1.0 - out.sum())), float(max(0.0, np.min(1.0 - out)))


def umb_lemma_frequencies(
    n_values,
    n_bins: int,
    n_reps: int = 1000,
    delta: float = 0.1,
    gamma: float = 2.0,
    prior: float = 0.5,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""How often Lemma 3 (balance) and Lemma 4 (accurate means) hold, against what they promise.

    For each ``n``, ``n_reps`` samples of the mixture are drawn (in chunks, all
    rows at once); the forecasts are sorted and the labels drawn as
    :math:`Y \sim \mathrm{Bernoulli}(h^*(Z))`, which gives the same joint law.

    Returns a dict with ``n``, ``n_bins``, ``delta``, ``gamma`` and, per ``n``:
    ``balanced`` and ``max_deviation`` (shape ``(len(n), n_reps)``: whether every
    bin mass lies in :math:`[1/(\gamma B), \gamma/B]`, and
    :math:`\max_I|\hat\theta_I-\theta_I|`); ``radius`` (:math:`\Delta_\delta`,
    eq. (23)); ``balance_frequency``, ``approx_frequency`` (share of
    repetitions with ``max_deviation <= radius``) and their binomial standard
    errors ``balance_se``, ``approx_se``; ``balance_promise``
    (:math:`1 - B e^{-n/(c'B)}` with the paper's :math:`c'`, the largest
    probability Lemma 3 certifies at this ``n``, 0 when vacuous; NaN unless
    ``gamma == 2``); ``approx_promise`` (:math:`1-\delta`); and
    ``balance_bounds`` (:func:`umb_balance_probability_bounds`).
    """
    n_values = np.array(as_sizes(n_values, "n_values", minimum=2, scalar=True), dtype=np.int64)
    n_bins = check_int(n_bins, "n_bins")
    n_reps = check_int(n_reps, "n_reps")
    delta = check_open_unit(delta, "delta")
    gamma = _check_gamma(gamma)
    if np.any(n_values < 2 * n_bins):
        raise ValueError(f"n_values entries must be at least 2 * n_bins = {2 * n_bins} (Lemma 4)")
    _check_sample_sizes(n_values, "n_values")
    _check_cells(n_values.size * n_reps, n_reps)
    rng = as_rng(rng)
    scenario = GaussianMixture(prior, mu)
    balanced = np.zeros((n_values.size, n_reps), dtype=bool)
    deviation = np.zeros((n_values.size, n_reps))
    for i, n in enumerate(n_values):
        chunk = max(1, 2**21 // int(n))
        for start in range(0, n_reps, chunk):
            rows = min(chunk, n_reps - start)
            cls = rng.random((rows, n)) < prior
            x = np.sort(rng.standard_normal((rows, n)) + np.where(cls, mu, -mu), axis=1)
            y = rng.random((rows, n)) < scenario.posterior_x(x)
            s = _statistics_sorted(scenario, x, y, n_bins)
            balanced[i, start : start + rows] = np.all(
                (s["mass"] >= 1.0 / (gamma * n_bins)) & (s["mass"] <= gamma / n_bins), axis=1
            )
            deviation[i, start : start + rows] = np.max(np.abs(s["theta_hat"] - s["theta"]), axis=1)
    per_bin = n_values // n_bins
    radius = np.sqrt(np.log(2.0 * n_bins / delta) / (2.0 * (per_bin - 1))) + 1.0 / per_bin
    balance_freq = balanced.mean(axis=1)
    approx_freq = (deviation <= radius[:, None]).mean(axis=1)
    promise = np.maximum(0.0, 1.0 - n_bins * np.exp(-n_values / (LEMMA3_CONSTANT * n_bins)))
    return {
        "n": n_values,
        "n_bins": n_bins,
        "delta": delta,
        "gamma": gamma,
        "balanced": balanced,
        "max_deviation": deviation,
        "radius": radius,
        "balance_frequency": balance_freq,
        "balance_se": np.sqrt(balance_freq * (1.0 - balance_freq) / n_reps),
        "approx_frequency": approx_freq,
        "approx_se": np.sqrt(approx_freq * (1.0 - approx_freq) / n_reps),
        "balance_promise": promise if gamma == 2.0 else np.full(n_values.size, np.nan),
        "approx_promise": 1.0 - delta,
        "balance_bounds": np.array([umb_balance_probability_bounds(int(n), n_bins, gamma) for n in n_values]),
    }
