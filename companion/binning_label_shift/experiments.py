r"""Drivers for calibration by binning under label shift (paper 001, section 3 and Appendix C).

* :func:`theorem3_coverage`: how often the radii of Theorem 3 hold, on the
  two Gaussian scenarios with exact bin probabilities;
* :func:`theorem4_check`: the deterministic bound (18) of Theorem 4 against
  the exact target error of the reweighted bin frequencies;
* :func:`target_guarantee_coverage`: how often the combined finite-sample
  guarantee on the target (Theorems 3 and 4 with the BBSE bound) holds;
* :func:`podkopaev_figure2`: Figure 2 (the target sample against the band
  :math:`0.4 \le \eta^P_1 \le 0.6`; reliability of Fisher's LDA binned with
  and without the label-shift correction), with exact target bin frequencies;
* :func:`podkopaev_figure7`: Figure 7 on a bundled real data set (the
  paper's wine data are not available offline; see the chapter).

Book labels: ``thm-binls-theorem3``, ``thm-binls-theorem4``, ``thm-binls-target-guarantee``,
``fig-binls-coverage``, ``fig-binls-figure2``, ``fig-binls-figure7`` in the
chapter ``chap-binning-label-shift``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit, ndtri

from .._checks import as_probabilities, as_real_array, as_rng, check_int, check_memory, check_open_unit, check_size
from .._memo import memoised
from ..label_shift_weights import bbse, bbse_error_bound, label_shift_scenario
from ..label_shift_weights.estimators import _batched_bbse
from .bounds import label_shift_binning_bound, multiclass_binning_epsilon, target_binning_bound
from .canonical_binning import CanonicalBinning, LabelShiftCanonicalBinning, uniform_mass_partition

__all__ = [
    "THREE_CLASS_CONTRASTS",
    "scenario_partition",
    "theorem3_coverage",
    "theorem4_check",
    "target_guarantee_coverage",
    "podkopaev_figure2",
    "podkopaev_figure7",
    "FIGURE7_SPLIT",
]


#: Log-ratio coordinates of the three-class scenario that are uncorrelated given the class
#: (log(eta_2/eta_1) and log(eta_3/sqrt(eta_1 eta_2)), classes numbered from 1).
THREE_CLASS_CONTRASTS = np.array([[-1.0, 1.0, 0.0], [-0.5, -0.5, 1.0]])


def _bin_laws(sc, n_cuts: int):
    """``(k, n_bins, joint_p, theta_p, theta_q)`` of the scenario's partition into ``n_cuts`` bins:
    the source's joint (bin, class) masses and the class proportions within each bin under P and Q."""
    _, _, cond = scenario_partition(sc, n_cuts)
    k, n_bins = cond.shape
    joint_p = (cond * sc.prior("source")[:, None]).T
    joint_q = (cond * sc.prior("target")[:, None]).T
    return k, n_bins, joint_p, joint_p / joint_p.sum(axis=1, keepdims=True), joint_q / joint_q.sum(axis=1, keepdims=True)


def scenario_partition(scenario, n_cuts: int = 4):
    r"""A fixed partition of the simplex for a scenario and its exact bin-class probabilities.

    Two classes: ``n_cuts + 1`` equal-width bins of the class-1 score
    :math:`\eta^P_1`.  Three classes: a grid of ``(n_cuts + 1) ** 2`` cells
    in the log-ratio coordinates :data:`THREE_CLASS_CONTRASTS`, with cuts at
    the quantiles ``1/(n_cuts+1), ...`` of a standard normal scaled to each
    coordinate's spread.  Returns ``(contrasts, edges, cond)`` where
    ``cond[y, I]`` is :math:`P[\eta^P(X)\in I \mid Y = y]`, exact
    (:meth:`~companion.scenarios.GaussianLabelShift.grid_cell_probabilities`).
    """
    sc = label_shift_scenario(scenario)
    n_cuts = check_int(n_cuts, "n_cuts")
    check_memory((n_cuts + 1) ** (sc.n_classes - 1) * sc.n_classes, "n_cuts",
                 what=f"(n_cuts + 1)**{sc.n_classes - 1} bins x {sc.n_classes} classes of cell probabilities")
    if sc.n_classes == 2:
        contrasts = np.array([[-1.0, 1.0]])
        z = np.linspace(0.0, 1.0, n_cuts + 2)
        with np.errstate(divide="ignore"):
            edges = [logit(z)]
    elif sc.n_classes == 3:
        contrasts = THREE_CLASS_CONTRASTS
        G, g = sc.log_ratio_map(contrasts)
        mix_mean = sc.prior("source") @ (np.asarray(sc.means) @ G.T + g)
        spread = np.sqrt(np.diag(G @ np.asarray(sc.covariance) @ G.T))
        qs = ndtri(np.arange(1, n_cuts + 1) / (n_cuts + 1))
        edges = [np.concatenate(([-np.inf], mix_mean[r] + 1.5 * spread[r] * qs, [np.inf])) for r in range(2)]
    else:
        raise ValueError("scenario_partition is defined for two and three classes")
    return contrasts, edges, sc.grid_cell_probabilities(contrasts, edges)


