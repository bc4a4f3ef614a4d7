"""One driver per figure or table of the papers.

Each driver runs the simulation or computation at full scale (or at a scale
its arguments choose) and returns arrays or a table; it never plots.
Chapters plot the results, ``benchmarks/`` time them and ``tests/`` check them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.stats import binom

from . import prior as _prior
from ._checks import as_rng, check_int, check_open_unit
from .binning import UniformMassBinning, uniform_mass_grid
from .bounds import (
    composite_high_probability_bound,
    composite_risk_bound,
    optimal_n_bins,
    ratio_event_sample_sizes,
    theorem1_optimal_n_bins,
    umb_calibration_bound,
    umb_sample_size,
    umb_sharpness_bound,
)
from .labelshift import CompositeRecalibrator, cube_root_bins, fit_label_shift_estimators, prior_correction
from .metrics import mse_decomposition
from .scenarios import GaussianMixture, RatingScaleExample


def _loglog_fit(response: np.ndarray, *regressors: np.ndarray) -> np.ndarray:
    """Least-squares exponents of ``response ~ C * prod(regressor ** a)`` (returns the a's)."""
    design = np.column_stack([np.ones(response.size), *(np.log(x) for x in regressors)])
    return np.linalg.lstsq(design, np.log(response), rcond=None)[0][1:]


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
    axis), ``empirical`` of shape ``(len(n), n_reps, 5)``, ``exact`` of
    shape ``(5,)`` (population eq. (2), ``within_bin = 0``),
    ``mean_abs_error`` of shape ``(len(n), 5)`` (over repetitions) and
    ``slopes`` of shape ``(5,)``, the least-squares log-log slope of each
    term's mean absolute error against ``n``.
    """
    n_values = np.array([check_int(n, "n_values entries", minimum=2) for n in np.atleast_1d(n_values)])
    if np.unique(n_values).size < 2:
        raise ValueError("n_values must hold at least two distinct sample sizes (a rate is fitted across them)")
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
    error = np.abs(empirical - exact).mean(axis=1)
    slopes = np.array([_loglog_fit(error[:, k], n_values)[0] for k in range(exact.size)])
    return {
        "n": n_values,
        "n_bins": n_bins,
        "terms": DECOMPOSITION_TERMS,
        "empirical": empirical,
        "exact": exact,
        "mean_abs_error": error,
        "slopes": slopes,
    }

# ---------------------------------------------------------------------------
# Chapter 2 (paper 000, section 4 and Appendix E.1): Figures 1-2
# ---------------------------------------------------------------------------

#: Figure 1-2 grids of the paper (App. E.1): n from 1e2 to 1e7 and B from 6 to 1e3, log-spaced.
FIGURE1_N_VALUES = np.unique(np.round(np.logspace(2, 7, 11)).astype(np.int64))
FIGURE1_N_BINS = np.unique(np.round(np.geomspace(6, 1000, 24)).astype(np.int64))
RISK_TERMS = ("cal", "sha", "risk", "mse")


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
    :class:`~companion.scenarios.GaussianMixture`; all bin counts ``B <= n/2``
    are fitted from it at once (:func:`~companion.binning.uniform_mass_grid`)
    and their exact risks computed in one batch
    (:meth:`~companion.scenarios.GaussianMixture.population_risks_batch`).

    Returns
    -------
    dict with ``n`` and ``n_bins`` (the grids), ``valid`` (shape
    ``(len(n), len(n_bins))``, True where ``B <= n/2``), and ``cal``,
    ``sha``, ``risk``, ``mse`` of shape ``(len(n), len(n_bins), n_reps)``;
    cells with ``valid`` False hold NaN because Definition 6 needs two points
    per bin there.  Also ``prior`` and ``mu``.
    """
    n_values = np.array([check_int(n, "n_values entries", minimum=2) for n in np.atleast_1d(n_values)])
    n_bins_values = np.array([check_int(b, "n_bins_values entries", minimum=1) for b in np.atleast_1d(n_bins_values)])
    n_reps = check_int(n_reps, "n_reps", minimum=1)
    rng = as_rng(rng)
    scenario = GaussianMixture(prior, mu)
    valid = 2 * n_bins_values[None, :] <= n_values[:, None]
    if not np.any(valid):
        raise ValueError("n_values and n_bins_values leave no cell with n >= 2 * n_bins")
    out = {key: np.full((n_values.size, n_bins_values.size, n_reps), np.nan) for key in RISK_TERMS}
    for i, n in enumerate(n_values):
        bins = n_bins_values[valid[i]]
        if bins.size == 0:
            continue
        for r in range(n_reps):
            fits = uniform_mass_grid(*scenario.sample(int(n), rng), bins)
            risks = scenario.population_risks_batch(fits.edges, fits.values)
            for key in RISK_TERMS:
                out[key][i, valid[i], r] = risks[key]
    return {"n": n_values, "n_bins": n_bins_values, "valid": valid, "prior": prior, "mu": mu, **out}


