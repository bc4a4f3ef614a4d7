"""Theorem 1 of paper 000 and its parts as functions: the risk bound of uniform-mass binning and the bin-count rule.

Book labels: ``thm-umb-risk``, ``lem-umb-balance`` (Lemma 3), the sharpness
bounds ``lem-umb-sha`` and ``lem-umb-sha-smooth`` (Lemmas 6-7) and ``cor-umb-rule``
(eqs. (10)-(12)).  Each function
validates its arguments (see :mod:`companion._checks`).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from .._checks import as_positive_ints, check_bool, check_open_unit, check_positive
from .._numerics import _log_over, _pow, _returned

__all__ = [
    "LEMMA3_CONSTANT",
    "umb_calibration_bound",
    "umb_sharpness_bound",
    "umb_risk_bound",
    "umb_sample_size",
    "umb_zeta",
    "optimal_n_bins",
    "theorem1_optimal_n_bins",
]


#: The explicit value c' of the universal constant of Lemma 3 given by the paper (App. B.1; book ``lem-umb-balance``).
LEMMA3_CONSTANT = 2420.0


def _check_smoothness(smoothness):
    """``None`` or the constant K of (A3): a finite positive number."""
    return None if smoothness is None else check_positive(smoothness, "smoothness")


def _a3_sharpness(n_bins: np.ndarray, k: float):
    """Lemma 7's sharpness bound :math:`8K^2/B^2` (``inf`` where it overflows, for ``K`` near the float maximum)."""
    return _returned(8.0 * _pow(k, 2) / n_bins.astype(float) ** 2)


