r"""Canonical multiclass calibration by binning, and its label-shift corrected version (paper 001, section 3).

A *partition* of the simplex :math:`\mathcal S_k` (or of one of its
coordinates) into bins :math:`I_1, \dots, I_B` is any object with an integer
attribute ``n_bins`` and a method ``assign(probs) -> bin indices`` mapping
rows of the simplex to ``0, ..., n_bins - 1``.  Two are provided:

* :class:`CoordinatePartition`: intervals of one coordinate (the class-1
  score in the binary case), with the book's convention for bin edges
  (first bin closed, later bins half-open on the left);
  :func:`uniform_mass_partition` chooses the edges by uniform mass;
* :class:`LogRatioGridPartition`: a grid in log-ratio coordinates
  :math:`u = A\log z` (rows of :math:`A` summing to 0), a partition of the
  interior of the simplex whose bins are products of intervals;
  :func:`log_ratio_quantile_partition` chooses the cut points at the
  empirical quantiles of :math:`\log(z_j/z_0)`, the data-driven partition
  for :math:`k > 2` classes.

:class:`CanonicalBinning` fits the empirical class frequencies of every bin
(paper 001 eq. (14); book ``def-binls-binning``) and predicts the frequency
vector of the bin of each input.  :class:`LabelShiftCanonicalBinning`
reweights those frequencies with importance weights (eq. (17); book
``def-binls-corrected``).  Their guarantees are Theorem 3 and Theorem 4 of
the paper (:func:`companion.binning_label_shift.multiclass_binning_epsilon`,
:func:`companion.binning_label_shift.label_shift_binning_bound`).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._checks import as_labels, as_probabilities, as_real_array, as_weights, check_int, check_same_length
from ..label_shift_weights import as_simplex_rows, encode_labels, posterior_correction
from ..label_shift_weights.scaling import _frame_values
from .._checks import as_cut_point_list
from ..calibration_sharpness.binning import _uniform_mass_edges_unsorted
from ..calibration_sharpness.cells import BinLookup

__all__ = [
    "CoordinatePartition",
    "LogRatioGridPartition",
    "uniform_mass_partition",
    "log_ratio_quantile_partition",
    "bin_class_counts",
    "CanonicalBinning",
    "LabelShiftCanonicalBinning",
]


class CoordinatePartition:
    r"""Bins :math:`[e_0, e_1], (e_1, e_2], \dots, (e_{B-1}, e_B]` of coordinate ``coordinate`` of the simplex.

    ``edges`` must be non-decreasing, start at 0 and end at 1 (the
    convention of :func:`companion.calibration_sharpness.bin_indices`).
    """

    def __init__(self, edges, coordinate: int = 1):
        e = as_probabilities(edges, "edges")
        if e.size < 2 or e[0] != 0.0 or e[-1] != 1.0 or np.any(np.diff(e) < 0):
            raise ValueError("edges must be non-decreasing, start at 0 and end at 1")
        self.edges = e
        self.coordinate = check_int(coordinate, "coordinate", minimum=0)
        self.n_bins = e.size - 1
        self._lookup = BinLookup(e[1:-1])

    def assign(self, probs) -> np.ndarray:
        """Bin index of every row of ``probs`` (by its coordinate ``coordinate``)."""
        p = as_simplex_rows(probs, "probs")
        if self.coordinate >= p.shape[1]:
            raise ValueError(f"coordinate {self.coordinate} does not exist for probs with {p.shape[1]} columns")
        scores = np.ascontiguousarray(p[:, self.coordinate])
        return self._lookup.bins(scores, scores.min())  # searchsorted(edges[1:-1], scores, "left") by a cell table


class LogRatioGridPartition:
    r"""A rectangular grid in log-ratio coordinates :math:`u = A\log z` of the interior of the simplex.

    Row ``r`` of ``contrasts`` (:math:`A`, shape ``(r, k)``) must sum to 0,
    so :math:`u` does not depend on the normalisation of :math:`z`;
    ``edges[r]`` are the sorted cut points of coordinate ``r`` (they may be
    ``-inf`` and ``+inf``; bins are half-open on the left as in
    :class:`CoordinatePartition`).  Bins are numbered in C order of the grid.
    Rows with a zero entry have an infinite log-ratio and are rejected.

    For a Gaussian scenario with a shared covariance,
    :math:`u = A\log\eta^P(x)` is an affine function of :math:`x`, so the
    bin probabilities are known exactly
    (:meth:`companion.scenarios.GaussianLabelShift.log_ratio_map`).
    """

    def __init__(self, contrasts, edges):
        a = as_real_array(contrasts, "contrasts", ndim=2)
        if np.any(np.abs(a.sum(axis=1)) > 1e-12):
            raise ValueError("contrasts must have rows summing to 0 (log-ratio coordinates)")
        self.contrasts = a
        self.edges = as_cut_point_list(edges, "edges", a.shape[0], strict=True)
        self.shape = tuple(e.size - 1 for e in self.edges)
        self.n_bins = int(np.prod(self.shape))

    def coordinates(self, probs) -> np.ndarray:
        """Log-ratio coordinates :math:`A\\log z` of every row (shape ``(n, r)``)."""
        p = as_simplex_rows(probs, "probs")
        if p.shape[1] != self.contrasts.shape[1]:
            raise ValueError(f"probs must have {self.contrasts.shape[1]} columns, got {p.shape[1]}")
        if np.any(p <= 0.0):
            raise ValueError("probs must be strictly positive for log-ratio coordinates")
        return np.log(p) @ self.contrasts.T

    def assign(self, probs) -> np.ndarray:
        u = self.coordinates(probs)
        idx = []
        for r, e in enumerate(self.edges):
            if np.any(u[:, r] <= e[0]) or np.any(u[:, r] > e[-1]):
                raise ValueError(f"log-ratio coordinate {r} falls outside the grid ({e[0]}, {e[-1]}]; use infinite end points")
            idx.append(np.searchsorted(e[1:-1], u[:, r], side="left"))
        return np.ravel_multi_index(tuple(idx), self.shape)


def uniform_mass_partition(probs, n_bins: int, coordinate: int = 1) -> CoordinatePartition:
    r"""Uniform-mass edges on one coordinate (the rule of the book's ``def-umb``): :math:`e_b = z_{(\lfloor nb/B\rfloor)}`, :math:`e_0 = 0`, :math:`e_B = 1`.

    ``z`` is column ``coordinate`` of ``probs`` (the class-1 score of a binary
    classifier by default).  Each bin then holds about ``n / n_bins`` of the
    fitting points.  Requires at least ``2 * n_bins`` rows, and two columns:
    for :math:`k > 2` classes one coordinate does not determine the row (the
    bins would mix rows that differ in the other classes), so ``probs`` with
    more columns is refused; use :func:`log_ratio_quantile_partition`.

    Examples
    --------
    >>> probs = np.array([[0.9, 0.1], [0.7, 0.3], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8], [0.1, 0.9]])
    >>> uniform_mass_partition(probs, 2).edges
    array([0. , 0.4, 1. ])
    """
    p = as_simplex_rows(probs, "probs")
    if p.shape[1] > 2:
        raise ValueError(f"probs must have two columns (a binary classifier), got {p.shape[1]}: uniform-mass edges of one "
                         "coordinate ignore the other classes; for k > 2 use log_ratio_quantile_partition(probs, n_bins)")
    n_bins = check_int(n_bins, "n_bins")
    if p.shape[0] < 2 * n_bins:
        raise ValueError(f"probs must hold at least 2 * n_bins = {2 * n_bins} rows, got {p.shape[0]}")
    coordinate = check_int(coordinate, "coordinate", minimum=0)
    if coordinate >= p.shape[1]:
        raise ValueError(f"coordinate {coordinate} does not exist for probs with {p.shape[1]} columns")
    return CoordinatePartition(_uniform_mass_edges_unsorted(np.ascontiguousarray(p[:, coordinate]), n_bins), coordinate)


def _axis_bins(n_bins: int, n_axes: int) -> list[int]:
    """Bins per axis: the integer ``n_axes``-th root ``m`` of ``n_bins`` on every axis, then one more on the first axes while the product stays <= ``n_bins``."""
    m = max(1, int(round(n_bins ** (1.0 / n_axes))))
    while m > 1 and m**n_axes > n_bins:
        m -= 1
    while (m + 1) ** n_axes <= n_bins:
        m += 1
    shape = [m] * n_axes
    for r in range(n_axes):
        if np.prod(shape) // m * (m + 1) <= n_bins:
            shape[r] = m + 1
    return shape


class _QuantileLogRatioPartition(LogRatioGridPartition):
    """The grid of :func:`log_ratio_quantile_partition`: grid cells mapped to bins by ``cell_to_bin`` (empty cells merged)."""

    def __init__(self, contrasts, edges, cell_to_bin: np.ndarray):
        super().__init__(contrasts, edges)
        self.cell_to_bin = cell_to_bin
        self.n_bins = int(cell_to_bin.max()) + 1

    def assign(self, probs) -> np.ndarray:
        return self.cell_to_bin[super().assign(probs)]


def log_ratio_quantile_partition(probs, n_bins: int) -> LogRatioGridPartition:
    r"""A data-driven partition of the simplex for :math:`k \ge 2` classes: quantiles of the log-ratios :math:`\log(z_j/z_0)`.

    The coordinates are the :math:`k - 1` contrasts :math:`u_j = \log(z_j / z_0)`,
    :math:`j = 1, \dots, k-1` (class 0, the first column, is the reference; the
    axes are cut in column order, axis ``j - 1`` for column ``j``), so
    the partition is a :class:`LogRatioGridPartition`.  ``n_bins`` is split
    across the :math:`k - 1` axes as evenly as possible: every axis gets
    :math:`m = \lfloor n_{\text{bins}}^{1/(k-1)}\rfloor` intervals, and the first
    axes one more while the product stays at most ``n_bins`` (10 bins for
    :math:`k = 3`: a 3 x 3 grid; 12: 4 x 3).  Every axis needs two intervals
    at least, or its class would never be separated from class 0: ``n_bins``
    must be at least :math:`2^{k-1}` (refused otherwise), and the grid's
    :math:`m^{k-1}` cells need enough fitting points each, so the partition
    serves a few classes (for many classes, e.g. ten, use a scaling such as
    BCTS instead).  The cut points of axis
    :math:`j` with :math:`m_j` intervals are the order statistics
    :math:`u_{j,(\lfloor n b / m_j\rfloor)}`, :math:`b = 1, \dots, m_j - 1`, of
    the rows of ``probs`` (the rule of :func:`uniform_mass_partition` on each
    axis; tied cut points are merged), with :math:`\pm\infty` at the ends: each
    axis's intervals hold about :math:`n / m_j` of the rows.  The grid's cells
    need not hold equal mass (the contrasts are dependent), and a cell may
    hold no row of ``probs``; such a cell is merged into the nearest cell that
    holds one (Euclidean distance between the grid indices; among equally near
    occupied cells, the first in C order, i.e. the one with the lowest bin
    number; the bins are numbered in C order of their occupied cells), so
    canonical binning fitted on ``probs`` has no empty bin.  For :math:`k = 2` it is uniform-mass binning of the
    logit (the same bins as :func:`uniform_mass_partition` up to the
    placement of the edges).

    Parameters
    ----------
    probs : array_like, shape (n, k)
        Rows of the simplex with every entry positive (the fitting sample,
        e.g. a classifier's probabilities on the source calibration set).
    n_bins : int
        Largest number of bins, at least :math:`2^{k-1}`; at least ``2 * n_bins`` rows are needed.

    Returns
    -------
    LogRatioGridPartition
        ``n_bins`` (at most the argument: the occupied cells), ``shape`` (the
        intervals per axis), ``edges`` and ``contrasts``, and
        ``assign(probs)``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> probs = rng.dirichlet([2.0, 2.0, 2.0], size=600)
    >>> part = log_ratio_quantile_partition(probs, 10)
    >>> part.shape, part.n_bins
    ((3, 3), 9)
    >>> bool(np.bincount(part.assign(probs)).min() > 0)
    True
    """
    p = as_simplex_rows(probs, "probs")
    n_bins = check_int(n_bins, "n_bins")
    n, k = p.shape
    if n_bins < 2 ** (k - 1):
        raise ValueError(f"n_bins must be at least 2^(k-1) = {2 ** (k - 1)} for k = {k} classes (two intervals on each "
                         f"of the k - 1 log-ratio axes; with fewer, some class is never separated from class 0), got "
                         f"{n_bins}; for many classes use a scaling (BCTS) instead of canonical binning")
    if n < 2 * n_bins:
        raise ValueError(f"probs must hold at least 2 * n_bins = {2 * n_bins} rows, got {n}")
    if np.any(p <= 0.0):
        raise ValueError("probs must be strictly positive for log-ratio coordinates log(z_j / z_0)")
    contrasts = np.hstack((-np.ones((k - 1, 1)), np.eye(k - 1)))  # u_j = log z_j - log z_0
    u = LogRatioGridPartition(contrasts, [np.array([-np.inf, np.inf])] * (k - 1)).coordinates(p)
    edges = []
    for r, m in enumerate(_axis_bins(n_bins, k - 1)):
        s = np.sort(u[:, r])
        inner = np.unique(s[(n * np.arange(1, m)) // m - 1])  # u_(floor(n b / m)), 1-based order statistics
        edges.append(np.concatenate(([-np.inf], inner, [np.inf])))
    grid = LogRatioGridPartition(contrasts, edges)
    occupied = np.flatnonzero(np.bincount(grid.assign(p), minlength=grid.n_bins))
    cells = np.column_stack(np.unravel_index(np.arange(grid.n_bins), grid.shape))
    cell_to_bin = np.zeros(grid.n_bins, dtype=np.int64)  # occupied cells: their rank in C order
    cell_to_bin[occupied] = np.arange(occupied.size)
    empty = np.setdiff1d(np.arange(grid.n_bins), occupied)
    for start in range(0, empty.size, 256):  # empty cells: the nearest occupied one, the first in C order on ties
        block = empty[start:start + 256]
        d2 = ((cells[block, None, :] - cells[None, occupied, :]) ** 2).sum(axis=2)
        cell_to_bin[block] = np.argmin(d2, axis=1)
    return _QuantileLogRatioPartition(contrasts, edges, cell_to_bin.astype(np.int64))


#: Largest number of (bin, class) cells :func:`bin_class_counts` allocates.
_MAX_CELLS = 10**8


def bin_class_counts(bins: np.ndarray, codes: np.ndarray, n_bins: int, n_classes: int) -> np.ndarray:
    """Counts :math:`N_{I,y}` of points of class ``y`` in bin ``I``, shape ``(n_bins, n_classes)``.

    ``bins`` holds bin indices in ``0, ..., n_bins - 1`` and ``codes`` class
    codes in ``0, ..., n_classes - 1`` (1-D integer arrays of one length);
    ``n_bins * n_classes`` is at most :math:`10^8`.
    """
    n_bins = check_int(n_bins, "n_bins")
    n_classes = check_int(n_classes, "n_classes")
    if n_bins * n_classes > _MAX_CELLS:
        raise ValueError(f"n_bins * n_classes must be at most {_MAX_CELLS} cells, got {n_bins} * {n_classes}")
    b = as_labels(bins, "bins", n_classes=n_bins)
    c = as_labels(codes, "codes", n_classes=n_classes)
    check_same_length(bins=b, codes=c)
    flat = np.bincount(b * n_classes + c, minlength=n_bins * n_classes)
    return flat.reshape(n_bins, n_classes)


class CanonicalBinning(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    r"""Canonical calibration by binning (paper 001 eqs. (12)-(14); book ``def-binls-binning``).

    ``fit`` counts, in every bin :math:`I` of ``partition``, the points
    :math:`N_I` and the empirical class frequencies
    :math:`\hat\theta_I = (N_{I,y}/N_I)_y`; ``transform`` (or its other name
    ``predict``) returns :math:`\hat\theta_{I(x)}` for the bin of each input,
    a row of the simplex.  Every bin must receive at least one fitting point
    (an empty bin has no frequency); otherwise ``fit`` raises ``ValueError``
    naming it.  A scikit-learn transformer: it works after a classifier's
    ``predict_proba`` in a pipeline.

    Parameters
    ----------
    partition : object
        A partition of the simplex fixed in advance: an attribute ``n_bins``
        and a method ``assign(probs)`` (:class:`CoordinatePartition`,
        :class:`LogRatioGridPartition`, :func:`uniform_mass_partition`,
        :func:`log_ratio_quantile_partition`).

    Attributes
    ----------
    counts_ : numpy.ndarray, shape (B,)
        :math:`N_I`.
    class_counts_ : numpy.ndarray, shape (B, k)
        :math:`N_{I,y}`.
    frequencies_ : numpy.ndarray, shape (B, k)
        :math:`\hat\theta_I`.
    classes_ : numpy.ndarray
        Labels of the columns (any values; the ``classes`` of ``fit``, or
        ``0, ..., k-1`` for integer labels in that range, else the sorted
        distinct labels).
    n_features_in_ : int
        :math:`k`, the columns of ``probs``.

    Examples
    --------
    >>> partition = CoordinatePartition([0.0, 0.5, 1.0], coordinate=1)
    >>> probs = np.array([[0.9, 0.1], [0.7, 0.3], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8], [0.1, 0.9]])
    >>> model = CanonicalBinning(partition).fit(probs, ["a", "a", "b", "a", "b", "b"])
    >>> model.counts_, model.classes_
    (array([3, 3]), array(['a', 'b'], dtype='<U1'))
    >>> model.predict([[0.3, 0.7]]).round(3)
    array([[0.333, 0.667]])
    """

    def __init__(self, partition):
        self.partition = partition

    def _check_partition(self) -> None:
        if not hasattr(self.partition, "assign") or not hasattr(self.partition, "n_bins"):
            raise ValueError("partition must have an attribute n_bins and a method assign(probs)")

    def fit(self, probs, y, classes=None) -> "CanonicalBinning":
        """Fit the class frequencies of every bin on rows ``probs`` of the simplex and labels ``y`` (steps 1-3 of ``alg-binls-corrected``).

        ``classes`` (optional) names the label of every column of ``probs``,
        in column order (see :func:`companion.label_shift_weights.encode_labels`).
        """
        self._check_partition()
        probs, y = _frame_values(probs), _frame_values(y)
        p = as_simplex_rows(probs, "probs")
        codes, classes = encode_labels(y, "y", p.shape[1], classes)
        check_same_length(probs=p, y=codes)
        bins = self.partition.assign(probs)  # step 1: I(x_i); the input itself: its dtype sets the row-sum tolerance
        counts = bin_class_counts(bins, codes, self.partition.n_bins, p.shape[1])  # step 2: N_{I,y}
        totals = counts.sum(axis=1)  # N_I
        _check_no_empty_bin(totals)
        self.class_counts_ = counts
        self.counts_ = totals
        self.frequencies_ = counts / totals[:, None]  # step 3: theta^P_{I,y} = N_{I,y} / N_I, eq. (14)
        self.classes_ = classes
        self.n_features_in_ = p.shape[1]
        return self

    def transform(self, probs) -> np.ndarray:
        """Recalibrated probability vectors: the frequencies of the bin of each row (columns in the order of ``classes_``)."""
        check_is_fitted(self, "frequencies_")
        probs = _frame_values(probs)
        p = as_simplex_rows(probs, "probs")
        k = self.frequencies_.shape[1]
        if p.shape[1] != k:
            raise ValueError(f"probs must have one column per fitted class ({k}), got shape {p.shape}")
        return self.frequencies_[self.partition.assign(probs)]

    def predict(self, probs) -> np.ndarray:
        """The book's name of :meth:`transform` (the same method)."""
        return self.transform(probs)


