"""Drivers for estimating label-shift weights (paper 001 App. A; paper 000 Remark 5 and App. D).

* :func:`weight_estimation_rates`: error of BBSE (hard, soft), MLLS and
  RLLS against the sample size on the two Gaussian scenarios of paper 001,
  with fitted log-log slopes, the weights found, and the target error of the
  Bayes-corrected posterior;
* :func:`miscalibration_study`: MLLS on a deliberately miscalibrated
  classifier, without and with temperature, bias-corrected temperature and
  vector scaling, against BBSE;
* :func:`remark5_rates`: the composite recalibrator of paper 000 with weights
  from the target labels, from MLLS or from BBSE on unlabelled target data:
  the correction error :math:`T_1` and the target risk against :math:`n_Q`,
  with the quantities of the chain (38)-(39).

Book labels: ``fig-lsw-rates``, ``fig-lsw-miscalibration``,
``fig-lsw-remark5``, ``thm-lsw-bbse-rate``, ``prop-lsw-mlls-consistent`` and
``rem-lsw-remark5`` in the chapter ``chap-label-shift-weights``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit, ndtr

from .._checks import (
    as_real_array,
    as_rng,
    as_sizes,
    check_both_classes,
    check_int,
    check_memory,
    check_open_unit,
    check_positive,
    check_size,
)
from .._memo import memoised
from .._numerics import loglog_fit
from ..calibration_sharpness import UniformMassBinning
from ..scenarios import GaussianLabelShift, GaussianMixture, three_class_gaussian, two_class_gaussian
from .estimators import _batched_bbse, _em, rlls
from .scaling import _fit_scaling_batch, _unpack_scaling, scale_probabilities


__all__ = [
    "WEIGHT_METHODS",
    "MISCALIBRATION_METHODS",
    "REMARK5_METHODS",
    "label_shift_scenario",
    "weight_estimation_rates",
    "miscalibration_study",
    "remark5_rates",
]


#: Estimators compared by :func:`weight_estimation_rates`, in plotting order.
WEIGHT_METHODS = ("bbse_hard", "bbse_soft", "mlls", "rlls")


#: Estimators compared by :func:`miscalibration_study`.
MISCALIBRATION_METHODS = ("mlls", "mlls_ts", "mlls_bcts", "mlls_vs", "bbse_soft")


#: Weight estimates compared by :func:`remark5_rates`.
REMARK5_METHODS = ("labels", "mlls", "bbse")


_SCENARIOS = {"two_class": two_class_gaussian, "three_class": three_class_gaussian}


def label_shift_scenario(scenario) -> GaussianLabelShift:
    """A :class:`~companion.scenarios.GaussianLabelShift`, or one of ``"two_class"``, ``"three_class"``."""
    if isinstance(scenario, GaussianLabelShift):
        return scenario
    if isinstance(scenario, str) and scenario in _SCENARIOS:
        return _SCENARIOS[scenario]()
    raise ValueError(f"scenario must be a GaussianLabelShift or one of {tuple(_SCENARIOS)}, got {scenario!r}")


def _n_values(values, name: str, minimum: int = 2) -> np.ndarray:
    arr = np.array(as_sizes(values, name, minimum=minimum, scalar=True))
    if arr.size < 2 or np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} must hold at least two increasing sample sizes")
    return arr


def _point_entries(sc: GaussianLabelShift) -> int:
    """Float64 entries one sampled point takes in the drivers: its features, its label and two posterior rows."""
    return np.shape(sc.means)[1] + 2 * sc.n_classes + 1


def _check_rep_memory(sc: GaussianLabelShift, n_reps: int, n_values: np.ndarray, per_rep: int) -> None:
    """Refuse ``n_reps`` if ``per_rep`` outputs plus a source and a target sample of the largest size, per repetition, exceed the memory limit."""
    check_memory(n_reps * (per_rep + 2 * int(n_values.max()) * _point_entries(sc)), "n_reps",
                 what=f"{per_rep} outputs and two samples of up to {int(n_values.max())} points per repetition")


def _source_batch(sc: GaussianLabelShift, n: int, n_reps: int, rng: np.random.Generator):
    """``n_reps`` labelled source samples of size ``n`` in which every class occurs (redrawn otherwise)."""
    x, y = sc.sample(n, rng, "source", size=(n_reps,))
    for _ in range(1000):
        missing = np.array([np.unique(row).size < sc.n_classes for row in y])
        if not np.any(missing):
            return x, y
        x_new, y_new = sc.sample(n, rng, "source", size=(int(missing.sum()),))
        x[missing], y[missing] = x_new, y_new
    raise ValueError(f"source samples of size {n} keep missing a class: n is too small for this scenario")


def _slopes(n: np.ndarray, mean_error: np.ndarray) -> np.ndarray:
    """Fitted exponents of mean error ~ n^s, one per column."""
    return np.array([float(loglog_fit(mean_error[:, j], n)[0]) for j in range(mean_error.shape[1])])


#: Bootstrap resamples behind the 95 % intervals of the fitted exponents.
N_BOOTSTRAP = 2_000


def _exponent_intervals(n: np.ndarray, errors: np.ndarray, rng: np.random.Generator, level: float = 0.95) -> np.ndarray:
    """Percentile bootstrap intervals of the fitted exponents of the mean error, shape ``(methods, 2)``.

    ``errors`` is ``(len(n), n_reps, methods)``; each resample draws the
    repetitions of every sample size with replacement, independently across
    sample sizes (they are independent simulations), and refits the
    least-squares line of log mean error on log n.
    """
    n_sizes, n_reps, _ = errors.shape
    idx = rng.integers(0, n_reps, size=(N_BOOTSTRAP, n_sizes, n_reps))
    means = np.take_along_axis(errors[None], idx[..., None], axis=2).mean(axis=2)  # (boot, sizes, methods)
    x = np.log(n) - np.log(n).mean()
    logs = np.log(means)
    fitted = np.einsum("s,bsm->bm", x, logs - logs.mean(axis=1, keepdims=True)) / (x @ x)
    tail = (1.0 - level) / 2.0
    return np.quantile(fitted, [tail, 1.0 - tail], axis=0).T


@memoised
def weight_estimation_rates(
    scenario="three_class",
    n_values=(500, 1_000, 3_000, 10_000, 30_000),
    n_reps: int = 100,
    rlls_scale: float = 1.0,
    n_eval: int = 5_000,
    rng=0,
) -> dict:
    r"""Error :math:`\|\hat w - w^*\|_2` of BBSE-hard, BBSE-soft, MLLS and RLLS against :math:`n = n_P = n_Q`.

    The classifier is the exact source posterior of the scenario (calibrated
    for the source).  For every sample size, ``n_reps`` pairs of a labelled
    source sample and an unlabelled target sample of size ``n`` are drawn;
    BBSE and MLLS are computed for all repetitions at once (batched linear
    solves; the EM of :func:`companion.label_shift_weights.mlls` vectorised), RLLS (soft,
    :math:`\lambda = ` ``rlls_scale`` :math:`/\sqrt{n_P}`) by one call of
    :func:`companion.label_shift_weights.rlls` per repetition.  BBSE weights are the raw
    solutions (negative values kept: the estimator's own error).

    The Bayes-corrected posterior :math:`g_{\hat w}(\eta^P)` (weights clipped
    at 0 and rescaled when negative) is compared with the exact target
    posterior on a fixed target evaluation sample of size ``n_eval``:
    ``posterior_error`` is the mean of :math:`\|g_{\hat w}(\eta^P(X)) - \eta^Q(X)\|_2^2`
    (with the oracle weights it is exactly 0 here).

    Returns
    -------
    dict with ``n``, ``methods`` (:data:`WEIGHT_METHODS`), ``true_weights``,
    ``weights`` (``(len(n), n_reps, 4, k)``), ``source_frequencies`` (the
    class frequencies :math:`\hat p` of each source sample, ``(len(n), n_reps, k)``),
    ``errors`` (``(len(n), n_reps, 4)``),
    ``mean_error`` (``(len(n), 4)``), ``slopes`` (fitted exponents of
    ``mean_error`` against ``n``), ``slope_intervals`` (95 % percentile
    bootstrap intervals of those exponents over the repetitions,
    ``(4, 2)``), ``posterior_error`` (``(len(n), n_reps, 4)``),
    ``posterior_slopes``, ``negative_fraction`` (share of repetitions with a
    negative raw weight, ``(len(n), 4)``) and ``rlls_regularization``.
    """
    sc = label_shift_scenario(scenario)
    n_values = _n_values(n_values, "n_values", minimum=50)
    n_reps = check_int(n_reps, "n_reps")
    rlls_scale = check_positive(rlls_scale, "rlls_scale")
    n_eval = check_size(n_eval, "n_eval", item_bytes=8 * _point_entries(sc), what="features, label and two posteriors per point")
    _check_rep_memory(sc, n_reps, n_values, 2 * n_values.size * len(WEIGHT_METHODS) * sc.n_classes)
    rng = as_rng(rng)
    k, w_true = sc.n_classes, sc.weights
    x_eval, _ = sc.sample(n_eval, rng, "target")
    eta_eval_p, eta_eval_q = sc.posterior(x_eval, "source"), sc.posterior(x_eval, "target")
    weights = np.empty((n_values.size, n_reps, len(WEIGHT_METHODS), k))
    source_frequencies = np.empty((n_values.size, n_reps, k))
    for i, n in enumerate(n_values):
        xs, ys = _source_batch(sc, int(n), n_reps, rng)
        xt, _ = sc.sample(int(n), rng, "target", size=(n_reps,))
        eta_s, eta_t = sc.posterior(xs), sc.posterior(xt)
        onehot = np.eye(k)[ys]
        p_hat = source_frequencies[i] = onehot.mean(axis=1)
        weights[i, :, 0] = _batched_bbse(eta_s, onehot, eta_t, soft=False)
        weights[i, :, 1] = _batched_bbse(eta_s, onehot, eta_t, soft=True)
        q_hat = _em(eta_t, p_hat, tol=1e-10, max_iter=100_000)[0]
        weights[i, :, 2] = q_hat / p_hat
        lam = rlls_scale / np.sqrt(n)
        weights[i, :, 3] = [rlls(eta_s[r], ys[r], eta_t[r], lam, soft=True).weights for r in range(n_reps)]
    errors = np.linalg.norm(weights - w_true, axis=-1)
    clipped = np.maximum(weights, 0.0)
    post_err = np.empty(errors.shape)
    for m in range(len(WEIGHT_METHODS)):
        corrected = eta_eval_p * clipped[:, :, m, None, :]
        corrected /= corrected.sum(axis=-1, keepdims=True)
        post_err[:, :, m] = np.mean(np.sum((corrected - eta_eval_q) ** 2, axis=-1), axis=-1)
    mean_error = errors.mean(axis=1)
    mean_post = post_err.mean(axis=1)
    return {
        "n": n_values,
        "methods": WEIGHT_METHODS,
        "true_weights": w_true,
        "weights": weights,
        "source_frequencies": source_frequencies,
        "errors": errors,
        "mean_error": mean_error,
        "slopes": _slopes(n_values, mean_error),
        "slope_intervals": _exponent_intervals(n_values, errors, rng),
        "posterior_error": post_err,
        "posterior_slopes": _slopes(n_values, mean_post),
        "negative_fraction": np.mean(np.any(weights < 0, axis=-1), axis=1),
        "rlls_regularization": rlls_scale / np.sqrt(n_values),
    }


@memoised
def miscalibration_study(
    scenario="three_class",
    n_values=(1_000, 3_000, 10_000, 30_000),
    n_reps: int = 50,
    slope: float = 2.0,
    bias=None,
    n_limit: int = 1_000_000,
    rng=0,
) -> dict:
    r"""MLLS on a miscalibrated classifier, with and without calibration, against BBSE-soft.

    The classifier is :math:`f = \mathrm{softmax}(a\log\eta^P + b)` with
    ``slope`` :math:`a` (2: over-confident) and ``bias`` :math:`b` (default
    evenly spaced from 0 to 0.6): it ranks like the Bayes posterior but is
    not calibrated.  For every :math:`n = n_P = n_Q`, ``n_reps`` source and
    target samples; the methods of :data:`MISCALIBRATION_METHODS` are MLLS on
    :math:`f` as it is, MLLS after temperature (``ts``), bias-corrected
    temperature (``bcts``) and vector (``vs``) scaling fitted on the labelled
    source sample (vectorised Newton fits), and BBSE-soft on :math:`f`.
    ``limit_weights`` is uncalibrated MLLS on one sample of size ``n_limit``:
    the value it converges to.

    Returns
    -------
    dict with ``n``, ``methods``, ``true_weights``, ``errors``
    (``(len(n), n_reps, 5)``), ``mean_error``, ``slopes`` (fitted exponents
    of ``mean_error`` against ``n``), ``slope_intervals`` (95 % percentile
    bootstrap intervals of the exponents, ``(5, 2)``), ``mean_weights``
    (``(len(n), 5, k)``), ``limit_weights``, ``slope`` and ``bias``.
    """
    sc = label_shift_scenario(scenario)
    n_values = _n_values(n_values, "n_values", minimum=50)
    n_reps = check_int(n_reps, "n_reps")
    slope = check_positive(slope, "slope")
    n_limit = check_size(n_limit, "n_limit", item_bytes=16 * _point_entries(sc),
                         what="a source and a target sample, features, label and two posteriors per point")
    _check_rep_memory(sc, n_reps, n_values, 2 * n_values.size * len(MISCALIBRATION_METHODS) * sc.n_classes)
    rng = as_rng(rng)
    k, w_true = sc.n_classes, sc.weights
    bias = np.linspace(0.0, 0.6, k) if bias is None else as_real_array(bias, "bias")
    if bias.shape != (k,):
        raise ValueError(f"bias must hold one value per class ({k}), got {bias.size}")

    def classifier(x):
        eta = sc.posterior(x)
        return scale_probabilities(eta.reshape(-1, k), slope, bias).reshape(eta.shape)

    weights = np.empty((n_values.size, n_reps, len(MISCALIBRATION_METHODS), k))
    for i, n in enumerate(n_values):
        xs, ys = _source_batch(sc, int(n), n_reps, rng)
        xt, _ = sc.sample(int(n), rng, "target", size=(n_reps,))
        f_s, f_t = classifier(xs), classifier(xt)
        onehot = np.eye(k)[ys]
        p_hat = onehot.mean(axis=1)
        weights[i, :, 0] = _em(f_t, p_hat, tol=1e-10, max_iter=100_000)[0] / p_hat
        for j, kind in enumerate(("ts", "bcts", "vs"), start=1):
            params, _, grad = _fit_scaling_batch(np.log(f_s), onehot, kind, gtol=1e-9)
            if np.max(grad) > 1e-9:
                raise ValueError(f"{kind} calibration did not converge in some repetition (gradient {np.max(grad):.2g})")
            logits = np.empty(f_t.shape)
            for r in range(n_reps):  # the fitted map of repetition r applied to its target sample
                a, b = _unpack_scaling(params[r], k, kind)
                logits[r] = a * np.log(f_t[r]) + b
            calibrated = np.exp(logits - logits.max(axis=-1, keepdims=True))
            calibrated /= calibrated.sum(axis=-1, keepdims=True)
            weights[i, :, j] = _em(calibrated, p_hat, tol=1e-10, max_iter=100_000)[0] / p_hat
        weights[i, :, 4] = _batched_bbse(f_s, onehot, f_t, soft=True)
    errors = np.linalg.norm(weights - w_true, axis=-1)
    mean_error = errors.mean(axis=1)
    xs, ys = sc.sample(n_limit, rng, "source")
    xt, _ = sc.sample(n_limit, rng, "target")
    p_big = np.bincount(ys, minlength=k) / n_limit
    limit = _em(classifier(xt), p_big, tol=1e-12, max_iter=100_000)[0] / p_big
    return {
        "n": n_values,
        "methods": MISCALIBRATION_METHODS,
        "true_weights": w_true,
        "errors": errors,
        "mean_error": mean_error,
        "slopes": _slopes(n_values, mean_error),
        "slope_intervals": _exponent_intervals(n_values, errors, rng),
        "mean_weights": weights.mean(axis=1),
        "limit_weights": limit,
        "slope": slope,
        "bias": bias,
    }


# ---------------------------------------------------------------------------
# Remark 5 of paper 000: the composite recalibrator with weights from unlabelled target data
# ---------------------------------------------------------------------------


def _bin_class_masses(mixture: GaussianMixture, edges: np.ndarray) -> np.ndarray:
    """P[Z in I | Y = y] for the sigmoid forecaster of the mixture, shape ``edges.shape[:-1] + (B, 2)``."""
    with np.errstate(divide="ignore"):
        x = logit(edges)
    mass0 = np.diff(ndtr(x + mixture.mu), axis=-1)
    mass1 = np.diff(ndtr(x - mixture.mu), axis=-1)
    return np.stack([mass0, mass1], axis=-1)


def _correct(theta1: np.ndarray, w: np.ndarray) -> np.ndarray:
    """g_w(theta) = w1 theta / (w1 theta + w0 (1 - theta)), broadcasting weights ``(..., 2)``."""
    num = w[..., 1:2] * theta1
    return num / (num + w[..., 0:1] * (1.0 - theta1))


def _multinomial_counts(n: int, cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Joint (bin, class) counts of ``n`` target draws, one multinomial vector per row of ``cells``."""
    flat = cells.reshape(cells.shape[0], -1)
    return rng.multinomial(n, flat / flat.sum(axis=1, keepdims=True)).reshape(cells.shape)


#: Rounds of redraws of the target samples of :func:`remark5_rates` that miss a class.
_TARGET_REDRAWS = 1000


@memoised
def remark5_rates(
    n_target_values=(10**2, 10**3, 10**4, 10**5, 10**6),
    n_reps: int = 200,
    source_prior: float = 0.5,
    target_prior: float = 0.1,
    mu: float = 2.0,
    n_bins: int = 10,
    n_source: int | None = None,
    rng=0,
) -> dict:
    r"""Remark 5 of paper 000: the composite :math:`\hat g\circ\hat h_P` with weights estimated in three ways.

    The family of paper 000 (App. E): :math:`X\mid Y \sim N(\pm\mu, 1)`,
    :math:`Z = \sigma(X)`, source prior ``source_prior``, target prior
    ``target_prior``.  The source recalibrator :math:`\hat h_P` is
    uniform-mass binning with ``n_bins`` bins:

    * ``n_source=None`` (the limit :math:`n_P\to\infty` of the remark): the
      population binning, edges at the quantiles of :math:`Z` under
      :math:`P` and values :math:`\theta_I = P[Y=1\mid Z\in I]`, exactly;
    * an integer: one uniform-mass fit on a source sample of that size per
      repetition, and :math:`\hat p` its label frequency.

    Only bin memberships and labels of the target sample matter, so for each
    :math:`n_Q` the joint (bin, label) counts are drawn from their exact
    multinomial law.  The weights :math:`\hat w` come from the target labels
    (``labels``, Theorem 2 of paper 000), from MLLS (EM on the binned
    posteriors :math:`(1-\hat\theta_I, \hat\theta_I)` with the bin counts of
    the unlabelled target sample) or from BBSE-soft (confusion matrix of the
    binned posteriors on the source, population or sample).  Returned per
    method, :math:`n_Q` and repetition:

    * ``t1``: :math:`T_1 = E_Q[(\hat g(\hat h_P(Z)) - g^*(\hat h_P(Z)))^2]`, exact;
    * ``risk``: :math:`R_Q(\hat g\circ\hat h_P)`, exact (for the population
      binning it equals :math:`R_Q(g^*\circ h_B) + T_1`, see the chapter);
    * ``r``: :math:`\|\hat w - w^*\|_2 / w^*_{\min}` (the :math:`\alpha` of
      (38)-(39) of paper 000);
    * ``rho_bound``: :math:`((\rho_0-\rho_1)/(\rho_0+\rho_1))^2`, the bound (33).

    ``slopes_t1`` and ``slopes_r`` are fitted exponents of the means of
    ``t1`` and ``r`` against :math:`n_Q`; ``weights`` (method, :math:`n_Q`,
    repetition, 2), ``edges`` and ``theta`` (the source bins and their values,
    per repetition) allow every number to be recomputed (book
    ``fig-lsw-remark5``, ``rem-lsw-remark5``).
    """
    n_target_values = _n_values(n_target_values, "n_target_values", minimum=10)
    n_reps = check_int(n_reps, "n_reps")
    n_bins = check_int(n_bins, "n_bins", minimum=2)
    check_memory(n_reps * (2 * n_target_values.size * len(REMARK5_METHODS) * 6 + 8 * n_bins), "n_reps",
                 what=f"bin arrays of {n_bins} bins and six results per method and target size, per repetition")
    p1 = check_open_unit(source_prior, "source_prior")
    q1 = check_open_unit(target_prior, "target_prior")
    check_both_classes(q1, int(n_target_values.min()), "target_prior", "n_target_values", draws=_TARGET_REDRAWS)
    rng = as_rng(rng)
    source, target = GaussianMixture(p1, mu), GaussianMixture(q1, mu)
    w_true = np.array([(1 - q1) / (1 - p1), q1 / p1])
    q_vec = np.array([1 - q1, q1])
    if n_source is None:
        edges = np.concatenate(([0.0], source.quantile(np.arange(1, n_bins) / n_bins), [1.0]))
        cond = _bin_class_masses(source, edges)  # (B, 2)
        joint_p = cond * np.array([1 - p1, p1])
        theta = np.broadcast_to(joint_p[:, 1] / joint_p.sum(axis=1), (n_reps, n_bins)).copy()
        p_hat = np.broadcast_to(np.array([1 - p1, p1]), (n_reps, 2)).copy()
        src_joint = np.broadcast_to(joint_p, (n_reps, n_bins, 2))
        edges_all = np.broadcast_to(edges, (n_reps, n_bins + 1))
    else:
        n_source = check_size(n_source, "n_source", minimum=2 * n_bins, item_bytes=32,
                              what="four float64 arrays of length n_source in one uniform-mass fit")
        edges_all = np.empty((n_reps, n_bins + 1))
        theta = np.empty((n_reps, n_bins))
        src_joint = np.empty((n_reps, n_bins, 2))
        p_hat = np.empty((n_reps, 2))
        for r in range(n_reps):  # one uniform-mass fit per repetition
            z, y = source.sample(n_source, rng)
            fit = UniformMassBinning(n_bins).fit(z, y)
            edges_all[r], theta[r] = fit.edges_, fit.values_
            src_joint[r] = np.column_stack([fit.counts_ * (1 - fit.values_), fit.counts_ * fit.values_]) / n_source
            p_hat[r] = [1 - y.mean(), y.mean()]
    cells = _bin_class_masses(target, edges_all) * q_vec  # (R, B, 2): Q[Z in I, Y = y]
    mass_q = cells.sum(axis=-1)
    v_star = _correct(theta, np.broadcast_to(w_true, (n_reps, 2)))  # g*(theta_I), exactly theta^Q_I for the population bins
    if n_source is None:
        base_risk = float(target.population_risks(edges, v_star[0])["risk"])
    eta_bins = np.stack([1 - theta, theta], axis=-1)  # binned posteriors (R, B, 2)
    confusion = np.einsum("rbi,rbj->rij", eta_bins, src_joint)  # soft BBSE confusion on the source
    shape = (len(REMARK5_METHODS), n_target_values.size, n_reps)
    t1, risk, r_err, rho_bound = (np.empty(shape) for _ in range(4))
    weights_out = np.empty(shape + (2,))
    for i, n in enumerate(n_target_values):
        counts = _multinomial_counts(int(n), cells, rng)
        for _ in range(_TARGET_REDRAWS):  # both classes must occur for the label-based weights (eq. (16) of paper 000)
            labels = counts.sum(axis=1)
            bad = np.any(labels == 0, axis=1)
            if not np.any(bad):
                break
            counts[bad] = _multinomial_counts(int(n), cells[bad], rng)
        else:
            raise ValueError(f"target samples of size {n} keep missing a class")
        bin_counts = counts.sum(axis=-1)
        w_hat = np.empty((len(REMARK5_METHODS), n_reps, 2))
        w_hat[0] = (counts.sum(axis=1) / n) / p_hat
        q_mlls = _em(eta_bins, p_hat, counts=bin_counts, tol=1e-12, max_iter=1_000_000)[0]
        w_hat[1] = q_mlls / p_hat
        nu = np.einsum("rb,rbi->ri", bin_counts / n, eta_bins)
        w_hat[2] = np.linalg.solve(confusion, nu[..., None])[..., 0]
        weights_out[:, i] = w_hat
        for m in range(len(REMARK5_METHODS)):
            w_m = np.maximum(w_hat[m], 1e-300)
            values = _correct(theta, w_m)
            t1[m, i] = np.sum(mass_q * (values - v_star) ** 2, axis=-1)
            rho = w_hat[m] / w_true
            rho_bound[m, i] = ((rho[:, 0] - rho[:, 1]) / (rho[:, 0] + rho[:, 1])) ** 2
            r_err[m, i] = np.linalg.norm(w_hat[m] - w_true, axis=-1) / w_true.min()
            if n_source is None:
                risk[m, i] = base_risk + t1[m, i]
            else:
                risk[m, i] = target.population_risks_batch(list(edges_all), list(values))["risk"]
    mean_t1 = t1.mean(axis=-1)
    mean_r = r_err.mean(axis=-1)
    return {
        "n_target": n_target_values,
        "methods": REMARK5_METHODS,
        "true_weights": w_true,
        "n_bins": n_bins,
        "n_source": n_source,
        "weights": weights_out,
        "edges": edges_all,
        "theta": theta,
        "t1": t1,
        "risk": risk,
        "r": r_err,
        "rho_bound": rho_bound,
        "mean_t1": mean_t1,
        "mean_r": mean_r,
        "slopes_t1": _slopes(n_target_values, mean_t1.T),
        "slopes_r": _slopes(n_target_values, mean_r.T),
        "oracle_risk": base_risk if n_source is None else None,
    }