def umb_figure_summary(grid: dict, delta: float = 0.1, tail_mass: float = 1e-12) -> dict:
    r"""Bounds, fitted rates, bound coverage and optimal bin counts for a :func:`umb_risk_grid` result.

    Returns a dict with

    - ``smoothness``: K of (A3) on the central ``1 - 2 tail_mass`` of the forecast law;
    - ``cal_bound`` (shape ``(len(n), len(n_bins))``), ``sha_bound`` (2/B),
      ``sha_bound_a3`` (8K^2/B^2), ``risk_bound`` (Theorem 1 with the smaller
      sharpness bound), all NaN where ``B > n/2``; ``theorem_applies``
      (``n >= c B log(2B/delta)`` with the paper's c);
    - ``exponents``: ``cal_n``, ``cal_B`` (fit of mean cal ~ n^a B^b over valid
      cells), ``sha_B`` (mean sha ~ B^c at the largest n), ``risk_n``;
    - ``coverage``: fraction of (n, B, repetition) cells where each bound held,
      overall and where the theorem applies;
    - ``best_n_bins_empirical`` (argmin over the B grid of the mean risk, per
      n), ``best_n_bins_theory`` (minimizer of the Theorem 1 bound with K, per
      n, over all integers), ``best_n_bins_zeta`` (minimizer of zeta), and the
      log-log slopes ``slope_empirical``, ``slope_theory``, ``slope_zeta``.
    """
    n, b, valid = grid["n"], grid["n_bins"], grid["valid"]
    delta = check_open_unit(delta, "delta")
    k = GaussianMixture(grid["prior"], grid["mu"]).smoothness_constant(tail_mass)
    nn, bb = np.broadcast_arrays(n[:, None], b[None, :])
    nan = np.full(nn.shape, np.nan)
    cal_bound, sha_a3 = nan.copy(), nan.copy()
    cal_bound[valid] = umb_calibration_bound(nn[valid], bb[valid], delta)
    sha_bound = np.where(valid, 2.0 / bb, np.nan)
    sha_a3[valid] = umb_sharpness_bound(bb[valid], k)
    risk_bound = cal_bound + np.fmin(sha_bound, sha_a3)
    applies = valid & (nn >= umb_sample_size(bb, delta))
    mean = {key: grid[key].mean(axis=2) for key in RISK_TERMS}  # NaN exactly where B > n/2

    cal_n, cal_b = _loglog_fit(mean["cal"][valid], nn[valid], bb[valid])
    top = valid[-1]
    (sha_b,) = _loglog_fit(mean["sha"][-1, top], b[top])
    best_per_n = np.nanargmin(np.where(valid, mean["risk"], np.nan), axis=1)
    risk_at_best = mean["risk"][np.arange(n.size), best_per_n]
    (risk_n,) = _loglog_fit(risk_at_best, n)
    best_emp = b[best_per_n]
    best_theory = theorem1_optimal_n_bins(n, delta, k)
    best_zeta = optimal_n_bins(n, delta, k)

    held = {
        "cal": grid["cal"] <= cal_bound[..., None],
        "sha": grid["sha"] <= np.fmin(sha_bound, sha_a3)[..., None],
        "risk": grid["risk"] <= risk_bound[..., None],
    }
    coverage = {key: float(h[valid].mean()) for key, h in held.items()}
    coverage_applies = {key: (float(h[applies].mean()) if applies.any() else np.nan) for key, h in held.items()}
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
        "coverage": coverage,
        "coverage_where_theorem_applies": coverage_applies,
        "best_n_bins_empirical": best_emp,
        "best_n_bins_theory": best_theory,
        "best_n_bins_zeta": best_zeta,
        "slope_empirical": _loglog_fit(best_emp.astype(float), n)[0],
        "slope_theory": _loglog_fit(best_theory.astype(float), n)[0],
        "slope_zeta": _loglog_fit(best_zeta.astype(float), n)[0],
    }