def _rows_l1(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b).sum(axis=-1)


@memoised
def theorem3_coverage(
    scenario="three_class",
    n_values=(300, 1_000, 3_000, 10_000),
    deltas=(0.05, 0.1, 0.2, 0.5),
    n_reps: int = 20_000,
    n_cuts: int = 2,
    rng=0,
) -> dict:
    r"""Monte Carlo frequency of the two events of Theorem 3 (paper 001; book ``thm-binls-theorem3``).

    The classifier is the exact source posterior and the partition is
    fixed in advance (:func:`scenario_partition`).  A calibration sample of
    size ``n`` enters only through the joint counts of (bin, label), whose
    law is multinomial with the exact cell probabilities, so each repetition
    draws those counts directly.  Per repetition and :math:`\delta`:

    * ``bins``: :math:`\|\hat\theta_I - \theta_I\|_1 \le \varepsilon_I` for every
      non-empty bin (an empty bin has :math:`\varepsilon_I = \infty`);
    * ``calibration``: :math:`\sum_y|P[Y=y\mid h(X)=z] - z_y| \le \max_I\varepsilon_I`
      for every value :math:`z` of the recalibrated predictor :math:`h`; bins
      with equal frequency vectors are pooled, as the theorem's second part
      requires.

    Returns ``coverage`` (event -> array ``(len(n), len(deltas))``), the
    promised ``1 - deltas``, ``max_ratio`` (the per-repetition
    :math:`\max_I \|\hat\theta_I-\theta_I\|_1/\varepsilon_I` at the first delta,
    ``(len(n), n_reps)``) and the partition's ``n_bins``.
    """
    sc = label_shift_scenario(scenario)
    n_values = np.array([check_int(n, "n_values entries", minimum=2) for n in np.atleast_1d(n_values)])
    deltas = np.array([check_open_unit(d, "deltas entries") for d in np.atleast_1d(deltas)])
    if n_values.size == 0:
        raise ValueError("n_values must hold at least one sample size")
    if deltas.size == 0:
        raise ValueError("deltas must hold at least one level")
    n_reps = check_int(n_reps, "n_reps")
    n_cuts = check_int(n_cuts, "n_cuts")
    rng = as_rng(rng)
    _, _, cond = scenario_partition(sc, n_cuts)
    k, n_bins = cond.shape
    check_memory(n_reps * n_bins * (k + 1), "n_reps", item_bytes=64, what=f"counts and frequencies of {n_bins} bins x {k} classes per repetition")
    joint = (cond * sc.prior("source")[:, None]).T  # (B, k): P[bin I, Y = y]
    mass = joint.sum(axis=1)
    theta = joint / mass[:, None]
    coverage = {"bins": np.empty((n_values.size, deltas.size)), "calibration": np.empty((n_values.size, deltas.size))}
    max_ratio = np.empty((n_values.size, n_reps))
    for i, n in enumerate(n_values):
        counts = rng.multinomial(int(n), joint.ravel(), size=n_reps).reshape(n_reps, n_bins, k)
        n_bin = counts.sum(axis=2)
        filled = n_bin > 0
        theta_hat = counts / np.maximum(n_bin, 1)[:, :, None]
        err = np.where(filled, _rows_l1(theta_hat, theta), 0.0)
        # pooled calibration error: group bins of one repetition with equal frequency vectors
        key = np.concatenate([np.repeat(np.arange(n_reps), n_bins)[:, None], theta_hat.reshape(-1, k)], axis=1)
        key = key[filled.ravel()]
        _, group = np.unique(key, axis=0, return_inverse=True)
        group = group.reshape(-1)
        m = np.broadcast_to(mass, (n_reps, n_bins))[filled]
        g_mass = np.bincount(group, m)
        g_theta = np.stack([np.bincount(group, m * np.broadcast_to(theta[:, c], (n_reps, n_bins))[filled]) for c in range(k)], axis=1)
        g_theta /= g_mass[:, None]
        g_value = np.stack([np.bincount(group, theta_hat[..., c][filled]) for c in range(k)], axis=1)
        g_value /= np.bincount(group)[:, None]
        g_err = _rows_l1(g_theta, g_value)
        g_rep = np.bincount(group, np.repeat(np.arange(n_reps), n_bins)[filled.ravel()]) / np.bincount(group)
        pooled_max = np.zeros(n_reps)
        np.maximum.at(pooled_max, g_rep.astype(np.int64), g_err)
        for j, d in enumerate(deltas):
            eps = np.where(filled, multiclass_binning_epsilon(np.maximum(n_bin, 1), k, float(d)), np.inf)
            coverage["bins"][i, j] = np.mean(np.all(err <= eps, axis=1))
            eps_max = np.max(np.where(filled, eps, 0.0), axis=1)
            coverage["calibration"][i, j] = np.mean(pooled_max <= eps_max)
            if j == 0:
                max_ratio[i] = np.max(np.where(filled, err / eps, 0.0), axis=1)
    return {"n": n_values, "deltas": deltas, "promised": 1.0 - deltas, "coverage": coverage,
            "max_ratio": max_ratio, "n_bins": n_bins, "n_classes": k}


