r"""Simulations behind the chapter's lower bounds and level-set lemmas (paper 002, as reconstructed in the book).

The two worlds that an ECE cannot tell apart, the minimax size of a test of
the :math:`\ell_p` error, and Monte Carlo checks of the level-set mass bound of
Lemma 7 and of the light level sets.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._checks import as_rng, as_sequence, as_sizes, check_int, check_memory, check_open_unit, check_positive, check_size
from .bounds import lemma7_sizes
from .errors import calibration_error_terms
from .experiments import _discretised, _exponents, book_multiclass_scenario
from .level_sets import _counts, _keys_from_counts, check_lam, level_set_count

__all__ = ["two_worlds_demo", "light_level_sets_check", "level_set_mass_check", "bernoulli_test_size"]


def two_worlds_demo(
    n_bins_values=(10_000, 100_000),
    n_values=(100, 1000, 10_000),
    bias: float = 0.2,
    n_reps: int = 200,
    rng=0,
) -> dict:
    r"""Two worlds that the :math:`\ell_1` error separates and small samples cannot (``thm-multiclass-lp-testing``).

    ``N`` bins of equal mass, two classes, prediction :math:`(1/2, 1/2)` in
    every bin.  World A: :math:`P[Y = 1 \mid v] = 1/2`.  World B:
    :math:`P[Y = 1\mid v] = 1/2 + s_v b` with independent random signs
    :math:`s_v`.  Exact errors of B: :math:`\ell_1 = 2b`,
    :math:`\ell_2 = b\sqrt{2/N}`, :math:`\ell_\infty = b/N`; of A: 0.  For each
    ``N`` and ``n`` the plug-in estimates of :math:`\ell_1` and :math:`\ell_2`
    are averaged over ``n_reps`` samples (fresh signs each time) in both worlds.

    Returns ``N``, ``n``, the exact values ``exact_l1``, ``exact_l2`` of B
    (per N), and ``plugin_l1``, ``plugin_l2`` of shape ``(2, len(N), len(n))``
    (world A, world B), and ``collision`` (probability that some bin holds
    two sample points, the only event that can tell the worlds apart).
    """
    bias = check_positive(bias, "bias")
    if bias > 0.5:
        raise ValueError(f"bias must be at most 1/2 (a probability 1/2 + bias), got {bias!r}")
    big_n = np.array(as_sizes(n_bins_values, "n_bins_values", minimum=1, scalar=True))
    ns = np.array(as_sizes(n_values, "n_values", minimum=1, scalar=True))
    n_reps = check_int(n_reps, "n_reps")
    check_memory(n_reps * int(big_n.max()), "n_bins_values", item_bytes=24, what="n_reps x N signs and bin sums")
    check_memory(n_reps * int(ns.max()), "n_values", item_bytes=40, what="n_reps x n bins, labels and probabilities")
    rng = as_rng(rng)
    l1 = np.zeros((2, big_n.size, ns.size))
    l2 = np.zeros_like(l1)
    for a, nb in enumerate(big_n):
        for j, n in enumerate(ns):
            for world in (0, 1):
                bins = rng.integers(nb, size=(n_reps, n))
                signs = rng.choice([-1.0, 1.0], size=(n_reps, nb)) if world else np.zeros((n_reps, nb))
                prob1 = 0.5 + bias * np.take_along_axis(signs, bins, axis=1)
                y = rng.random((n_reps, n)) < prob1
                flat = (bins + nb * np.arange(n_reps)[:, None]).ravel()
                resid = np.bincount(flat, weights=(0.5 - y).ravel(), minlength=nb * n_reps).reshape(n_reps, nb) / n
                # two classes: the class-2 term equals minus the class-1 term
                l1[world, a, j] = np.mean(2 * np.abs(resid).sum(axis=1))
                l2[world, a, j] = np.mean(np.sqrt(2 * (resid**2).sum(axis=1)))
    collision = np.array([[1.0 if n > nb else 1.0 - np.exp(np.sum(np.log1p(-np.arange(n) / nb))) for n in ns] for nb in big_n])
    return {
        "N": big_n,
        "n": ns,
        "bias": bias,
        "exact_l1": np.full(big_n.size, 2 * bias),
        "exact_l2": bias * np.sqrt(2.0 / big_n),
        "plugin_l1": l1,
        "plugin_l2": l2,
        "collision": collision,
    }


def light_level_sets_check(k: int = 5, lam: float = 0.1, threshold_values=(0.002, 0.005, 0.02, 0.05), p_values=(1.5, 2.0, 4.0)) -> dict:
    r"""Exact check of ``lem-multiclass-lp-low-mass`` on the discretised forecaster of the scenario.

    For each threshold :math:`\omega`, the sum of :math:`e(v, i)^p` over the level
    sets of :math:`c\circ r\circ f` with mass at most :math:`\omega`, against the
    bound :math:`2\omega^{p-1}`.  Returns ``threshold``, ``p``, ``light_sum`` and
    ``bound`` (both ``(len(threshold), len(p))``) and ``light_mass`` (per threshold).
    """
    k = check_int(k, "k", minimum=2)
    lam, _ = check_lam(lam)
    thresholds = np.array([check_open_unit(v, "threshold_values entries") for v in as_sequence(threshold_values, "threshold_values", scalar=True).tolist()])
    p_values = _exponents(p_values)
    sc = book_multiclass_scenario(k)
    terms = calibration_error_terms(_discretised(sc, lam), None, lam, weights=sc.weights, cond_mean=sc.h_star)
    light_sum = np.empty((thresholds.size, p_values.size))
    for a, omega in enumerate(thresholds):
        light = terms.mass <= omega
        for q, p in enumerate(p_values):
            light_sum[a, q] = np.sum(np.abs(terms.signed[light]) ** p)
    return {
        "k": k,
        "threshold": thresholds,
        "p": p_values,
        "light_sum": light_sum,
        "bound": 2.0 * thresholds[:, None] ** (p_values[None, :] - 1.0),
        "light_mass": np.array([terms.mass[terms.mass <= omega].sum() for omega in thresholds]),
    }


def level_set_mass_check(k: int = 5, lam: float = 0.1, threshold: float = 0.05, delta: float = 0.1, n_reps: int = 200, rng=0) -> dict:
    r"""Monte Carlo check of ``lem-multiclass-lp-bins`` at both of its sample sizes.

    For each of the two sizes of :func:`~companion.multiclass_lp.lemma7_sizes`
    (``union``: Hoeffding over all :math:`|V_\lambda|` level sets; ``buckets``:
    free of :math:`|V_\lambda|`), draws ``n_reps`` samples from the scenario,
    estimates every level-set mass and records whether event :math:`E_1` failed
    (a level set with estimated mass at least :math:`\omega` but true mass below
    :math:`\omega/2`, or estimated mass below :math:`\omega` but true mass at least
    :math:`3\omega/2`) and the largest error of the estimated masses.  Returns
    ``sizes`` (the dict of ``lemma7_sizes``), and per rule (``"union"``,
    ``"buckets"``) ``n0``, ``worst`` (per repetition) and ``failure_rate`` (to
    compare with ``delta``).
    """
    k = check_int(k, "k", minimum=2)
    lam, m = check_lam(lam)
    threshold = check_open_unit(threshold, "threshold")
    delta = check_open_unit(delta, "delta")
    n_reps = check_size(n_reps, "n_reps", item_bytes=9, what="the worst error (float64) and failure flag (bool) per repetition")
    rng = as_rng(rng)
    sc = book_multiclass_scenario(k)
    sizes = lemma7_sizes(threshold, level_set_count(sc.n_classes, lam), delta)
    atom_keys = _keys_from_counts(_counts(sc.atoms, m), m)
    keys, atom_bin = np.unique(atom_keys, return_inverse=True)
    mass = np.bincount(atom_bin, weights=sc.weights)
    out = {"k": k, "threshold": threshold, "delta": delta, "sizes": sizes}
    for rule in ("union", "buckets"):
        n0 = sizes[rule]
        worst, failed = np.empty(n_reps), np.empty(n_reps, dtype=bool)
        for r in range(n_reps):
            freq = np.bincount(atom_bin, weights=rng.multinomial(n0, sc.weights), minlength=keys.size) / n0
            heavy = freq >= threshold  # level sets never reached by f have estimate and mass 0
            failed[r] = np.any(heavy & (mass < threshold / 2)) or np.any(~heavy & (mass >= 1.5 * threshold))
            worst[r] = np.abs(freq - mass).max()
        out[rule] = {"n0": n0, "worst": worst, "failure_rate": float(failed.mean())}
    return out


#: Smallest eps of :func:`bernoulli_test_size` (its exact binomial search costs of order 1/eps^2 per step).
_MIN_TEST_EPS = 1e-3


def bernoulli_test_size(eps_values=(0.1, 0.05, 0.025, 0.0125), error: float = 1 / 3) -> dict:
    r"""Smallest ``n`` at which some test tells :math:`\mathrm{Bernoulli}(1/2)` from :math:`\mathrm{Bernoulli}(1/2 + \varepsilon)` (``prop-multiclass-lp-lower-bound``).

    The number of ones is sufficient and its likelihood ratio increases, so by
    the Neyman-Pearson lemma the test with the smallest type-II error among
    those with type-I error at most ``error`` says B above a cut and says B
    with a probability :math:`\gamma` at the cut, chosen so that the type-I
    error is exactly ``error``.  A test with both error probabilities at most
    ``error`` exists exactly when that type-II error is at most ``error``.  It
    cannot grow with ``n`` (a test may ignore a draw), so the smallest such
    ``n`` is found by bisection on exact binomial probabilities.

    Returns ``eps``, ``error``, ``n`` (that minimax size), ``type2_before``
    (the best type-II error at ``n - 1``, above ``error``), ``n_tv`` (the
    smallest ``n`` whose total variation between :math:`\mathrm{Bin}(n, 1/2)`
    and :math:`\mathrm{Bin}(n, 1/2 + \varepsilon)` reaches :math:`1 - 2\,`
    ``error``: necessary, not sufficient, and the quantity the proposition
    bounds) and ``bound`` (the proposition's
    :math:`(1 - 2\,\mathrm{error})^2/(2\varepsilon^2)`, :math:`1/(18\varepsilon^2)` at error 1/3).
    """
    eps = np.array([check_open_unit(v, "eps_values entries") for v in as_sequence(eps_values, "eps_values", scalar=True).tolist()])
    if np.any(eps > 0.5):
        raise ValueError(f"eps_values entries must be at most 1/2 (a probability 1/2 + eps), got {eps_values!r}")
    if np.any(eps < _MIN_TEST_EPS):
        raise ValueError(f"eps_values entries must be at least {_MIN_TEST_EPS:g}: the exact search runs over samples of "
                         f"order 1/eps^2 (1e-3: about 5e4 draws, seconds), got {eps_values!r}")
    error = check_open_unit(error, "error")
    if error >= 0.5:
        raise ValueError(f"error must be below 1/2 (a test better than a coin), got {error!r}")
    target = 1.0 - 2.0 * error

    def tv(n: int, e: float) -> float:
        x = np.arange(n + 1)
        return 0.5 * float(np.abs(stats.binom.pmf(x, n, 0.5) - stats.binom.pmf(x, n, 0.5 + e)).sum())

    def type2(n: int, e: float) -> float:
        # P(X >= c) for c = 0, ..., n + 1 under both worlds; the cut c is the first with P_A(X >= c) <= error
        cuts = np.arange(-1, n + 1)
        tail_a, tail_b = stats.binom.sf(cuts, n, 0.5), stats.binom.sf(cuts, n, 0.5 + e)
        c = int(np.argmax(tail_a <= error))  # c >= 1 since tail_a[0] = 1 > error
        gamma = (error - tail_a[c]) / stats.binom.pmf(c - 1, n, 0.5)
        return float(1.0 - tail_b[c] - gamma * stats.binom.pmf(c - 1, n, 0.5 + e))

    def first(ok, e: float) -> int:
        hi = 1
        while not ok(hi, e):
            hi *= 2
        lo = hi // 2  # ok fails at lo (lo = 0: no sample, no test better than a coin)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid, e) else (mid, hi)
        return hi

    sizes = np.array([first(lambda n, e: type2(n, e) <= error, e) for e in eps])
    before = np.array([type2(n - 1, e) for n, e in zip(sizes, eps)])  # n - 1 = 0: the coin, 1 - error
    n_tv = np.array([first(lambda n, e: tv(n, e) >= target, e) for e in eps])
    return {"eps": eps, "error": error, "n": sizes, "type2_before": before, "n_tv": n_tv, "bound": target**2 / (2.0 * eps**2)}
