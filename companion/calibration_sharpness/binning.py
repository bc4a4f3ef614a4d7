"""Bin assignment and the histogram-binning recalibrators (equal-width and uniform-mass).

Bins follow paper 000, Definition 6 (book ``def-umb``, eq. ``eq-umb-bins``): the first bin is
closed, ``[u_0, u_1]``, every later bin is half-open on the left,
``(u_{b-1}, u_b]``.  The calibration chapter uses both recalibrators as example maps; the
uniform-mass binning chapter studies the uniform-mass one.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.metrics import r2_score
from sklearn.utils.validation import check_is_fitted

from .._checks import as_edges, as_labels, as_probabilities, check_int, check_option, check_same_length
from .cells import BinLookup, Cells, order_statistics

__all__ = ["bin_indices", "equal_width_edges", "UniformMassBinning", "EqualWidthBinning"]


def bin_indices(z, edges) -> np.ndarray:
    """Index of the bin of each forecast: 0 for ``[u_0, u_1]``, b for ``(u_b, u_{b+1}]``."""
    z = as_probabilities(z, "z")
    edges = as_edges(edges)
    return BinLookup(edges[1:-1]).bins(z, z.min())


def _as_scores(z) -> tuple[np.ndarray, float]:
    """``as_probabilities(z, "z")`` and the smallest score; a float64 vector is checked by its min and max alone.

    The min and max (two passes, no copy) decide the common case: a NaN makes
    both NaN and an infinity lies outside [0, 1], so any input they do not
    accept goes through :func:`as_probabilities`, which names the rule broken.
    """
    if isinstance(z, np.ndarray) and z.dtype == np.float64 and z.ndim == 1 and z.size:
        smallest, largest = z.min(), z.max()
        if 0.0 <= smallest and largest <= 1.0:
            return np.ascontiguousarray(z), smallest
    z = as_probabilities(z, "z")
    return z, z.min()


def _score_column(z, name: str = "z"):
    """``z`` as given when it is a 1-D array or list; the column of a one-column 2-D input (a DataFrame); else a ValueError."""
    if isinstance(z, np.ndarray) and z.ndim == 1:
        return z
    shape = np.shape(z) if hasattr(z, "shape") else None
    if shape is None:
        try:
            shape = np.shape(z)
        except ValueError:  # ragged: the validation that follows names it
            return z
    if len(shape) == 2:
        if shape[1] != 1:
            raise ValueError(f"{name} must be one column of scores (shape (n,) or (n, 1)), got shape {tuple(shape)}")
        return np.asarray(z)[:, 0]
    return z


def class_codes(y, n_classes: int, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Codes ``0, ..., k - 1`` of the labels ``y`` and the ``k`` classes they stand for (an estimator's ``classes_``).

    Labels that are already positions (integers, booleans or integral floats in ``{0, ..., k - 1}``)
    are their own codes, with ``classes_ = [0, ..., k - 1]`` (the book's labels; a class may be
    absent from a sample).  Other labels (strings, ``-1/+1``, ...) must take exactly ``k`` distinct
    values, coded in sorted order, so that the positive class of a binary recalibrator is
    ``classes_[1]``.  Non-integral floats are continuous values, not labels (scikit-learn's rule).
    """
    k = int(n_classes)
    rule = "{0, 1}" if k == 2 else f"{{0, ..., {k - 1}}}"
    if y is None:  # scikit-learn's wording, which its checks look for
        raise ValueError(f"this estimator requires {name} to be passed, but the target {name} is None")
    raw = y if isinstance(y, np.ndarray) else np.asarray(y)
    if raw.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional (one label per row), got shape {raw.shape}")
    if raw.size == 0:
        raise ValueError(f"{name} must not be empty")
    kind = raw.dtype.kind
    if kind in "biu":
        if raw.min() >= 0 and raw.max() <= k - 1:
            return raw.astype(np.int64, copy=False), np.arange(k)
    elif kind == "f":
        if not np.all(np.isfinite(raw)):
            raise ValueError(f"{name} must be finite (found NaN or infinity)")
        if np.any(raw != np.round(raw)):
            raise ValueError(f"{name} must contain only labels in {rule} or {k} distinct class labels; "
                             "got non-integral floats (continuous values are not class labels)")
        if raw.min() >= 0 and raw.max() <= k - 1:
            return raw.astype(np.int64), np.arange(k)
    elif kind not in "OUS":
        raise ValueError(f"{name} must contain only labels in {rule} or {k} distinct class labels, got dtype {raw.dtype}")
    try:
        classes, codes = np.unique(raw, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"{name} must hold mutually comparable class labels ({exc})") from None
    if classes.size != k:
        shown = ", ".join(map(repr, classes[:5].tolist())) + (", ..." if classes.size > 5 else "")
        what = "a single class" if classes.size == 1 else f"{classes.size} distinct labels"
        raise ValueError(f"{name} must contain only labels in {rule} or exactly {k} distinct class labels "
                         f"(one per class), got {what} ({shown})")
    return codes.reshape(-1).astype(np.int64), classes


