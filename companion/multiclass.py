r"""Multiclass calibration under :math:`\ell_p` error (paper 002, Bairaktari and Nguyen).

The extraction of the paper lost its mathematics; every definition below is
the book's reconstruction from the prose, stated in
the chapter "Multiclass calibration under l_p error" (labels ``def-multiclass-lp-*``).  In short, with
:math:`k` classes, a grid step :math:`\lambda = 1/m` and the simplex
:math:`\mathcal S_k`:

- the rounding map :math:`r(u) = \lambda\lfloor u/\lambda\rfloor` (coordinate-wise),
  whose values on :math:`\mathcal S_k` form the level sets :math:`V_\lambda`
  (``def-multiclass-lp-level-sets``, the paper's section 2);
- the canonical distribution :math:`c(v) = v + \frac{1 - \sum_i v_i}{k}\mathbf 1`
  of a level set (``def-multiclass-lp-canonical``);
- the Euclidean projection :math:`\Pi` onto :math:`\mathcal S_k` (``def-multiclass-lp-projection``);
- the :math:`\ell_p` calibration error (paper's Definition 5, ``def-multiclass-lp-error``)
  :math:`\mathrm{err}_p(g) = \bigl(\sum_{v, i} e(v, i)^p\bigr)^{1/p}` with
  :math:`e(v, i) = \bigl|\mathbb E[(g(X)_i - Y_i)\,\mathbb 1\{r(g(X)) = v\}]\bigr|`;
- the calibration algorithm (paper's Algorithm 2) as :class:`LpCalibrator`.

Level sets are handled as integer count vectors :math:`a = v/\lambda` and
identified by a perfect hash, the rank of :math:`a` in the combinatorial number
system (:func:`level_set_key`), so bins are found by sorting ``n`` integers and
never by a loop over :math:`V_\lambda`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar

from ._checks import (
    as_sequence,
    MAX_INT,
    _real_scalar,
    as_labels,
    as_real_array,
    as_rng,
    check_bool,
    check_int,
    check_open_unit,
    check_positive,
    check_real,
    check_same_length,
)

__all__ = [
    "ROW_SUM_TOLERANCE",
    "MAX_EXACT_KEY_WORK",
    "check_lam",
    "check_p",
    "as_probability_rows",
    "level_set_counts",
    "rounding",
    "level_set_key",
    "level_set_count",
    "level_set_count_bound",
    "grid_size",
    "enumerate_level_sets",
    "canonical_distribution",
    "project_to_simplex",
    "calibration_error_terms",
    "lp_calibration_error",
    "population_lp_calibration_error",
    "top_label_ece",
    "population_top_label_ece",
    "classwise_ece",
    "population_classwise_ece",
    "squared_error",
    "population_squared_error",
    "MulticlassScenario",
    "AUTO_THRESHOLD_SCALE",
    "DEFAULT_MAX_ITER",
    "LpCalibrator",
    "TemperatureScaling",
    "ClasswiseBinning",
    "TopLabelBinning",
]

#: Rows of a probability matrix must sum to 1 within this tolerance, or within ``k`` times the
#: machine epsilon of the input's floating-point type when that is larger (float32 rows).
ROW_SUM_TOLERANCE = 1e-8

#: A coordinate within this many grid steps below a grid point is rounded up to it, so that
#: ``rounding`` is idempotent on grid points despite floating-point error (e.g. ``0.29 * 100``);
#: for inputs of lower precision the allowance is ``4 m eps`` of their type (:func:`_round_slack`).
_ROUND_SLACK = 1e-9

#: Largest number of (row, class) key terms with Python-integer arithmetic that a call may ask for:
#: beyond it the level sets of ``k`` classes at step ``lam`` cannot be keyed in bounded time.
MAX_EXACT_KEY_WORK = 50_000_000


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def check_lam(lam, name: str = "lam") -> tuple[float, int]:
    r"""Return ``(lam, m)`` for a grid step :math:`\lambda = 1/m` with an integer :math:`m \ge 2`.

    The level sets of ``def-multiclass-lp-level-sets`` need :math:`1/\lambda`
    to be an integer, as in the paper (section 2: "where :math:`1/\lambda` is a
    positive integer"); :math:`\lambda \in (0, 1)` rules out :math:`m = 1`.
    ``name`` is the argument name used in error messages (a driver passes its own,
    e.g. ``"lam_values entries"``).
    """
    lam = check_open_unit(lam, name)
    if not 1.0 / lam <= MAX_INT:  # also catches 1/lam = inf for a subnormal lam
        raise ValueError(f"{name} must be 1/m for an integer m <= {MAX_INT}, got {lam!r}")
    m = round(1.0 / lam)
    if abs(m * lam - 1.0) > 1e-9:
        raise ValueError(f"{name} must be 1/m for an integer m (1/{name} = {1.0 / lam!r} is not an integer)")
    return 1.0 / m, int(m)


def check_p(p, name: str = "p") -> float:
    """Return ``p`` as a float in [1, inf] (``numpy.inf`` or ``float('inf')`` for the max).

    Python and numpy real scalars and 0-d real arrays are accepted; bool, strings,
    complex numbers, NaN and integers too large for a float are not.  ``name`` is
    the argument name used in error messages.
    """
    rule = "a number in [1, infinity]"
    value = _real_scalar(p, name, rule)
    if np.isnan(value):
        raise ValueError(f"{name} must be {rule}, got {p!r}")
    if value < 1.0:
        raise ValueError(f"{name} must be at least 1 (an l_p norm), got {p!r}")
    return value


def _p_array(p, name: str) -> np.ndarray:
    """Validate a non-empty 1-D sequence of exponents in [1, inf] (entries checked by :func:`check_p`)."""
    return np.array([check_p(v, f"{name} entries") for v in as_sequence(p, name).tolist()])


def _p_values(p, name: str = "p") -> tuple[np.ndarray, bool]:
    """Validate a scalar or 1-D sequence of p; return the array and whether the input was scalar."""
    try:
        scalar = np.ndim(p) == 0
    except (TypeError, ValueError):  # a ragged nested sequence
        raise ValueError(f"{name} must be a number or a 1-D sequence of numbers in [1, infinity], got {p!r}") from None
    if scalar:
        return np.array([check_p(p, name)]), True
    return _p_array(p, name), False


def _input_eps(probs) -> float:
    """Machine epsilon of the input's floating-point type (float64 for lists, integers and exact types)."""
    dtype = getattr(probs, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        return float(max(np.finfo(dtype).eps, np.finfo(np.float64).eps))
    return float(np.finfo(np.float64).eps)


def _probability_rows(probs, name: str = "probs", atol: float = ROW_SUM_TOLERANCE) -> tuple[np.ndarray, float]:
    """:func:`as_probability_rows` and the machine epsilon of the input's type (for the cell allowance of :func:`_counts`)."""
    atol = check_real(atol, "atol", minimum=0.0)
    eps = _input_eps(probs)
    arr = as_real_array(probs, name, ndim=2)
    if arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least 2 columns (classes), got shape {arr.shape}")
    if np.any(arr < 0.0):
        raise ValueError(f"{name} must be non-negative (rows on the probability simplex)")
    tol = max(atol, arr.shape[1] * eps)
    sums = arr.sum(axis=1)
    bad = np.abs(sums - 1.0) > tol
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} rows must sum to 1 (within {tol:g}); row {i} sums to {sums[i]!r}")
    return arr, eps


def as_probability_rows(probs, name: str = "probs", *, atol: float = ROW_SUM_TOLERANCE) -> np.ndarray:
    """Return an ``(n, k)`` float64 array whose rows lie on the simplex (k >= 2).

    Entries must be finite and non-negative and every row must sum to 1 within
    ``max(atol, k * eps)``, where ``atol`` is a finite number >= 0 and ``eps``
    the machine epsilon of the input's floating-point type (so that float32
    rows, which sum to 1 only to about 1e-7, are accepted); nothing is
    clipped or renormalised.
    """
    return _probability_rows(probs, name, atol)[0]


def _labels_for(probs: np.ndarray, y, name: str = "y") -> np.ndarray:
    k = probs.shape[1]
    y = as_labels(y, name, n_classes=k)
    check_same_length(probs=probs, **{name: y})
    return y


def _weights_for(probs: np.ndarray, weights, name: str = "weights") -> np.ndarray:
    w = as_real_array(weights, name)
    check_same_length(probs=probs, **{name: w})
    if np.any(w < 0):
        raise ValueError(f"{name} must be non-negative")
    if abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1 (a probability law on the rows), got {w.sum()!r}")
    return w


def _cond_mean_for(probs: np.ndarray, cond_mean, name: str = "cond_mean") -> np.ndarray:
    h = as_probability_rows(cond_mean, name)
    if h.shape != probs.shape:
        raise ValueError(f"{name} must have the same shape as probs, got {h.shape} and {probs.shape}")
    return h


# ---------------------------------------------------------------------------
# Level sets of the simplex (def-multiclass-lp-level-sets, Lemma 2)
# ---------------------------------------------------------------------------


def _round_slack(m: int, eps: float) -> float:
    """Allowance, in units of the grid step, for a coordinate stored just below a grid point (see ``_ROUND_SLACK``)."""
    return max(_ROUND_SLACK, 4.0 * m * eps)


def _counts(probs: np.ndarray, m: int, eps: float = float(np.finfo(np.float64).eps)) -> np.ndarray:
    """Integer counts ``floor(m u + slack)`` of validated simplex rows (``eps``: machine epsilon of the input type).

    The products ``m u`` are formed in float64 after the cast; a coordinate
    within ``slack = max(1e-9, 4 m eps)`` below a multiple of ``1/m`` counts as
    on it, so a float32 row ``[0.3, 0.7]`` lands in the level set
    ``(0.3, 0.7)`` like its float64 twin.  Rows that pass
    :func:`as_probability_rows` always give counts with ``m - k < sum <= m``
    (``lem-multiclass-lp-characterisation``); a row that does not is not on the
    simplex to its own precision and raises ``ValueError``.
    """
    counts = np.floor(probs * m + _round_slack(m, eps)).astype(np.int64)
    k = probs.shape[1]
    sums = counts.sum(axis=1)
    bad = (sums > m) | (sums <= m - k)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"probs row {i} is not on the simplex to the precision of its type at lam = 1/{m}: "
            f"its rounded counts sum to {int(sums[i])}, outside ({m - k}, {m}]"
        )
    return counts


