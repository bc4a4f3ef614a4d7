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

import numpy as np

from .._checks import (
    MAX_INT,
    _real_scalar,
    as_labels,
    as_real_array,
    as_sequence,
    check_int,
    check_open_unit,
    check_real,
    check_same_length,
    input_eps,
    simplex_tolerance,
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
]


#: Rows of a probability matrix must sum to 1 within this tolerance, or within ``k`` times the
#: machine epsilon of the input's floating-point type when that is larger (float32 rows).
ROW_SUM_TOLERANCE = 1e-8


#: A coordinate within this many grid steps below a grid point is rounded up to it, so that
#: ``rounding`` is idempotent on grid points despite floating-point error (e.g. ``0.29 * 100``);
#: :func:`_round_slack` enlarges it to cover the input's precision and the row-sum tolerance.
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


def _probability_rows(probs, name: str = "probs", atol: float = ROW_SUM_TOLERANCE) -> tuple[np.ndarray, float]:
    """:func:`as_probability_rows` and the machine epsilon of the input's type (for the cell allowance of :func:`_counts`)."""
    atol = check_real(atol, "atol", minimum=0.0)
    eps = input_eps(probs)
    arr = as_real_array(probs, name, ndim=2)
    if arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least 2 columns (classes), got shape {arr.shape}")
    if np.any(arr < 0.0):
        raise ValueError(f"{name} must be non-negative (rows on the probability simplex)")
    tol = simplex_tolerance(probs, arr.shape[1], atol)  # the companion's float32 rule
    sums = arr.sum(axis=1)
    bad = np.abs(sums - 1.0) > tol
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} rows must sum to 1 (within {tol:g}); row {i} sums to {float(sums[i])!r}")
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


def _round_slack(m: int, k: int, eps: float) -> float:
    """Allowance, in grid steps, for a coordinate stored just below a grid point (see ``_ROUND_SLACK``).

    At least ``4 m eps`` (the rounding of ``m u`` in the input's type) and
    ``2 m tol / k`` with ``tol = max(ROW_SUM_TOLERANCE, k eps)`` the row-sum
    tolerance of :func:`as_probability_rows`.  For a row that sums to
    ``1 - d`` with ``d <= tol``, the counts sum to ``m - m d + k slack`` minus
    ``k`` fractional parts, each below 1, so to more than ``m - k`` once
    ``k slack >= m d``.
    """
    return max(_ROUND_SLACK, 4.0 * m * eps, 2.0 * m * max(ROW_SUM_TOLERANCE, k * eps) / k)


def _counts(probs: np.ndarray, m: int, eps: float = float(np.finfo(np.float64).eps)) -> np.ndarray:
    """Integer counts ``floor(m u + slack)`` of validated simplex rows (``eps``: machine epsilon of the input type).

    The products ``m u`` are formed in float64 after the cast; a coordinate
    within ``slack`` (:func:`_round_slack`) grid steps below a multiple of
    ``1/m`` counts as on it, so a float32 row ``[0.3, 0.7]`` lands in the level
    set ``(0.3, 0.7)`` like its float64 twin, and a float64 row that sums to
    ``1 - 1e-9`` is not pushed below the simplex.  With ``tol`` the row-sum
    tolerance of :func:`as_probability_rows`, rows that pass it give counts
    with ``m - k < sum <= m`` (``lem-multiclass-lp-characterisation``) as long
    as ``m tol + k slack < 1`` (in float64, ``m`` up to about ``3e7``); on a
    finer grid a row whose sum is off by more than the grid can absorb raises
    ``ValueError``.
    """
    k = probs.shape[1]
    slack = _round_slack(m, k, eps)
    counts = np.floor(probs * m + slack).astype(np.int64)
    sums = counts.sum(axis=1)
    bad = (sums > m) | (sums <= m - k)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        budget = m * max(ROW_SUM_TOLERANCE, k * eps) + k * slack
        why = (f"; this grid is too fine for the input's precision (m tol + k slack = {budget:.3g} >= 1), "
               "use a coarser lam" if budget >= 1 else "")
        raise ValueError(
            f"probs row {i} is not on the simplex to the precision of its type at lam = 1/{m}: "
            f"its rounded counts sum to {int(sums[i])}, outside ({m - k}, {m}]{why}"
        )
    return counts


def level_set_counts(probs, lam) -> np.ndarray:
    r"""Integer form :math:`a = r(u)/\lambda` of the rounding map, row by row.

    :math:`a_i = \lfloor u_i/\lambda\rfloor` (the paper's section 2; the book's
    ``def-multiclass-lp-level-sets``), computed as ``floor(m u_i + slack)`` so
    that a coordinate a rounding error below a grid point counts as on it
    (the slack covers the row-sum tolerance of :func:`as_probability_rows`).
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


#: Largest exact count :func:`grid_size` computes (bits): a 512 KiB integer, about a second of big-integer powers.
_MAX_COUNT_BITS = 2**22


def grid_size(k: int, lam) -> int:
    r""":math:`|\Lambda^k| = (1/\lambda + 1)^k`, the number of cells of the product grid of earlier work."""
    k = check_int(k, "k", minimum=2)
    _, m = check_lam(lam)
    bits = k * math.log2(m + 1)
    if bits > _MAX_COUNT_BITS:
        raise ValueError(f"k is too large: the exact count (1/lam + 1)**k = {m + 1}**{k} has about {bits:.3g} bits "
                         f"({bits / 2**23:.3g} MiB), above the {_MAX_COUNT_BITS} bits (512 KiB) computed exactly here")
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


def _check_key_work_of(probs, m: int) -> None:
    """:func:`_check_key_work` from the shape of a 2-D ``probs`` alone, before its entries are validated."""
    try:
        shape = np.shape(probs)
    except ValueError:  # a ragged nested sequence: the validation that follows names it
        return
    if len(shape) == 2:
        _check_key_work(m, shape[1], shape[0])


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
    # Pi(w + t 1) = Pi(w): shifting each row by its maximum keeps the coordinates that survive exact
    # at any magnitude (w = (1e16, 0, 0) gives e_1, not 0).  The threshold t* is at least max - 1, so a
    # coordinate at or below max - 1 projects to 0 whatever its value: raising it to max - 1 changes
    # nothing and keeps the cumulative sums finite (w = (1e308, -1e308, -1e308))
    w = np.maximum(w - np.max(w, axis=1, keepdims=True), -1.0)
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
