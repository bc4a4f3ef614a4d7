"""Paper 001's guarantees for binning under label shift: Theorem 3, Theorem 4 and the combined target guarantee.

Book labels: ``thm-binls-theorem3`` (Bretagnolle-Huber-Carol radii),
``thm-binls-theorem4`` and ``thm-binls-target-guarantee``.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_positive_ints, as_real_array, as_real_values, check_int, check_open_unit
from .._numerics import _log_over, _pow, _returned
from ..label_shift_weights import bbse_error_bound

__all__ = [
    "bhc_tail_bound",
    "multiclass_binning_epsilon",
    "weight_condition_number",
    "label_shift_binning_bound",
    "target_binning_bound",
]


# ---------------------------------------------------------------------------
# Label-shift weights and canonical binning under label shift
# (paper 001: Theorems 3-5 and Appendix A; book chapters chap-label-shift-weights
# and chap-binning-label-shift)
# ---------------------------------------------------------------------------


def bhc_tail_bound(t, n_categories: int):
    r"""Bretagnolle-Huber-Carol tail :math:`2^k e^{-2t^2}` (paper 001 Theorem 5; book ``thm-binls-bhc``).

    Bounds :math:`P[\sum_{i=1}^k |N_i - np_i| \ge 2\sqrt n\,t]` for a
    multinomial vector :math:`(N_1, \dots, N_k)` with ``n_categories`` :math:`= k`
    cells, whatever ``n`` and the cell probabilities.  ``t`` > 0 broadcasts.
    """
    k = check_int(n_categories, "n_categories", minimum=2)
    t_arr = as_real_values(t, "t")
    if np.any(t_arr <= 0):
        raise ValueError(f"t must be finite and positive, got {t!r}")
    with np.errstate(over="ignore", under="ignore"):
        tail = _pow(2.0, k) * np.exp(-2.0 * t_arr**2)
        if not np.all(np.isfinite(tail)):  # 2^k beyond the float range: k log 2 - 2 t^2 in log space
            tail = np.exp(k * np.log(2.0) - 2.0 * t_arr**2)
    if not np.all(np.isfinite(tail)):
        raise ValueError(f"n_categories = {k} is too large for t = {t!r}: the tail bound exceeds the float range")
    return _returned(tail)


def multiclass_binning_epsilon(counts, n_classes: int, delta: float):
    r"""Radii :math:`\varepsilon_I = \frac{2}{\sqrt{N_I}}\sqrt{\tfrac12\log(B\,2^k/\delta)}` of Theorem 3 (paper 001; book ``thm-binls-theorem3``).

    With probability at least :math:`1-\delta`, simultaneously for all
    :math:`B` bins, :math:`\|\hat\theta_I - \theta_I\|_1 \le \varepsilon_I`.
    ``counts`` holds the :math:`N_I \ge 1` along its last axis (one entry per
    bin, so :math:`B` is the length of that axis; leading axes are
    repetitions); ``n_classes`` is :math:`k`.  Returns an array of the shape
    of ``counts``.
    """
    counts = as_positive_ints(counts, "counts")
    k = check_int(n_classes, "n_classes", minimum=2)
    delta = check_open_unit(delta, "delta")
    n_bins = counts.shape[-1] if counts.ndim else 1
    top = n_bins * _pow(2.0, k)
    log_term = _log_over(top, delta) if np.isfinite(top) else np.log(n_bins) + k * np.log(2.0) - np.log(delta)
    return 2.0 / np.sqrt(counts) * np.sqrt(0.5 * log_term)


def weight_condition_number(weights) -> float:
    r""":math:`\kappa = \max_y w_y / \min_{y: w_y > 0} w_y` (paper 001 section 3.2; book ``eq-binls-kappa``)."""
    w = as_real_array(weights, "weights")
    if w.size < 2 or np.any(w < 0) or not np.any(w > 0):
        raise ValueError("weights must be a 1-D array of at least two finite non-negative numbers, not all zero")
    kappa = w.max() / w[w > 0].min()
    if not np.isfinite(kappa):
        raise ValueError("weights are too spread: max / min of the positive weights exceeds the float range")
    return float(kappa)


def label_shift_binning_bound(source_l1_error, weights, weights_hat):
    r"""Right-hand side of (18), Theorem 4 of paper 001 (book ``thm-binls-theorem4``).

    .. math:: 2\kappa\,\|\hat\theta^P_I - \theta^P_I\|_1 + \frac{2\|\hat w - w^*\|_\infty}{\min_y w^*_y},

    a bound on :math:`\|\hat\theta^{(\hat w)}_I - \theta^Q_I\|_1` in every bin
    :math:`I`.  ``source_l1_error`` (scalar or array, one value per bin) is
    :math:`\|\hat\theta^P_I - \theta^P_I\|_1`; ``weights`` are the true
    :math:`w^*` (shape ``(k,)``) and ``weights_hat`` the estimate
    :math:`\hat w \ge 0`, of shape ``(k,)`` or ``(R, k)`` (one estimate per
    repetition; then ``source_l1_error`` must broadcast against ``(R, 1)``
    and the result has one row per repetition).

    Every true weight must be positive: the proof divides by
    :math:`\sum_y w^*_y\theta^P_{I,y}`, which the paper bounds below by
    :math:`\min_{y: w^*_y \ne 0} w^*_y`, and that fails when a class with
    zero weight has source mass in the bin (the book's ``rem-binls-zero-weight``
    gives a counterexample), so zero weights raise ``ValueError``.
    """
    w = as_real_array(weights, "weights")
    kappa = weight_condition_number(w)
    if np.any(w <= 0):
        raise ValueError(
            "weights must all be positive: with a zero weight (a class absent from the target) Theorem 4 "
            "can fail, see the counterexample of the chapter on binning under label shift"
        )
    w_hat = as_real_values(weights_hat, "weights_hat")
    if w_hat.ndim not in (1, 2) or w_hat.shape[-1] != w.size:
        raise ValueError(f"weights_hat must be finite, of shape ({w.size},) or (R, {w.size}), got shape {w_hat.shape}")
    if np.any(w_hat < 0):
        raise ValueError("weights_hat must be non-negative (eq. (17) reweights frequencies by them)")
    err = as_real_values(source_l1_error, "source_l1_error")
    if np.any(err < 0) or np.any(err > 2):
        raise ValueError("source_l1_error must hold L1 distances between probability vectors, in [0, 2]")
    with np.errstate(over="ignore"):
        weight_part = 2.0 * np.max(np.abs(w_hat - w), axis=-1) / w.min()
    if not np.all(np.isfinite(weight_part)):
        raise ValueError("weights and weights_hat are too extreme: 2 max|weights_hat - weights| / min weights exceeds the float range")
    if w_hat.ndim == 2:
        weight_part = weight_part[:, None]
    bound = 2.0 * kappa * err + weight_part
    if not np.all(np.isfinite(bound)):
        raise ValueError("weights are too spread: the bound 2 kappa source_l1_error + ... exceeds the float range")
    return _returned(bound)


def target_binning_bound(counts, confusion, weights, n_source: int, n_target: int, delta: float):
    r"""Radii of the combined finite-sample guarantee on the target (book ``thm-binls-target-guarantee``).

    Theorem 3 of paper 001 at level :math:`\delta/2` (:func:`multiclass_binning_epsilon`),
    the BBSE bound at level :math:`\delta/2` (:func:`bbse_error_bound`, :math:`\beta`)
    and Theorem 4 (:func:`label_shift_binning_bound`) give, with probability at
    least :math:`1-\delta`, for every bin with :math:`N_I > 0`,

    .. math:: \|\hat\theta^{(\hat w)}_I - \theta^Q_I\|_1 \le
              2\kappa\,\varepsilon_I(\delta/2) + \frac{2\beta(\delta/2)}{\min_y w^*_y}.

    ``counts`` holds the calibration counts :math:`N_I \ge 1` along its last
    axis (leading axes: repetitions), ``confusion`` the population confusion
    matrix of the BBSE features, ``weights`` the true :math:`w^*` (all
    positive), ``n_source`` and ``n_target`` the sizes of the BBSE samples.
    The statement needs :math:`\beta < \min_y w^*_y` (then :math:`\hat w > 0`
    on the event); smaller samples raise ``ValueError``.  ``delta`` must be at
    least ``1e-323`` (twice the smallest float), so that the level
    :math:`\delta/2` of each event is a positive float.  Returns the radii,
    of the shape of ``counts``.
    """
    counts = as_positive_ints(counts, "counts")
    w = as_real_array(weights, "weights")
    if w.size < 2 or np.any(w <= 0):
        raise ValueError("weights must hold at least two positive numbers (Theorem 4 needs every weight positive)")
    delta = check_open_unit(delta, "delta")
    if delta / 2.0 == 0.0:
        raise ValueError(f"delta must be at least 1e-323 (delta/2, the level of each event, must be a positive float), "
                         f"got {delta!r}")
    beta = bbse_error_bound(confusion, w, n_source, n_target, delta / 2.0)
    if beta >= w.min():
        raise ValueError(
            f"n_source = {n_source} and n_target = {n_target} are too small for the guarantee at delta = {delta}: "
            f"the BBSE bound {beta:.3g} is not below the smallest weight {w.min():.3g}"
        )
    eps = multiclass_binning_epsilon(counts, w.size, delta / 2.0)
    return _returned(2.0 * weight_condition_number(w) * eps + 2.0 * beta / w.min())
