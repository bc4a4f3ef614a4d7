r"""Conformal prediction sets for classification: split, weighted (label shift) and label-conditional.

Source: paper 001 (Podkopaev and Ramdas), section 2 and Appendix B.  Book:
chapter ``chap-conformal-label-shift`` (``def-conf-scores``,
``def-conf-split``, ``def-conf-weighted``, ``def-conf-label-conditional``,
``thm-conf-split``, ``thm-conf-weighted``).

Conventions shared by every function here
------------------------------------------
* Labels are class positions ``0, ..., k-1`` (column ``y`` of a probability
  matrix belongs to label ``y``).  :func:`companion.label_shift_weights.encode_labels` maps
  other labels to positions.
* A *score* :math:`s(x, y, u)\in[0, 1]` is computed for every candidate label;
  **a label is in the prediction set when its score is at most its
  threshold** (``score <= threshold``).
* Quantiles follow the paper's footnote to eq. (7):
  :math:`Q_\beta(F) = \inf\{z : F(z)\ge\beta\}`, and
  :math:`Q_\beta(\{z_1,\dots,z_m\})` is the quantile of the empirical
  distribution of the multiset.  Hence the split threshold
  :math:`Q_{1-\alpha}(\{s_1,\dots,s_n\}\cup\{1\})` is the
  :math:`\lceil(1-\alpha)(n+1)\rceil`-th smallest calibration score, or 1
  when that rank exceeds :math:`n`.  The rank is computed in exact rational
  arithmetic, with the level read by :func:`exact_level`: a float ``alpha``
  is the simplest fraction that rounds to it (``0.3`` means 3/10, ``1/3``
  means 1/3), a :class:`fractions.Fraction` is used as it is.  Every function
  of the package reads a level this one way, and where a sum of floats meets
  the level (the cumulative weights of :func:`~companion.conformal_label_shift.weighted_thresholds`,
  the masses of :func:`~companion.conformal_label_shift.oracle_sets`) a difference
  within rounding counts as equality: ``0.7 + 0.2`` reaches ``1 - 0.1``.
* Every function accepts leading *batch* axes (independent repetitions), so
  that a simulation of ``R`` calibration sets is one call: calibration scores
  of shape ``(..., n)``, test scores ``(..., n_test, k)``.

Complexity: one sort of the calibration scores per fit
(:math:`O(n\log n)`), cumulative weights reused for all :math:`k` candidate
labels; prediction is a comparison, :math:`O(n_{test}k)`.  No
:math:`n\times n` arrays.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from .._checks import as_rng, simplex_tolerance


__all__ = ["SCORE_KINDS", "mass_above", "conformal_scores", "true_label_scores", "exact_level", "conformal_rank"]


#: The score kinds of :func:`conformal_scores`.
SCORE_KINDS = ("rho", "randomized", "scheme2", "lac")


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _real(x, name: str) -> np.ndarray:
    """``x`` as a float array; booleans, complex numbers, strings and objects are refused."""
    raw = np.asarray(x)
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of real numbers, got dtype {raw.dtype}")
    return raw.astype(float)


def _flag(x, name: str) -> bool:
    if not isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {x!r}")
    return bool(x)


_MAX_INT = 2**62


def _as_probs(probs, name: str = "probs") -> np.ndarray:
    p = _real(probs, name)
    if p.ndim < 2 or p.shape[-1] < 2 or p.shape[-2] < 1:
        raise ValueError(f"{name} must have shape (..., n, k) with n >= 1 points and k >= 2 classes, got {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite (found NaN or infinity)")
    if np.any((p < 0.0) | (p > 1.0)):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    off = np.abs(p.sum(axis=-1) - 1.0)
    tol = simplex_tolerance(probs, p.shape[-1])  # float32 rows: within k times float32's epsilon
    if np.any(off > tol):
        raise ValueError(f"{name} must have rows summing to 1 (within {tol:g}); worst row is off by {off.max():.3g}")
    return p


def _as_scores(scores, name: str, *, min_ndim: int = 1) -> np.ndarray:
    s = _real(scores, name)
    if s.ndim < min_ndim or s.size == 0:
        raise ValueError(f"{name} must be a non-empty array with at least {min_ndim} dimension(s), got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{name} must be finite (found NaN or infinity)")
    if np.any((s < 0.0) | (s > 1.0)):
        raise ValueError(f"{name} must lie in [0, 1] (conformal scores of paper 001 eq. (6))")
    return s


def _as_label_array(y, name: str, shape: tuple, n_classes: int | None, other: str = "the scores") -> np.ndarray:
    raw = np.asarray(y)
    if raw.shape != shape:
        raise ValueError(f"{name} must have shape {shape} to match {other}, got {raw.shape}")
    if raw.dtype.kind == "b" or raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold integer class positions 0, ..., k-1")
    if raw.dtype.kind == "f" and (not np.all(np.isfinite(raw)) or np.any(raw != np.round(raw))):
        raise ValueError(f"{name} must hold integer class positions 0, ..., k-1")
    codes = raw.astype(np.int64)
    hi = n_classes - 1 if n_classes is not None else None
    if np.any(codes < 0) or (hi is not None and np.any(codes > hi)):
        raise ValueError(f"{name} must hold class positions in {{0, ..., {hi}}}")
    return codes


def _scalar(x):
    """Unwrap numpy scalars and 0-d arrays to Python numbers (other values pass through)."""
    if isinstance(x, (np.ndarray, np.generic)) and np.ndim(x) == 0:
        return x.item()
    return x


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The fraction of smallest denominator in the closed interval ``[lo, hi]``, ``0 < lo < hi`` (continued fractions)."""
    whole = lo.numerator // lo.denominator
    if whole == lo:
        return Fraction(whole)
    if whole + 1 <= hi:
        return Fraction(whole + 1)
    return whole + 1 / _simplest_between(1 / (hi - whole), 1 / (lo - whole))