def level_set_counts(probs, lam) -> np.ndarray:
    r"""Integer form :math:`a = r(u)/\lambda` of the rounding map, row by row.

    :math:`a_i = \lfloor u_i/\lambda\rfloor` (the paper's section 2; the book's
    ``def-multiclass-lp-level-sets``), computed as ``floor(m u_i + 1e-9)`` so
    that a coordinate one rounding error below a grid point counts as on it.
    Each row satisfies :math:`m - k < \sum_i a_i \le m`.
    """
    _, m = check_lam(lam)
    return _counts(*_rows_for_counts(probs, m))


def _rows_for_counts(probs, m: int) -> tuple[np.ndarray, int, float]:
    """Validated rows, ``m`` and the input's epsilon: the arguments of :func:`_counts`."""
    rows, eps = _probability_rows(probs)
    return rows, m, eps


def rounding(probs, lam) -> np.ndarray:
    r"""The rounding map :math:`r(u) = \lambda\lfloor u/\lambda\rfloor` (the level set of each row)."""
    lam, m = check_lam(lam)
    return _counts(*_rows_for_counts(probs, m)) / m


def grid_size(k: int, lam) -> int:
    r""":math:`|\Lambda^k| = (1/\lambda + 1)^k`, the number of cells of the product grid of earlier work."""
    k = check_int(k, "k", minimum=2)
    _, m = check_lam(lam)
    return (m + 1) ** k


def level_set_count_bound(k: int, lam) -> int:
    r"""Lemma 2 of the paper: :math:`|V_\lambda| \le \binom{1/\lambda + k}{k}` (``lem-multiclass-lp-count``)."""
    k = check_int(k, "k", minimum=2)
    _, m = check_lam(lam)
    return math.comb(m + k, k)


def level_set_count(k: int, lam) -> int:
    r"""Exact :math:`|V_\lambda| = \binom{m + k}{k} - \binom{m}{k}` with :math:`m = 1/\lambda` (``lem-multiclass-lp-exact-count``).

    A count vector :math:`a` is a level set iff :math:`m - k < \sum_i a_i \le m`;
    the subtracted term counts the vectors with :math:`\sum_i a_i \le m - k`.
    """
    k = check_int(k, "k", minimum=2)
    _, m = check_lam(lam)
    return math.comb(m + k, k) - math.comb(m, k)


