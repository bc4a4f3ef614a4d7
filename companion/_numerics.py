"""Small numerical helpers owned by no chapter.

Log-log rate fits for the drivers, overflow-aware logarithms and powers for the
bounds, a max-shifted softmax, and normal interval masses computed from the
nearer tail (no cancellation).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, ndtr

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
    """softmax over the last axis (max-shifted)."""
    e = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def _normal_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``Phi(b) - Phi(a)`` for ``a <= b``, from the tail nearer to the interval (no cancellation)."""
    return np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))


def _log_normal_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``log(Phi(b) - Phi(a))`` for ``a <= b``, from the nearer tail in logs: finite where the mass underflows.

    With ``la >= lb`` the log tail masses at the outer and inner edge (the
    upper tail when ``a > 0``), the mass is ``exp(la) (1 - exp(lb - la))``;
    ``-inf`` for an empty interval.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    upper = a > 0
    outer = log_ndtr(np.where(upper, -a, b))
    inner = log_ndtr(np.where(upper, -b, a))
    d = inner - outer  # <= 0
    with np.errstate(divide="ignore"):
        log1m = np.where(d > -np.log(2.0), np.log(-np.expm1(d)), np.log1p(-np.exp(d)))  # log(1 - e^d), accurate at both ends
    return outer + log1m