#: Largest ``n_bins`` of :func:`equal_width_edges`, which has no sample to bound it (the edges take 8 bytes each).
_MAX_EDGES = 10**8


def equal_width_edges(n_bins: int) -> np.ndarray:
    """Edges ``0, 1/B, ..., 1`` of ``n_bins`` equal-width bins on [0, 1] (``n_bins`` at most ``10**8``).

    Each edge is the float nearest to ``b / B`` (``np.linspace`` rounds some a unit lower, which sends a
    score computed as ``b / B`` to the bin on its right).

    Examples
    --------
    >>> equal_width_edges(4).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> bool(equal_width_edges(6)[5] == 5 / 6)
    True
    """
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=_MAX_EDGES)
    return np.arange(n_bins + 1) / n_bins


# ---------------------------------------------------------------------------
# Uniform-mass binning (paper 000, Definition 6 and eq. (9))
# ---------------------------------------------------------------------------


def _sorted_sample(z, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a labelled sample; return all scores sorted and the class-1 scores sorted.

    Two ``np.sort`` calls replace an ``argsort`` that would carry the labels
    along (several times slower for large samples).
    """
    z = as_probabilities(z, "z")
    y = as_labels(y, "y")
    check_same_length(z=z, y=y)
    return np.sort(z), np.sort(z[y == 1])


def _uniform_mass_ranks(n: int, n_bins: int) -> np.ndarray:
    """The (1-based) ranks ``floor(n b / B)``, ``b = 1, ..., B - 1``, of the interior edges of Definition 6.

    Computed as ``(n // B) b + ((n % B) b) // B``, exact in int64 for every ``n`` below ``2**63``
    (``n b`` itself would overflow for ``n`` near ``10**12`` and ``B`` near ``10**7``).
    """
    b = np.arange(1, n_bins, dtype=np.int64)
    return (n // n_bins) * b + ((n % n_bins) * b) // n_bins


def _uniform_mass_edges(z_sorted: np.ndarray, n_bins: int) -> np.ndarray:
    """Edges of Definition 6 from sorted scores: ``u_0 = 0``, ``u_b = z_(floor(n b / B))``, ``u_B = 1``."""
    return np.concatenate(([0.0], z_sorted[_uniform_mass_ranks(z_sorted.size, n_bins) - 1], [1.0]))


def _uniform_mass_edges_unsorted(z: np.ndarray, n_bins: int, scratch: np.ndarray | None = None) -> np.ndarray:
    """Step 1 of ``alg-umb`` on validated scores: ``0, z_(floor(n b / B)), 1``, equal to :func:`_uniform_mass_edges` of
    ``np.sort(z)``, but from the cells of the scores without a sort (:func:`~companion.calibration_sharpness.cells.order_statistics`;
    ``scratch``: an int64 array like ``z`` to hold the cells)."""
    smallest = z.min()
    cells = Cells(n_bins, smallest)
    inner = order_statistics(z, cells.of(z, smallest, out=scratch), cells.n_cells, _uniform_mass_ranks(z.size, n_bins))
    return np.concatenate(([0.0], inner, [1.0]))


def _bin_statistics(z_sorted: np.ndarray, ones_sorted: np.ndarray, edges: np.ndarray):
    """Bin counts and bin means of eq. (9) for the convention ``[u_0, u_1], (u_1, u_2], ...``.

    Counts of all and of class-1 scores ``<= u_b`` come from ``searchsorted``
    on the sorted arrays.  Raises ``ValueError`` for an empty bin: eq. (9)
    has no value there.
    """
    below = np.searchsorted(z_sorted, edges[1:-1], side="right")
    ones_below = np.searchsorted(ones_sorted, edges[1:-1], side="right")
    counts = np.diff(np.concatenate(([0], below, [z_sorted.size])))
    ones = np.diff(np.concatenate(([0], ones_below, [ones_sorted.size])))
    _check_no_empty_bin(counts, edges)
    return counts, ones / counts


def _check_no_empty_bin(counts: np.ndarray, edges: np.ndarray) -> None:
    """A ValueError naming the first empty bin: eq. (9) has no mean there."""
    if np.any(counts == 0):
        empty = int(np.flatnonzero(counts == 0)[0])
        raise ValueError(
            f"z has no sample point in bin {empty} (edges {edges[empty]:.6g}, {edges[empty + 1]:.6g}), "
            "so the bin's mean (eq. (9)) is undefined; use fewer bins or ties=\"merge\" (tied scores on an edge empty a bin)"
        )


def _check_enough_samples(n: int, n_bins: int, name: str = "z") -> None:
    if n < 2 * n_bins:
        raise ValueError(f"{name} must hold at least 2 * n_bins = {2 * n_bins} samples, got {n}")


def _checked_sample(z, y, n_bins: int) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The inputs of a fit: scores in [0, 1] (float64), their smallest value, label codes in {0, 1} and
    the classes they stand for (:func:`class_codes`); ``2 n_bins <= n``."""
    y, classes = class_codes(y, 2)
    z, smallest = _as_scores(_score_column(z))
    check_same_length(z=z, y=y)
    _check_enough_samples(z.size, n_bins)
    return z, smallest, y, classes


def _merge_tied_edges(edges: np.ndarray, largest: float) -> np.ndarray:
    """The edges without those that leave a bin empty: repeated interior edges, and interior edges at or above the
    largest score (the last bin would hold no point); ``0`` and ``1`` stay (``ties="merge"``)."""
    inner = np.unique(edges[1:-1])
    return np.concatenate(([0.0], inner[inner < largest], [1.0]))


class _HistogramBinning(RegressorMixin, BaseEstimator):
    """Fit and predict of the histogram-binning recalibrators (book ``alg-equal-width``, ``alg-umb``; eq. (9)).

    A scikit-learn regressor from a score to a probability: ``fit(z, y)`` learns the bins and their
    means, ``predict(z)`` returns the probability of the positive class ``classes_[1]``.  The
    subclasses choose the edges (step 1) through ``_edges(z, scratch)``, ``scratch`` an int64
    array like ``z`` that the fit reuses (at 10^7 points a fresh array costs as much as the arithmetic on it).
    """

    def __init__(self, n_bins: int = 10):
        self.n_bins = n_bins

    def _edges(self, z: np.ndarray, scratch: np.ndarray, n_bins: int) -> np.ndarray:
        raise NotImplementedError

    def fit(self, z, y):
        """Fit the edges, the counts and the bin means on forecasts ``z`` and labels ``y``; return self.

        ``z``: scores in [0, 1], shape ``(n,)`` or ``(n, 1)`` (a one-column DataFrame); ``y``: two
        classes (:func:`class_codes`).  Raises ``ValueError`` for forecasts outside [0, 1], labels
        that are not two classes, fewer than ``2 * n_bins`` samples, or an empty bin (tied edges).
        """
        n_bins = self._checked_n_bins()
        z, smallest, y, classes = _checked_sample(z, y, n_bins)
        scratch = np.empty(z.size, dtype=np.int64)
        edges = self._edges(z, scratch, n_bins)  # step 1: u_0 = 0 <= u_1 <= ... <= u_B = 1
        if getattr(self, "ties", "raise") == "merge":
            edges = _merge_tied_edges(edges, z.max())  # fewer bins, none empty (not Definition 6)
        lookup = BinLookup(edges[1:-1])  # step 2: the bin of z (from 0) is #{interior edges u_k < z} (a cell table, not a binary search)
        fitted = edges.size - 1
        per_code = np.bincount(lookup.bins(z, smallest, out=scratch, labels=y), minlength=2 * fitted)  # 2 bin + label
        counts = per_code[0::2] + per_code[1::2]  # step 3: n_I ...
        _check_no_empty_bin(counts, edges)
        self.edges_, self.counts_, self.values_ = edges, counts, per_code[1::2] / counts  # ... and theta_I, eq. (9)
        self.n_bins_, self.classes_ = fitted, classes
        self._lookup, self._side_values = lookup, self.values_[lookup.side_bins]
        return self

    def _checked_n_bins(self) -> int:
        return check_int(self.n_bins, "n_bins", minimum=1)

    def predict(self, z) -> np.ndarray:
        """Step 4: the recalibrated forecast ``h(z)``, the mean label of the bin of each ``z`` (probability of ``classes_[1]``)."""
        check_is_fitted(self, "values_")
        return self._lookup.take(self.values_, *_as_scores(_score_column(z)), per_side=self._side_values)

    def score(self, z, y, sample_weight=None) -> float:
        """Brier skill score of :meth:`predict` against the base rate: ``1 - Brier / Brier(mean label)``.

        This is scikit-learn's regressor score (:math:`R^2`) of the probabilities against the 0/1
        indicator of ``classes_[1]``, so ``GridSearchCV`` ranks fits by their Brier score.
        """
        p = self.predict(z)
        raw = np.asarray(y)
        if raw.ndim != 1 or raw.dtype.kind not in "biufOUS":
            raise ValueError(f"y must be a 1-D array of labels, got shape {raw.shape} and dtype {raw.dtype}")
        check_same_length(z=p, y=raw)
        positive = raw == self.classes_[1]  # the 0/1 indicator of the positive class
        if not np.all(positive | (raw == self.classes_[0])):
            raise ValueError(f"y must contain only the fitted classes {self.classes_.tolist()}")
        return float(r2_score(positive.astype(float), p, sample_weight=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True  # scores in [0, 1]
        return tags


class UniformMassBinning(_HistogramBinning):
    r"""Recalibration by uniform-mass binning (book ``alg-umb``, ``def-umb``; paper 000, Definition 6, eq. (9)).

    The interior edges are the order statistics :math:`u_b = z_{(\lfloor nb/B\rfloor)}` of the
    fitting forecasts, so every bin holds about ``n / B`` points; the recalibrated forecast is
    the mean label :math:`\hat\theta_I` of the bin.  A scikit-learn regressor from a score to the
    probability of the positive class ``classes_[1]`` (it fits in a ``Pipeline`` after a step that
    outputs one score column, and in ``GridSearchCV`` over ``n_bins``).

    Parameters
    ----------
    n_bins : int, default 10
        The number of bins ``B``, at least 1; ``fit`` needs ``2 B <= n``.
    ties : {"raise", "merge"}, default "raise"
        What to do when tied scores make an edge repeat, which leaves a bin empty (eq. (9) has no
        mean there).  ``"raise"``: refuse, as Definition 6 does.  ``"merge"``: remove the edges that
        leave a bin empty (repeated edges, and edges at the largest score), so the fit has
        ``n_bins_ <= n_bins`` non-empty bins, no longer of equal mass (the book page ``alg-umb``
        says how this departs from Definition 6).  On untied scores both give the same fit.

    Attributes
    ----------
    edges_ : ndarray of shape (``n_bins_ + 1``,)
        The edges ``0 = u_0 <= u_1 <= ... <= u_B = 1``.
    counts_ : ndarray of shape (``n_bins_``,)
        The number of fitting points in each bin.
    values_ : ndarray of shape (``n_bins_``,)
        The bin means :math:`\hat\theta_I` (eq. (9)), frequencies of ``classes_[1]``.
    n_bins_ : int
        The number of fitted bins: ``n_bins``, or fewer with ``ties="merge"``.
    classes_ : ndarray of shape (2,)
        The two labels; ``predict`` gives the probability of ``classes_[1]``.  Labels 0/1 (or
        booleans) give ``[0, 1]``; other labels (strings, -1/+1) are sorted.

    Notes
    -----
    Domain: forecasts finite in [0, 1] (any real dtype, ``float32`` included, read as
    ``float64``), one column; labels of two classes.  The bins are ``[u_0, u_1], (u_1, u_2], ...``:
    a forecast on an edge goes to the bin on its left.  Tied scores that make two edges equal leave a
    bin empty, which has no mean: ``fit`` raises (or merges, with ``ties="merge"``).  The order statistics
    and each point's bin come from a table of cells of the scores instead of a sort and a binary search,
    with the same result (book ``numnotes-calibration-sharpness``).  :meth:`score` is the Brier skill
    score against the base rate (scikit-learn's :math:`R^2` of the probabilities).

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 0, 1])
    >>> umb = UniformMassBinning(2).fit(z, y)
    >>> umb.edges_.tolist(), umb.counts_.tolist(), umb.values_.tolist()
    ([0.0, 0.4, 1.0], [4, 4], [0.25, 0.75])
    >>> umb.predict([0.4, 0.41]).tolist()
    [0.25, 0.75]
    >>> tied = np.round(z, 0)  # scores 0, 0, 0, 0, 1, 1, 1, 1: three edges of four bins tie
    >>> merged = UniformMassBinning(4, ties="merge").fit(tied, np.where(y == 1, "pos", "neg"))
    >>> merged.n_bins_, merged.edges_.tolist(), merged.values_.tolist(), merged.classes_.tolist()
    (2, [0.0, 0.0, 1.0], [0.25, 0.75], ['neg', 'pos'])
    """

    def __init__(self, n_bins: int = 10, *, ties: str = "raise"):
        self.n_bins = n_bins
        self.ties = ties

    def _checked_n_bins(self) -> int:
        check_option(self.ties, "ties", ("raise", "merge"))
        return super()._checked_n_bins()

    def _edges(self, z, scratch, n_bins):
        return _uniform_mass_edges_unsorted(z, n_bins, scratch)  # u_b = z_(floor(n b / B)), without a sort


class EqualWidthBinning(_HistogramBinning):
    """Recalibration by equal-width binning (book ``alg-equal-width``, ``def-equal-width``).

    The edges are ``u_b = b / B``; the bins, their convention, the scikit-learn interface and
    everything else are those of :class:`UniformMassBinning`, whose domain this class shares.

    Parameters
    ----------
    n_bins : int, default 10
        The number of bins ``B``, at least 1 and at most ``10**8``; ``fit`` needs ``2 B <= n``.

    Attributes
    ----------
    edges_ : ndarray of shape (n_bins + 1,)
        The edges ``0, 1/B, ..., 1``.
    counts_ : ndarray of shape (n_bins,)
        The number of fitting points in each bin.
    values_ : ndarray of shape (n_bins,)
        The bin means (eq. (9)), frequencies of ``classes_[1]``.
    n_bins_ : int
        The number of fitted bins (``n_bins``).
    classes_ : ndarray of shape (2,)
        The two labels; ``predict`` gives the probability of ``classes_[1]``.

    Examples
    --------
    >>> import numpy as np
    >>> ewb = EqualWidthBinning(2).fit(np.array([0.25, 0.5, 0.5, 0.75]), np.array([0, 1, 0, 1]))
    >>> ewb.counts_.tolist(), np.round(ewb.values_, 4).tolist()
    ([3, 1], [0.3333, 1.0])
    >>> ewb.predict([[0.1], [0.9]]).tolist()  # one column of scores, as a Pipeline passes them
    [0.3333333333333333, 1.0]
    """

    def _edges(self, z, scratch, n_bins):
        return equal_width_edges(n_bins)
