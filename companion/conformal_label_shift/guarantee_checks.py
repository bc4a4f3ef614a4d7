"""Simulations behind the coverage guarantees of conformal prediction under label shift (paper 001, section 2, App. B.3, D).

* :func:`coverage_guarantee_check`: the exact coverage of Theorem 1 (split),
  Theorem 2 (weighted, oracle weights) and eq. (10) (label-conditional) by
  simulation, against exact comparison values;
* :func:`bernoulli_quantile_jump`: the example after Corollary 1, a plug-in
  quantile that is not consistent at a jump.

Book labels: ``thm-conf-split``, ``thm-conf-weighted``, ``prop-conf-label-conditional``,
``cor-conf-estimated``, ``ex-conf-bernoulli``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.stats import binom

from .._checks import as_real_array, as_rng, check_int, check_open_unit
from .._memo import memoised
from ..scenarios import three_class_gaussian
from .experiments import _chunks, _int_list
from .thresholds import (
    coverage,
    label_conditional_thresholds,
    prediction_sets,
    split_threshold,
    weighted_thresholds,
)
from .scores import conformal_scores, exact_level, true_label_scores

__all__ = ["coverage_guarantee_check", "bernoulli_quantile_jump"]


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
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = three_class_gaussian()
    w = sc.weights
    split_cov, weighted_cov, max_mass = np.empty(n_sims), np.empty(n_sims), np.empty(n_sims)
    lc_cov = np.empty((n_sims, 3))
    identity_cov = np.empty(n_sims)
    # integer weights proportional to w = q/p (exact ratios of the decimal priors), and the level as a fraction
    ratios = [Fraction(repr(float(qy))) / Fraction(repr(float(py))) for py, qy in zip(sc.prior("source"), sc.prior("target"))]
    common = math.lcm(*(fr.denominator for fr in ratios))
    w_int = np.array([int(fr * common) for fr in ratios], dtype=np.int64)
    level = 1 - exact_level(alpha)
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
        order = np.argsort(sab, axis=-1)
        cum = np.cumsum(w_int[np.take_along_axis(yab, order, axis=-1)], axis=-1)  # exact integers
        total = cum[:, -1:]
        reached = cum * level.denominator >= total * level.numerator  # cumulative mass >= 1 - alpha
        first = np.argmax(reached, axis=-1)
        identity_cov[sl] = cum[np.arange(r), first] / total[:, 0]
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
    n_reps = check_int(n_reps, "n_reps")
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
