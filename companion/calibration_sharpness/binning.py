"""Bin assignment and the histogram-binning recalibrators (equal-width and uniform-mass).

Bins follow paper 000, Definition 6 (book ``def-umb``, eq. ``eq-umb-bins``): the first bin is
closed, ``[u_0, u_1]``, every later bin is half-open on the left,
``(u_{b-1}, u_b]``.  The calibration chapter uses both recalibrators as example maps; the
uniform-mass binning chapter studies the uniform-mass one.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_edges, as_labels, as_probabilities, check_int, check_same_length
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
            "so the bin's mean (eq. (9)) is undefined; use fewer bins (tied scores on an edge empty a bin)"
        )


def _check_enough_samples(n: int, n_bins: int, name: str = "z") -> None:
    if n < 2 * n_bins:
        raise ValueError(f"{name} must hold at least 2 * n_bins = {2 * n_bins} samples, got {n}")


def _checked_sample(z, y, n_bins: int) -> tuple[np.ndarray, float, np.ndarray]:
    """The inputs of a fit: scores in [0, 1] (float64), their smallest value, labels in {0, 1}; ``2 n_bins <= n``."""
    z, smallest = _as_scores(z)
    y = as_labels(y, "y")
    check_same_length(z=z, y=y)
    _check_enough_samples(z.size, n_bins)
    return z, smallest, y


class _HistogramBinning:
    """Fit and predict of the histogram-binning recalibrators (book ``alg-equal-width``, ``alg-umb``; eq. (9)).

    The subclasses choose the edges (step 1) through ``_edges(z, scratch)``, ``scratch`` an int64
    array like ``z`` that the fit reuses (at 10^7 points a fresh array costs as much as the arithmetic on it).
    """

    def __init__(self, n_bins: int):
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)

    def _edges(self, z: np.ndarray, scratch: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def fit(self, z, y):
        """Fit the edges, the counts and the bin means on forecasts ``z`` and labels ``y``; return self.

        Raises ``ValueError`` for forecasts outside [0, 1], labels outside {0, 1},
        fewer than ``2 * n_bins`` samples, or an empty bin (tied edges).
        """
        z, smallest, y = _checked_sample(z, y, self.n_bins)
        scratch = np.empty(z.size, dtype=np.int64)
        edges = self._edges(z, scratch)  # step 1: u_0 = 0 <= u_1 <= ... <= u_B = 1
        lookup = BinLookup(edges[1:-1])  # step 2: the bin of z (from 0) is #{interior edges u_k < z} (a cell table, not a binary search)
        per_code = np.bincount(lookup.bins(z, smallest, out=scratch, labels=y), minlength=2 * self.n_bins)  # 2 bin + label
        counts = per_code[0::2] + per_code[1::2]  # step 3: n_I ...
        _check_no_empty_bin(counts, edges)
        self.edges_, self.counts_, self.values_ = edges, counts, per_code[1::2] / counts  # ... and theta_I, eq. (9)
        self._lookup, self._side_values = lookup, self.values_[lookup.side_bins]
        return self

    def predict(self, z) -> np.ndarray:
        """Step 4: the recalibrated forecast ``h(z)``, the mean label of the bin of each ``z``."""
        if not hasattr(self, "values_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit(z, y) first")
        return self._lookup.take(self.values_, *_as_scores(z), per_side=self._side_values)


class UniformMassBinning(_HistogramBinning):
    r"""Recalibration by uniform-mass binning (book ``alg-umb``, ``def-umb``; paper 000, Definition 6, eq. (9)).

    The interior edges are the order statistics :math:`u_b = z_{(\lfloor nb/B\rfloor)}` of the
    fitting forecasts, so every bin holds about ``n / B`` points; the recalibrated forecast is
    the mean label :math:`\hat\theta_I` of the bin.

    Parameters
    ----------
    n_bins : int
        The number of bins ``B``, at least 1; ``fit`` needs ``2 B <= n``.

    Attributes
    ----------
    edges_ : ndarray of shape (B + 1,)
        The edges ``0 = u_0 <= u_1 <= ... <= u_B = 1``.
    counts_ : ndarray of shape (B,)
        The number of fitting points in each bin.
    values_ : ndarray of shape (B,)
        The bin means :math:`\hat\theta_I` (eq. (9)).

    Notes
    -----
    Domain: forecasts finite in [0, 1] (any real dtype, ``float32`` included, read as
    ``float64``), labels in {0, 1}.  The bins are ``[u_0, u_1], (u_1, u_2], ...``: a forecast
    on an edge goes to the bin on its left.  Tied scores that make two edges equal leave a
    bin empty, which has no mean: ``fit`` raises.  The order statistics and each point's bin
    come from a table of cells of the scores instead of a sort and a binary search, with the
    same result (book ``numnotes-calibration-sharpness``).

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
    """

    def _edges(self, z, scratch):
        return _uniform_mass_edges_unsorted(z, self.n_bins, scratch)  # u_b = z_(floor(n b / B)), without a sort


class EqualWidthBinning(_HistogramBinning):
    """Recalibration by equal-width binning (book ``alg-equal-width``, ``def-equal-width``).

    The edges are ``u_b = b / B``; the bins, their convention and everything else are those of
    :class:`UniformMassBinning`, whose domain this class shares.

    Parameters
    ----------
    n_bins : int
        The number of bins ``B``, at least 1 and at most ``10**8``; ``fit`` needs ``2 B <= n``.

    Examples
    --------
    >>> import numpy as np
    >>> ewb = EqualWidthBinning(2).fit(np.array([0.25, 0.5, 0.5, 0.75]), np.array([0, 1, 0, 1]))
    >>> ewb.counts_.tolist(), np.round(ewb.values_, 4).tolist()
    ([3, 1], [0.3333, 1.0])
    """

    def _edges(self, z, scratch):
        return equal_width_edges(self.n_bins)