def theorem4_check(
    scenario="three_class",
    n_source: int = 2_000,
    n_weights: int = 2_000,
    n_reps: int = 500,
    n_cuts: int = 2,
    rng=0,
) -> dict:
    r"""The bound (18) of Theorem 4 against the exact target error of the corrected frequencies.

    Per repetition: multinomial (bin, label) counts of a source calibration
    sample of size ``n_source`` give :math:`\hat\theta^P_I`; BBSE-soft on a
    labelled source and an unlabelled target sample of size ``n_weights``
    (exact source posteriors) gives :math:`\hat w`; the corrected
    frequencies :math:`\hat\theta^{(\hat w)}_I` (eq. (17)) are compared with
    the exact :math:`\theta^Q_I`.  Bins empty in a repetition are skipped.

    Returns ``lhs`` and ``rhs`` (``(n_reps, B)``, NaN for empty bins), the
    parts ``source_part`` (:math:`2\kappa\|\hat\theta^P_I-\theta^P_I\|_1`) and
    ``weight_part`` (per repetition), ``kappa``, ``held`` (fraction of
    non-empty (repetition, bin) pairs with lhs <= rhs) and ``ratio_median``.
    """
    sc = label_shift_scenario(scenario)
    n_source = check_int(n_source, "n_source")
    n_weights = check_int(n_weights, "n_weights", minimum=10)
    n_reps = check_int(n_reps, "n_reps")
    n_cuts = check_int(n_cuts, "n_cuts")
    rng = as_rng(rng)
    k, n_bins, joint_p, theta_p, theta_q = _bin_laws(sc, n_cuts)
    check_memory(n_reps * n_bins * k, "n_reps", item_bytes=32, what=f"{n_bins} bins x {k} classes per repetition")
    check_memory(2 * n_reps * n_weights * (np.shape(sc.means)[1] + k), "n_weights",
                 what="a source and a target sample (features and posteriors) per repetition")
    w_true = sc.weights
    counts = rng.multinomial(n_source, joint_p.ravel(), size=n_reps).reshape(n_reps, n_bins, k)
    n_bin = counts.sum(axis=2)
    filled = n_bin > 0
    theta_hat = counts / np.maximum(n_bin, 1)[:, :, None]
    xs, ys = sc.sample(n_weights, rng, "source", size=(n_reps,))
    xt, _ = sc.sample(n_weights, rng, "target", size=(n_reps,))
    w_hat = _batched_bbse(sc.posterior(xs), np.eye(k)[ys], sc.posterior(xt), soft=True)
    w_pos = np.maximum(w_hat, 1e-12)  # eq. (17) needs non-negative weights
    corrected = theta_hat * w_pos[:, None, :]
    corrected /= corrected.sum(axis=-1, keepdims=True)
    lhs = np.where(filled, _rows_l1(corrected, theta_q), np.nan)
    src_err = _rows_l1(theta_hat, theta_p)
    rhs = np.where(filled, label_shift_binning_bound(src_err, w_true, w_pos), np.nan)  # (n_reps, B)
    kappa = float(w_true.max() / w_true.min())
    ok = filled
    return {
        "lhs": lhs,
        "rhs": rhs,
        "source_part": np.where(filled, 2 * kappa * src_err, np.nan),
        "weight_part": 2 * np.max(np.abs(w_pos - w_true), axis=1) / w_true.min(),
        "kappa": kappa,
        "held": float(np.mean(lhs[ok] <= rhs[ok] + 1e-12)),
        "ratio_median": float(np.median(lhs[ok] / rhs[ok])),
        "n_bins": n_bins,
    }


