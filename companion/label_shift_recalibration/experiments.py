"""Drivers for recalibration under label shift (paper 000, section 5 and Appendix E.2): Table 1, Figure 4, Remark 4, Theorem 2, Corollary 9.

Book labels: ``fig-ls-figure4``, ``fig-ls-remark4``, ``fig-ls-grid``,
``thm-ls-composite``, ``cor-ls-ratio``, ``rem-ls-sample-complexity`` in the
chapter ``chap-label-shift-recalibration``.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binom

from .._checks import (
    MAX_INT,
    as_probabilities,
    as_rng,
    as_sizes,
    check_both_classes,
    check_int,
    check_open_unit,
    check_positive,
)
from .._memo import memoised
from ..calibration_sharpness import UniformMassBinning
from ..scenarios import GaussianMixture
from .bounds import composite_high_probability_bound, composite_risk_bound, ratio_event_sample_sizes
from .recalibration import CompositeRecalibrator, cube_root_bins, fit_label_shift_estimators, prior_correction

__all__ = [
    "LABEL_SHIFT_METHODS",
    "LABEL_SHIFT_TERMS",
    "SUN_TABLE1_PAPER",
    "label_shift_risks",
    "sun_table1",
    "label_shift_curves",
    "target_sample_complexity",
    "label_shift_grid",
    "theorem2_check",
    "ratio_event_frequency",
]


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


#: Largest sample size (and grid size) a driver draws, and the largest number of realizations
#: (or bootstrap resamples): both are checked before anything is allocated.
_MAX_SAMPLE = 10**8


_MAX_REPS = 10**6


def _check_sizes(values, name: str, maximum: int = _MAX_SAMPLE) -> list[int]:
    """Sizes (at least 2) from ``as_sizes``, each at most ``maximum`` (a ValueError naming ``name``)."""
    sizes = as_sizes(values, name, minimum=2)
    if max(sizes) > maximum:
        raise ValueError(f"{name} entries must be at most {maximum}, got {max(sizes)}")
    return sizes


def _check_bins(n_bins, name: str) -> int | None:
    """An optional bin count: None (the cube-root default) or an integer >= 1, checked under ``name``."""
    return None if n_bins is None else check_int(n_bins, name)


def _check_both_classes(prior: float, n: int, prior_name: str, size_name: str) -> None:
    """:func:`~companion._checks.check_both_classes` for the :data:`_MAX_REDRAWS` draws of :func:`_labelled_sample`."""
    check_both_classes(prior, n, prior_name, size_name, draws=_MAX_REDRAWS)


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
    and COMPOSITE (:func:`~companion.label_shift_recalibration.fit_label_shift_estimators`)
    and evaluates their exact risks under the target mixture.  A draw missing
    a class is replaced (counted in ``n_redrawn``); a prior and size whose
    samples so rarely hold both classes that the redraws could all fail are
    refused (:func:`_check_both_classes`; the same rule in every driver here).  Bins default to
    :math:`\lfloor n^{1/3}\rfloor` (:func:`~companion.label_shift_recalibration.cube_root_bins`).

    Returns
    -------
    dict with ``methods``, ``terms``, ``values`` of shape ``(n_reps, 4, 4)``
    (realization, method, term), ``n_bins`` (source, target),
    ``priors_hat`` of shape ``(n_reps, 2)`` and ``n_redrawn``.
    """
    n_source = check_int(n_source, "n_source", minimum=2, maximum=_MAX_SAMPLE)
    n_target = check_int(n_target, "n_target", minimum=2, maximum=_MAX_SAMPLE)
    source_prior = check_open_unit(source_prior, "source_prior")
    target_prior = check_open_unit(target_prior, "target_prior")
    n_reps = check_int(n_reps, "n_reps", maximum=_MAX_REPS)
    mu = check_positive(mu, "mu")
    rng = as_rng(rng)
    n_bins_source = _check_bins(n_bins_source, "n_bins_source")
    n_bins_target = _check_bins(n_bins_target, "n_bins_target")
    _check_both_classes(source_prior, n_source, "source_prior", "n_source")
    _check_both_classes(target_prior, n_target, "target_prior", "n_target")
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
    n_reps_values = _check_sizes(n_reps_values, "n_reps_values", _MAX_REPS)
    n_bins_source_values = as_sizes(n_bins_source_values, "n_bins_source_values")
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
    n_source = check_int(n_source, "n_source", minimum=2, maximum=_MAX_SAMPLE)
    n_target = check_int(n_target, "n_target", minimum=2, maximum=_MAX_SAMPLE)
    source_prior = check_open_unit(source_prior, "source_prior")
    target_prior = check_open_unit(target_prior, "target_prior")
    mu = check_positive(mu, "mu")
    n_grid = check_int(n_grid, "n_grid", minimum=2, maximum=_MAX_SAMPLE)
    rng = as_rng(rng)
    _check_both_classes(source_prior, n_source, "source_prior", "n_source")
    _check_both_classes(target_prior, n_target, "target_prior", "n_target")
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