def exact_level(alpha) -> Fraction:
    r"""A miscoverage level in (0, 1) as an exact fraction: how every function here reads ``alpha``.

    A :class:`fractions.Fraction` (or an integer ratio) is used as it is.  A
    float is read as the *simplest* fraction that rounds to it: the one of
    smallest denominator among the reals whose nearest double is ``alpha``.
    So ``0.1`` is 1/10, ``0.05`` is 1/20, ``1/3`` is 1/3 and ``1/7`` is 1/7;
    a level written with at most seven decimals (eight below 1/2) is read as
    that decimal: two fractions that round to the same double differ by at
    most the spacing :math:`h` of doubles there (:math:`2^{-53}` in
    :math:`[1/2,1)`, :math:`2^{-54}` below), so any other has a denominator of
    at least :math:`1/(10^d h)\ge10^d`.  A float far from every simple
    fraction gets a long one (``0.123456789`` is 13566680/109890109; the
    denominator can reach about :math:`10^{16}`).

    The exact rank :math:`\lceil(1-\alpha)(n+1)\rceil` of :func:`conformal_rank`
    and the tie rule of :func:`weighted_thresholds` both use this fraction,
    so equal weights give the split threshold at ``alpha = 1/3`` as at 0.1.
    A ``float32`` or ``float16`` level is read at its own precision
    (``np.float32(0.1)`` is 1/10, not the double nearest to it).

    Examples
    --------
    >>> exact_level(0.1), exact_level(1 / 3), exact_level(np.float32(0.7))
    (Fraction(1, 10), Fraction(1, 3), Fraction(7, 10))
    """
    return _as_level(alpha)


def _as_level(alpha, name: str = "alpha") -> Fraction:
    """``alpha`` in (0, 1) as an exact fraction (a float read as the simplest fraction that rounds to it)."""
    low = alpha if isinstance(alpha, (np.float32, np.float16)) else None  # read at its own precision
    alpha = _scalar(alpha)
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"{name} must be a real number in (0, 1), got {alpha!r}")
    if isinstance(alpha, numbers.Rational):
        frac = Fraction(alpha)
    else:
        if not 0.0 < float(alpha) < 1.0:
            raise ValueError(f"{name} must lie in the open interval (0, 1), got {alpha!r}")
        frac = _simplest_rounding_to(np.float64(alpha) if low is None else low)
    if not (0 < frac < 1):
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {alpha!r}")
    return frac