def target_guarantee_coverage(
    scenario="two_class",
    sizes=((1_000, 5_000), (10_000, 20_000), (100_000, 100_000)),
    deltas=(0.05, 0.2, 0.5),
    n_reps: int = 20_000,
    n_cuts: int = 2,
    rng=0,
) -> dict:
    r"""Monte Carlo coverage of the combined guarantee on the target (book ``thm-binls-target-guarantee``).

    The classifier is the exact source posterior with the fixed partition of
    :func:`scenario_partition`; the weights are BBSE-*hard* on the arg-max of
    that posterior, so that both samples enter only through counts whose laws
    are exact: per repetition, the (bin, label) counts of a calibration
    sample of size ``n_cal`` (multinomial with the exact cell probabilities),
    the (prediction, label) counts of a labelled source sample of size
    ``n_w`` (multinomial with the exact hard confusion matrix) and the
    prediction counts of an unlabelled target sample of size ``n_w``
    (multinomial with :math:`\nu = Cw^*`).  ``sizes`` holds the pairs
    ``(n_cal, n_w)``.  For every pair and :math:`\delta`, ``coverage`` is the
    fraction of repetitions in which every non-empty bin satisfies
    :math:`\|\hat\theta^{(\hat w)}_I - \theta^Q_I\|_1 \le \tau_I`
    (:func:`~companion.binning_label_shift.target_binning_bound`), ``bins_event`` and ``weights_event`` the
    frequencies of the two events of the proof (Theorem 3 at
    :math:`\delta/2`; :math:`\|\hat w - w^*\|_2 \le \beta(\delta/2)`), and
    ``ratio_q99`` the 99 % quantile over repetitions of
    :math:`\max_I` error / :math:`\tau_I`, ``ratio_max`` its largest value
    over the repetitions.  Also returned: ``n_bins``, ``kappa``,
    ``mean_radius`` and ``min_radius`` (mean and smallest over repetitions
    and non-empty bins of :math:`\tau_I`, ``(len(sizes), len(deltas))``).
    A smallest radius of 2 or more makes the coverage 1 by construction: the
    estimated weights are clipped at 0 before eq. (17), so every corrected
    bin is a probability vector and its :math:`\ell_1` error is at most 2.
    The theorem covers the clipped estimator: on its event every
    :math:`\hat w_y > 0` and the clipping changes nothing.  A pair and level
    with no guarantee (:math:`\beta(\delta/2) \ge \min_y w^*_y`, or
    :math:`\delta < 10^{-323}`) is refused before the simulation, naming
    ``sizes`` and ``deltas``.
    """
    sc = label_shift_scenario(scenario)
    try:
        rows = [tuple(pair) for pair in sizes] if not isinstance(sizes, (str, bytes)) else []
    except TypeError:
        rows = []
    if not rows or any(len(pair) != 2 for pair in rows):
        raise ValueError(f"sizes must be a non-empty sequence of pairs (n_cal, n_w), got {sizes!r}")
    pairs = np.array([[check_int(v, "sizes entries") for v in pair] for pair in rows])
    deltas = np.array([check_open_unit(d, "deltas entries") for d in np.atleast_1d(deltas)])
    if deltas.size == 0:
        raise ValueError("deltas must hold at least one level")
    n_reps = check_int(n_reps, "n_reps")
    n_cuts = check_int(n_cuts, "n_cuts")
    rng = as_rng(rng)
    k, n_bins, joint_p, theta_p, theta_q = _bin_laws(sc, n_cuts)
    check_memory(n_reps * (n_bins + k) * k, "n_reps", item_bytes=32,
                 what=f"bin counts and confusion matrices ({n_bins} + {k}) x {k} per repetition")
    w_true = sc.weights
    confusion = sc.confusion_matrix("hard")
    nu = confusion @ w_true
    for n_w in np.unique(pairs[:, 1]):  # the guarantee must exist at every (n_w, delta) before the simulation
        for d in deltas:
            try:
                target_binning_bound(1, confusion, w_true, int(n_w), int(n_w), float(d))
            except ValueError as err:
                raise ValueError(f"sizes entry n_w = {int(n_w)} and deltas entry {float(d)!r} admit no guarantee: {err}") from None
    shape = (pairs.shape[0], deltas.size)
    out = {name: np.empty(shape) for name in ("coverage", "bins_event", "weights_event", "ratio_q99", "ratio_max",
                                              "mean_radius", "min_radius")}
    for i, (n_cal, n_w) in enumerate(pairs):
        counts = rng.multinomial(int(n_cal), joint_p.ravel(), size=n_reps).reshape(n_reps, n_bins, k)
        n_bin = counts.sum(axis=2)
        filled = n_bin > 0
        theta_hat = counts / np.maximum(n_bin, 1)[:, :, None]
        c_hat = rng.multinomial(int(n_w), confusion.ravel(), size=n_reps).reshape(n_reps, k, k) / n_w
        nu_hat = rng.multinomial(int(n_w), nu, size=n_reps) / n_w
        w_hat = np.linalg.solve(c_hat, nu_hat[..., None])[..., 0]
        w_err = np.linalg.norm(w_hat - w_true, axis=1)
        corrected = theta_hat * np.maximum(w_hat, 0.0)[:, None, :]
        total = corrected.sum(axis=-1, keepdims=True)
        corrected = np.divide(corrected, total, out=np.full(corrected.shape, np.nan), where=total > 0)
        err = np.where(filled, _rows_l1(corrected, theta_q), 0.0)  # NaN (undefined correction) counts as a failure
        src_err = np.where(filled, _rows_l1(theta_hat, theta_p), 0.0)
        for j, d in enumerate(deltas):
            tau = np.where(filled, target_binning_bound(np.maximum(n_bin, 1), confusion, w_true, int(n_w), int(n_w),
                                                        float(d)), np.inf)
            held = np.all(err <= tau, axis=1)
            out["coverage"][i, j] = held.mean()
            eps = np.where(filled, multiclass_binning_epsilon(np.maximum(n_bin, 1), k, float(d) / 2), np.inf)
            out["bins_event"][i, j] = np.mean(np.all(src_err <= eps, axis=1))
            out["weights_event"][i, j] = np.mean(w_err <= bbse_error_bound(confusion, w_true, int(n_w), int(n_w), float(d) / 2))
            worst = np.max(np.where(filled, err / tau, 0.0), axis=1)
            out["ratio_q99"][i, j] = np.quantile(worst, 0.99)
            out["ratio_max"][i, j] = worst.max()
            out["mean_radius"][i, j] = tau[filled].mean()
            out["min_radius"][i, j] = tau[filled].min()
    return {"sizes": pairs, "deltas": deltas, "promised": 1.0 - deltas, "n_bins": n_bins, "n_reps": n_reps,
            "kappa": float(w_true.max() / w_true.min()), **out}