# ---------------------------------------------------------------------------
# Chapter 5 (paper 000, section 5 and Appendix E.2): Table 1, Figure 4
# ---------------------------------------------------------------------------

#: Estimators of the paper's Table 1, in its row order.
LABEL_SHIFT_METHODS = ("source", "target", "label_shift", "composite")
#: Risk terms of Table 1 (Definitions 3-5 and the MSE), in its column order.
LABEL_SHIFT_TERMS = ("cal", "sha", "risk", "mse")

#: Table 1 of paper 000 as read from the text extraction: method -> {term: (mean, sd)}.
#: The OCR turned every "±" into "4", "+" or "-+" (e.g. "0.01640.005"); read as mean ± sd.
SUN_TABLE1_PAPER = {
    "source": {"cal": (0.016, 0.005), "sha": (0.0032, 0.0014), "risk": (0.019, 0.006), "mse": (0.029, 0.006)},
    "target": {"cal": (0.0020, 0.0025), "sha": (0.049, 0.006), "risk": (0.051, 0.006), "mse": (0.060, 0.006)},
    "label_shift": {"cal": (0.026, 0.006), "sha": (0.0, 0.0), "risk": (0.026, 0.006), "mse": (0.035, 0.006)},
    "composite": {"cal": (0.00019, 0.00017), "sha": (0.0032, 0.0014), "risk": (0.0034, 0.0013), "mse": (0.0127, 0.0013)},
}

_MAX_REDRAWS = 10_000