def _key_table(m: int, k: int, exact: bool) -> np.ndarray:
    """``table[s, j] = C(s + j - 1, j)`` for ``0 <= s <= m``, ``0 <= j <= k`` (int64, or Python ints if ``exact``).

    These are the only binomial coefficients the ranks of :func:`level_set_key`
    use (``s`` is a partial sum of a count vector, at most ``m``); the largest is
    ``C(m + k - 1, k) < C(m + k, k)``, so :func:`_fits_int64` on the key range
    bounds every entry.  Built column by column with the recurrence
    ``C(s + j - 1, j) = C(s + j - 2, j - 1) (s + j - 1) / j`` in exact integers.
    """
    table = np.zeros((m + 1, k + 1), dtype=object)
    column = [1] * (m + 1)  # j = 0: C(s - 1, 0) = 1 for s >= 1; s = 0 is never used with j = 0
    table[:, 0] = column
    for j in range(1, k + 1):
        column = [0] + [column[s] * (s + j - 1) // j for s in range(1, m + 1)]
        table[:, j] = column
    return table if exact else table.astype(np.int64)


def _fits_int64(m: int, k: int) -> bool:
    """Whether every key (rank below ``C(m + k, k)``) and every table entry fits in int64 with room for sums."""
    return math.comb(m + k, k) < 2**62


def _check_key_work(m: int, k: int, n_rows: int) -> None:
    """Refuse, before any work, a keying job beyond ``MAX_EXACT_KEY_WORK``.

    Two costs are bounded: the key table has ``(m + 1)(k + 1)`` entries, and
    when the key range ``C(m + k, k)`` exceeds ``2^62`` every one of the
    ``n_rows * k`` key terms is a Python-integer addition.
    """
    if (m + 1) * (k + 1) > MAX_EXACT_KEY_WORK:
        raise ValueError(
            f"lam = 1/{m} with k = {k} classes needs a key table of (1/lam + 1)(k + 1) = {(m + 1) * (k + 1)} entries, "
            f"more than MAX_EXACT_KEY_WORK = {MAX_EXACT_KEY_WORK}: use a coarser lam or fewer classes"
        )
    if not _fits_int64(m, k) and n_rows * k > MAX_EXACT_KEY_WORK:
        raise ValueError(
            f"probs with k = {k} classes at lam = 1/{m} have C(1/lam + k, k) > 2^62 level-set keys, which need exact "
            f"integer arithmetic; {n_rows} rows x {k} classes exceed MAX_EXACT_KEY_WORK = {MAX_EXACT_KEY_WORK} "
            "such terms: use fewer rows, fewer classes or a coarser lam"
        )


def _keys_from_counts(counts: np.ndarray, m: int) -> np.ndarray:
    """Rank of each count vector among all vectors with sum <= m (combinatorial number system)."""
    n, k = counts.shape
    _check_key_work(m, k, n)
    exact = not _fits_int64(m, k)
    table = _key_table(m, k, exact)
    partial = np.cumsum(counts, axis=1)  # a_1 + ... + a_j, at most m
    keys = table[partial[:, 0], 1]
    for j in range(2, k + 1):  # loop over the k coordinates, vectorised over rows
        keys = keys + table[partial[:, j - 1], j]
    return keys


def level_set_key(counts, lam) -> np.ndarray:
    r"""Perfect hash of level sets: the rank :math:`\sum_j \binom{c_j}{j}` of :math:`c_j = a_1 + \dots + a_j + j - 1`.

    ``counts`` are integer vectors :math:`a` (rows) with non-negative entries
    and :math:`\sum_i a_i \le m`; distinct vectors get distinct keys in
    :math:`[0, \binom{m + k}{k})`.  Keys are ``int64`` when that range fits,
    Python integers (object array) otherwise.
    """
    _, m = check_lam(lam)
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.dtype.kind not in "iu":
        raise ValueError("counts must be a 2-D array of integers (rows a = v / lam)")
    if np.any(arr < 0) or np.any(arr.sum(axis=1) > m):
        raise ValueError(f"counts must be non-negative with row sums at most 1/lam = {m}")
    return _keys_from_counts(arr.astype(np.int64), m)


def enumerate_level_sets(k: int, lam, max_count: int = 2_000_000) -> np.ndarray:
    r"""All level sets of :math:`V_\lambda` as integer count vectors, sorted by :func:`level_set_key`.

    Walks the :math:`\binom{m+k}{k}` vectors with :math:`\sum_i a_i \le m` in
    rank order (by unranking the combinatorial number system, vectorised) and
    keeps those with :math:`\sum_i a_i > m - k`.  Raises ``ValueError`` if the
    walk would exceed ``max_count`` vectors.
    """
    k = check_int(k, "k", minimum=2)
    _, m = check_lam(lam)
    max_count = check_int(max_count, "max_count")
    total = math.comb(m + k, k)
    if total > max_count:
        raise ValueError(f"k and lam give C(1/lam + k, k) = {total} vectors to walk, more than max_count = {max_count}")
    table = _key_table(m, k, exact=False)
    partial = np.empty((total, k), dtype=np.int64)
    rest = np.arange(total, dtype=np.int64)
    for j in range(k, 0, -1):  # greedy unranking: largest partial sum s with C(s + j - 1, j) <= rest
        column = table[:, j]
        s_j = np.searchsorted(column, rest, side="right") - 1
        partial[:, j - 1] = s_j
        rest -= column[s_j]
    counts = np.diff(np.concatenate([np.zeros((total, 1), dtype=np.int64), partial], axis=1), axis=1)
    keep = counts.sum(axis=1) > m - k
    return counts[keep]


def canonical_distribution(levels, lam) -> np.ndarray:
    r"""Canonical distribution :math:`c(v) = v + \frac{1 - \sum_i v_i}{k}\mathbf 1` of level sets (``def-multiclass-lp-canonical``).

    ``levels`` are level sets as values :math:`v = \lambda a` (rows of
    :func:`rounding`) or as integer counts :math:`a` (rows of
    :func:`level_set_counts`, recognised by an integer dtype).  :math:`c(v)` is
    the point of the simplex nearest to :math:`v` and lies in level set :math:`v`.
    """
    lam, m = check_lam(lam)
    arr = np.asarray(levels)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError("levels must be a 2-D array with at least 2 columns")
    if arr.dtype.kind in "iu":
        counts = arr.astype(np.int64)
    else:
        vals = as_real_array(arr, "levels", ndim=2)
        counts = np.round(vals * m).astype(np.int64)
        if np.any(np.abs(counts - vals * m) > 1e-6):
            raise ValueError("levels must be multiples of lam (values of the rounding map)")
    k = counts.shape[1]
    sums = counts.sum(axis=1)
    if np.any(counts < 0) or np.any(sums > m) or np.any(sums <= m - k):
        raise ValueError(f"levels must be level sets: non-negative counts with 1/lam - k < sum <= 1/lam = {m}")
    return _canonical_from_counts(counts, m)


def _canonical_from_counts(counts: np.ndarray, m: int) -> np.ndarray:
    k = counts.shape[1]
    slack = m - counts.sum(axis=1)
    return (counts * k + slack[:, None]) / (m * k)


# ---------------------------------------------------------------------------
# Euclidean projection onto the simplex (def-multiclass-lp-projection)
# ---------------------------------------------------------------------------


def _project_rows(w: np.ndarray) -> np.ndarray:
    k = w.shape[1]
    u = -np.sort(-w, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    positive = u - css / np.arange(1, k + 1) > 0
    rho = k - np.argmax(positive[:, ::-1], axis=1)  # the largest j with u_j > (sum_{i<=j} u_i - 1) / j
    shift = css[np.arange(w.shape[0]), rho - 1] / rho
    return np.maximum(w - shift[:, None], 0.0)


def project_to_simplex(w) -> np.ndarray:
    r"""Euclidean projection :math:`\Pi(w) = \arg\min_{u \in \mathcal S_k} \|u - w\|_2` of each row (sort-based, :math:`O(k\log k)`).

    Sort the row decreasingly, :math:`w_{(1)} \ge \dots \ge w_{(k)}`, take the
    largest :math:`\rho` with :math:`w_{(\rho)} > (\sum_{j \le \rho} w_{(j)} - 1)/\rho`,
    set :math:`t^\star = (\sum_{j \le \rho} w_{(j)} - 1)/\rho` and return
    :math:`\max(w - t^\star, 0)` (``lem-multiclass-lp-projection``; the algorithm of
    Held, Wolfe and Crowder, 1974).  Accepts one vector or an ``(n, k)`` array.
    """
    arr = np.asarray(w)
    if arr.ndim not in (1, 2):
        raise ValueError(f"w must be a vector or a 2-D array of rows, got shape {arr.shape}")
    rows = as_real_array(np.atleast_2d(arr), "w", ndim=2)
    if rows.shape[1] < 1:
        raise ValueError("w must have at least one coordinate")
    out = _project_rows(rows)
    return out[0] if arr.ndim == 1 else out


# ---------------------------------------------------------------------------
# Calibration errors (Definition 5 of the paper, def-multiclass-lp-error) and the ECEs
# ---------------------------------------------------------------------------


class ErrorTerms(NamedTuple):
    """Per-level-set terms of the l_p calibration error (see :func:`calibration_error_terms`)."""

    keys: np.ndarray  # level-set keys of the occupied level sets, sorted
    counts: np.ndarray  # (n_bins, k) integer level sets a = v / lam
    mass: np.ndarray  # (n_bins,) probability of each level set
    signed: np.ndarray  # (n_bins, k) E[(g_i - Y_i) 1{r(g) = v}]


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
    n_bins = check_int(n_bins, "n_bins", minimum=1)
    yy = _labels_for(probs, y)
    target = np.zeros_like(probs)
    target[np.arange(yy.size), yy] = 1.0
    return probs, target, np.full(yy.size, 1.0 / yy.size), n_bins


def _population_ece_inputs(probs, cond_mean, weights, n_bins):
    """Validated inputs of a population ECE on a finite law (``cond_mean`` and ``weights`` required)."""
    probs = as_probability_rows(probs)
    n_bins = check_int(n_bins, "n_bins", minimum=1)
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


# ---------------------------------------------------------------------------
# A scenario with an exact oracle
# ---------------------------------------------------------------------------


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class MulticlassScenario:
    r"""A ``k``-class forecaster with finitely many outputs and a known miscalibration map.

    The forecast :math:`f(X)` is uniform on ``n_atoms`` points of the simplex,
    drawn once (seed ``seed``) as :math:`a_j = \mathrm{softmax}(z_j)` with
    logits :math:`z_j = s\,e_{c_j} + r\,g_j` (``sharpness`` :math:`s`,
    ``spread`` :math:`r`), :math:`c_j` uniform over the classes and
    :math:`g_j \sim N(0, I_k)` (a confident classifier).  The label law given
    the forecast is the tempered, shifted softmax

    .. math:: h^*(a_j) = \mathbb E[e_Y \mid f(X) = a_j] = \mathrm{softmax}(t\,z_j + o),

    with temperature ``temperature`` :math:`t` (below 1: :math:`f` is
    over-confident) and class offsets ``class_offsets`` :math:`o` (default
    evenly spaced from -1/2 to 1/2).  Because the law is finite, population
    errors of any predictor that is a function of
    :math:`f(X)` are exact finite sums (:meth:`evaluate`).
    """

    def __init__(
        self,
        n_classes: int = 5,
        n_atoms: int = 4000,
        *,
        sharpness: float = 3.0,
        spread: float = 1.0,
        temperature: float = 0.6,
        class_offsets=None,
        seed: int = 0,
    ):
        self.n_classes = k = check_int(n_classes, "n_classes", minimum=2)
        if not isinstance(seed, np.random.Generator):
            seed = check_int(seed, "seed", minimum=0)
        self.n_atoms = check_int(n_atoms, "n_atoms", minimum=1)
        self.sharpness = check_positive(sharpness, "sharpness")
        self.spread = check_positive(spread, "spread")
        self.temperature = check_positive(temperature, "temperature")
        if class_offsets is None:
            offsets = np.linspace(-0.5, 0.5, k)
        else:
            offsets = as_real_array(class_offsets, "class_offsets")
            if offsets.size != k:
                raise ValueError(f"class_offsets must have n_classes = {k} entries, got {offsets.size}")
        self.class_offsets = offsets
        rng = as_rng(seed, "seed")
        centre = rng.integers(k, size=self.n_atoms)
        logits = self.spread * rng.standard_normal((self.n_atoms, k))
        logits[np.arange(self.n_atoms), centre] += self.sharpness
        self.atoms = _softmax(logits)
        self.weights = np.full(self.n_atoms, 1.0 / self.n_atoms)
        self.h_star = _softmax(self.temperature * logits + offsets)

    def sample(self, n: int, rng=None, *, return_index: bool = False):
        """Draw ``n`` IID pairs: forecasts ``probs`` (n, k) and labels ``y``; optionally the atom indices."""
        n = check_int(n, "n", minimum=1)
        rng = as_rng(0 if rng is None else rng)
        return_index = check_bool(return_index, "return_index")
        # multinomial counts per (atom, class) cell, expanded and put in a uniformly random order:
        # the same law as n independent draws of (atom, label)
        per_atom = rng.multinomial(n, self.weights)
        cells = rng.multinomial(per_atom, self.h_star).ravel()
        order = rng.permutation(n)
        idx = np.repeat(np.repeat(np.arange(self.n_atoms), self.n_classes), cells)[order]
        y = np.repeat(np.tile(np.arange(self.n_classes), self.n_atoms), cells)[order]
        out = (self.atoms[idx], y)
        return (*out, idx) if return_index else out

    def evaluate(self, predict, lam, p=(1.0, 2.0, np.inf), n_bins: int = 15) -> dict:
        r"""Exact population metrics of a predictor :math:`g \circ f`.

        ``predict`` is a callable mapping forecasts (rows) to probability
        vectors, or the ``(n_atoms, k)`` array of its values on the atoms.
        Returns ``lp`` (array over ``p``), ``squared_error``, ``top_label_ece``,
        ``classwise_ece`` (``n_bins`` equal-width bins) and ``accuracy``.
        """
        check_lam(lam)
        p_values, _ = _p_values(p)
        n_bins = check_int(n_bins, "n_bins")
        g = predict(self.atoms) if callable(predict) else predict
        g = as_probability_rows(g, "predictions")
        if g.shape != self.atoms.shape:
            raise ValueError(f"predictions must have shape {self.atoms.shape}, got {g.shape}")
        lp = population_lp_calibration_error(g, self.h_star, self.weights, p_values, lam)
        hit = self.h_star[np.arange(self.n_atoms), np.argmax(g, axis=1)]
        return {
            "p": p_values,
            "lp": lp,
            "squared_error": population_squared_error(g, self.h_star, self.weights),
            "top_label_ece": population_top_label_ece(g, self.h_star, self.weights, n_bins),
            "classwise_ece": population_classwise_ece(g, self.h_star, self.weights, n_bins),
            "accuracy": float(self.weights @ hit),
        }


# ---------------------------------------------------------------------------
# The calibration algorithm (paper's Algorithm 2, alg-multiclass-lp)
# ---------------------------------------------------------------------------


class _QGroup(NamedTuple):
    bins: np.ndarray  # H-indices of the bins in the group (size a power of 2)
    mass: float  # estimate of q(A) = P[r(f(X)) in A], from the mass pool of its size
    labels: np.ndarray  # estimate of (q(A), E[Y 1{r(f(X)) in A}]) (k + 1 entries), from the label pool of its size


def _pool_count(omega_m: float) -> int:
    """Number J of group sizes 1, 2, 4, ... up to floor(1/omega_m) (at most that many high-mass bins)."""
    return int(math.floor(math.log2(max(1, math.floor(1.0 / omega_m))))) + 1


#: ``threshold="auto"`` uses omega = omega_m = AUTO_THRESHOLD_SCALE standard deviations of an estimated group error.
AUTO_THRESHOLD_SCALE = 2.0

#: Default cap on the number of steps (the loop always terminates, see ``LpCalibrator``).
DEFAULT_MAX_ITER = 100_000


class LpCalibrator:
    r"""Recalibrate a ``k``-class predictor under :math:`\ell_p` error (the paper's Algorithm 2, ``alg-multiclass-lp``).

    Steps of :meth:`fit` (the book's reconstruction, see the chapter):

    1. round every forecast to its level set; estimate each level set's mass
       :math:`\hat q(v)` and keep the *high-mass bins* :math:`H = \{v : \hat q(v) \ge \omega_m\}`;
    2. one group per bin, predicting the canonical distribution :math:`c(v)`;
    3. while some group :math:`G` and class :math:`i` have estimated error
       :math:`\hat q(G)\,|u_{G,i} - \hat y_i(G)| > \omega` (:math:`u_G` the group's
       prediction, :math:`\hat q(G)` its estimated mass, :math:`\hat y(G)` its
       estimated label distribution): take the largest, set coordinate
       :math:`i` to :math:`\hat y_i(G)` and project onto the simplex (stage 1);
       if another group's prediction has the same level set, merge the two and
       keep the prediction of the group with the larger estimated mass
       (stage 2); re-estimate.
    4. Points of level sets outside :math:`H` get :math:`c(r(f(x)))`.

    Group statistics come from *estimation groups* whose sizes are powers of
    2 (the paper's structure Q): a group of the prediction structure is a
    disjoint union of estimation groups of distinct sizes and its estimates are
    sums of theirs (Lemma 9 of the paper).  :math:`\hat y(G)` is the projection
    onto the simplex of the estimated class frequencies of :math:`G`, so it is
    a distribution; the loop therefore always terminates (each step lowers
    :math:`\|u_G - \hat y(G)\|^2` by more than :math:`(\omega/\hat q(G))^2`, and
    there are fewer merges than bins).

    Parameters
    ----------
    lam : float
        Grid step :math:`\lambda = 1/m`.
    p : float
        The :math:`\ell_p` exponent in (1, inf]; used only with ``epsilon``.
    epsilon : float, optional
        Target :math:`\ell_p` error.  Sets :math:`\omega = \omega_m = (\varepsilon/4)^{p/(p-1)}`
        (Theorem 6 as reconstructed, ``thm-multiclass-lp-main``) and makes
        :meth:`fit` refuse fewer samples than :func:`companion.bounds.theorem6_sample_size`
        (unless ``check_sample_size=False``).
    threshold : float or "auto"
        Error threshold :math:`\omega`.  ``"auto"`` (the default, used when
        ``epsilon`` is None) sets :math:`\omega = \omega_m = 2\,\mathrm{sd}` with
        :math:`\mathrm{sd} = 1/(2\sqrt{n_{\mathrm{pool}}}) + \sqrt2(b_m + 2b_y)`, an upper
        bound on the standard deviation of an estimated group error from a pool of
        :math:`n_{\mathrm{pool}}` samples with Laplace noise of scales :math:`b_m`
        (masses) and :math:`b_y` (labels); :data:`AUTO_THRESHOLD_SCALE` is the 2.
        Without noise this is :math:`1/\sqrt{n_{\mathrm{pool}}}`.  The book's
        practical choice, *not* the theorem's.
    mass_threshold : float, optional
        :math:`\omega_m`, the mass above which a level set is heavy (default: :math:`\omega`).
    delta : float
        Failure probability, used for the noise scale and the sample size.
    noise : bool or float
        True: Laplace noise of the paper's Lemma 8 (``lem-multiclass-lp-disjoint``), scaled
        for the accuracy the pool supports; False: exact sample means; a float:
        the privacy parameter :math:`\varepsilon_{\mathrm{DP}}` (scale :math:`2/(n\varepsilon_{\mathrm{DP}})`).
    pools : bool
        True: the paper's sample splitting (one pool for the level-set masses
        and, for each group size :math:`2^j`, one pool for group masses and one
        for label frequencies); False: every estimate from the whole sample.
    max_iter : int, optional
        Cap on the number of steps (default :data:`DEFAULT_MAX_ITER`).
    record_states : bool
        Store the per-bin predictions after both stages of every step in
        ``trajectory_`` (for population trajectories).
    record_queries : bool
        Store every answer of the estimation structure in ``queries_`` (list of
        ``(bins, mass, labels)``; ``labels`` estimates
        :math:`(q, \mathbb E[e_Y\,\mathbb 1\{\cdot\}])`), to compare with population values (the paper's Lemma 8, ``lem-multiclass-lp-disjoint``).
    check_sample_size : bool
        With ``epsilon``, refuse samples smaller than Theorem 6 asks for.
    rng : numpy.random.Generator or int
        Generator or seed, for the pool split and the noise.

    Attributes
    ----------
    threshold_, mass_threshold_ : float
        The thresholds :math:`\omega` and :math:`\omega_m` used.
    keys_ : array
        Level-set keys (:func:`level_set_key`) of the heavy level sets :math:`H`, sorted.
    bin_levels_ : array
        Their count vectors.
    bin_predictions_ : array
        Final prediction of each level set of :math:`H`.
    groups_ : list of arrays
        The groups, as index arrays into :math:`H`.
    n_steps_, n_merges_, converged_ : int, int, bool
        Steps taken, merges made, and whether the loop ended below the threshold.
    pool_sizes_, noise_scales_ : list
        Sizes of the pools and Laplace scales (mass, labels) per group size.
    visited_ : array
        Keys of every level set a group prediction occupied during the run.
    trajectory_ : dict
        Per-step arrays ``group_size``, ``cls``, ``est_error``, ``merged``,
        ``moved_mass`` (estimated mass of the group whose prediction moved in a
        merge) and ``n_groups``; with ``record_states`` also the
        ``(steps, |H|, k)`` arrays ``stage1`` and ``stage2``.
    queries_ : list
        With ``record_queries``, every answer of the estimation structure.
    """

    def __init__(
        self,
        lam=0.1,
        *,
        p=2.0,
        epsilon=None,
        threshold="auto",
        mass_threshold=None,
        delta: float = 0.1,
        noise=True,
        pools: bool = True,
        max_iter=None,
        record_states: bool = False,
        record_queries: bool = False,
        check_sample_size: bool = True,
        rng=None,
    ):
        self.lam, self.m = check_lam(lam)
        self.p = check_p(p)
        self.delta = check_open_unit(delta, "delta")
        if epsilon is not None:
            self.epsilon = check_open_unit(epsilon, "epsilon")
            if self.p == 1.0:
                raise ValueError("p must be greater than 1 when epsilon is given (Theorem 6 gives no sample size at p = 1)")
        else:
            self.epsilon = None
        if isinstance(threshold, str):
            if threshold != "auto":
                raise ValueError(f"threshold must be a number in (0, 1) or 'auto', got {threshold!r}")
            self.threshold = "auto"
        else:
            self.threshold = check_open_unit(threshold, "threshold")
        self.mass_threshold = None if mass_threshold is None else check_open_unit(mass_threshold, "mass_threshold")
        if isinstance(noise, (bool, np.bool_)):
            self.noise = bool(noise)
        else:
            self.noise = check_positive(noise, "noise")
        if not isinstance(pools, (bool, np.bool_)):
            raise ValueError(f"pools must be True or False, got {pools!r}")
        self.pools = bool(pools)
        self.max_iter = DEFAULT_MAX_ITER if max_iter is None else check_int(max_iter, "max_iter", minimum=0)
        self.record_states = check_bool(record_states, "record_states")
        self.record_queries = check_bool(record_queries, "record_queries")
        self.check_sample_size = check_bool(check_sample_size, "check_sample_size")
        if rng is not None:
            as_rng(rng)  # validated now; kept as given, so that every fit starts from the same seed
        self.rng = rng

    # -- thresholds, pools and noise --------------------------------------------
    def _scales(self, sizes: list[int], k: int, n_events: int, n_sizes: int) -> list[tuple[float, float]]:
        """Laplace scales (group mass, label vector) for each group size 2^j, from the paper's Lemma 8 (``lem-multiclass-lp-disjoint``)."""
        from .bounds import lemma8_accuracy

        scales = []
        for j in range(n_sizes):
            n_mass = sizes[1 + 2 * j] if self.pools else sizes[0]
            n_labels = sizes[2 + 2 * j] if self.pools else sizes[0]
            if self.noise is False:
                scales.append((0.0, 0.0))
            elif self.noise is True:
                events = max(1, n_events >> j)
                delta_pool = self.delta / (4 * n_sizes)
                psi_m = lemma8_accuracy(n_mass, 1, events, delta_pool)
                psi_y = lemma8_accuracy(n_labels, k + 1, events, delta_pool)
                # labels: answers for F = (1, e_y)/2 (l1 norm 1) are doubled, so their noise doubles
                scales.append((8.0 / (n_mass * psi_m), 2.0 * 8.0 / (n_labels * psi_y)))
            else:
                scales.append((2.0 / (n_mass * self.noise), 4.0 / (n_labels * self.noise)))
        return scales

    def _auto_threshold(self, n_pool: int, scales) -> float:
        """Two standard deviations of an estimated group error: sampling 1/(2 sqrt(n)) plus Laplace sqrt(2)(b_m + 2 b_y)."""
        b_m, b_y = max(s[0] for s in scales), max(s[1] for s in scales)
        sd = 0.5 / math.sqrt(max(1, n_pool)) + math.sqrt(2.0) * (b_m + 2.0 * b_y)
        return min(0.5, AUTO_THRESHOLD_SCALE * sd)

    def _plan(self, n: int, k: int):
        """Return omega, omega_m, pool sizes [level sets, mass_1, labels_1, ...] and noise scales per group size."""
        from .bounds import lp_threshold, theorem6_budget

        def split(j: int) -> list[int]:
            if not self.pools:
                return [n]
            size = n // (2 * j + 1)
            if size < 1:
                raise ValueError(f"probs must hold at least {2 * j + 1} samples to fill the {2 * j + 1} pools, got {n}")
            return [n - 2 * j * size] + [size] * (2 * j)

        if self.epsilon is not None or self.threshold != "auto":
            omega = lp_threshold(self.epsilon, self.p) if self.epsilon is not None else self.threshold
            omega_m = omega if self.mass_threshold is None else self.mass_threshold
            j = _pool_count(omega_m)
            sizes = split(j)
            if self.epsilon is not None and self.pools:
                budget = theorem6_budget(k, self.p, self.epsilon, self.delta, self.lam)
                if n >= budget["total"] and self.mass_threshold is None:
                    rest = n - j * (budget["pool_mass"] + budget["pool_labels"])
                    sizes = [rest] + [budget["pool_mass"], budget["pool_labels"]] * j
                elif self.check_sample_size:
                    raise ValueError(
                        f"probs must hold at least {budget['total']} samples for epsilon = {self.epsilon}, "
                        f"p = {self.p}, delta = {self.delta}, lam = {self.lam} (Theorem 6), got {n}"
                    )
            return omega, omega_m, sizes, self._scales(sizes, k, int(1.0 / omega_m), j)
        # automatic: the smallest J whose pools support a threshold omega_m with J(omega_m) <= J
        j = 1
        while True:
            sizes = split(j)
            n_pool = sizes[-1]
            first_guess = min(0.5, 1.0 / math.sqrt(max(1, n_pool)))  # noise-free threshold: most events
            scales = self._scales(sizes, k, int(1.0 / first_guess), j)
            omega = self._auto_threshold(n_pool, scales)
            omega_m = omega if self.mass_threshold is None else self.mass_threshold
            if not self.pools or _pool_count(omega_m) <= j:
                break
            j += 1
        return omega, omega_m, sizes, scales

    # -- fitting ----------------------------------------------------------------
    def fit(self, probs, y):
        """Run Algorithm 2 on a labelled sample (forecasts ``probs``, labels ``y``); return self."""
        probs, eps = _probability_rows(probs)
        y = _labels_for(probs, y)
        n, k = probs.shape
        _check_key_work(self.m, k, n)
        rng = as_rng(0 if self.rng is None else self.rng)
        omega, omega_m, sizes, scales = self._plan(n, k)
        self.threshold_, self.mass_threshold_ = omega, omega_m
        counts = _counts(probs, self.m, eps)
        keys = _keys_from_counts(counts, self.m)
        if self.pools:
            order = rng.permutation(n)
            edges = np.cumsum([0] + sizes)
            pool_index = [order[edges[i] : edges[i + 1]] for i in range(len(sizes))]
        else:
            pool_index = [np.arange(n)]
        self.pool_sizes_ = [int(s) for s in sizes]
        # step 1: level-set masses from pool 0, high-mass bins H
        b_keys, b_first, b_counts = np.unique(keys[pool_index[0]], return_index=True, return_counts=True)
        high = b_counts / pool_index[0].size >= omega_m
        h_keys = b_keys[high]
        h_levels = counts[pool_index[0][b_first[high]]]
        n_bins = h_keys.size
        hidx = np.searchsorted(h_keys, keys)
        in_h = np.zeros(n, dtype=bool)
        ok = hidx < n_bins
        in_h[ok] = h_keys[hidx[ok]] == keys[ok]

        def stats(index):
            """Per-bin mass and (mass, class sums) of one pool (fractions of the pool)."""
            sel = index[in_h[index]]
            mass = np.bincount(hidx[sel], minlength=n_bins) / index.size
            labels = np.zeros((n_bins, k + 1))
            labels[:, 0] = mass
            cells = np.bincount(hidx[sel] * k + y[sel], minlength=n_bins * k)
            labels[:, 1:] = cells.reshape(n_bins, k) / index.size
            return mass, labels

        n_sizes = _pool_count(omega_m)
        if self.pools:
            n_sizes = (len(sizes) - 1) // 2
            mass_stats = [stats(pool_index[1 + 2 * j])[0] for j in range(n_sizes)]
            label_stats = [stats(pool_index[2 + 2 * j])[1] for j in range(n_sizes)]
        else:
            mass, labels = stats(pool_index[0])
            mass_stats, label_stats = [mass] * n_sizes, [labels] * n_sizes
            scales = (scales * n_sizes)[:n_sizes] if len(scales) < n_sizes else scales
        self.noise_scales_ = list(scales)
        self._run(h_keys, h_levels, mass_stats, label_stats, rng)
        return self

    def fit_exact(self, probs, cond_mean, weights):
        r"""Run Algorithm 2 with exact estimates (an oracle) on a finite law.

        ``probs[j]``, ``cond_mean[j]`` and ``weights[j]`` are the forecast, the
        exact :math:`\mathbb E[Y \mid f = \text{probs}[j]]` and the probability
        of atom ``j``.  Every estimate equals its population value, no noise is
        added and there are no pools, so Lemmas 10-14 apply with zero
        estimation error.  Thresholds: ``epsilon`` or a numeric ``threshold``
        (``"auto"`` has no meaning without a sample and raises ``ValueError``).
        """
        probs, eps = _probability_rows(probs)
        h = _cond_mean_for(probs, cond_mean)
        w = _weights_for(probs, weights)
        k = probs.shape[1]
        _check_key_work(self.m, k, probs.shape[0])
        if self.epsilon is not None:
            from .bounds import lp_threshold

            omega = lp_threshold(self.epsilon, self.p)
        elif self.threshold == "auto":
            raise ValueError("threshold must be a number (or epsilon given) for fit_exact; 'auto' needs a sample size")
        else:
            omega = self.threshold
        omega_m = omega if self.mass_threshold is None else self.mass_threshold
        self.threshold_, self.mass_threshold_ = omega, omega_m
        counts = _counts(probs, self.m, eps)
        keys = _keys_from_counts(counts, self.m)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        mass = np.bincount(inverse, weights=w)
        high = mass >= omega_m
        h_keys, h_levels = uniq[high], counts[first[high]]
        sel = high[inverse]
        hidx = (np.cumsum(high) - 1)[inverse[sel]]
        n_bins = h_keys.size
        labels = np.zeros((n_bins, k + 1))
        labels[:, 0] = np.bincount(hidx, weights=w[sel], minlength=n_bins)
        for i in range(k):
            labels[:, 1 + i] = np.bincount(hidx, weights=w[sel] * h[sel, i], minlength=n_bins)
        n_sizes = _pool_count(omega_m)
        self.pool_sizes_ = []
        self.noise_scales_ = [(0.0, 0.0)] * n_sizes
        self._run(h_keys, h_levels, [labels[:, 0]] * n_sizes, [labels] * n_sizes, as_rng(0))
        return self

    def _run(self, h_keys, h_levels, mass_stats, label_stats, rng) -> None:
        """The loop of Algorithm 2 on the high-mass bins (prediction structure P, estimation structure Q)."""
        m, omega = self.m, self.threshold_
        n_bins = h_keys.size
        k = h_levels.shape[1]
        self.keys_, self.bin_levels_ = h_keys, h_levels
        traj = {name: [] for name in ("group_size", "cls", "est_error", "merged", "moved_mass", "n_groups")}
        states1, states2 = [], []
        self.n_steps_, self.n_merges_, self.converged_ = 0, 0, True
        scales = self.noise_scales_
        self.queries_ = []

        def estimate(bins: np.ndarray) -> _QGroup:
            j = bins.size.bit_length() - 1
            mass = float(mass_stats[j][bins].sum())
            labels = label_stats[j][bins].sum(axis=0)
            b_m, b_y = scales[j]
            if b_m > 0:
                mass += float(rng.laplace(0.0, b_m))
            if b_y > 0:
                labels = labels + rng.laplace(0.0, b_y, size=k + 1)
            if self.record_queries:
                self.queries_.append((bins, mass, labels))
            return _QGroup(bins, mass, labels)

        def level_key(u: np.ndarray) -> int:
            return int(_keys_from_counts(_counts(u[None, :], m), m)[0])

        # prediction structure P: gid -> [bins, prediction, estimation groups]; estimates per gid
        preds = _canonical_from_counts(h_levels, m)
        groups = {g: [np.array([g]), preds[g].copy(), [estimate(np.array([g]))]] for g in range(n_bins)}
        group_key = {g: int(key) for g, key in enumerate(h_keys.tolist())}
        owner = {key: g for g, key in group_key.items()}
        visited = set(owner)

        def totals(g: int) -> tuple[float, np.ndarray]:
            """Estimated mass and label distribution of a group (sums over its estimation groups)."""
            qs = groups[g][2]
            mass = sum(q.mass for q in qs)
            labels = np.sum([q.labels for q in qs], axis=0)
            if labels[0] <= 0.0:  # no usable label information: the group cannot be corrected
                return mass, groups[g][1].copy()
            return mass, _project_rows((labels[1:] / labels[0])[None, :])[0]

        est = {g: totals(g) for g in groups}

        def bin_state() -> np.ndarray:
            out = np.empty((n_bins, k))
            for bins, pred, _ in groups.values():
                out[bins] = pred
            return out

        while n_bins:
            gids = list(groups)
            q = np.array([est[g][0] for g in gids])
            yhat = np.array([est[g][1] for g in gids])
            u = np.array([groups[g][1] for g in gids])
            err = q[:, None] * np.abs(u - yhat)
            row, cls = divmod(int(np.argmax(err)), k)
            if err[row, cls] <= omega:
                break
            if self.n_steps_ >= self.max_iter:
                self.converged_ = False
                break
            g = gids[row]
            # stage 1: patch coordinate cls with the estimated label frequency, then project
            w = groups[g][1].copy()
            w[cls] = yhat[row, cls]
            groups[g][1] = _project_rows(w[None, :])[0]
            del owner[group_key[g]]
            key = level_key(groups[g][1])
            visited.add(key)
            if self.record_states:
                states1.append(bin_state())
            merged, moved_mass = False, 0.0
            other = owner.get(key)
            if other is not None:
                # stage 2: merge g and other; keep the prediction of the larger estimated mass
                merged = True
                q_g, q_o = est[g][0], est[other][0]
                keep = groups[g][1] if q_g >= q_o else groups[other][1]
                moved_mass = min(q_g, q_o)
                bins = np.concatenate([groups[g][0], groups[other][0]])
                by_size: dict[int, list] = {}
                for qg in groups[g][2] + groups[other][2]:
                    by_size.setdefault(qg.bins.size, []).append(qg)
                size = 1
                while size <= bins.size:  # merge estimation groups of equal size (binary addition)
                    same = by_size.get(size, [])
                    while len(same) >= 2:
                        a, b = same.pop(), same.pop()
                        by_size.setdefault(2 * size, []).append(estimate(np.concatenate([a.bins, b.bins])))
                    size *= 2
                del groups[other], est[other], owner[key], group_key[other]
                groups[g] = [bins, keep.copy(), [qg for lst in by_size.values() for qg in lst]]
                est[g] = totals(g)
                self.n_merges_ += 1
            group_key[g] = key
            owner[key] = g
            if self.record_states:
                states2.append(bin_state())
            traj["group_size"].append(groups[g][0].size)
            traj["cls"].append(cls)
            traj["est_error"].append(float(err[row, cls]))
            traj["merged"].append(merged)
            traj["moved_mass"].append(moved_mass)
            traj["n_groups"].append(len(groups))
            self.n_steps_ += 1

        self.bin_predictions_ = bin_state()
        self.groups_ = [np.sort(bins) for bins, _, _ in groups.values()]
        self.visited_ = np.array(sorted(visited), dtype=h_keys.dtype)
        self.trajectory_ = {key: np.array(v) for key, v in traj.items()}
        if self.record_states:
            self.trajectory_["stage1"] = np.array(states1).reshape(-1, n_bins, k)
            self.trajectory_["stage2"] = np.array(states2).reshape(-1, n_bins, k)

    # -- prediction -------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "bin_predictions_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit(probs, y) first")

    def predict(self, probs, bin_predictions=None) -> np.ndarray:
        r"""Recalibrated probability vectors: the group prediction for high-mass level sets, :math:`c(r(f(x)))` otherwise.

        ``bin_predictions`` (optional, shape ``(len(keys_), k)``) replaces the
        fitted per-bin predictions, e.g. a state of ``trajectory_``.
        """
        self._check_fitted()
        probs, eps = _probability_rows(probs)
        counts = _counts(probs, self.m, eps)
        out = _canonical_from_counts(counts, self.m)
        if self.keys_.size == 0:
            return out
        table = self.bin_predictions_ if bin_predictions is None else as_real_array(bin_predictions, "bin_predictions", ndim=2)
        if table.shape != (self.keys_.size, probs.shape[1]):
            raise ValueError(f"bin_predictions must have shape {(self.keys_.size, probs.shape[1])}, got {table.shape}")
        keys = _keys_from_counts(counts, self.m)
        pos = np.searchsorted(self.keys_, keys)
        ok = pos < self.keys_.size
        hit = np.zeros(keys.size, dtype=bool)
        hit[ok] = self.keys_[pos[ok]] == keys[ok]
        out[hit] = table[pos[hit]]
        return out


# ---------------------------------------------------------------------------
# Baselines: temperature scaling, class-wise and top-label histogram binning
# ---------------------------------------------------------------------------


class TemperatureScaling:
    r"""Temperature scaling (Guo et al.): :math:`g(u) = \mathrm{softmax}(\log u / T)`, T by maximum likelihood."""

    def fit(self, probs, y):
        probs = as_probability_rows(probs)
        y = _labels_for(probs, y)
        logp = np.log(np.maximum(probs, 1e-300))

        def nll(log_t):
            z = logp / math.exp(log_t)
            z = z - z.max(axis=1, keepdims=True)
            return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(y.size), y]))

        res = minimize_scalar(nll, bounds=(-4.0, 4.0), method="bounded", options={"xatol": 1e-8})
        self.temperature_ = float(math.exp(res.x))
        return self

    def predict(self, probs) -> np.ndarray:
        if not hasattr(self, "temperature_"):
            raise ValueError("this TemperatureScaling is not fitted yet; call fit(probs, y) first")
        probs = as_probability_rows(probs)
        return _softmax(np.log(np.maximum(probs, 1e-300)) / self.temperature_)