def _reliability(pred1: np.ndarray, bins: np.ndarray, y: np.ndarray, n_bins: int) -> dict:
    """Per bin: predicted class-1 frequency, observed frequency of Y = 1 on the test sample, count."""
    count = np.bincount(bins, minlength=n_bins)
    ones = np.bincount(bins, weights=(y == 1).astype(float), minlength=n_bins)
    observed = np.divide(ones, count, out=np.full(n_bins, np.nan), where=count > 0)
    return {"predicted": pred1, "observed": observed, "count": count}


#: Largest sample size a figure driver draws in one piece (memory bound).
_MAX_SAMPLE = 10**7


@memoised
def _band_share_class1(sc, direction, offset, cuts, world: str) -> float:
    """Exact ``P[Y = 1 | the score lies in the band]`` under ``world``: the direct quotient, or in logs where the band's mass underflows."""
    band = sc.projection_probabilities(direction, offset, cuts)[:, 1] * sc.prior(world)
    if band.sum() >= np.finfo(float).tiny:
        return float(band[1] / band.sum())
    log_band = sc._projection_log_probabilities(direction, offset, cuts)[:, 1] + np.log(sc.prior(world))
    return float(expit(log_band[1] - log_band[0]))


def podkopaev_figure2(
    n_scatter: int = 600,
    n_train: int = 1_000,
    n_calibration: int = 2_000,
    n_weights: int = 2_000,
    n_test: int = 20_000,
    n_bins: int = 10,
    band=(0.4, 0.6),
    rng=0,
) -> dict:
    r"""Figure 2 of paper 001 on its two-class Gaussian scenario.

    (a) ``scatter``: a target sample of size ``n_scatter`` with the source
    posterior :math:`\eta^P_1`; the band :math:`S = \{x: \eta^P_1(x)\in[0.4, 0.6]\}`
    is the strip :math:`\operatorname{logit}0.4 \le Gx + g \le \operatorname{logit}0.6`
    (``band_map``).  ``band_stats`` compares the share of class 1 among the
    target points in :math:`S` with the exact :math:`Q[Y=1\mid X\in S]` and
    with :math:`P[Y=1\mid X\in S]` (the exact shares in logs when the band
    lies far in a tail; the sample share is NaN when no point falls in the band).

    (b) Fisher's LDA (scikit-learn) fitted on a source sample of size
    ``n_train``; uniform-mass binning with ``n_bins`` bins of its class-1
    score on a source calibration sample; three recalibrated predictors:
    ``uncorrected`` (:class:`~companion.binning_label_shift.CanonicalBinning`),
    ``oracle`` and ``estimated`` (eq. (17) with :math:`w^*` and with
    BBSE-soft weights from ``n_weights`` labelled source and unlabelled
    target points).  ``reliability[method]`` holds per bin the predicted
    class-1 probability, the observed frequency on a target test sample of
    size ``n_test`` and the exact target frequency ``exact`` (LDA's score is
    affine in :math:`x`, so bin probabilities are normal
    distribution-function differences).  The paper states no sample sizes
    for this figure; these are the book's.  Each sample size is an integer
    in :math:`[1, 10^7]`; ``band`` is a pair ``lo < hi`` in (0, 1).
    """
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    n_scatter = check_int(n_scatter, "n_scatter", maximum=_MAX_SAMPLE)
    n_train = check_int(n_train, "n_train", maximum=_MAX_SAMPLE)
    n_calibration = check_int(n_calibration, "n_calibration", maximum=_MAX_SAMPLE)
    n_weights = check_int(n_weights, "n_weights", maximum=_MAX_SAMPLE)
    n_test = check_int(n_test, "n_test", maximum=_MAX_SAMPLE)
    n_bins = check_int(n_bins, "n_bins")
    band = as_probabilities(band, "band", open_interval=True)
    if band.size != 2 or not band[0] < band[1]:
        raise ValueError(f"band must be two levels lo < hi in (0, 1), got {band.tolist()!r}")
    lo, hi = float(band[0]), float(band[1])
    rng = as_rng(rng)
    sc = label_shift_scenario("two_class")
    G, g = sc.log_ratio_map(np.array([[-1.0, 1.0]]))
    x_sc, y_sc = sc.sample(n_scatter, rng, "target")
    u = x_sc @ G[0] + g[0]
    in_band = (u >= logit(lo)) & (u <= logit(hi))
    cuts = np.array([-np.inf, logit(lo), logit(hi), np.inf])
    band_stats = {
        "n_in_band": int(in_band.sum()),
        "share_class1_sample": float(y_sc[in_band].mean()) if in_band.any() else float("nan"),
        **{f"{world}_exact": _band_share_class1(sc, G[0], g[0], cuts, world) for world in ("target", "source")},
    }
    x_tr, y_tr = sc.sample(n_train, rng, "source")
    lda = LinearDiscriminantAnalysis().fit(x_tr, y_tr)
    a, c = lda.coef_[0], float(lda.intercept_[0])  # log-odds of class 1 = a.x + c

    def probs(x):
        s = expit(x @ a + c)
        return np.column_stack([1.0 - s, s])

    x_cal, y_cal = sc.sample(n_calibration, rng, "source")
    p_cal = probs(x_cal)
    partition = uniform_mass_partition(p_cal, n_bins)
    x_ws, y_ws = sc.sample(n_weights, rng, "source")
    x_wt, _ = sc.sample(n_weights, rng, "target")
    w_hat = bbse(probs(x_ws), y_ws, probs(x_wt), soft=True, negative="clip").weights
    models = {
        "uncorrected": CanonicalBinning(partition).fit(p_cal, y_cal),
        "oracle": LabelShiftCanonicalBinning(partition).fit(p_cal, y_cal, sc.weights),
        "estimated": LabelShiftCanonicalBinning(partition).fit(p_cal, y_cal, w_hat),
    }
    x_te, y_te = sc.sample(n_test, rng, "target")
    bins_te = partition.assign(probs(x_te))
    with np.errstate(divide="ignore"):
        score_edges = logit(partition.edges)
    cell = sc.projection_probabilities(a, c, score_edges) * sc.prior("target")[:, None]  # (2, B)
    exact = cell[1] / cell.sum(axis=0)
    reliability = {}
    for name, model in models.items():
        rel = _reliability(model.frequencies_[:, 1], bins_te, y_te, n_bins)
        rel["exact"] = exact
        rel["target_error"] = float(np.sum(cell.sum(axis=0) * np.abs(model.frequencies_[:, 1] - exact)))
        reliability[name] = rel
    return {
        "scatter": {"x": x_sc, "y": y_sc, "eta1": expit(u), "in_band": in_band},
        "band_map": (G[0], g[0], logit(lo), logit(hi)),
        "band_stats": band_stats,
        "weights_hat": w_hat,
        "true_weights": sc.weights,
        "edges": partition.edges,
        "reliability": reliability,
        "lda": (a, c),
    }


