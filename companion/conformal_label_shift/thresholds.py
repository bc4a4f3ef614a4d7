"""Split, weighted (label shift) and label-conditional conformal thresholds, prediction sets and their coverage.

Paper 001, section 2 and Appendix B (book ``def-conf-split``,
``def-conf-weighted``, ``def-conf-label-conditional``, ``def-conf-oracle``,
``thm-conf-split``, ``thm-conf-weighted``).  Conventions (labels, scores, the
quantile and how a level is read) are those of :mod:`companion.conformal_label_shift.scores`.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from .._checks import as_rng, tie_eps
from .scores import (
    _as_label_array,
    _as_level,
    _as_levels,
    _as_probs,
    _as_scores,
    _ceil_rank,
    _flag,
    _mass_above,
    _real,
    _scalar,
    _uniforms,
    conformal_rank,
)


__all__ = [
    "WEIGHT_RTOL_PER_CLASS",
    "MAX_WEIGHT_RATIO",
    "split_threshold",
    "weighted_masses",
    "weighted_thresholds",
    "label_conditional_thresholds",
    "prediction_sets",
    "oracle_sets",
    "Coverage",
    "coverage",
    "set_sizes",
]


#: Relative tolerance of the tie rule of :func:`weighted_thresholds`, in units
#: of ``(k + 2)`` machine epsilons (``k`` classes): weights that differ from
#: exact ones by rounding (a few units in the last place) decide ties exactly
#: (book page *Numerical notes*).  :func:`oracle_sets` compares its masses with
#: ``1 - alpha`` with the same tolerance.
WEIGHT_RTOL_PER_CLASS = 8

#: The largest ratio of two nonzero weights :func:`weighted_thresholds` and
#: :func:`weighted_masses` accept (their domain).
MAX_WEIGHT_RATIO = 1e300


def split_threshold(cal_scores, alpha) -> np.ndarray | float:
    r"""Split-conformal threshold :math:`Q_{1-\alpha}(\{s_i\}_{i\le n}\cup\{1\})` (paper 001 eq. (7)).

    The :math:`\lceil(1-\alpha)(n+1)\rceil`-th smallest calibration score, or 1
    when that rank is :math:`n+1` (book ``alg-conf-split``, ``def-conf-split``,
    ``thm-conf-split``).

    Parameters
    ----------
    cal_scores : array_like, shape (..., n)
        Scores of the calibration points at their true labels
        (:func:`true_label_scores`), in [0, 1]; leading axes are independent
        calibration sets.
    alpha : float or fractions.Fraction
        Miscoverage level in (0, 1); a float is read as the fraction it stands
        for (:func:`exact_level`: ``0.1`` is 1/10).

    Returns
    -------
    float, or numpy.ndarray of shape ``(...)`` for batched input.

    Examples
    --------
    >>> split_threshold([0.05, 0.12, 0.31, 0.33, 0.48, 0.52, 0.67, 0.71, 0.90], 0.2)
    0.71
    >>> split_threshold([0.3, 0.6], 0.1)  # rank 3 = n + 1
    1.0
    """
    s = _as_scores(cal_scores, "cal_scores")
    n = s.shape[-1]
    rank = conformal_rank(n, alpha)  # step 1: r = ceil((1 - alpha)(n + 1)), exact
    if rank > n:  # step 2: the appended point 1 ...
        out = np.ones(s.shape[:-1])
    else:  # ... or the r-th smallest score
        out = np.partition(s, rank - 1, axis=-1)[..., rank - 1]
    return float(out) if out.ndim == 0 else out


def _check_weights(weights, batch_shape: tuple) -> np.ndarray:
    """Weights (..., k) in the domain: finite, >= 0, not all zero, nonzero ones normal floats with ratios <= 1e300."""
    w = _real(weights, "weights")
    if w.ndim < 1 or w.shape[-1] < 2:
        raise ValueError(f"weights must hold one weight per class in its last axis, got shape {w.shape}")
    if w.ndim > 1:
        try:
            np.broadcast_shapes(w.shape[:-1], batch_shape)
        except ValueError:
            raise ValueError(f"weights leading axes {w.shape[:-1]} do not match the batch axes {batch_shape} of cal_scores") from None
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite (found NaN or infinity)")
    if np.any(w < 0):
        raise ValueError("weights must be non-negative (importance weights q_y/p_y)")
    if np.any(~np.any(w > 0, axis=-1)):
        raise ValueError("weights must not be all zero")
    if np.any((w > 0) & (w < np.finfo(float).tiny)):
        raise ValueError("weights must be 0 or at least the smallest normal float (np.finfo(float).tiny, "
                         "about 2.2e-308): subnormal weights lose the precision of their ratios; multiply "
                         "them by a common factor")
    smallest = np.min(np.where(w > 0, w, np.inf), axis=-1)
    if np.any(np.max(w, axis=-1) / MAX_WEIGHT_RATIO > smallest):
        raise ValueError(f"weights: the ratio of two nonzero weights must be at most {MAX_WEIGHT_RATIO:.0e} (the domain "
                         "of the weighted thresholds); a class that much lighter than another is a class of weight 0")
    return w


def weighted_masses(y_cal, weights, y) -> np.ndarray:
    r"""The masses :math:`\varpi_i(y)` of eq. (9): calibration points :math:`i\le n`, then the test point.

    :math:`\varpi_i(y) = w(Y_i)/(\sum_{j\le n}w(Y_j) + w(y))` for :math:`i\le n`
    and :math:`\varpi_{n+1}(y) = w(y)/(\sum_{j\le n}w(Y_j)+w(y))` (book
    ``def-conf-weighted``), for exposition and tests.  The weights involved are
    divided by their largest value first, so no sum overflows.  Weights: the
    domain of :func:`weighted_thresholds`.

    Returns
    -------
    numpy.ndarray, shape (n + 1,)

    Examples
    --------
    >>> weighted_masses([0, 1, 1], [3.0, 1.0], 0).round(3).tolist()
    [0.375, 0.125, 0.125, 0.375]
    """
    codes = np.asarray(y_cal)
    if codes.ndim != 1 or codes.size == 0:
        raise ValueError(f"y_cal must be a non-empty 1-dimensional array of class positions, got shape {codes.shape}")
    w = _check_weights(weights, ())
    if w.ndim != 1:
        raise ValueError("weights must be 1-dimensional here (one weight per class)")
    codes = _as_label_array(codes, "y_cal", codes.shape, w.size)
    y = _scalar(y)
    if isinstance(y, bool) or not isinstance(y, numbers.Integral) or not 0 <= y < w.size:
        raise ValueError(f"y must be a class position in 0, ..., {w.size - 1}, got {y!r}")
    mass = np.append(w[codes], w[y])
    top = mass.max()
    if top <= 0:
        raise ValueError("the weights of the calibration labels and of y are all zero: eq. (9) is 0/0")
    mass = mass / top  # only the ratios matter: the largest involved weight is 1
    return mass / mass.sum()


def _weighted_inputs(cal_scores, y_cal, weights, alpha):
    """Checked and broadcast inputs of :func:`weighted_thresholds`: scores, labels (..., n), weights (..., k), level."""
    s = _as_scores(cal_scores, "cal_scores")
    w = _check_weights(weights, s.shape[:-1])
    codes = _as_label_array(y_cal, "y_cal", s.shape, w.shape[-1], "cal_scores")
    level = 1 - _as_level(alpha)
    batch = np.broadcast_shapes(s.shape[:-1], w.shape[:-1])
    s = np.broadcast_to(s, batch + s.shape[-1:])
    return s, np.broadcast_to(codes, s.shape), np.broadcast_to(w, batch + w.shape[-1:]), level


def _cumulative_weights(labels_sorted, w) -> np.ndarray:
    r""":math:`C_j=\sum_c w_c N_c(j)`, from the exact integer counts :math:`N_c(j)` of class ``c`` among the first ``j``."""
    cum = np.zeros(labels_sorted.shape)
    for c in range(w.shape[-1]):  # a loop over the classes
        cum += w[..., c:c + 1] * np.cumsum(labels_sorted == c, axis=-1)
    return cum


def _first_reaching(cum, target) -> np.ndarray:
    """Per row, the first index ``j`` (0-based) with ``cum[j] >= target``, ``n`` when none; one binary search each."""
    n, k = cum.shape[-1], target.shape[-1]
    cum_rows, target_rows = cum.reshape(-1, n), target.reshape(-1, k)
    j = np.empty(target_rows.shape, dtype=np.int64)
    for r in range(cum_rows.shape[0]):  # a loop over calibration sets, not over samples
        j[r] = np.searchsorted(cum_rows[r], target_rows[r], side="left")
    return j.reshape(target.shape)


def weighted_thresholds(cal_scores, y_cal, weights, alpha) -> np.ndarray:
    r"""Label-shift weighted thresholds :math:`t_w(y)`, one per candidate label (paper 001 eqs. (8)-(9)).

    :math:`t_w(y)` is the :math:`(1-\alpha)`-quantile of the calibration scores
    weighted by :math:`w(Y_i)`, with the point 1 of weight :math:`w(y)` appended:
    with the scores sorted and :math:`C_j` the cumulative weight of the first
    :math:`j`, the first :math:`s_{(j)}` with :math:`C_j\ge(1-\alpha)(C_n+w_y)`,
    or 1 (book ``alg-conf-weighted``, ``def-conf-weighted``, ``thm-conf-weighted``).

    Parameters
    ----------
    cal_scores : array_like, shape (..., n)
        Calibration scores at the true labels, in [0, 1].
    y_cal : array_like of int, shape (..., n)
        Calibration labels (class positions).
    weights : array_like, shape (k,) or (..., k)
        Importance weights :math:`w(y) = q_y/p_y`; only their ratios matter.
        Domain: finite, non-negative, not all zero, every nonzero weight a
        normal float (at least ``np.finfo(float).tiny``) and at most
        ``MAX_WEIGHT_RATIO`` (1e300) times any other nonzero weight.
    alpha : float or fractions.Fraction
        Miscoverage level in (0, 1), read by :func:`exact_level`.

    Returns
    -------
    numpy.ndarray, shape (..., k)

    Notes
    -----
    A cumulative weight that equals the level reaches it, and weights are
    usually rounded ratios (``0.3 / 0.1`` is ``2.9999999999999996``); the
    comparison in step 3 therefore counts a shortfall of at most
    :math:`\tau(C_j + \text{level})`, about :math:`2\tau` of the level with
    :math:`\tau = 8(k+2)\epsilon` (read at float32's epsilon for float32 or float16
    weights), as reaching it.  For weights within rounding of rationals
    :math:`a/b` with small numerators and denominators, every threshold is that of
    eq. (8) in exact arithmetic as long as :math:`b\,m\,(2n+m)(k+2)\le2\cdot10^{14}`
    (:math:`m` the largest numerator; divide the bound by :math:`2^{29}` for float32
    weights, so pass float64 weights for large ``n``).  A genuine shortfall that
    small (a class whose total weight is below about :math:`2\tau C_n`, e.g. 1e-9
    of the rest at n = 1e5) is read as a tie.  The rule,
    its exactness condition and their tests: book page *Numerical notes*.
    Cost :math:`O(n\log n + nk)` per calibration set.

    Examples
    --------
    >>> scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    >>> labels = [0, 2, 1, 2, 0, 1, 2, 0, 1]
    >>> weighted_thresholds(scores, labels, [1.0, 1.0, 0.0], 0.2).tolist()
    [0.9, 0.9, 0.8]
    >>> weighted_thresholds(scores, labels, [1.0, 1.0, 1.0], 0.2).tolist()  # equal weights: split conformal
    [0.8, 0.8, 0.8]
    """
    s, codes, w, level = _weighted_inputs(cal_scores, y_cal, weights, alpha)
    n, k = s.shape[-1], w.shape[-1]
    w = w / np.max(w, axis=-1, keepdims=True)  # only the ratios matter: the largest weight is 1, C_n is at most n
    # step 1: sort the scores, each keeping its label
    order = np.argsort(s, axis=-1, kind="stable")
    s_sorted = np.take_along_axis(s, order, axis=-1)
    # step 2: the cumulative weights C_j = sum_c w_c N_c(j), from exact integer counts N_c(j)
    cum = _cumulative_weights(np.take_along_axis(codes, order, axis=-1), w)
    denom = cum[..., -1:] + w  # C_n + w_y, (..., k)
    if np.any(denom <= 0):
        raise ValueError("weights of the calibration labels and of a candidate label are all zero: eq. (9) is 0/0 for it")
    # step 3: the first j with C_j >= (1 - alpha)(C_n + w_y), a shortfall below tau (C_j + level) counting as a tie
    tau = WEIGHT_RTOL_PER_CLASS * (k + 2) * tie_eps(weights)  # float32 (or float16) weights: float32's epsilon
    j = _first_reaching(cum, float(level) * denom * ((1.0 - tau) / (1.0 + tau)))
    return np.where(j < n, np.take_along_axis(s_sorted, np.minimum(j, n - 1), axis=-1), 1.0)  # none: the point 1


def label_conditional_thresholds(cal_scores, y_cal, alpha, n_classes: int | None = None) -> np.ndarray:
    r"""Label-conditional thresholds :math:`t_c(y) = Q_{1-\alpha_y}(\{s_i : Y_i = y\}\cup\{1\})` (paper 001 eq. (10)).

    For each class, the :math:`\lceil(1-\alpha_y)(n_y+1)\rceil`-th smallest of
    its :math:`n_y` calibration scores, or 1 when that rank exceeds
    :math:`n_y`; a class absent from the calibration set gets 1 (book
    ``alg-conf-label-conditional``, ``def-conf-label-conditional``).

    Parameters
    ----------
    cal_scores : array_like, shape (..., n)
        Calibration scores at the true labels, in [0, 1].
    y_cal : array_like of int, shape (..., n)
        Calibration labels.  A class that does not occur gets threshold 1.
    alpha : float, Fraction, or sequence of k of them
        One miscoverage level, or one per class, each in (0, 1).
    n_classes : int, optional
        Number of classes ``k``: required with a single level ``alpha`` (the
        labels cannot tell it: a class absent from ``y_cal`` must still get
        its threshold 1); with one level per class it defaults to the length
        of ``alpha`` and must agree with it.

    Returns
    -------
    numpy.ndarray, shape (..., k)

    Examples
    --------
    >>> scores, labels = [0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6], [0, 1, 0, 1, 0, 1, 0]
    >>> label_conditional_thresholds(scores, labels, 0.25, n_classes=3).tolist()  # class 2 is absent
    [0.6, 0.7, 1.0]
    """
    s = _as_scores(cal_scores, "cal_scores")
    k = _n_classes(alpha, n_classes)
    codes = _as_label_array(y_cal, "y_cal", s.shape, k, "cal_scores")
    levels = _as_levels(alpha, k)
    counts = np.sum(codes[..., None] == np.arange(k), axis=-2)  # n_y, (..., k); 0 for an absent class
    # step 1: sort by label, then score: class y occupies positions start_y, ..., start_y + n_y - 1
    order = np.lexsort((s, codes), axis=-1)
    s_sorted = np.take_along_axis(s, order, axis=-1)
    start = np.cumsum(counts, axis=-1) - counts
    rank = _ceil_rank(levels, counts)  # step 2: r_y = ceil((1 - alpha_y)(n_y + 1)), exact
    pos = np.minimum(start + rank - 1, s.shape[-1] - 1)
    # step 3: the r_y-th score of the class, or 1 when r_y > n_y (an absent class: r_y = 1 > 0)
    return np.where(rank > counts, 1.0, np.take_along_axis(s_sorted, pos, axis=-1))


def _n_classes(alpha, n_classes) -> int:
    """The number of classes of :func:`label_conditional_thresholds`: ``n_classes``, or the length of ``alpha``."""
    n_classes = _scalar(n_classes)
    if n_classes is None:
        if np.ndim(alpha) != 1:
            raise ValueError("n_classes is required with a single level alpha: max(y_cal) + 1 would drop a class absent "
                             "from the calibration set, whose threshold is 1 (eq. (10))")
        n_classes = len(alpha)
        if n_classes < 2:
            raise ValueError(f"alpha must be a scalar or hold one level per class (at least 2), got {len(alpha)}")
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or not 2 <= n_classes <= 2**31:
        raise ValueError(f"n_classes must be an integer >= 2 (and at most 2**31), got {n_classes!r}")
    return int(n_classes)


# ---------------------------------------------------------------------------
# Sets and their evaluation
# ---------------------------------------------------------------------------


def prediction_sets(test_scores, thresholds, include_top: bool = False, *, probs=None) -> np.ndarray:
    r"""Prediction sets :math:`\{y : s(x, y, u)\le t(y)\}` as a boolean array (paper 001 eqs. (7), (8), (10)).

    Book: ``def-conf-split``, ``def-conf-weighted``, ``def-conf-label-conditional``.

    Parameters
    ----------
    test_scores : array_like, shape (..., n_test, k)
        Scores of every label of every test point (:func:`conformal_scores`).
    thresholds : float or array_like, shape (...) or (..., k)
        One threshold for all labels (split conformal; shape ``(...)`` in a
        batch) or one per label (weighted, label-conditional; shape ``(..., k)``).
    include_top : bool
        Always keep the most likely label (paper 001 App. B.2: at the
        prediction step only; the thresholds are unchanged).
    probs : array_like, shape (..., n_test, k), optional
        The probabilities that define "most likely" (ties: the first), used
        only with ``include_top=True``.  Without them the label of smallest
        score is kept (ties: the first): for every kind of
        :func:`conformal_scores` that is the most likely label, since it
        scores :math:`u\hat\eta_{\max}\le\hat\eta_{\max}` (randomised) or 0,
        and every other label at least :math:`\hat\eta_{\max}`
        (for ``"lac"``, :math:`1-\hat\eta_y` is smallest at the most likely label).

    Returns
    -------
    numpy.ndarray of bool, shape (..., n_test, k)
    """
    s = _as_scores(test_scores, "test_scores", min_ndim=2)
    include_top = _flag(include_top, "include_top")
    k = s.shape[-1]
    t = _real(thresholds, "thresholds")
    if not np.all(np.isfinite(t)):
        raise ValueError("thresholds must be finite")
    batch = s.shape[:-2]
    if t.ndim == len(batch):
        t = t[..., None, None]  # one threshold for all labels
    elif t.ndim == len(batch) + 1 and t.shape[-1] == k:
        t = t[..., None, :]
    else:
        raise ValueError(f"thresholds must have shape {batch} (one for all labels) or {batch + (k,)} (one per label), got {t.shape}")
    try:
        sets = s <= t
    except ValueError:
        raise ValueError(f"thresholds of shape {np.shape(thresholds)} do not match the batch axes {batch} of test_scores") from None
    if include_top:
        if probs is None:
            top = np.argmin(s, axis=-1)  # the most likely label for every kind of conformal_scores
        else:
            p = _as_probs(probs)
            if p.shape != s.shape:
                raise ValueError(f"probs must have the shape of test_scores {s.shape}, got {p.shape}")
            top = np.argmax(p, axis=-1)
        sets = sets.copy()
        np.put_along_axis(sets, top[..., None], True, axis=-1)
    elif probs is not None:
        raise ValueError("probs is only used with include_top=True")
    return sets


def oracle_sets(probs, alpha, *, randomized: bool = False, rng=None, u=None, break_ties: bool = False) -> np.ndarray:
    r"""Oracle sets of paper 001 eqs. (3)-(4), with the tie-breaking rule of its App. B.1.

    Non-randomised: :math:`\{y : M_y(x;\eta) < 1-\alpha\}`; randomised:
    :math:`\{y : M_y + u\,\eta_y\le1-\alpha\}`.  With ``break_ties=True`` the
    labels of equal probability are put in a uniformly random order first and
    :math:`M_y` counts the mass of all labels before :math:`y` in that order,
    which includes tied labels one at a time until the mass reaches
    :math:`1-\alpha` (App. B.1; book ``def-conf-oracle``).  ``probs`` are the
    true posteriors :math:`\eta(x)`.

    **How the level is read.**  ``alpha`` is read by :func:`exact_level`, as
    everywhere in the package (``0.1`` is 1/10), and the masses, sums of
    floating-point probabilities, are compared with :math:`1-\alpha` up to
    rounding: a mass within ``WEIGHT_RTOL_PER_CLASS * (k + 2)`` machine
    epsilons (float32's for float32 and float16 ``probs``, float64's otherwise) of
    :math:`1-\alpha` counts as equal to it, the tolerance of the tie rule of
    :func:`weighted_thresholds`.  So ``[[0.7, 0.2, 0.1]]`` at
    ``alpha = 0.1`` gives ``{0, 1}``: the mass above label 2 is
    :math:`0.7+0.2=0.9`, not below :math:`1-\alpha`, although ``0.7 + 0.2`` is
    ``0.8999999999999999`` in floats.  A genuine difference smaller than the
    tolerance (about :math:`10^{-14}` in float64, :math:`5\cdot 10^{-6}` in float32) is read as a tie too.

    Returns
    -------
    numpy.ndarray of bool, shape (..., n, k)
    """
    p = _as_probs(probs)
    level = _as_level(alpha)
    randomized, break_ties = _flag(randomized, "randomized"), _flag(break_ties, "break_ties")
    if rng is not None:
        rng = as_rng(rng)
    beta = float(1 - level)
    tol = WEIGHT_RTOL_PER_CLASS * (p.shape[-1] + 2) * tie_eps(probs)  # a mass this close to 1 - alpha equals it
    if break_ties:
        if rng is None:
            raise ValueError("break_ties=True needs rng (the random order of tied labels)")
        gen = as_rng(rng)
        key = gen.random(p.shape)
        order = np.lexsort((key, -p), axis=-1)
        v = np.take_along_axis(p, order, axis=-1)
        above = np.empty_like(p)
        np.put_along_axis(above, order, np.cumsum(v, axis=-1) - v, axis=-1)
        rng = gen
    else:
        above = _mass_above(p)
    if not randomized:
        return above < beta - tol
    uu = _uniforms(p.shape[:-1], rng, u, "randomized oracle")
    return above + uu[..., None] * p <= beta + tol


class Coverage(NamedTuple):
    """Empirical coverage of prediction sets."""

    #: Fraction of points whose label is in their set, shape ``(...)``.
    marginal: np.ndarray | float
    #: The same among the points of each class, ``nan`` for a class absent from the sample, shape ``(..., k)``.
    per_class: np.ndarray
    #: Average set size, shape ``(...)``.
    mean_size: np.ndarray | float


def set_sizes(sets) -> np.ndarray:
    """Number of labels in every set, shape ``(..., n)``."""
    b = np.asarray(sets)
    if b.dtype != bool or b.ndim < 2:
        raise ValueError(f"sets must be a boolean array of shape (..., n, k), got dtype {b.dtype} and shape {b.shape}")
    return b.sum(axis=-1)


def coverage(sets, y) -> Coverage:
    """Marginal and per-class coverage and mean size of prediction sets (book ``def-conf-coverage``).

    Parameters
    ----------
    sets : array_like of bool, shape (..., n, k)
    y : array_like of int, shape (..., n)
        True labels (class positions).
    """
    b = np.asarray(sets)
    if b.dtype != bool or b.ndim < 2 or b.shape[-2] == 0:
        raise ValueError(f"sets must be a non-empty boolean array of shape (..., n, k), got dtype {b.dtype} and shape {b.shape}")
    k = b.shape[-1]
    codes = _as_label_array(y, "y", b.shape[:-1], k)
    hit = np.take_along_axis(b, codes[..., None], axis=-1)[..., 0]
    onehot = codes[..., None] == np.arange(k)
    counts = onehot.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_class = np.where(counts > 0, (onehot & hit[..., None]).sum(axis=-2) / np.maximum(counts, 1), np.nan)
    marginal = hit.mean(axis=-1)
    size = b.sum(axis=-1).mean(axis=-1)
    if marginal.ndim == 0:
        return Coverage(float(marginal), per_class, float(size))
    return Coverage(marginal, per_class, size)
