"""Paper 002's guarantees as functions (as reconstructed in the book): Lemmas 7, 8, 13, 14 and Theorem 6.

Book labels: ``lem-multiclass-lp-bins`` (Lemma 7), ``lem-multiclass-lp-disjoint``
(Lemma 8), ``lem-multiclass-lp-termination`` (Lemma 13), ``lem-multiclass-lp-final-error``
(Lemma 14), ``lem-multiclass-lp-discretisation`` and ``thm-multiclass-lp-main``
(Theorem 6) with its sample budget.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .._checks import check_int, check_open_unit, check_positive, check_real
from .._numerics import _log_over, _pow
from .level_sets import check_lam, check_p, level_set_count

__all__ = [
    "LEMMA8_CONSTANT",
    "lp_threshold",
    "lemma14_bound",
    "lemma7_sample_size",
    "lemma7_sizes",
    "lemma8_sample_size",
    "lemma8_accuracy",
    "lemma13_iteration_bound",
    "discretisation_bound",
    "squared_error_excess_bound",
    "theorem6_budget",
    "theorem6_sample_size",
    "theorem6_iterations",
]


#: Constant of the book's Lemma 8 (disjoint adaptive queries with Laplace noise): n >= 32 log(4kT/(delta psi)) / psi^2.
LEMMA8_CONSTANT = 32.0


def _check_p_open(p) -> float:

    p = check_p(p)
    if p == 1.0:
        raise ValueError("p must be greater than 1 (the l_p guarantee of Theorem 6 degenerates at p = 1)")
    return p


def lp_threshold(epsilon: float, p) -> float:
    r"""Error and mass threshold :math:`\omega = \omega_m = (\varepsilon/4)^{p/(p-1)}` of the paper's Theorem 6 (``thm-multiclass-lp-main``) (:math:`\varepsilon/4` at :math:`p = \infty`).

    With it, :func:`lemma14_bound` at the accuracies of Theorem 6 is at most
    ``epsilon`` (``lem-multiclass-lp-final-error``).  ``p`` must exceed 1.
    """
    epsilon = check_open_unit(epsilon, "epsilon")
    p = _check_p_open(p)
    return epsilon / 4.0 if np.isinf(p) else (epsilon / 4.0) ** (p / (p - 1.0))


def lemma14_bound(threshold: float, mass_threshold: float, p, group_accuracy: float = 0.0, bin_accuracy: float = 0.0) -> float:
    r"""Bound on the :math:`\ell_p` error at termination (the book's Lemma 14, ``lem-multiclass-lp-final-error``).

    With :math:`a = \omega + ` ``group_accuracy`` (``threshold`` :math:`=\omega`;
    bound on the true error of every group and class) and
    :math:`b' = \omega_m + ` ``bin_accuracy`` (``mass_threshold`` :math:`=\omega_m`;
    bound on the mass of every level set left out of :math:`H`),

    .. math:: \mathrm{err}_p \le \bigl(2^{p-1}(2a^{p-1} + 2b'^{p-1})\bigr)^{1/p}, \qquad
       \mathrm{err}_\infty \le a + b'.
    """

    threshold = check_positive(threshold, "threshold")
    mass_threshold = check_positive(mass_threshold, "mass_threshold")
    p = check_p(p)
    group_accuracy = check_real(group_accuracy, "group_accuracy", minimum=0.0)
    bin_accuracy = check_real(bin_accuracy, "bin_accuracy", minimum=0.0)
    a, b = threshold + group_accuracy, mass_threshold + bin_accuracy
    if np.isinf(p):
        bound = a + b
    else:
        try:
            bound = (2.0 ** (p - 1.0) * (2.0 * a ** (p - 1.0) + 2.0 * b ** (p - 1.0))) ** (1.0 / p)
        except OverflowError:  # large p or a, b: the same value, 2 (a^(p-1) + b^(p-1))^(1/p), in log space
            hi, lo = max(a, b), min(a, b)
            bound = 2.0 * math.exp((p - 1.0) / p * math.log(hi) + math.log1p((lo / hi) ** (p - 1.0)) / p)
    if not np.isfinite(bound):
        raise ValueError(
            "threshold + group_accuracy and mass_threshold + bin_accuracy are too large: the bound exceeds the float range"
        )
    return float(bound)


def lemma7_sample_size(mass_threshold: float, n_level_sets: int, delta: float) -> int:
    r"""Pool 0 of the book's version of the paper's Lemma 7 (``lem-multiclass-lp-bins``): heavy level sets found correctly.

    With :math:`n_0` samples, except with probability :math:`\delta`, every level
    set whose estimated mass is at least :math:`\omega_m` (= ``mass_threshold``)
    has true mass at least :math:`\omega_m/2`, and every other level set has
    mass below :math:`3\omega_m/2` (event :math:`E_1`).  Two proofs give two sizes
    and either suffices, so this returns the smaller,

    .. math:: n_0 = \Bigl\lceil \min\Bigl\{2\log\frac{2|V_\lambda|}{\delta},\;
       8\log\frac{6}{\omega_m\delta}\Bigr\}\Big/\omega_m^2\Bigr\rceil:

    Hoeffding with a union bound over all ``n_level_sets`` :math:`= |V_\lambda|`
    level sets, or Hoeffding over at most :math:`6/\omega_m` fixed events (the
    heavy level sets and buckets of light ones), which does not depend on
    :math:`|V_\lambda|` at all.
    """
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    n_level_sets = check_int(n_level_sets, "n_level_sets")
    delta = check_open_unit(delta, "delta")
    size = _lemma7_size(mass_threshold, n_level_sets, delta)
    if not np.isfinite(size):
        raise ValueError(f"mass_threshold = {mass_threshold!r} is too small: the sample size exceeds the float range")
    return int(size)


def lemma7_sizes(mass_threshold: float, n_level_sets: int, delta: float) -> dict:
    r"""Both sample sizes behind :func:`lemma7_sample_size`: ``union`` (over :math:`|V_\lambda|`) and ``buckets`` (free of it).

    ``union`` :math:`= \lceil 2\log(2|V_\lambda|/\delta)/\omega_m^2\rceil`,
    ``buckets`` :math:`= \lceil 8\log(6/(\omega_m\delta))/\omega_m^2\rceil`
    (``lem-multiclass-lp-bins``); ``n0`` is the smaller.
    """
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    n_level_sets = check_int(n_level_sets, "n_level_sets")
    delta = check_open_unit(delta, "delta")
    union, buckets = _lemma7_union_size(mass_threshold, n_level_sets, delta), _lemma7_bucket_size(mass_threshold, delta)
    if not (np.isfinite(union) or np.isfinite(buckets)):
        raise ValueError(f"mass_threshold = {mass_threshold!r} is too small: the sample size exceeds the float range")
    as_int = lambda v: int(v) if np.isfinite(v) else None  # noqa: E731
    return {"union": as_int(union), "buckets": as_int(buckets), "n0": int(min(union, buckets))}


def _lemma7_size(mass_threshold: float, n_level_sets: int, delta: float) -> float:
    """:func:`lemma7_sample_size` as a float, ``inf`` where it exceeds the float range (arguments validated)."""
    return min(_lemma7_union_size(mass_threshold, n_level_sets, delta), _lemma7_bucket_size(mass_threshold, delta))


def _lemma7_union_size(mass_threshold: float, n_level_sets: int, delta: float) -> float:
    """Hoeffding and a union bound over every level set: ``ceil(2 log(2 |V| / delta) / omega^2)``."""
    try:
        top = 2.0 * n_level_sets
    except OverflowError:  # |V_lambda| beyond the float range: log(2 |V| / delta) in log space
        log_term = math.log(2) + math.log(n_level_sets) - math.log(delta)
    else:
        log_term = _log_over(top, delta)
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.ceil(2.0 * log_term / mass_threshold**2))


def _lemma7_bucket_size(mass_threshold: float, delta: float) -> float:
    """Hoeffding over the heavy level sets and buckets of light ones: ``ceil(8 log(6 / (omega delta)) / omega^2)``."""
    log_term = _log_over(6.0 / mass_threshold, delta)
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.ceil(8.0 * log_term / mass_threshold**2))


def lemma8_sample_size(accuracy: float, n_coords: int, n_events: int, delta: float) -> int:
    r"""Pool size of the book's version of the paper's Lemma 8 (``lem-multiclass-lp-disjoint``): :math:`\lceil 32\log(4kT/(\delta\psi))/\psi^2\rceil`.

    With that many samples, Laplace noise of scale :math:`8/(n\psi)` on each
    of the :math:`kT` answers (``n_coords`` :math:`=k` coordinates of
    ``n_events`` :math:`=T` adaptively chosen disjoint events) keeps every
    answer within ``accuracy`` :math:`=\psi` of its population value with probability
    :math:`1 - \delta`.
    """
    accuracy = check_positive(accuracy, "accuracy")
    n_coords = check_int(n_coords, "n_coords")
    n_events = check_int(n_events, "n_events")
    delta = check_open_unit(delta, "delta")
    size = _lemma8_size(accuracy, n_coords, n_events, delta)
    if not np.isfinite(size):
        raise ValueError(f"accuracy = {accuracy!r} is too small: the pool size exceeds the float range")
    return int(size)


def _lemma8_size(accuracy: float, n_coords: int, n_events: int, delta: float) -> float:
    """:func:`lemma8_sample_size` as a float, ``inf`` where it exceeds the float range (arguments validated)."""
    top, bottom = 4.0 * n_coords * n_events, delta * accuracy
    if bottom > 0 and np.isfinite(top / bottom):
        log_term = np.log(top / bottom)
    else:  # delta * accuracy underflows: the same logarithm, term by term
        with np.errstate(divide="ignore"):
            log_term = np.log(top) - np.log(delta) - np.log(accuracy)
    if log_term <= 0:
        raise ValueError("accuracy must be below 4 n_coords n_events / delta (the bound is vacuous above)")
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.ceil(LEMMA8_CONSTANT * log_term / _pow(accuracy, 2)))


def lemma8_accuracy(n: int, n_coords: int, n_events: int, delta: float) -> float:
    r"""Accuracy :math:`\psi` that a pool of ``n`` samples supports in the paper's Lemma 8 (``lem-multiclass-lp-disjoint``): the root of :math:`n = 32\log(4kT/(\delta\psi))/\psi^2`.

    Values above 1 mean the pool is too small for a meaningful guarantee; the
    root is still returned, because the noise scale :math:`8/(n\psi)` of
    :class:`~companion.multiclass_lp.LpCalibrator` is defined from it.
    """
    n = check_int(n, "n")
    n_coords = check_int(n_coords, "n_coords")
    n_events = check_int(n_events, "n_events")
    delta = check_open_unit(delta, "delta")
    top = 4.0 * n_coords * n_events / delta

    def gap(log_psi: float) -> float:
        accuracy = np.exp(log_psi)
        return LEMMA8_CONSTANT * np.log(top / accuracy) / accuracy**2 - n

    return float(np.exp(brentq(gap, -60.0, np.log(top), xtol=1e-13)))


def lemma13_iteration_bound(threshold: float, mass_threshold: float, lam: float) -> float:
    r"""Steps of the algorithm (the paper's Lemma 13, ``lem-multiclass-lp-termination``): :math:`T \le (5 + 10\lambda\log_{3/2}(2/\omega_m))/\omega^2`.

    ``threshold`` :math:`=\omega`, ``mass_threshold`` :math:`=\omega_m`.  Under
    accurate estimates each projection stage lowers the squared error by at
    least :math:`2\omega^2/5` (the paper's Lemma 11, ``lem-multiclass-lp-patch``),
    the merges raise it by at most :math:`4\lambda\log_{3/2}(2/\omega_m)` in total
    (the paper's Lemma 10, ``lem-multiclass-lp-merge``), and the squared error
    lies in :math:`[0, 2]` (book: :ref:`the range of the squared error <err-multiclass-lp-sq-range>`).
    """
    threshold = check_positive(threshold, "threshold")
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    lam = check_open_unit(lam, "lam")
    steps = _lemma13_steps(threshold, mass_threshold, lam)
    if not np.isfinite(steps):
        raise ValueError(f"threshold = {threshold!r} is too small: the iteration bound exceeds the float range")
    return steps


def _lemma13_steps(threshold: float, mass_threshold: float, lam: float) -> float:
    """:func:`lemma13_iteration_bound` as a float, ``inf`` where it exceeds the float range (arguments validated)."""
    with np.errstate(divide="ignore", over="ignore"):
        return float((5.0 + 10.0 * lam * _log_over(2.0, mass_threshold) / np.log(1.5)) / _pow(threshold, 2))


def discretisation_bound(lam: float) -> float:
    r"""The paper's Lemma 12 (``lem-multiclass-lp-discretisation``): replacing :math:`f` by :math:`c\circ r\circ f` raises the squared error by less than :math:`4\lambda`."""
    return 4.0 * check_open_unit(lam, "lam")


def squared_error_excess_bound(lam: float, mass_threshold: float) -> float:
    r"""Squared-error guarantee of the paper's Theorem 6 (``eq-multiclass-lp-main``): :math:`\mathrm{sq}(g) \le \mathrm{sq}(f) + 4\lambda(1 + \log_{3/2}(2/\omega_m))`.

    The paper's Lemma 12 (discretisation, :math:`4\lambda`) plus its Lemma 10 (merges,
    :math:`4\lambda\log_{3/2}(2/\omega_m)`, ``mass_threshold`` :math:`=\omega_m`);
    the projection stages only lower it (its Lemma 11).
    """
    lam = check_open_unit(lam, "lam")
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    return float(4.0 * lam * (1.0 + _log_over(2.0, mass_threshold) / np.log(1.5)))


def theorem6_budget(k: int, p, epsilon: float, delta: float, lam: float) -> dict:
    r"""Sample sizes and iteration bound of the paper's Theorem 6 as reconstructed (``thm-multiclass-lp-main``).

    Returns a dict with ``threshold`` (:math:`\omega`, :func:`lp_threshold`),
    ``mass_threshold`` (:math:`\omega_m = \omega`), ``J``
    (group sizes :math:`1, 2, \dots, 2^{J-1}` up to :math:`\lfloor 1/\omega_m\rfloor`),
    ``n_level_sets`` (:math:`|V_\lambda|`, Lemma 2), ``bins`` (pool for the
    level-set masses, :func:`lemma7_sample_size` at :math:`\delta/2`),
    ``accuracy_mass`` (:math:`\psi_m = \omega_m/(8J)`) and ``pool_mass`` (each of the :math:`J`
    mass pools: :func:`lemma8_sample_size` with 1 coordinate),
    ``accuracy_labels`` (:math:`\psi_y = \omega/(80J)`) and ``pool_labels`` (each of the
    :math:`J` label pools: :math:`k+1` coordinates), all pools with
    :math:`\lfloor 1/\omega_m\rfloor` events and failure probability
    :math:`\delta/(4J)`; ``total`` (:math:`n_0 + J(n_{\mathrm{mass}} + n_{\mathrm{labels}})`),
    ``iterations`` (Lemma 13) and ``squared_error_excess`` (:func:`squared_error_excess_bound`).
    """

    k = check_int(k, "k", minimum=2)
    lam, _ = check_lam(lam)
    delta = check_open_unit(delta, "delta")
    omega = lp_threshold(epsilon, p)
    omega_m = omega
    too_small = ValueError(
        f"epsilon = {epsilon!r} at p = {p!r} (threshold (epsilon/4)^(p/(p-1)) = {omega!r}) and delta = {delta!r} "
        "give sample sizes beyond the float range: epsilon or delta is too small"
    )
    if not (omega > 0 and np.isfinite(1.0 / omega)):
        raise too_small
    n_max = max(1, int(np.floor(1.0 / omega_m)))
    j = n_max.bit_length()  # floor(log2(n_max)) + 1, exactly
    n_sets = level_set_count(k, lam)
    accuracy_mass, accuracy_labels = omega_m / (8.0 * j), omega / (80.0 * j)
    sizes = (
        _lemma7_size(omega_m, n_sets, delta / 2.0),
        _lemma8_size(accuracy_mass, 1, n_max, delta / (4.0 * j)),
        _lemma8_size(accuracy_labels, k + 1, n_max, delta / (4.0 * j)),
        _lemma13_steps(omega, omega_m, lam),
    )
    if not np.all(np.isfinite(sizes)):
        raise too_small
    n0, pool_mass, pool_labels = (int(size) for size in sizes[:3])
    return {
        "threshold": omega,
        "mass_threshold": omega_m,
        "J": j,
        "n_level_sets": n_sets,
        "bins": n0,
        "accuracy_mass": accuracy_mass,
        "pool_mass": pool_mass,
        "accuracy_labels": accuracy_labels,
        "pool_labels": pool_labels,
        "total": n0 + j * (pool_mass + pool_labels),
        "iterations": sizes[3],
        "squared_error_excess": squared_error_excess_bound(lam, omega_m),
    }


def theorem6_sample_size(k: int, p, epsilon: float, delta: float, lam: float) -> int:
    """Total samples of the paper's Theorem 6 as reconstructed (``theorem6_budget(...)['total']``)."""
    return int(theorem6_budget(k, p, epsilon, delta, lam)["total"])


def theorem6_iterations(k: int, p, epsilon: float, delta: float, lam: float) -> float:
    """Iteration bound of the paper's Theorem 6 (its Lemma 13 at the thresholds of :func:`lp_threshold`)."""
    return float(theorem6_budget(k, p, epsilon, delta, lam)["iterations"])