#: Split of Appendix C.2 of paper 001, as shares of each resampled half: source
#: (training, calibration, weight estimation) and target (weight estimation, test).
FIGURE7_SPLIT = {"source": (1 / 3, 1 / 3, 1 / 3), "target": (4 / 15, 11 / 15)}


def _resample(idx_neg: np.ndarray, idx_pos: np.ndarray, share_pos: float, rng: np.random.Generator) -> np.ndarray:
    """Largest subsample without replacement with a class-1 share of exactly ``share_pos`` (up to rounding)."""
    size = min(idx_neg.size / (1.0 - share_pos), idx_pos.size / share_pos)
    n_pos = int(round(share_pos * size))
    n_neg = int(round((1.0 - share_pos) * size))
    n_pos, n_neg = min(n_pos, idx_pos.size), min(n_neg, idx_neg.size)
    chosen = np.concatenate([rng.choice(idx_neg, n_neg, replace=False), rng.choice(idx_pos, n_pos, replace=False)])
    return rng.permutation(chosen)


def _two_class_shares(shares, name: str) -> np.ndarray:
    """Two positive class shares summing to 1 (within 1e-12)."""
    v = as_real_array(shares, name)
    if v.shape != (2,) or np.any(v <= 0) or abs(v.sum() - 1) > 1e-12:
        raise ValueError(f"{name} must be two positive shares summing to 1, got {v.tolist()!r}")
    return v


