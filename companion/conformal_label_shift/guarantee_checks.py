r"""Simulations behind the coverage guarantees of conformal prediction under label shift (paper 001, section 2, App. B.3, D).

* :func:`coverage_guarantee_check`: the exact coverage of Theorem 1 (split),
  Theorem 2 (weighted, oracle weights) and eq. (10) (label-conditional) by
  simulation, against exact comparison values;
* :func:`coverage_given_values`: the coverage of weighted conformal sets
  given the values of the scores, :math:`\hat G(Q_{1-\alpha}(\hat G))`
  (the identity in the proof of the weighted quantile lemma), in exact
  integer arithmetic;
* :func:`bernoulli_quantile_jump`: the example after Corollary 1, a plug-in
  quantile that is not consistent at a jump.

Book labels: ``thm-conf-split``, ``thm-conf-weighted``, ``lem-conf-weighted-quantile``,
``prop-conf-label-conditional``, ``cor-conf-estimated``, ``ex-conf-bernoulli``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.stats import binom

from .._checks import as_real_array, as_rng, check_int, check_memory, check_open_unit, check_size
from .._memo import memoised
from ..scenarios import three_class_gaussian
from .experiments import _check_sample_sizes, _chunks, _int_list
from .thresholds import (
    coverage,
    label_conditional_thresholds,
    prediction_sets,
    split_threshold,
    weighted_thresholds,
)
from .scores import _as_label_array, _as_scores, conformal_scores, exact_level, true_label_scores

__all__ = ["coverage_given_values", "coverage_guarantee_check", "bernoulli_quantile_jump"]


def _exact_integer_weights(weights) -> np.ndarray:
    """Non-negative integers or :class:`fractions.Fraction` as integers with the same ratios (not all zero)."""
    arr = np.asarray(weights, dtype=object)
    rule = "weights must be a 1-dimensional sequence of non-negative integers or fractions.Fraction (exact ratios), not all zero"
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"{rule}; got shape {arr.shape}")
    items = [v.item() if isinstance(v, np.generic) else v for v in arr]
    if any(isinstance(v, bool) or not isinstance(v, (int, Fraction)) or v < 0 for v in items) or not any(items):
        raise ValueError(f"{rule}; got {list(items)!r}")
    common = math.lcm(*(Fraction(v).denominator for v in items))
    return np.array([int(Fraction(v) * common) for v in items], dtype=object)


def coverage_given_values(scores, labels, weights, alpha) -> np.ndarray | float:
    r"""The coverage of weighted conformal sets given the values of the scores: :math:`\hat G(Q_{1-\alpha}(\hat G))`.

    Book: ``lem-conf-weighted-quantile`` (proof, step 2), ``thm-conf-weighted``.
    For the :math:`m = n+1` points (the calibration points and one test
    point; :math:`\hat G` is symmetric in them) with scores :math:`S_i` and
    labels :math:`Y_i`, :math:`\hat G = \sum_{i\le m}\varpi_i\delta_{S_i}`
    with :math:`\varpi_i = w(Y_i)/\sum_{j\le m}w(Y_j)`; given these values,
    the test point is covered with probability :math:`\hat G(z^\star)`,
    :math:`z^\star = Q_{1-\alpha}(\hat G)`: the cumulative mass of the sorted
    scores at the first score where it reaches :math:`1-\alpha` (every atom
    at :math:`z^\star` included).  Averaged over draws of the values, it is the
    coverage of the sets with these weights, computed without a threshold
    or a test set.  Exact: the weights are integers or fractions, the level
    is :func:`exact_level`'s fraction, the comparison is in integers.

    Parameters
    ----------
    scores : array_like, shape (..., m)
        The scores of all points at their true labels, in [0, 1].
    labels : array_like of int, shape (..., m)
        Their labels (class positions).
    weights : sequence of k non-negative integers or fractions.Fraction
        Exact weights (only the ratios matter): for :math:`w^* = q/p` with
        decimal priors, ``[Fraction("0.3") / Fraction("0.1"), ...]``.
    alpha : float or fractions.Fraction
        Miscoverage level in (0, 1).

    Returns
    -------
    float, or numpy.ndarray of shape ``(...)``.
    """
    s = _as_scores(scores, "scores")
    w = _exact_integer_weights(weights)
    codes = _as_label_array(labels, "labels", s.shape, w.size, "scores")
    level = 1 - exact_level(alpha)
    m = s.shape[-1]
    if m * max(w) * level.denominator < 2**62:  # no product below can overflow int64
        w = w.astype(np.int64)
    order = np.argsort(s, axis=-1, kind="stable")
    s_sorted = np.take_along_axis(s, order, axis=-1)
    cum = np.cumsum(w[np.take_along_axis(codes, order, axis=-1)], axis=-1)
    total = cum[..., -1:]
    if np.any(total == 0):
        raise ValueError("the weights of all the labels are zero in some set of points: eq. (9) is 0/0")
    first = np.argmax(cum * level.denominator >= total * level.numerator, axis=-1)  # reached at the latest at m - 1
    z_star = np.take_along_axis(s_sorted, first[..., None], axis=-1)
    last = np.sum(s_sorted <= z_star, axis=-1) - 1  # every atom at z*
    covered = np.take_along_axis(cum, last[..., None], axis=-1)[..., 0]
    out = np.asarray(covered / total[..., 0], dtype=float)
    return float(out) if out.ndim == 0 else out


@memoised
def coverage_guarantee_check(n_sims: int = 4000, n_cal: int = 24, n_test: int = 100, alpha: float = 0.1,
                             n_cal_lc: int = 200, rng=0, chunk: int = 1000) -> dict:
    r"""The coverage guarantees by simulation on the three-class toy (exact posterior, randomised scores).

    * ``split``: source calibration (``n_cal``), source test.  With distinct
      scores the coverage probability is exactly
      :math:`\lceil(1-\alpha)(n+1)\rceil/(n+1)` (``exact``), inside the
      interval of Theorem 1.
    * ``weighted``: source calibration, target test, true weights.  Bounds:
      :math:`1-\alpha` (Theorem 2) and :math:`1-\alpha+\mathbb E\max_i\varpi_i(Y_{n+1})`
      (the upper bound of the book's weighted lemma; ``upper``, estimated from
      the same simulations).
      ``exact`` is the same probability computed another way, from the
      lemma's identity: given the values of the :math:`n+1` scores (``n_cal``
      source points and one target point, drawn afresh), the coverage is
      :math:`\hat G(Q_{1-\alpha}(\hat G))` with
      :math:`\hat G = \sum_{i\le n+1}\varpi_i\delta_{S_i}`, the smallest
      cumulative mass of the sorted scores that reaches :math:`1-\alpha`,
      compared in exact integer arithmetic (the weights are ratios of the
      decimal priors); ``exact`` averages it over ``n_sims`` draws, with
      standard error ``exact_se``.  It needs no threshold and no test set, so
      it checks :func:`~companion.conformal_label_shift.weighted_thresholds` and
      :func:`~companion.conformal_label_shift.thresholds` independently.
    * ``label_conditional``: source calibration of ``n_cal_lc`` points,
      target test, per class; exact value
      :math:`\mathbb E[\lceil(1-\alpha)(N_y+1)\rceil/(N_y+1)]`,
      :math:`N_y\sim\mathrm{Bin}(n, p_y)` (the term :math:`N_y=0` is 1: a
      class without calibration points has threshold 1, eq. (10)).

    Each simulation's coverage is the fraction of ``n_test`` test points
    covered; ``mean`` and ``se`` are the average over simulations and its
    standard error.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result, so a
    figure cell can call it again at no cost.
    """
    n_sims, n_cal, n_test, n_cal_lc, chunk = (check_int(v, nm) for v, nm in
                                              ((n_sims, "n_sims"), (n_cal, "n_cal"), (n_test, "n_test"),
                                               (n_cal_lc, "n_cal_lc"), (chunk, "chunk")))
    check_memory(n_sims, "n_sims", item_bytes=64, what="seven coverages and masses per simulation")
    _check_sample_sizes(min(chunk, n_sims), n_cal=n_cal, n_test=n_test, n_cal_lc=n_cal_lc)
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = three_class_gaussian()
    w = sc.weights
    split_cov, weighted_cov, max_mass = np.empty(n_sims), np.empty(n_sims), np.empty(n_sims)
    lc_cov = np.empty((n_sims, 3))
    identity_cov = np.empty(n_sims)
    # w = q/p as exact ratios of the decimal priors
    w_exact = [Fraction(repr(float(qy))) / Fraction(repr(float(py))) for py, qy in zip(sc.prior("source"), sc.prior("target"))]
    rng_identity = rng.spawn(1)[0]  # an independent stream: the other draws are unchanged by this check
    for start, r in _chunks(n_sims, chunk):
        sl = slice(start, start + r)
        xc, yc = sc.sample(n_cal, rng, "source", size=(r,))
        cal = true_label_scores(conformal_scores(sc.posterior(xc), "randomized", rng), yc)
        xs, ys = sc.sample(n_test, rng, "source", size=(r,))
        split_cov[sl] = coverage(prediction_sets(conformal_scores(sc.posterior(xs), "randomized", rng),
                                                 split_threshold(cal, alpha)), ys).marginal
        xt, yt = sc.sample(n_test, rng, "target", size=(r,))
        st = conformal_scores(sc.posterior(xt), "randomized", rng)
        weighted_cov[sl] = coverage(prediction_sets(st, weighted_thresholds(cal, yc, w, alpha)), yt).marginal
        # E max_i varpi_i(Y_{n+1}) with Y_{n+1} ~ q: the largest mass among calibration points and the test point
        wc = w[yc]
        denom = wc.sum(axis=-1)[:, None] + w[None, :]  # (r, k)
        mm = np.maximum(wc.max(axis=-1)[:, None], w[None, :]) / denom
        max_mass[sl] = mm @ sc.prior("target")
        xl, yl = sc.sample(n_cal_lc, rng, "source", size=(r,))
        cal_l = true_label_scores(conformal_scores(sc.posterior(xl), "randomized", rng), yl)
        lc_cov[sl] = coverage(prediction_sets(st, label_conditional_thresholds(cal_l, yl, alpha, 3)), yt).per_class
        # the lemma's identity on fresh draws: n source points and one target point, coverage G(Q(G)) given the values
        xa, ya = sc.sample(n_cal, rng_identity, "source", size=(r,))
        xb, yb = sc.sample(1, rng_identity, "target", size=(r,))
        xab, yab = np.concatenate([xa, xb], axis=-2), np.concatenate([ya, yb], axis=-1)
        sab = true_label_scores(conformal_scores(sc.posterior(xab), "randomized", rng_identity), yab)
        identity_cov[sl] = coverage_given_values(sab, yab, w_exact, alpha)
    se = lambda v: float(np.std(v, ddof=1) / np.sqrt(v.shape[0]))  # noqa: E731
    beta = 1 - exact_level(alpha)
    rank = math.ceil(beta * (n_cal + 1))
    m = np.arange(0, n_cal_lc + 1)
    cover_given_m = np.array([math.ceil(beta * (int(j) + 1)) / (int(j) + 1) for j in m])  # rank <= m + 1 always; 1 at m = 0
    exact_lc = [float(np.sum(binom.pmf(m, n_cal_lc, py) * cover_given_m)) for py in sc.prior("source")]
    return {
        "alpha": alpha, "n_cal": n_cal, "n_cal_lc": n_cal_lc,
        "split": {"mean": float(split_cov.mean()), "se": se(split_cov), "exact": float(rank / (n_cal + 1)),
                  "upper": 1 - alpha + 1 / (n_cal + 1)},
        "weighted": {"mean": float(weighted_cov.mean()), "se": se(weighted_cov),
                     "upper": float(1 - alpha + max_mass.mean()),
                     "exact": float(identity_cov.mean()), "exact_se": se(identity_cov)},
        "label_conditional": {"mean": lc_cov.mean(axis=0), "se": np.array([se(lc_cov[:, j]) for j in range(3)]),
                              "exact": np.array(exact_lc)},
    }


def bernoulli_quantile_jump(n_values=(10, 100, 1000, 10000), offsets=(-0.02, 0.0, 0.02), alpha: float = 0.1,
                            n_reps: int = 20000, rng=0) -> dict:
    r"""The example after Corollary 1: the plug-in quantile :math:`\hat q_n = 1\{\bar c_n > 1-\alpha\}`.

    For coin tosses with mean :math:`\vartheta = 1-\alpha+` ``offset``, the
    probability :math:`P[\hat q_n = 1]` is simulated (``simulated``,
    ``n_reps`` repetitions of the sample mean, drawn as binomial counts) and
    computed exactly from the binomial distribution (``exact``).  At
    ``offset = 0`` it tends to 1/2, so :math:`\hat q_n` is not consistent.
    Shapes ``(len(offsets), len(n_values))``.
    """
    alpha = check_open_unit(alpha, "alpha")
    n_reps = check_size(n_reps, "n_reps", item_bytes=16, what="binomial counts and sample means of one repetition")
    rng = as_rng(rng)
    n_values = np.asarray(_int_list(n_values, "n_values"))
    offsets = as_real_array(offsets, "offsets")
    theta = 1 - alpha + offsets
    if np.any((theta <= 0) | (theta >= 1)):
        raise ValueError("offsets must keep 1 - alpha + offset inside (0, 1)")
    sim = np.empty((offsets.size, n_values.size))
    exact = np.empty_like(sim)
    for a, th in enumerate(theta):
        for b, n in enumerate(n_values):
            # c_bar > 1 - alpha  <=>  count > (1 - alpha) n; the largest count not above it, exactly
            cut = math.floor((1 - exact_level(alpha)) * int(n))
            counts = rng.binomial(int(n), th, size=n_reps)
            sim[a, b] = np.mean(counts > cut)
            exact[a, b] = binom.sf(cut, int(n), th)
    return {"n_values": n_values, "offsets": offsets, "theta": theta, "simulated": sim, "exact": exact, "alpha": alpha}