def _quantile_edges(x: np.ndarray, n_bins: int) -> np.ndarray:
    """Interior edges at the empirical quantiles (ties collapse bins)."""
    return np.unique(np.quantile(x, np.arange(1, n_bins) / n_bins))


def _bin_means(x: np.ndarray, target: np.ndarray, edges: np.ndarray):
    idx = np.searchsorted(edges, x, side="left")
    n_cells = edges.size + 1
    count = np.bincount(idx, minlength=n_cells)
    mean_x = np.bincount(idx, weights=x, minlength=n_cells)
    mean_t = np.bincount(idx, weights=target, minlength=n_cells)
    values = np.where(count > 0, mean_t / np.maximum(count, 1), np.nan)
    filler = np.where(count > 0, mean_x / np.maximum(count, 1), np.nan)
    return values, filler


class ClasswiseBinning:
    r"""Class-wise uniform-mass histogram binning, renormalised to the simplex.

    For each class :math:`i` the coordinate :math:`f_i` is binned at the
    empirical quantiles of the fitting sample (``n_bins`` bins) and replaced by
    the bin's frequency of class :math:`i`; the vector is then divided by its
    sum (the book's choice, so that outputs are distributions).  Bins empty in
    the fitting sample keep the identity.
    """

    def __init__(self, n_bins: int = 15):
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)

    def fit(self, probs, y):
        probs = as_probability_rows(probs)
        y = _labels_for(probs, y)
        k = probs.shape[1]
        self.edges_, self.values_ = [], []
        for i in range(k):
            edges = _quantile_edges(probs[:, i], self.n_bins)
            values, _ = _bin_means(probs[:, i], (y == i).astype(float), edges)
            self.edges_.append(edges)
            self.values_.append(values)
        return self

    def predict(self, probs) -> np.ndarray:
        if not hasattr(self, "values_"):
            raise ValueError("this ClasswiseBinning is not fitted yet; call fit(probs, y) first")
        probs = as_probability_rows(probs)
        if probs.shape[1] != len(self.values_):
            raise ValueError(f"probs must have {len(self.values_)} columns, got {probs.shape[1]}")
        out = np.empty_like(probs)
        for i, (edges, values) in enumerate(zip(self.edges_, self.values_)):
            v = values[np.searchsorted(edges, probs[:, i], side="left")]
            out[:, i] = np.where(np.isnan(v), probs[:, i], v)
        total = out.sum(axis=1, keepdims=True)
        return np.where(total > 0, out / np.where(total > 0, total, 1.0), 1.0 / probs.shape[1])