class LabelShiftCanonicalBinning(CanonicalBinning):
    r"""Binning on the source, reweighted to the target: paper 001 eq. (17) (book ``def-binls-corrected``, ``alg-binls-corrected``).

    ``fit(probs_source, y_source, weights)`` fits :class:`CanonicalBinning`
    on the labelled source sample and replaces the frequencies of every bin
    by :math:`\hat\theta^{(w)}_{I,y} = w_y\hat\theta^P_{I,y}/\sum_j w_j\hat\theta^P_{I,j}`
    (:func:`companion.label_shift_weights.posterior_correction`); ``transform``
    (or ``predict``) returns the corrected frequencies of the bin of each input.

    Parameters
    ----------
    partition : object
        A partition of the simplex fixed in advance: an attribute ``n_bins``
        and a method ``assign(probs)`` (:class:`CoordinatePartition`,
        :class:`LogRatioGridPartition`, :func:`log_ratio_quantile_partition`).
    weights : array_like, shape (k,), optional
        The importance weights :math:`w = q/p`, one per class; used when
        ``fit`` is given none (``fit``'s ``weights`` take precedence).

    Attributes
    ----------
    counts_ : numpy.ndarray, shape (B,)
        :math:`N_I`, the source points of every bin.
    class_counts_ : numpy.ndarray, shape (B, k)
        :math:`N_{I,y}`.
    source_frequencies_ : numpy.ndarray, shape (B, k)
        :math:`\hat\theta^P_I`, before the correction.
    frequencies_ : numpy.ndarray, shape (B, k)
        :math:`\hat\theta^{(w)}_I`.
    weights_ : numpy.ndarray
        The weights used.
    classes_ : numpy.ndarray
        Labels of the columns.
    n_features_in_ : int
        :math:`k`.

    Examples
    --------
    >>> partition = CoordinatePartition([0.0, 0.5, 1.0], coordinate=1)
    >>> probs = np.array([[0.9, 0.1], [0.7, 0.3], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8], [0.1, 0.9]])
    >>> model = LabelShiftCanonicalBinning(partition).fit(probs, [0, 0, 1, 0, 1, 1], weights=[0.5, 2.0])
    >>> model.source_frequencies_.round(3)
    array([[0.667, 0.333],
           [0.333, 0.667]])
    >>> model.frequencies_.round(3)
    array([[0.333, 0.667],
           [0.111, 0.889]])
    >>> model.predict([[0.3, 0.7]]).round(3)
    array([[0.111, 0.889]])
    >>> LabelShiftCanonicalBinning(partition, weights=[0.5, 2.0]).fit(probs, [0, 0, 1, 0, 1, 1]).transform([[0.3, 0.7]]).round(3)
    array([[0.111, 0.889]])
    """

    def __init__(self, partition, weights=None):
        self.partition = partition
        self.weights = weights

    def fit(self, probs, y, weights=None, classes=None) -> "LabelShiftCanonicalBinning":
        """Fit on the source sample and reweight every bin's frequencies with ``weights`` (``alg-binls-corrected``).

        ``weights``: one non-negative weight per class (column of ``probs``),
        not all zero, the oracle :math:`q/p` or an estimate (e.g.
        ``bbse(...).weights``) in the order of ``classes``; default the
        constructor's ``weights``.  Every bin must hold a source point of a
        class with a positive weight (otherwise eq. (17) is 0/0 there).
        """
        if weights is None:
            weights = self.weights
        if weights is None:
            raise ValueError("weights must be given, to fit(probs, y, weights) or to the constructor "
                             "LabelShiftCanonicalBinning(partition, weights=...)")
        w = as_weights(weights, "weights")
        super().fit(probs, y, classes)  # steps 1-3: bins, counts N_{I,y}, source frequencies theta^P_I
        _check_bin_masses(self.frequencies_, w)
        self.source_frequencies_ = self.frequencies_
        self.frequencies_ = posterior_correction(self.source_frequencies_, w)  # step 4: eq. (17)
        self.weights_ = w
        return self


def _check_no_empty_bin(totals: np.ndarray) -> None:
    """A ValueError naming the first bin without a fitting point: eq. (14) has no frequency there."""
    if np.any(totals == 0):
        empty = int(np.flatnonzero(totals == 0)[0])
        raise ValueError(f"bin {empty} holds no fitting point, so its class frequencies (eq. (14)) are undefined; "
                         "use fewer bins or a uniform-mass partition")


def _check_bin_masses(frequencies: np.ndarray, w: np.ndarray) -> None:
    """One weight per class, and a positive corrected mass in every bin (the denominator of eq. (17))."""
    if w.size != frequencies.shape[1]:
        raise ValueError(f"weights must hold one weight per class ({frequencies.shape[1]}), got {w.size}")
    mass = (frequencies * w).sum(axis=1)
    if np.any(mass <= 0.0):
        empty = int(np.flatnonzero(mass <= 0.0)[0])
        raise ValueError(f"weights give bin {empty} no mass: it holds source points only of classes of weight 0, "
                         "so eq. (17) is 0/0 there")
