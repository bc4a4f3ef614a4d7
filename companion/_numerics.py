"""Small numerical helpers owned by no chapter.

Log-log rate fits for the drivers, overflow-aware logarithms and powers for the
bounds, a max-shifted softmax, a logistic function that keeps subnormal values,
and normal interval masses computed from the nearer tail (no cancellation).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, log_expit, log_ndtr, ndtr

from ._checks import as_real_array

__all__ = ["loglog_fit"]


def loglog_fit(response: np.ndarray, *regressors: np.ndarray) -> np.ndarray:
    """Least-squares exponents of ``response ~ C * prod(regressor ** a)`` (returns the a's).

    NaN for every exponent when the points do not determine them (fewer points
    than coefficients, none at all, or regressors that do not vary
    independently): the minimum-norm solution ``lstsq`` would return there is
    not a fit.  Every array is 1-D, finite, positive and as long as ``response``
    (a ``ValueError`` otherwise).
    """
    response = as_real_array(response, "response", allow_empty=True)
    regressors = [as_real_array(x, f"regressors[{i}]", allow_empty=True) for i, x in enumerate(regressors)]
    for name, arr in (("response", response), *((f"regressors[{i}]", x) for i, x in enumerate(regressors))):
        if arr.size != response.size:
            raise ValueError(f"{name} must have the length of response ({response.size}), got {arr.size}")
        if np.any(arr <= 0.0):
            raise ValueError(f"{name} must be positive (a log-log fit), found {float(arr.min())!r}")
    design = np.column_stack([np.ones(response.size), *(np.log(x) for x in regressors)])
    coef, _, rank, _ = np.linalg.lstsq(design, np.log(response), rcond=None)
    if rank < design.shape[1]:
        return np.full(design.shape[1] - 1, np.nan)
    return coef[1:]


def _returned(value: np.ndarray):
    """A float for scalar input, an array otherwise."""
    return float(value) if np.ndim(value) == 0 else value


# -- numerical helpers: the direct formula wherever it is finite (so results are bit-identical to
# -- it there), a log-space or overflow-aware form at the extremes of the float range

def _log_over(top, delta: float):
    """``log(top / delta)``: the direct quotient where it is finite, ``log(top) - log(delta)`` when it overflows.

    ``top`` is a positive float, int or array; ``delta`` a positive float.  The
    second form is needed for ``delta`` near the smallest floats, where
    ``top / delta`` is infinite although its logarithm is not.
    """
    try:
        with np.errstate(over="ignore"):
            ratio = np.divide(top, delta)
    except OverflowError:  # a Python int too large for a float
        ratio = np.inf
    if np.all(np.isfinite(ratio)):
        return np.log(ratio)
    log_top = math.log(top) if isinstance(top, int) else np.log(top)
    return log_top - np.log(delta)


def _pow(x: float, y: float) -> float:
    """``x ** y`` for floats ``x >= 0``, with ``inf`` instead of an OverflowError when the power overflows."""
    try:
        return x**y
    except OverflowError:
        return math.inf


def _softmax(logits: np.ndarray) -> np.ndarray:
    """softmax over the last axis (max-shifted; a shifted logit overflowing to -inf has weight 0, as it should)."""
    with np.errstate(over="ignore"):
        e = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


#: Below this argument ``expit`` may be subnormal or 0: log of the smallest normal float is -708.4, and
#: ``expit(-708.0)`` = 3.3e-308 is still normal.
_EXPIT_NORMAL_FROM = -708.0

#: Cells whose width times (1 + |midpoint|) is below this are integrated by the midpoint series (see _narrow_cell).
_NARROW_CELL = 1e-2


def _expit(z):
    """The logistic function: ``expit(z)`` from ``z = -708`` up (a normal float), ``exp(log_expit(z))`` below.

    ``scipy.special.expit`` flushes its subnormal values to 0 (``expit(-710.0)``
    is 0, the true value 4.5e-309); the log form keeps them.
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(under="ignore"):
        return _returned(np.where(z < _EXPIT_NORMAL_FROM, np.exp(log_expit(z)), expit(z)))


def _normal_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``Phi(b) - Phi(a)`` for ``a <= b``, from the tail nearer to the interval (no cancellation).

    A narrow cell uses the midpoint series of :func:`_log_normal_mass`, where
    the difference of the two tail masses would cancel.
    """
    narrow, log_mass = _narrow_cell(a, b)
    with np.errstate(under="ignore"):
        return np.where(narrow, np.exp(log_mass), np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a)))


def _narrow_cell(a, b) -> tuple[np.ndarray, np.ndarray]:
    r"""Which cells [a, b] are narrow (width :math:`w`, midpoint :math:`m`: :math:`(1+|m|)w <` :data:`_NARROW_CELL`),
    and the log of their mass by the midpoint series
    :math:`\log\varphi(m) + \log w + \log(1 + H_2(m) w^2/24 + H_4(m) w^4/1920)` (:math:`H_n` the
    probabilists' Hermite polynomials, :math:`\varphi^{(n)} = (-1)^n H_n \varphi`), whose next term
    :math:`H_6(m) w^6/322560` is below :math:`10^{-16}` there (the series is not used elsewhere).
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        width, mid = b - a, 0.5 * a + 0.5 * b
        narrow = (width > 0.0) & (width * (1.0 + np.abs(mid)) < _NARROW_CELL)
        m2, w2 = mid * mid, width * width
        log_mass = (-0.5 * m2 - 0.5 * np.log(2.0 * np.pi) + np.log(width)
                    + np.log1p((m2 - 1.0) * w2 / 24.0 + (m2 * m2 - 6.0 * m2 + 3.0) * w2 * w2 / 1920.0))
    return narrow, log_mass


def _log_normal_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``log(Phi(b) - Phi(a))`` for ``a <= b``, from the nearer tail in logs: finite where the mass underflows.

    With ``la >= lb`` the log tail masses at the outer and inner edge (the
    upper tail when ``a > 0``), the mass is ``exp(la) (1 - exp(lb - la))``;
    ``-inf`` for an empty interval.  A narrow cell, where ``lb - la`` would
    cancel, uses the midpoint series (:func:`_narrow_cell`).
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    upper = a > 0
    outer = log_ndtr(np.where(upper, -a, b))
    inner = log_ndtr(np.where(upper, -b, a))
    d = inner - outer  # <= 0
    with np.errstate(divide="ignore"):
        log1m = np.where(d > -np.log(2.0), np.log(-np.expm1(d)), np.log1p(-np.exp(d)))  # log(1 - e^d), accurate at both ends
    narrow, log_mass = _narrow_cell(a, b)
    return np.where(narrow, log_mass, outer + log1m)


def _offset_cumsum(values: np.ndarray, start: float) -> np.ndarray:
    """``start - cumsum(values)`` (``values[:i]`` for entry ``i``, length n + 1), to about two roundings.

    The running sums come from ``np.cumsum`` and the error of each addition from
    Knuth's TwoSum (vectorized: the previous running sum is known), so a difference
    that cancels almost all its digits, ``start`` within rounding of a partial sum,
    keeps them: the plain difference would carry the partial sum's accumulated rounding.
    """
    running = np.concatenate(([0.0], np.cumsum(values)))
    previous, added = running[:-1], values
    part = running[1:] - previous
    error = (previous - (running[1:] - part)) + (added - part)  # exact: previous + added = running + error
    return (start - running) - np.concatenate(([0.0], np.cumsum(error)))