class TopLabelBinning:
    r"""Top-label uniform-mass histogram binning (Gupta and Ramdas), completed to a distribution.

    For each predicted class :math:`c` the top confidence is binned at the
    quantiles of the fitting points predicted :math:`c` and replaced by the
    bin's accuracy :math:`\hat P[Y = c]`; the other coordinates are rescaled to
    share the remaining mass in their original proportions (the book's
    completion; top-label calibration itself only specifies the top
    coordinate).  A class never predicted in the fitting sample keeps the identity.
    """

    def __init__(self, n_bins: int = 15):
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)

    def fit(self, probs, y):
        probs = as_probability_rows(probs)
        y = _labels_for(probs, y)
        top = np.argmax(probs, axis=1)
        conf = probs[np.arange(y.size), top]
        self.k_ = probs.shape[1]
        self.edges_, self.values_ = [], []
        for c in range(self.k_):
            sel = top == c
            if not np.any(sel):
                self.edges_.append(np.zeros(0))
                self.values_.append(np.array([np.nan]))
                continue
            edges = _quantile_edges(conf[sel], self.n_bins)
            values, _ = _bin_means(conf[sel], (y[sel] == c).astype(float), edges)
            self.edges_.append(edges)
            self.values_.append(values)
        return self

    def predict(self, probs) -> np.ndarray:
        if not hasattr(self, "values_"):
            raise ValueError("this TopLabelBinning is not fitted yet; call fit(probs, y) first")
        probs = as_probability_rows(probs)
        if probs.shape[1] != self.k_:
            raise ValueError(f"probs must have {self.k_} columns, got {probs.shape[1]}")
        n = probs.shape[0]
        top = np.argmax(probs, axis=1)
        conf = probs[np.arange(n), top]
        new = conf.copy()
        for c in range(self.k_):
            sel = top == c
            if np.any(sel):
                v = self.values_[c][np.searchsorted(self.edges_[c], conf[sel], side="left")]
                new[sel] = np.where(np.isnan(v), conf[sel], v)
        rest = 1.0 - conf
        out = np.where(rest[:, None] > 0, probs * ((1.0 - new) / np.where(rest > 0, rest, 1.0))[:, None],
                       (1.0 - new)[:, None] / (self.k_ - 1))
        out[np.arange(n), top] = new
        return out