def umb_calibration_bound(n, n_bins, delta: float):
    r"""Calibration part of Theorem 1 (book ``eq-umb-thm``): :math:`R^{cal}(\hat h) \le \Delta_{\delta/2}^2`.

    .. math:: \Delta_{\delta/2} = \sqrt{\frac{\log(4B/\delta)}{2(\lfloor n/B\rfloor - 1)}} + \frac{1}{\lfloor n/B\rfloor},

    the radius of Lemma 4 (eq. (23), book ``eq-umb-eps``) at failure
    probability :math:`\delta/2`.  Requires ``n >= 2 B``.  ``n`` and
    ``n_bins`` broadcast; returns a float for scalars.
    """
    n = as_positive_ints(n, "n")
    n_bins = as_positive_ints(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    if np.any(n < 2 * n_bins):
        raise ValueError("n must be at least 2 * n_bins (two points per bin, Lemma 4)")
    per_bin = n // n_bins
    eps = np.sqrt(_log_over(4.0 * n_bins, delta) / (2.0 * (per_bin - 1))) + 1.0 / per_bin
    return _returned(eps**2)


def umb_sharpness_bound(n_bins, smoothness: float | None = None):
    r"""One sharpness bound of Theorem 1: :math:`2/B` (Lemma 6), or with ``smoothness`` :math:`K` only :math:`8K^2/B^2` (Lemma 7).

    Theorem 1 itself takes the smaller of the two under (A3); see :func:`umb_risk_bound`.
    """
    n_bins = as_positive_ints(n_bins, "n_bins")
    k = _check_smoothness(smoothness)
    if k is None:
        return _returned(2.0 / n_bins)
    bound = _a3_sharpness(n_bins, k)
    if not np.all(np.isfinite(bound)):
        raise ValueError(f"smoothness = {smoothness!r} is too large: 8 K^2 / B^2 exceeds the float range")
    return bound


def umb_risk_bound(n, n_bins, delta: float, smoothness: float | None = None, *, a3_only: bool = False):
    r"""Theorem 1 bound on :math:`R(\hat h)` (book ``thm-umb-risk``): calibration bound plus sharpness bound.

    The sharpness bound is :math:`2/B` without ``smoothness``; with
    ``smoothness`` :math:`K` of (A3) it is :math:`\min(2/B, 8K^2/B^2)`, the
    bound as stated, or :math:`8K^2/B^2` alone when ``a3_only`` is true.
    """
    a3_only = check_bool(a3_only, "a3_only")
    k = _check_smoothness(smoothness)
    calibration = umb_calibration_bound(n, n_bins, delta)
    b = as_positive_ints(n_bins, "n_bins")
    if k is None:
        return calibration + _returned(2.0 / b)
    sharpness = _a3_sharpness(b, k)
    if not a3_only:
        sharpness = np.fmin(sharpness, _returned(2.0 / b))
    elif not np.all(np.isfinite(sharpness)):
        raise ValueError(f"smoothness = {smoothness!r} is too large: 8 K^2 / B^2 exceeds the float range")
    return calibration + sharpness


def umb_sample_size(n_bins, delta: float, constant: float = LEMMA3_CONSTANT):
    r"""Sample size of Theorem 1 (book ``thm-umb-risk``): :math:`n \ge c\,B\log(2B/\delta)`, :math:`c = \max(c', 2/\log 2)`.

    ``constant`` is the :math:`c'` of Lemma 3 (the paper's explicit 2420 by
    default).  Below this size Theorem 1 promises nothing.
    """
    n_bins = as_positive_ints(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    c = max(check_positive(constant, "constant"), 2.0 / np.log(2.0))
    size = c * n_bins * _log_over(2.0 * n_bins, delta)
    if not np.all(np.isfinite(size)):
        raise ValueError(f"constant = {constant!r} is too large: the sample size exceeds the float range")
    return _returned(size)


def umb_zeta(n_bins, n, delta: float, smoothness: float = 1.0):
    r"""The simplified risk bound :math:`\zeta(B; n, \delta) = \frac{4B}{n}\log\frac{4B}{\delta} + \frac{8K^2}{B^2}` (book ``eq-umb-zeta``).

    It dominates the Theorem 1 bound with (A3) whenever ``B`` divides ``n``
    and ``n >= 2 B`` (the paper's assumptions before eq. (10)).
    """
    n = as_positive_ints(n, "n")
    n_bins = as_positive_ints(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    k = check_positive(smoothness, "smoothness")
    b = n_bins.astype(float)
    zeta = 4.0 * b / n * _log_over(4.0 * b, delta) + 8.0 * _pow(k, 2) / b**2
    if not np.all(np.isfinite(zeta)):
        raise ValueError(f"smoothness = {smoothness!r} is too large: 8 K^2 / B^2 exceeds the float range")
    return _returned(zeta)


def optimal_n_bins(n, delta: float, smoothness: float = 1.0):
    r"""Integer ``B`` in ``[1, n // 2]`` minimizing :math:`\zeta(B; n, \delta)` (eq. (10) keeps only its order; book ``cor-umb-rule``).

    :math:`\zeta` is convex in ``B`` (the first term is increasing and convex,
    the second convex), so the integer minimizer is the floor or the ceiling
    of the root of :math:`\partial_B\zeta = \frac4n(\log\frac{4B}{\delta}+1) - \frac{16K^2}{B^3}`,
    found by ``brentq``.  Returns an int for scalar ``n``, else an array.
    """
    n_arr = as_positive_ints(n, "n")
    delta = check_open_unit(delta, "delta")
    k = check_positive(smoothness, "smoothness")
    if np.any(n_arr < 2):
        raise ValueError("n must be at least 2 (one bin needs two points)")

    def best(n_one: int) -> int:
        slope = lambda b: 4.0 / n_one * (_log_over(4.0 * b, delta) + 1.0) - 16.0 * _pow(k, 2) / b**3  # noqa: E731
        cap = n_one // 2
        if slope(1.0) >= 0:
            return 1
        if slope(float(cap)) <= 0:
            return cap
        root = brentq(slope, 1.0, float(cap), xtol=1e-10)
        candidates = np.array([max(1, int(np.floor(root))), min(cap, int(np.ceil(root)))])
        return int(candidates[np.argmin(umb_zeta(candidates, n_one, delta, k))])

    result = np.array([best(int(m)) for m in n_arr.ravel()]).reshape(n_arr.shape)
    return int(result) if result.ndim == 0 else result


#: Largest number of bin counts :func:`theorem1_optimal_n_bins` searches for one ``n``, and its chunk size.
_MAX_SEARCH = 10**7


_SEARCH_CHUNK = 2**20


def theorem1_optimal_n_bins(n, delta: float, smoothness: float | None = None, *, a3_only: bool = False):
    r"""Integer ``B`` in ``[1, n // 2]`` minimizing :func:`umb_risk_bound` (same arguments), by exhaustive search.

    The search is exact but skips the ``B`` that cannot win: the calibration
    bound exceeds :math:`B\log(4/\delta)/(2n)`, so no ``B`` above
    :math:`2n v_0/\log(4/\delta)` beats the value :math:`v_0` of the bound at
    :math:`B_0 = \lceil\sqrt n\,\rceil`.  The candidates are evaluated in
    chunks, so memory stays bounded; a search over more than
    ``_MAX_SEARCH`` (``10**7``) candidates, which ``n`` beyond about
    :math:`10^{12}` at :math:`\delta = 0.1` needs, raises a ValueError naming
    ``n`` instead of running for minutes.  Returns an int for scalar ``n``.
    """
    n_arr = as_positive_ints(n, "n")
    delta = check_open_unit(delta, "delta")
    smoothness = _check_smoothness(smoothness)
    a3_only = check_bool(a3_only, "a3_only")
    if np.any(n_arr < 2):
        raise ValueError("n must be at least 2 (one bin needs two points)")
    result = []
    for m in n_arr.ravel():
        m = int(m)
        v0 = umb_risk_bound(m, min(m // 2, int(np.ceil(np.sqrt(m)))), delta, smoothness, a3_only=a3_only)
        top = min(m // 2, int(2.0 * m * v0 / _log_over(4.0, delta)) + 1)
        if top > _MAX_SEARCH:
            raise ValueError(
                f"n = {m} is too large for the exact search over B: {top} candidates, at most {_MAX_SEARCH} are searched"
            )
        best_b, best_value = 1, np.inf
        for start in range(1, top + 1, _SEARCH_CHUNK):
            candidates = np.arange(start, min(top, start + _SEARCH_CHUNK - 1) + 1)
            values = umb_risk_bound(m, candidates, delta, smoothness, a3_only=a3_only)
            i = int(np.argmin(values))
            if values[i] < best_value:  # strict: the smallest minimizing B wins, as np.argmin over all would give
                best_b, best_value = int(candidates[i]), values[i]
        result.append(best_b)
    result = np.array(result).reshape(n_arr.shape)
    return int(result) if result.ndim == 0 else result