def _simplest_rounding_to(x: np.floating) -> Fraction:
    """The simplest fraction among the reals that round to ``x`` in its own precision (float64, float32, float16)."""
    frac = Fraction(np.format_float_positional(x, unique=True, trim="-"))  # the shortest decimal that rounds to x
    if 10**7 % frac.denominator:  # not a decimal of at most seven digits (those are the simplest, see exact_level)
        # the reals that round to x: up to half-way to each neighbouring float.  The half-way points have a
        # larger power-of-two denominator than x itself, so the simplest fraction is never one of them.
        exact, zero, one = Fraction(float(x)), x.dtype.type(0), x.dtype.type(1)
        frac = _simplest_between((exact + Fraction(float(np.nextafter(x, zero)))) / 2,
                                 (exact + Fraction(float(np.nextafter(x, one)))) / 2)
    return frac


def _as_levels(alpha, k: int, name: str = "alpha") -> list[Fraction]:
    """A scalar level or one level per class, as exact fractions."""
    if np.ndim(alpha) == 0:
        return [_as_level(alpha, name)] * k
    arr = alpha.ravel() if isinstance(alpha, np.ndarray) and alpha.dtype in (np.float32, np.float16) else np.asarray(alpha, dtype=object).ravel()
    if np.ndim(alpha) != 1 or arr.size != k:
        raise ValueError(f"{name} must be a scalar or hold one level per class ({k}), got shape {np.shape(alpha)}")
    return [_as_level(a if isinstance(a, (np.float32, np.float16)) or not isinstance(a, np.generic) else a.item(),
                      f"{name}[{j}]") for j, a in enumerate(arr)]