def _labelled_sample(scenario: GaussianMixture, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """Draw ``n`` pairs holding both classes (assumption (B2) for the empirical weights).

    Returns the sample and the number of discarded draws; conditioning on
    both classes being present is what makes eq. (16) defined.
    """
    for redraws in range(_MAX_REDRAWS):
        z, y = scenario.sample(n, rng)
        if 0 < y.sum() < n:
            return z, y, redraws
    raise ValueError(
        f"no sample of size {n} with both classes in {_MAX_REDRAWS} draws at prior {scenario.prior}: "
        "the sample is too small for this prior"
    )


def label_shift_risks(
    n_source: int = 10**3,
    n_target: int = 10**2,
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    n_reps: int = 10,
    mu: float = 2.0,
    rng=0,
    n_bins_source: int | None = None,
    n_bins_target: int | None = None,
) -> dict:
    r"""Target-population risks of the four estimators of Table 1 over ``n_reps`` realizations.

    Each realization draws a source sample of size ``n_source`` from
    :math:`D(\text{source\_prior})` and a target sample of size ``n_target``
    from :math:`D(\text{target\_prior})`, fits SOURCE, TARGET, LABEL-SHIFT
    and COMPOSITE (:func:`~companion.labelshift.fit_label_shift_estimators`)
    and evaluates their exact risks under the target mixture.  A draw missing
    a class is replaced (counted in ``n_redrawn``).  Bins default to
    :math:`\lfloor n^{1/3}\rfloor` (:func:`~companion.labelshift.cube_root_bins`).

    Returns
    -------
    dict with ``methods``, ``terms``, ``values`` of shape ``(n_reps, 4, 4)``
    (realization, method, term), ``n_bins`` (source, target),
    ``priors_hat`` of shape ``(n_reps, 2)`` and ``n_redrawn``.
    """
    n_source = check_int(n_source, "n_source", minimum=2)
    n_target = check_int(n_target, "n_target", minimum=2)
    n_reps = check_int(n_reps, "n_reps")
    rng = as_rng(rng)
    source, target = GaussianMixture(source_prior, mu), GaussianMixture(target_prior, mu)
    edges, values, priors_hat, n_redrawn = [], [], np.empty((n_reps, 2)), 0
    for r in range(n_reps):
        z_s, y_s, k_s = _labelled_sample(source, n_source, rng)
        z_t, y_t, k_t = _labelled_sample(target, n_target, rng)
        n_redrawn += k_s + k_t
        est = fit_label_shift_estimators(z_s, y_s, z_t, y_t, n_bins_source, n_bins_target)
        for model in (est.source, est.target, est.composite):
            edges.append(model.edges_)
            values.append(model.values_)
        priors_hat[r] = est.composite.source_prior_, est.composite.target_prior_
    binned = target.population_risks_batch(edges, values)
    out = np.empty((n_reps, len(LABEL_SHIFT_METHODS), len(LABEL_SHIFT_TERMS)))
    for j, term in enumerate(LABEL_SHIFT_TERMS):
        out[:, [0, 1, 3], j] = binned[term].reshape(n_reps, 3)
    corrected = target.population_risks_of_map(lambda z: prior_correction(z, priors_hat[:, :1], priors_hat[:, 1:]))
    out[:, 2] = np.stack([corrected[t] for t in LABEL_SHIFT_TERMS], axis=-1)
    return {
        "methods": LABEL_SHIFT_METHODS,
        "terms": LABEL_SHIFT_TERMS,
        "values": out,
        "n_bins": (est.source.n_bins, est.target.n_bins),
        "priors_hat": priors_hat,
        "n_redrawn": n_redrawn,
    }


def sun_table1(n_reps_values=(10, 1000), n_bins_source_values=(10, 9), rng=0) -> dict:
    r"""Table 1 of paper 000: mean and standard deviation of the target risks.

    Setting: :math:`D(0.5) \to D(0.1)`, :math:`n_P = 10^3`, :math:`n_Q = 10^2`,
    4 target bins.  One block per pair of source bin count (10 is
    :math:`\lfloor 1000^{1/3}\rfloor`; 9 is what ``int(1000 ** (1 / 3))``
    gives in floating point) and number of realizations (the paper uses 10;
    1000 resolve the means).  Standard deviations use ``ddof=1``.

    Returns
    -------
    dict ``(n_bins_source, n_reps) -> {"mean": (4, 4), "sd": (4, 4), "n_redrawn": int}``
    with rows :data:`LABEL_SHIFT_METHODS` and columns :data:`LABEL_SHIFT_TERMS`.
    """
    rng = as_rng(rng)
    table = {}
    for n_bins in n_bins_source_values:
        for n_reps in n_reps_values:
            run = label_shift_risks(n_reps=n_reps, rng=rng, n_bins_source=n_bins)
            v = run["values"]
            stats = {"mean": v.mean(axis=0), "sd": v.std(axis=0, ddof=1), "n_redrawn": run["n_redrawn"]}
            table[(int(n_bins), int(n_reps))] = stats
    return table


def label_shift_curves(
    n_source: int = 10**3,
    n_target: int = 10**2,
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    mu: float = 2.0,
    n_grid: int = 1001,
    rng=0,
) -> dict:
    r"""Figure 4 of paper 000: one realization of the four recalibration maps, and the target density of Z.

    Returns ``z`` (grid on [0, 1]), ``h_star`` (:math:`h^*_Q`), ``curves``
    (method -> values on the grid), ``density`` (target density of Z),
    ``source_density`` and ``priors_hat`` (:math:`\hat p_1, \hat q_1`).
    """
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    rng = as_rng(rng)
    source, target = GaussianMixture(source_prior, mu), GaussianMixture(target_prior, mu)
    z_s, y_s, _ = _labelled_sample(source, n_source, rng)
    z_t, y_t, _ = _labelled_sample(target, n_target, rng)
    est = fit_label_shift_estimators(z_s, y_s, z_t, y_t)
    z = np.linspace(0.0, 1.0, n_grid)
    curves = {
        "source": est.source.predict(z),
        "target": est.target.predict(z),
        "label_shift": est.label_shift(z),
        "composite": est.composite.predict(z),
    }
    return {
        "z": z,
        "h_star": target.h_star(z),
        "curves": curves,
        "density": target.forecast_density(z),
        "source_density": source.forecast_density(z),
        "priors_hat": (est.composite.source_prior_, est.composite.target_prior_),
    }


def _oracle_composite_risk(source: GaussianMixture, target: GaussianMixture, n_target: int) -> float:
    r"""Exact :math:`\mathbb E\,R_Q(\hat g \circ h^*_P)` over :math:`n_Q\hat q_1 \sim \mathrm{Bin}(n_Q, q_1)`.

    The source side is exact (:math:`n_P = \infty`: :math:`h^*_P` and
    :math:`p_1` known), so only the target labels vary.  Conditioned on both
    classes being present; binomial counts with probability below 1e-15 in
    either tail are left out (their total weight is below 2e-15).
    """
    q = target.prior
    lo = max(1, int(binom.ppf(1e-15, n_target, q)))
    hi = min(n_target - 1, int(binom.isf(1e-15, n_target, q)))
    k = np.arange(lo, hi + 1)
    pmf = binom.pmf(k, n_target, q)
    q_hat = (k / n_target)[:, None]
    risks = target.population_risks_of_map(lambda z: prior_correction(source.h_star(z), source.prior, q_hat))["risk"]
    return float(pmf @ risks / pmf.sum())


def target_sample_complexity(
    n_target_values=(10**2, 3 * 10**2, 10**3, 3 * 10**3, 10**4, 3 * 10**4, 10**5),
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    n_source: int = 10**5,
    n_reps: int = 20,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""Remark 4: target risk against :math:`n_Q` for COMPOSITE and TARGET, with fitted log-log slopes.

    * ``composite_oracle``: the exact mean risk of :math:`\hat g\circ h^*_P`
      (the :math:`n_P \to \infty` limit of the composite, where only
      :math:`n_Q` matters; Theorem 2 predicts :math:`O(n_Q^{-1})`);
    * ``composite``: Monte Carlo mean risk of the composite with a finite
      source sample of size ``n_source`` (one source fit per realization,
      reused across :math:`n_Q`: it levels off at the source error);
    * ``target``: Monte Carlo mean risk of UMB on the target sample with
      :math:`\lfloor n_Q^{1/3}\rfloor` bins (eq. (11): :math:`O(n_Q^{-2/3})`).

    ``slopes`` holds the least-squares slopes of log mean risk on
    :math:`\log n_Q` for ``composite_oracle`` and ``target``; the sample
    size needed for risk :math:`\varepsilon` then grows like
    :math:`\varepsilon^{1/\text{slope}}` (Remark 4: exponents -1 and -3/2).
    """
    n_target_values = np.array([check_int(n, "n_target_values entries", minimum=2) for n in np.atleast_1d(n_target_values)])
    n_reps = check_int(n_reps, "n_reps")
    rng = as_rng(rng)
    source, target = GaussianMixture(source_prior, mu), GaussianMixture(target_prior, mu)
    oracle = np.array([_oracle_composite_risk(source, target, int(n)) for n in n_target_values])
    edges, values = [], []
    for _ in range(n_reps):
        z_s, y_s, _ = _labelled_sample(source, n_source, rng)
        for n in n_target_values:
            z_t, y_t, _ = _labelled_sample(target, int(n), rng)
            composite = CompositeRecalibrator().fit(z_s, y_s, y_t)
            target_fit = UniformMassBinning(cube_root_bins(int(n))).fit(z_t, y_t)
            edges += [composite.edges_, target_fit.edges_]
            values += [composite.values_, target_fit.values_]
    risks = target.population_risks_batch(edges, values)["risk"].reshape(n_reps, n_target_values.size, 2).mean(axis=0)
    mean = {"composite_oracle": oracle, "composite": risks[:, 0], "target": risks[:, 1]}
    log_n = np.log(n_target_values)
    slopes = {name: float(np.polyfit(log_n, np.log(mean[name]), 1)[0]) for name in ("composite_oracle", "target")}
    return {"n_target": n_target_values, "mean_risk": mean, "slopes": slopes, "n_source": n_source}


def label_shift_grid(
    target_priors=(0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5),
    n_source_values=(10**3, 10**4, 10**5),
    n_target_values=(10**2, 10**3, 10**4),
    n_reps: int = 20,
    source_prior: float = 0.5,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""The grid of Appendix E.2: mean target risks of the four estimators.

    Returns ``values`` of shape ``(priors, n_source, n_target, 4, 4)``
    (means over ``n_reps`` realizations of :func:`label_shift_risks`; last
    axes method and term) and ``n_redrawn`` of shape ``(priors, n_source, n_target)``.
    """
    rng = as_rng(rng)
    shape = (len(target_priors), len(n_source_values), len(n_target_values))
    values = np.empty(shape + (len(LABEL_SHIFT_METHODS), len(LABEL_SHIFT_TERMS)))
    n_redrawn = np.zeros(shape, dtype=np.int64)
    for i, q in enumerate(target_priors):
        for j, n_p in enumerate(n_source_values):
            for k, n_q in enumerate(n_target_values):
                run = label_shift_risks(n_p, n_q, source_prior, q, n_reps, mu, rng)
                values[i, j, k] = run["values"].mean(axis=0)
                n_redrawn[i, j, k] = run["n_redrawn"]
    return {
        "target_priors": np.asarray(target_priors, dtype=float),
        "n_source": np.asarray(n_source_values),
        "n_target": np.asarray(n_target_values),
        "methods": LABEL_SHIFT_METHODS,
        "terms": LABEL_SHIFT_TERMS,
        "values": values,
        "n_redrawn": n_redrawn,
    }


def theorem2_check(
    n_source: int = 10**4,
    n_target: int = 10**4,
    source_prior: float = 0.5,
    target_prior: float = 0.3,
    delta: float = 0.1,
    n_reps: int = 200,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""Monte Carlo check of Theorem 2: realized composite risks against (18) and (19).

    Returns per-realization arrays ``risk`` (:math:`R_Q(\hat g\circ\hat h_P)`),
    ``source_risk`` (:math:`R_P(\hat h_P)`), ``deterministic_bound`` (eq. (18))
    and the scalar ``high_probability_bound`` (eq. (19), without (A3)), plus
    ``n_bins``.  Bound (18) must hold in every realization, (19) in at least
    a fraction :math:`1-\delta` of them.
    """
    n_reps = check_int(n_reps, "n_reps")
    rng = as_rng(rng)
    n_bins = cube_root_bins(n_source)
    bound19 = composite_high_probability_bound(n_source, n_target, n_bins, source_prior, target_prior, delta)
    source, target = GaussianMixture(source_prior, mu), GaussianMixture(target_prior, mu)
    fits = []
    for _ in range(n_reps):
        z_s, y_s, _ = _labelled_sample(source, n_source, rng)
        _, y_t, _ = _labelled_sample(target, n_target, rng)
        fits.append(CompositeRecalibrator(n_bins).fit(z_s, y_s, y_t))
    risk = target.population_risks_batch([m.edges_ for m in fits], [m.values_ for m in fits])["risk"]
    source_risk = source.population_risks_batch([m.edges_ for m in fits], [m.binning_.values_ for m in fits])["risk"]
    bound18 = np.array(
        [
            composite_risk_bound(float(r), source_prior, target_prior, m.source_prior_, m.target_prior_)
            for r, m in zip(source_risk, fits)
        ]
    )
    return {
        "risk": risk,
        "source_risk": source_risk,
        "deterministic_bound": bound18,
        "high_probability_bound": bound19,
        "n_bins": n_bins,
    }


def ratio_event_frequency(
    beta: float = 1.5,
    delta: float = 0.1,
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    n_reps: int = 100_000,
    rng=0,
) -> dict:
    r"""Monte Carlo frequency of the ratio event of Corollary 9 at the sample sizes it prescribes.

    Only class counts matter, so each realization draws two binomial counts.
    Returns ``n_source``, ``n_target`` (Corollary 9, rounded up), the
    observed ``frequency`` of :math:`\{1/\beta \le \hat w_k/w^*_k \le \beta,\ k=0,1\}`
    and the promised ``1 - delta``.
    """
    n_reps = check_int(n_reps, "n_reps")
    rng = as_rng(rng)
    n_p, n_q = (int(np.ceil(n)) for n in ratio_event_sample_sizes(beta, delta, source_prior, target_prior))
    p_hat = rng.binomial(n_p, source_prior, n_reps) / n_p
    q_hat = rng.binomial(n_q, target_prior, n_reps) / n_q
    with np.errstate(divide="ignore", invalid="ignore"):  # an absent class gives rho = 0 or inf: outside the event
        rho1 = (q_hat / p_hat) / (target_prior / source_prior)
        rho0 = ((1 - q_hat) / (1 - p_hat)) / ((1 - target_prior) / (1 - source_prior))
    rho = np.stack([rho0, rho1])
    inside = np.all((rho >= 1.0 / beta) & (rho <= beta), axis=0)
    return {"n_source": n_p, "n_target": n_q, "frequency": float(inside.mean()), "promised": 1.0 - delta}


# ---------------------------------------------------------------------------
# Chapter 8 (paper 003): Table 1, Figures 1-2
# ---------------------------------------------------------------------------

#: Table 1 of paper 003 as printed: method -> (mean(probs), AUC, mean(sqrt(probs))).
TASCHE_TABLE1_PAPER = {
    "Source": (0.010, 0.802, 0.084),
    "Capped scaling": (0.050, 0.950, 0.132),
    "Label shift": (0.060, 0.930, 0.160),
    "FJS": (0.050, 0.932, 0.142),
    "Platt scaling": (0.050, 0.802, 0.179),
    "ROC QMM": (0.049, 0.799, 0.191),
    "2-param QMM": (0.050, 0.802, 0.191),
    "Logistic CSPD": (0.050, 0.803, 0.192),
    "Normal CSPD": (0.050, 0.802, 0.192),
}


class Table1Row(NamedTuple):
    """One row of Table 1 of paper 003: the three characteristics of a posterior under its distribution."""

    method: str
    mean: float
    auc: float
    mean_sqrt: float


def tasche_recalibrations(example: RatingScaleExample | None = None) -> dict:
    """The eight target posteriors of section 5 (Figure 2), as :class:`~companion.prior.Recalibrated` by method name.

    The QMM methods preserve the source AUC, implied by the source posteriors
    under the source masses (eq. (13)).
    """
    ex = RatingScaleExample() if example is None else example
    if not isinstance(ex, RatingScaleExample):
        raise ValueError(f"example must be a RatingScaleExample, got {type(ex).__name__}")
    return _recalibrate(ex.source_posteriors, ex.target_masses, ex)


def _recalibrate(eta: np.ndarray, f: np.ndarray, ex: RatingScaleExample) -> dict:
    """The eight methods for source posteriors ``eta`` on grades with target masses ``f``."""
    p, q = ex.source_prior, ex.target_prior
    auc = _prior.implied_auc(ex.source_posteriors, ex.source_masses)
    return {
        "Capped scaling": _prior.capped_scaling(eta, f, q),
        "Label shift": _prior.label_shift(eta, p, q),
        "FJS": _prior.fjs(eta, f, p, q),
        "Platt scaling": _prior.platt(eta, f, q, auc),
        "ROC QMM": _prior.roc_qmm(f, q, auc),
        "2-param QMM": _prior.two_param_qmm(f, q, auc),
        "Logistic CSPD": _prior.cspd(eta, f, q, auc, link="logistic"),
        "Normal CSPD": _prior.cspd(eta, f, q, auc, link="normal"),
    }


def _table1_row(method: str, posteriors: np.ndarray, masses: np.ndarray) -> Table1Row:
    return Table1Row(method, float(masses @ posteriors), _prior.implied_auc(posteriors, masses),
                     float(masses @ np.sqrt(posteriors)))


def tasche_table1(example: RatingScaleExample | None = None) -> list[Table1Row]:
    """Table 1 of paper 003: mean, implied AUC (13) and mean square root of every posterior.

    The first row is the source posterior under the source masses; the other
    eight are the target posteriors of :func:`tasche_recalibrations` under the
    target masses.
    """
    ex = RatingScaleExample() if example is None else example
    fits = tasche_recalibrations(ex)
    rows = [_table1_row("Source", ex.source_posteriors, ex.source_masses)]
    rows += [_table1_row(name, fit.posteriors, ex.target_masses) for name, fit in fits.items()]
    return rows


def tasche_figure1(example: RatingScaleExample | None = None) -> dict:
    """Figure 1 of paper 003: grades with their source and target masses."""
    ex = RatingScaleExample() if example is None else example
    return {"scores": ex.scores, "source": ex.source_masses, "target": ex.target_masses}


def tasche_figure2(example: RatingScaleExample | None = None) -> dict:
    """Figure 2 of paper 003: grades, the source posterior and the eight target posteriors (by method)."""
    ex = RatingScaleExample() if example is None else example
    fits = tasche_recalibrations(ex)
    return {"scores": ex.scores, "source": ex.source_posteriors,
            "target": {name: fit.posteriors for name, fit in fits.items()}}


def roc_qmm_convergence(
    cases=((0.8017, 0.01), (0.8017, 0.05), (0.8017, 0.3), (0.95, 0.5), (0.99, 0.7)),
    literal_priors=(0.002, 0.005, 0.01, 0.015, 0.02, 0.05),
    tol: float = 1e-12,
    max_iter: int = 5000,
    example: RatingScaleExample | None = None,
) -> dict:
    """Convergence of the ROC-QMM fixed-point iteration (11b) on the target masses of section 5.

    ``cases`` are (AUC, target prior) pairs run with normalized iterates and
    tolerance ``tol`` (keep it above the rounding floor, about 1e-12 for high AUC);
    the result ``changes`` maps each pair to the sup-norm change per iteration.
    ``literal`` maps each prior in ``literal_priors`` (at the source AUC) to the
    outcome of the iteration as (11b) is written, without normalization: the
    number of iterations, or the error message when it fails.
    """
    ex = RatingScaleExample() if example is None else example
    f = ex.target_masses
    source_auc = _prior.implied_auc(ex.source_posteriors, ex.source_masses)
    changes = {
        (auc, q): _prior.roc_qmm(f, q, auc, tol=tol, max_iter=max_iter).params["changes"] for auc, q in cases
    }
    literal = {}
    for q in literal_priors:
        try:
            literal[q] = len(
                _prior.roc_qmm(f, q, source_auc, normalize=False, tol=tol, max_iter=max_iter).params["changes"]
            )
        except _prior.ConvergenceError as err:
            literal[q] = str(err)
    return {"changes": changes, "literal": literal, "source_auc": source_auc}


def remark1_quantification(
    true_priors=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2), example: RatingScaleExample | None = None
) -> dict:
    """Remark 1: one-parameter CSPD estimates of the target prior.

    For each ``q`` in ``true_priors`` the target is the label-shift mixture (5)
    of the source class-conditional masses (so the true prior is known); the
    estimates use the source AUC.  Also returns the estimates for the section 5
    target, whose prior the model does not fix.
    """
    ex = RatingScaleExample() if example is None else example
    eta = ex.source_posteriors
    auc = _prior.implied_auc(eta, ex.source_masses)
    links = ("logistic", "normal")
    estimates = {
        link: np.array([_prior.cspd_quantify(eta, ex.label_shift_target_masses(q), auc, link).params["prior_estimate"]
                        for q in true_priors])
        for link in links
    }
    vasicek = {link: _prior.cspd_quantify(eta, ex.target_masses, auc, link).params["prior_estimate"] for link in links}
    return {"true_priors": np.asarray(true_priors, dtype=float), "estimates": estimates, "vasicek_target": vasicek}


def sampled_table1(
    n_values=(100, 1_000, 10_000), n_reps: int = 20, rng=0, example: RatingScaleExample | None = None
) -> dict:
    """Table 1's last column when the target law is only known through a sample of grades.

    For each ``n`` and repetition, draw ``n`` target grades
    (:meth:`~companion.scenarios.RatingScaleExample.sample_target`), take their
    empirical distribution (:func:`~companion.prior.empirical_distribution`), run
    the eight methods on it and record the mean square root of each target
    posterior.  Returns ``n``, ``methods``, ``mean_sqrt`` of shape
    ``(len(n), n_reps, 8)`` and the population values ``exact`` of shape ``(8,)``.
    """
    ex = RatingScaleExample() if example is None else example
    n_values = np.array([check_int(n, "n_values entries", minimum=2) for n in np.atleast_1d(n_values)])
    n_reps = check_int(n_reps, "n_reps", minimum=1)
    rng = as_rng(rng)
    exact_rows = tasche_table1(ex)[1:]
    methods = tuple(r.method for r in exact_rows)
    mean_sqrt = np.empty((n_values.size, n_reps, len(methods)))
    for i, n in enumerate(n_values):
        for r in range(n_reps):
            grades, masses = _prior.empirical_distribution(ex.sample_target(int(n), rng))
            fits = _recalibrate(ex.source_posteriors[grades.astype(int)], masses, ex)
            mean_sqrt[i, r] = [masses @ np.sqrt(fits[m].posteriors) for m in methods]
    return {"n": n_values, "methods": methods, "mean_sqrt": mean_sqrt,
            "exact": np.array([r.mean_sqrt for r in exact_rows])}
