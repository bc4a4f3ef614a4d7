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
  interior of the simplex whose bins are products of intervals.

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

from .._checks import as_labels, as_probabilities, as_real_array, as_weights, check_int, check_same_length
from ..label_shift_weights import as_simplex_rows, encode_labels, posterior_correction
from .._checks import as_cut_point_list
from ..calibration_sharpness.binning import _uniform_mass_edges_unsorted
from ..calibration_sharpness.cells import BinLookup

__all__ = [
    "CoordinatePartition",
    "LogRatioGridPartition",
    "uniform_mass_partition",
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
    fitting points.  Requires at least ``2 * n_bins`` rows.
    """
    p = as_simplex_rows(probs, "probs")
    n_bins = check_int(n_bins, "n_bins")
    if p.shape[0] < 2 * n_bins:
        raise ValueError(f"probs must hold at least 2 * n_bins = {2 * n_bins} rows, got {p.shape[0]}")
    coordinate = check_int(coordinate, "coordinate", minimum=0)
    if coordinate >= p.shape[1]:
        raise ValueError(f"coordinate {coordinate} does not exist for probs with {p.shape[1]} columns")
    return CoordinatePartition(_uniform_mass_edges_unsorted(np.ascontiguousarray(p[:, coordinate]), n_bins), coordinate)


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


class CanonicalBinning:
    r"""Canonical calibration by binning (paper 001 eqs. (12)-(14); book ``def-binls-binning``).

    ``fit`` counts, in every bin :math:`I` of ``partition``, the points
    :math:`N_I` and the empirical class frequencies
    :math:`\hat\theta_I = (N_{I,y}/N_I)_y`; ``predict`` returns
    :math:`\hat\theta_{I(x)}` for the bin of each input, a row of the simplex.
    Every bin must receive at least one fitting point (an empty bin has no
    frequency); otherwise ``fit`` raises ``ValueError`` naming it.

    Attributes
    ----------
    counts_ : numpy.ndarray, shape (B,)
        :math:`N_I`.
    class_counts_ : numpy.ndarray, shape (B, k)
        :math:`N_{I,y}`.
    frequencies_ : numpy.ndarray, shape (B, k)
        :math:`\hat\theta_I`.
    classes_ : numpy.ndarray
        Labels of the columns.

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
        if not hasattr(partition, "assign") or not hasattr(partition, "n_bins"):
            raise ValueError("partition must have an attribute n_bins and a method assign(probs)")
        self.partition = partition

    def fit(self, probs, y, classes=None) -> "CanonicalBinning":
        """Fit the class frequencies of every bin on rows ``probs`` of the simplex and labels ``y`` (steps 1-3 of ``alg-binls-corrected``)."""
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
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "frequencies_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def predict(self, probs) -> np.ndarray:
        """Recalibrated probability vectors: the frequencies of the bin of each row (rows of the fitted classes)."""
        self._check_fitted()
        p = as_simplex_rows(probs, "probs")
        k = self.frequencies_.shape[1]
        if p.shape[1] != k:
            raise ValueError(f"probs must have one column per fitted class ({k}), got shape {p.shape}")
        return self.frequencies_[self.partition.assign(probs)]


class LabelShiftCanonicalBinning(CanonicalBinning):
    r"""Binning on the source, reweighted to the target: paper 001 eq. (17) (book ``def-binls-corrected``, ``alg-binls-corrected``).

    ``fit(probs_source, y_source, weights)`` fits :class:`CanonicalBinning`
    on the labelled source sample and replaces the frequencies of every bin
    by :math:`\hat\theta^{(w)}_{I,y} = w_y\hat\theta^P_{I,y}/\sum_j w_j\hat\theta^P_{I,j}`
    (:func:`companion.label_shift_weights.posterior_correction`); ``predict``
    returns the corrected frequencies of the bin of each input.

    Parameters
    ----------
    partition : object
        A partition of the simplex fixed in advance: an attribute ``n_bins``
        and a method ``assign(probs)`` (:class:`CoordinatePartition`,
        :class:`LogRatioGridPartition`).

    Attributes
    ----------
    counts_ : numpy.ndarray, shape (B,)
        :math:`N_I`, the source points of every bin.
    source_frequencies_ : numpy.ndarray, shape (B, k)
        :math:`\hat\theta^P_I`, before the correction.
    frequencies_ : numpy.ndarray, shape (B, k)
        :math:`\hat\theta^{(w)}_I`.
    weights_ : numpy.ndarray
        The weights used.

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
    """

    def fit(self, probs, y, weights, classes=None) -> "LabelShiftCanonicalBinning":
        """Fit on the source sample and reweight every bin's frequencies with ``weights`` (``alg-binls-corrected``).

        ``weights``: one non-negative weight per class (column of ``probs``),
        not all zero, the oracle :math:`q/p` or an estimate (e.g.
        ``bbse(...).weights``) in the order of ``classes``; every bin must hold
        a source point of a class with a positive weight (otherwise eq. (17)
        is 0/0 there).
        """
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
