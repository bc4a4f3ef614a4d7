"""The BBSE error bound (paper 001, Appendix A; book ``thm-lsw-bbse-rate``)."""

from __future__ import annotations

import numpy as np

from .._checks import as_real_array, check_int, check_open_unit, simplex_tolerance
from .._numerics import _log_over

__all__ = ["bbse_error_bound"]


def bbse_error_bound(confusion, weights, n_source: int, n_target: int, delta: float) -> float:
    r"""High-probability bound on :math:`\|\hat w - w^*\|_2` for BBSE (hard or soft; book ``thm-lsw-bbse-rate``).

    With :math:`a_Q = \sqrt{\log(4k/\delta)/(2n_Q)}`,
    :math:`a_P = \sqrt{\log(4k^2/\delta)/(2n_P)}` and :math:`s_{\min}` the
    smallest singular value of the population confusion matrix
    :math:`C` (``confusion``), with probability at least :math:`1-\delta`

    .. math:: \|\hat w - w^*\|_2 \le \frac{\sqrt k\,a_Q + k\,a_P\|w^*\|_2}{s_{\min} - k\,a_P},

    provided :math:`k\,a_P < s_{\min}` (otherwise ``ValueError``: the samples
    are too small for the bound).  Hoeffding's inequality for every entry of
    :math:`\hat\nu` and :math:`\hat C` and the perturbation lemma
    ``lem-lsw-perturbation`` of the book give it.
    """
    c = as_real_array(confusion, "confusion", ndim=2)
    if c.shape[0] != c.shape[1] or c.shape[0] < 2:
        raise ValueError(f"confusion must be a finite square matrix with at least two rows, got shape {c.shape}")
    k = c.shape[0]
    if np.any(c < 0.0) or abs(float(c.sum()) - 1.0) > simplex_tolerance(confusion, c.size):
        raise ValueError("confusion must be a joint law C[i, j] = P[f(X) = i, Y = j]: non-negative entries summing to 1")
    w = as_real_array(weights, "weights")
    if w.shape != (k,) or np.any(w < 0):
        raise ValueError(f"weights must hold {k} finite non-negative numbers")
    n_source = check_int(n_source, "n_source")
    n_target = check_int(n_target, "n_target")
    delta = check_open_unit(delta, "delta")
    sigma = float(np.linalg.svd(c, compute_uv=False).min())
    a_q = np.sqrt(_log_over(4.0 * k, delta) / (2.0 * n_target))
    a_p = np.sqrt(_log_over(4.0 * k**2, delta) / (2.0 * n_source))
    if k * a_p >= sigma:
        raise ValueError(
            f"n_source = {n_source} is too small for the BBSE bound at delta = {delta}: k a_P = {k * a_p:.3g} "
            f"is not below the smallest singular value {sigma:.3g} of the confusion matrix"
        )
    bound = (np.sqrt(k) * a_q + k * a_p * np.linalg.norm(w)) / (sigma - k * a_p)
    if not np.isfinite(bound):
        raise ValueError("weights or confusion are too large: the bound exceeds the float range")
    return float(bound)