def _ceil_rank(levels: list[Fraction], counts: np.ndarray) -> np.ndarray:
    r"""Exact :math:`\lceil(1-\alpha_j)(m+1)\rceil` for counts ``(..., k)`` and levels ``alpha_j`` (Python integers)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.empty(counts.shape, dtype=np.int64)
    for j, a in enumerate(levels):  # a loop over the k classes
        num, den = (1 - a).numerator, (1 - a).denominator
        m1 = counts[..., j].astype(object) + 1
        out[..., j] = np.asarray(-((-(m1 * num)) // den), dtype=object).astype(np.int64)
    return out


# ---------------------------------------------------------------------------
# Scores (paper 001 eqs. (3)-(6), (19), (20))
# ---------------------------------------------------------------------------


def mass_above(probs) -> np.ndarray:
    r"""Probability mass of the labels strictly more likely than each label (paper 001 eq. (3)).

    :math:`M_y(x;\hat\eta) = \sum_{y'}\hat\eta_{y'}(x)\,1\{\hat\eta_{y'}(x) > \hat\eta_y(x)\}`
    (the paper's :math:`\rho_y(x;\hat\pi)`; book ``def-conf-scores``).  Tied
    labels share the mass above the tie.  One sort per row,
    :math:`O(k\log k)`; for :math:`k\le8` a pairwise comparison, :math:`O(k^2)`.

    Parameters
    ----------
    probs : array_like, shape (..., n, k)
        Rows of the probability simplex.

    Returns
    -------
    numpy.ndarray, shape (..., n, k)
    """
    p = _as_probs(probs)
    return _mass_above(p)


def _mass_above(p: np.ndarray) -> np.ndarray:
    k = p.shape[-1]
    if k <= 8:  # few classes: pairwise comparison, O(k^2) per row, faster than sorting
        return np.sum(np.where(p[..., None, :] > p[..., :, None], p[..., None, :], 0.0), axis=-1)
    order = np.argsort(-p, axis=-1, kind="stable")
    v = np.take_along_axis(p, order, axis=-1)  # descending
    excl = np.cumsum(v, axis=-1) - v  # mass strictly before each position
    idx = np.broadcast_to(np.arange(k), v.shape)
    new = np.ones(v.shape, dtype=bool)
    new[..., 1:] = v[..., 1:] != v[..., :-1]
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=-1)  # first position of each tie group
    above_sorted = np.take_along_axis(excl, start, axis=-1)
    out = np.empty_like(p)
    np.put_along_axis(out, order, above_sorted, axis=-1)
    return out


def _uniforms(shape: tuple, rng, u, kind: str) -> np.ndarray:
    if u is not None:
        try:
            uu = np.asarray(u, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"u must be an array of real numbers ({exc})") from None
        if uu.shape != shape:
            raise ValueError(f"u must hold one uniform per point, shape {shape}, got {uu.shape}")
        if not np.all(np.isfinite(uu)) or np.any((uu < 0.0) | (uu > 1.0)):
            raise ValueError("u must lie in [0, 1]")
        return uu
    if rng is None:
        raise ValueError(f"rng (a numpy Generator or a seed) or u is required for kind={kind!r}, which is randomised")
    return as_rng(rng).random(shape)


def conformal_scores(probs, kind: str = "randomized", rng=None, *, u=None) -> np.ndarray:
    r"""Non-conformity scores of every label of every point (paper 001 eqs. (6), (19), (20)).

    With :math:`M_y = M_y(x;\hat\eta)` of :func:`mass_above` and one uniform
    :math:`u` per point, shared by its labels:

    * ``"rho"``: :math:`M_y` (the non-randomised score of eq. (19));
    * ``"randomized"``: :math:`M_y + u\,\hat\eta_y` (scheme 1, eqs. (5)-(6));
    * ``"scheme2"``: :math:`1\{M_y > 0\}(M_y + u\,\hat\eta_y)` (eq. (20): the
      most likely label is never randomised away);
    * ``"lac"``: :math:`1 - \hat\eta_y` (the least-ambiguous-set score, for comparison).

    Book: ``def-conf-scores``.  A label enters a set when its score is at most
    its threshold.  Mathematically every score lies in [0, 1]; the sums
    :math:`M_y+u\hat\eta_y` can exceed 1 by a few units in the last place, and
    are capped at 1 (a rounding guard, not a change of the data).

    Parameters
    ----------
    probs : array_like, shape (..., n, k)
        Classifier probabilities (rows of the simplex).
    kind : {"rho", "randomized", "scheme2", "lac"}
    rng : numpy.random.Generator or int, optional
        Source of the uniforms for the randomised kinds.
    u : array_like, shape (..., n), optional
        The uniforms themselves (overrides ``rng``), e.g. to share them between
        conformal and oracle sets.

    Returns
    -------
    numpy.ndarray, shape (..., n, k)
    """
    if kind not in SCORE_KINDS:
        raise ValueError(f"kind must be one of {SCORE_KINDS}, got {kind!r}")
    p = _as_probs(probs)
    if kind == "lac":
        return 1.0 - p
    above = _mass_above(p)
    if kind == "rho":
        return above
    uu = _uniforms(p.shape[:-1], rng, u, kind)
    s = np.minimum(above + uu[..., None] * p, 1.0)
    if kind == "scheme2":
        s = np.where(above > 0.0, s, 0.0)
    return s


def true_label_scores(scores, y) -> np.ndarray:
    """The score of the observed label of every point: ``scores[..., i, y_i]``, shape ``(..., n)``."""
    s = _as_scores(scores, "scores", min_ndim=2)
    codes = _as_label_array(y, "y", s.shape[:-1], s.shape[-1])
    return np.take_along_axis(s, codes[..., None], axis=-1)[..., 0]


# ---------------------------------------------------------------------------
# Thresholds (paper 001 eqs. (7)-(10))
# ---------------------------------------------------------------------------


def conformal_rank(n, alpha) -> int:
    r"""The rank :math:`\lceil(1-\alpha)(n+1)\rceil` of the split threshold, in exact arithmetic.

    The threshold is the score of this rank among ``n`` calibration scores,
    or 1 when the rank is :math:`n+1` (book ``def-conf-split``).
    """
    n = _scalar(n)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= _MAX_INT:
        raise ValueError(f"n must be a positive integer (the number of calibration scores, at most 2**62), got {n!r}")
    return int(_ceil_rank([_as_level(alpha)], np.array([int(n)]))[0])