@memoised
def podkopaev_figure7(
    n_splits: int = 4,
    n_bins: int = 10,
    source_prior=(0.8, 0.2),
    target_prior=(0.5, 0.5),
    rng=0,
) -> dict:
    r"""Figure 7 of paper 001 (App. C.2) on scikit-learn's bundled handwritten digits.

    The binary task is "digit at least 5" (classes balanced, 1797 images of
    8x8 pixels).  For every split: the data are split at random into two
    halves; the first is subsampled without replacement to class shares
    ``source_prior`` (source), the second to ``target_prior`` (target), as
    in the paper.  The source is divided into training, calibration and
    weight-estimation parts, the target into weight-estimation and test
    parts, in the proportions of the paper (:data:`FIGURE7_SPLIT`).  A
    logistic regression (standardised pixels) is trained; uniform-mass
    binning with ``n_bins`` bins of its class-1 score on the calibration
    part gives the ``uncorrected`` predictor, eq. (17) with the oracle
    weights :math:`q/p` and with BBSE-soft weights (the paper's choice;
    negative weights clipped) the ``oracle`` and ``estimated`` ones.

    Returns per split the reliability on the target test part (predicted
    class-1 frequency, observed frequency and count per bin), the estimated
    weights, the part sizes, and ``ece`` (``(n_splits, 3)``): the binned
    calibration error :math:`\sum_I \frac{N_I}{n}|\hat\theta_{I,1} - \bar y_I|`
    on the test part.
    """
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    n_splits = check_size(n_splits, "n_splits", item_bytes=24, what="three float64 ECEs per split")
    n_bins = check_int(n_bins, "n_bins")
    p = _two_class_shares(source_prior, "source_prior")
    q = _two_class_shares(target_prior, "target_prior")
    rng = as_rng(rng)
    x, digit = load_digits(return_X_y=True)
    y = (digit >= 5).astype(np.int64)
    w_oracle = q / p
    methods = ("uncorrected", "oracle", "estimated")
    splits, ece = [], np.empty((n_splits, len(methods)))
    for s in range(n_splits):
        perm = rng.permutation(y.size)
        half1, half2 = perm[: y.size // 2], perm[y.size // 2:]
        src = _resample(half1[y[half1] == 0], half1[y[half1] == 1], p[1], rng)
        tgt = _resample(half2[y[half2] == 0], half2[y[half2] == 1], q[1], rng)
        c1, c2 = (np.cumsum(FIGURE7_SPLIT["source"])[:2] * src.size).astype(int)
        train, cal, wsrc = src[:c1], src[c1:c2], src[c2:]
        t1 = int(FIGURE7_SPLIT["target"][0] * tgt.size)
        wtgt, test = tgt[:t1], tgt[t1:]
        model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000)).fit(x[train], y[train])
        prob = model.predict_proba(x)
        partition = uniform_mass_partition(prob[cal], n_bins)
        w_hat = bbse(prob[wsrc], y[wsrc], prob[wtgt], soft=True, negative="clip").weights
        fitted = {
            "uncorrected": CanonicalBinning(partition).fit(prob[cal], y[cal]),
            "oracle": LabelShiftCanonicalBinning(partition).fit(prob[cal], y[cal], w_oracle),
            "estimated": LabelShiftCanonicalBinning(partition).fit(prob[cal], y[cal], w_hat),
        }
        bins_te = partition.assign(prob[test])
        rel = {name: _reliability(m.frequencies_[:, 1], bins_te, y[test], n_bins) for name, m in fitted.items()}
        for j, name in enumerate(methods):
            r = rel[name]
            filled = r["count"] > 0
            ece[s, j] = np.sum(r["count"][filled] * np.abs(r["predicted"][filled] - r["observed"][filled])) / test.size
        splits.append({
            "reliability": rel,
            "weights_hat": w_hat,
            "sizes": {"train": train.size, "calibration": cal.size, "weights_source": wsrc.size,
                      "weights_target": wtgt.size, "test": test.size},
            "edges": partition.edges,
        })
    return {"splits": splits, "methods": methods, "ece": ece, "true_weights": w_oracle}