@memoised
def target_sample_complexity(
    n_target_values=(10**2, 3 * 10**2, 10**3, 3 * 10**3, 10**4, 3 * 10**4, 10**5),
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    n_source: int = 10**5,
    n_reps: int = 20,
    mu: float = 2.0,
    rng=0,
    n_boot: int = 2000,
    level: float = 0.95,
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

    ``slopes`` and ``intercepts`` hold the least-squares line
    :math:`\log \bar R = a + s \log n_Q` of log mean risk on :math:`\log n_Q`
    for ``composite_oracle`` and ``target``; the target sample size at which
    the fitted mean risk equals :math:`\varepsilon` is
    :math:`\exp((\log\varepsilon - a)/s)`, of order :math:`\varepsilon^{1/s}`
    (the bounds of Remark 4 give exponents -1 and -3/2; book:
    ``rem-ls-sample-complexity``, ``fig-ls-remark4``).

    ``risk_reps`` holds the risks of every realization (shape
    ``(n_reps, len(n_target_values))``) for ``composite`` and ``target``, and
    ``exponent_interval["target"]`` the percentile bootstrap interval, at
    level ``level``, of the fitted exponent :math:`1/s` of TARGET: the
    realizations are resampled with replacement ``n_boot`` times, the mean
    risks and the line refitted. It measures the Monte Carlo error of the
    exponent for the fixed grid of :math:`n_Q`, not the error of the power
    law itself.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result.
    """
    n_target_values = np.array(_check_sizes(n_target_values, "n_target_values"))
    if n_target_values.size < 2:
        raise ValueError("n_target_values must hold at least two sample sizes (a line is fitted through them)")
    n_reps = check_int(n_reps, "n_reps", minimum=2, maximum=_MAX_REPS)
    n_boot = check_int(n_boot, "n_boot", maximum=_MAX_REPS)
    if n_boot * n_reps > 10 * _MAX_REPS:
        raise ValueError(f"n_boot * n_reps must be at most {10 * _MAX_REPS} (the bootstrap index array), got {n_boot * n_reps}")
    n_source = check_int(n_source, "n_source", minimum=2, maximum=_MAX_SAMPLE)
    source_prior = check_open_unit(source_prior, "source_prior")
    target_prior = check_open_unit(target_prior, "target_prior")
    mu = check_positive(mu, "mu")
    level = check_open_unit(level, "level")
    rng = as_rng(rng)
    _check_both_classes(source_prior, n_source, "source_prior", "n_source")
    _check_both_classes(target_prior, int(n_target_values.min()), "target_prior", "n_target_values")
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
    reps = target.population_risks_batch(edges, values)["risk"].reshape(n_reps, n_target_values.size, 2)
    risks = reps.mean(axis=0)
    mean = {"composite_oracle": oracle, "composite": risks[:, 0], "target": risks[:, 1]}
    log_n = np.log(n_target_values)
    fits = {name: np.polyfit(log_n, np.log(mean[name]), 1) for name in ("composite_oracle", "target")}
    # Percentile bootstrap over realizations for the TARGET exponent 1/s (vectorized refits).
    resampled = reps[rng.integers(0, n_reps, size=(n_boot, n_reps)), :, 1].mean(axis=1)  # (n_boot, n_Q values)
    boot_slopes = np.polyfit(log_n, np.log(resampled).T, 1)[0]
    tail = 100 * (1 - level) / 2
    interval = np.percentile(1 / boot_slopes, [tail, 100 - tail])
    return {
        "n_target": n_target_values,
        "mean_risk": mean,
        "risk_reps": {"composite": reps[:, :, 0], "target": reps[:, :, 1]},
        "slopes": {name: float(fit[0]) for name, fit in fits.items()},
        "intercepts": {name: float(fit[1]) for name, fit in fits.items()},
        "exponent_interval": {"target": (float(interval[0]), float(interval[1]))},
        "n_reps": n_reps,
        "n_source": n_source,
    }


@memoised
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
    axes method and term), ``sd`` of the same shape (standard deviations
    over the realizations, ``ddof=1``; the standard error of a mean is
    ``sd / sqrt(n_reps)``) and ``n_redrawn`` of shape ``(priors, n_source, n_target)``
    (book: ``fig-ls-grid``).  Memoised, like :func:`target_sample_complexity`.
    """
    target_priors = as_probabilities(target_priors, "target_priors", open_interval=True)
    n_source_values = _check_sizes(n_source_values, "n_source_values")
    n_target_values = _check_sizes(n_target_values, "n_target_values")
    n_reps = check_int(n_reps, "n_reps", minimum=2, maximum=_MAX_REPS)
    source_prior = check_open_unit(source_prior, "source_prior")
    mu = check_positive(mu, "mu")
    rng = as_rng(rng)
    _check_both_classes(source_prior, min(n_source_values), "source_prior", "n_source_values")
    for q in target_priors.tolist():
        _check_both_classes(q, min(n_target_values), "target_priors entry", "n_target_values")
    shape = (len(target_priors), len(n_source_values), len(n_target_values))
    values = np.empty(shape + (len(LABEL_SHIFT_METHODS), len(LABEL_SHIFT_TERMS)))
    sd = np.empty_like(values)
    n_redrawn = np.zeros(shape, dtype=np.int64)
    for i, q in enumerate(target_priors.tolist()):
        for j, n_p in enumerate(n_source_values):
            for k, n_q in enumerate(n_target_values):
                run = label_shift_risks(n_p, n_q, source_prior, q, n_reps, mu, rng)
                values[i, j, k] = run["values"].mean(axis=0)
                sd[i, j, k] = run["values"].std(axis=0, ddof=1)
                n_redrawn[i, j, k] = run["n_redrawn"]
    return {
        "target_priors": target_priors,
        "n_source": np.asarray(n_source_values),
        "n_target": np.asarray(n_target_values),
        "methods": LABEL_SHIFT_METHODS,
        "terms": LABEL_SHIFT_TERMS,
        "values": values,
        "sd": sd,
        "n_reps": n_reps,
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
    ``n_bins`` and ``priors_hat`` of shape ``(n_reps, 2)`` (:math:`\hat p_1, \hat q_1`
    per realization).  Bound (18) must hold in every realization, (19) in at
    least a fraction :math:`1-\delta` of them (book: ``thm-ls-composite``).
    """
    n_source = check_int(n_source, "n_source", minimum=2, maximum=_MAX_SAMPLE)
    n_target = check_int(n_target, "n_target", minimum=2, maximum=_MAX_SAMPLE)
    source_prior = check_open_unit(source_prior, "source_prior")
    target_prior = check_open_unit(target_prior, "target_prior")
    delta = check_open_unit(delta, "delta")
    n_reps = check_int(n_reps, "n_reps", maximum=_MAX_REPS)
    mu = check_positive(mu, "mu")
    rng = as_rng(rng)
    n_bins = cube_root_bins(n_source)
    bound19 = composite_high_probability_bound(n_source, n_target, n_bins, source_prior, target_prior, delta)
    _check_both_classes(source_prior, n_source, "source_prior", "n_source")
    _check_both_classes(target_prior, n_target, "target_prior", "n_target")
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
        "priors_hat": np.array([(m.source_prior_, m.target_prior_) for m in fits]),
    }


def ratio_event_frequency(
    beta: float = 1.5,
    delta: float = 0.1,
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    n_reps: int = 100_000,
    rng=0,
) -> dict:
    r"""Monte Carlo frequency of the ratio event of Corollary 9 (book: ``cor-ls-ratio``) at the sample sizes it prescribes.

    Only class counts matter, so each realization draws two binomial counts.
    Returns ``n_source``, ``n_target`` (Corollary 9, rounded up), the
    observed ``frequency`` of :math:`\{1/\beta \le \hat w_k/w^*_k \le \beta,\ k=0,1\}`
    and the promised ``1 - delta``.
    """
    delta = check_open_unit(delta, "delta")
    source_prior = check_open_unit(source_prior, "source_prior")
    target_prior = check_open_unit(target_prior, "target_prior")
    n_reps = check_int(n_reps, "n_reps", maximum=_MAX_SAMPLE)
    rng = as_rng(rng)
    n_p, n_q = (int(np.ceil(n)) for n in ratio_event_sample_sizes(beta, delta, source_prior, target_prior))
    if max(n_p, n_q) > MAX_INT:
        raise ValueError(f"beta = {beta!r} (with these priors and delta) makes Corollary 9 ask for samples of "
                         f"{n_p:.3g} and {n_q:.3g}, beyond the 2**53 a binomial draw takes; choose a larger beta")
    p_hat = rng.binomial(n_p, source_prior, n_reps) / n_p
    q_hat = rng.binomial(n_q, target_prior, n_reps) / n_q
    with np.errstate(divide="ignore", invalid="ignore"):  # an absent class gives rho = 0 or inf: outside the event
        rho1 = (q_hat / p_hat) / (target_prior / source_prior)
        rho0 = ((1 - q_hat) / (1 - p_hat)) / ((1 - target_prior) / (1 - source_prior))
    rho = np.stack([rho0, rho1])
    inside = np.all((rho >= 1.0 / beta) & (rho <= beta), axis=0)
    return {"n_source": n_p, "n_target": n_q, "frequency": float(inside.mean()), "promised": 1.0 - delta}
