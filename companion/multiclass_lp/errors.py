r"""The :math:`\ell_p` calibration error of paper 002 (Definition 5, book ``def-multiclass-lp-error``) and the errors it is compared with.

Empirical versions take forecasts and labels; population versions take a
finite law (atoms, :math:`\mathbb E[e_Y \mid f]` at each atom, weights).
Also the top-label and class-wise ECE and the squared error.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import check_size
from .level_sets import (
    _ROUND_SLACK,
    _check_key_work_of,
    _cond_mean_for,
    _counts,
    _keys_from_counts,
    _labels_for,
    _p_values,
    _probability_rows,
    _weights_for,
    as_probability_rows,
    check_lam,
)

__all__ = [
    "calibration_error_terms",
    "lp_calibration_error",
    "population_lp_calibration_error",
    "top_label_ece",
    "population_top_label_ece",
    "classwise_ece",
    "population_classwise_ece",
    "squared_error",
    "population_squared_error",
]


# ---------------------------------------------------------------------------
# Calibration errors (Definition 5 of the paper, def-multiclass-lp-error) and the ECEs
# ---------------------------------------------------------------------------


class ErrorTerms(NamedTuple):
    """Per-level-set terms of the l_p calibration error (see :func:`calibration_error_terms`)."""

    #: Level-set keys of the occupied level sets, sorted.
    keys: np.ndarray
    #: Count vectors a = v / lam of those level sets, shape (n_bins, k).
    counts: np.ndarray
    #: Probability of each level set, shape (n_bins,).
    mass: np.ndarray
    #: Signed error E[(g_i - Y_i) 1{r(g) = v}] per level set v and class i, shape (n_bins, k).
    signed: np.ndarray


def _error_terms(probs: np.ndarray, target: np.ndarray, weights: np.ndarray, m: int, eps: float) -> ErrorTerms:
    counts = _counts(probs, m, eps)
    keys = _keys_from_counts(counts, m)
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    n_bins, k = uniq.size, probs.shape[1]
    diff = (probs - target) * weights[:, None]
    signed = np.column_stack([np.bincount(inverse, weights=diff[:, i], minlength=n_bins) for i in range(k)])
    mass = np.bincount(inverse, weights=weights, minlength=n_bins)
    return ErrorTerms(uniq, counts[first], mass, signed)


def _norms(terms: np.ndarray, p_values: np.ndarray) -> np.ndarray:
    flat = np.abs(terms).ravel()
    out = np.empty(p_values.size)
    top = flat.max() if flat.size else 0.0
    for j, p in enumerate(p_values):
        if np.isinf(p):
            out[j] = top
        elif top == 0.0:
            out[j] = 0.0
        else:  # scale by the largest term so that flat ** p cannot underflow to 0 for large p
            out[j] = top * np.sum((flat / top) ** p) ** (1.0 / p)
    return out


def calibration_error_terms(probs, y, lam, *, weights=None, cond_mean=None) -> ErrorTerms:
    r"""The terms :math:`\mathbb E[(g(X)_i - Y_i)\mathbb 1\{r(g(X)) = v\}]` of Definition 5, one row per occupied level set.

    Empirical by default (``y`` labels, each row weight :math:`1/n`); with
    ``cond_mean`` (the rows of :math:`\mathbb E[Y \mid g(X)]`, one-hot
    expectations) and ``weights`` (a probability law on the rows) it gives the
    population terms; then ``y`` must be ``None``.
    """
    _, m = check_lam(lam)
    _check_key_work_of(probs, m)
    probs, eps = _probability_rows(probs)
    if cond_mean is None:
        if y is None:
            raise ValueError("y must be given (labels) unless cond_mean is")
        yy = _labels_for(probs, y)
        target = np.zeros_like(probs)
        target[np.arange(yy.size), yy] = 1.0
        w = np.full(yy.size, 1.0 / yy.size) if weights is None else _weights_for(probs, weights)
    else:
        if y is not None:
            raise ValueError("y must be None when cond_mean is given (population version)")
        target = _cond_mean_for(probs, cond_mean)
        w = np.full(probs.shape[0], 1.0 / probs.shape[0]) if weights is None else _weights_for(probs, weights)
    return _error_terms(probs, target, w, m, eps)


def lp_calibration_error(probs, y, p, lam):
    r"""Empirical :math:`\ell_p` calibration error (Definition 5; ``def-multiclass-lp-error``).

    .. math:: \widehat{\mathrm{err}}_p = \Bigl(\sum_{v \in V_\lambda}\sum_{i=1}^k
       \Bigl|\frac1n\sum_{s:\,r(g_s) = v} (g_{s,i} - \mathbb 1\{y_s = i\})\Bigr|^p\Bigr)^{1/p},

    i.e. each term is the bin's empirical mass times its bias in class
    :math:`i`.  ``p = 1`` is the class-summed ECE over level sets, ``p = inf``
    the largest mass-weighted bias.  ``p`` may be a sequence (one value each).
    """
    p_values, scalar = _p_values(p)
    terms = calibration_error_terms(probs, y, lam)
    out = _norms(terms.signed, p_values)
    return float(out[0]) if scalar else out


def population_lp_calibration_error(probs, cond_mean, weights, p, lam):
    r"""Population :math:`\ell_p` calibration error of a predictor on a finite law.

    ``probs[j]`` is the prediction :math:`g` on atom :math:`j` of the law,
    ``weights[j]`` its probability and ``cond_mean[j]`` the exact
    :math:`\mathbb E[Y \mid \text{atom } j]`; the terms are
    :math:`|\sum_{j:\, r(g_j) = v} w_j (g_{j,i} - \mathbb E[Y_i\mid j])|`.
    """
    _, m = check_lam(lam)
    p_values, scalar = _p_values(p)
    _check_key_work_of(probs, m)
    probs, eps = _probability_rows(probs)
    target = _cond_mean_for(probs, cond_mean)
    w = _weights_for(probs, weights)
    out = _norms(_error_terms(probs, target, w, m, eps).signed, p_values)
    return float(out[0]) if scalar else out


def _bin_index(x: np.ndarray, n_bins: int) -> np.ndarray:
    return np.minimum(np.floor(x * n_bins + _ROUND_SLACK).astype(np.int64), n_bins - 1)


def _top_label_ece(probs, target, weights, n_bins) -> float:
    top = np.argmax(probs, axis=1)
    conf = probs[np.arange(probs.shape[0]), top]
    hit = target[np.arange(probs.shape[0]), top]
    cell = top * n_bins + _bin_index(conf, n_bins)
    signed = np.bincount(cell, weights=weights * (conf - hit), minlength=probs.shape[1] * n_bins)
    return float(np.abs(signed).sum())


def _classwise_ece(probs, target, weights, n_bins) -> float:
    total = 0.0
    for i in range(probs.shape[1]):
        cell = _bin_index(probs[:, i], n_bins)
        total += np.abs(np.bincount(cell, weights=weights * (probs[:, i] - target[:, i]), minlength=n_bins)).sum()
    return float(total)


def _ece_inputs(probs, y, n_bins):
    """Validated inputs of an empirical ECE: rows, one-hot targets, weights 1/n, n_bins."""
    probs = as_probability_rows(probs)
    n_bins = check_size(n_bins, "n_bins", item_bytes=16 * probs.shape[1], what="two sums per class and bin")
    yy = _labels_for(probs, y)
    target = np.zeros_like(probs)
    target[np.arange(yy.size), yy] = 1.0
    return probs, target, np.full(yy.size, 1.0 / yy.size), n_bins


def _population_ece_inputs(probs, cond_mean, weights, n_bins):
    """Validated inputs of a population ECE on a finite law (``cond_mean`` and ``weights`` required)."""
    probs = as_probability_rows(probs)
    n_bins = check_size(n_bins, "n_bins", item_bytes=16 * probs.shape[1], what="two sums per class and bin")
    return probs, _cond_mean_for(probs, cond_mean), _weights_for(probs, weights), n_bins


def top_label_ece(probs, y, n_bins: int = 15) -> float:
    r"""Empirical top-label ECE (Gupta and Ramdas): bins of the top confidence within each predicted class.

    :math:`\sum_{c}\sum_b P[\hat c = c, \mathrm{conf} \in b]\,|\mathbb E[\mathrm{conf} - \mathbb 1\{Y = c\} \mid \hat c = c, \mathrm{conf} \in b]|`
    with ``n_bins`` equal-width bins of [0, 1] and :math:`\hat c = \arg\max_i g_i` (first index on ties).
    """
    return _top_label_ece(*_ece_inputs(probs, y, n_bins))


def population_top_label_ece(probs, cond_mean, weights, n_bins: int = 15) -> float:
    """Population top-label ECE on a finite law (see :func:`population_lp_calibration_error` for the inputs)."""
    return _top_label_ece(*_population_ece_inputs(probs, cond_mean, weights, n_bins))


def classwise_ece(probs, y, n_bins: int = 15) -> float:
    r"""Empirical class-wise ECE (Kull et al.), **summed** over classes: :math:`\sum_i\sum_b |\mathbb E[(g_i - Y_i)\mathbb 1\{g_i \in b\}]|`.

    With ``n_bins = 1/lam`` each class-wise bin is a union of level sets, so
    this is at most :func:`lp_calibration_error` with ``p = 1``.
    """
    return _classwise_ece(*_ece_inputs(probs, y, n_bins))


def population_classwise_ece(probs, cond_mean, weights, n_bins: int = 15) -> float:
    """Population class-wise ECE (summed over classes) on a finite law."""
    return _classwise_ece(*_population_ece_inputs(probs, cond_mean, weights, n_bins))


def squared_error(probs, y) -> float:
    r"""Empirical squared error :math:`\frac1n\sum_s \|g_s - e_{y_s}\|_2^2` (the paper's accuracy measure)."""
    probs = as_probability_rows(probs)
    yy = _labels_for(probs, y)
    sq = np.sum(probs**2, axis=1) - 2.0 * probs[np.arange(yy.size), yy] + 1.0
    return float(sq.mean())


def population_squared_error(probs, cond_mean, weights) -> float:
    r"""Population squared error :math:`\sum_j w_j(\|g_j - h^*_j\|^2 + 1 - \|h^*_j\|^2)`, :math:`h^*_j = \mathbb E[e_Y\mid \text{atom } j]`."""
    probs = as_probability_rows(probs)
    h = _cond_mean_for(probs, cond_mean)
    w = _weights_for(probs, weights)
    return float(w @ (np.sum((probs - h) ** 2, axis=1) + 1.0 - np.sum(h**2, axis=1)))
