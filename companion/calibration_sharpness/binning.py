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
    """Edges ``0, 1/B, ..., 1`` of ``n_bins`` equal-width bins on [0, 1] (``n_bins`` at most ``10**8``)."""
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=_MAX_EDGES)
    return np.linspace(0.0, 1.0, n_bins + 1)


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
    """Edges of Definition 6 from unsorted validated scores, without a sort (``scratch``: an int64 array like ``z`` to use)."""
    smallest = z.min()
    cells = Cells(n_bins, smallest)
    cell_of_z = cells.of(z, smallest, out=scratch)
    inner = order_statistics(z, cell_of_z, cells.n_cells, _uniform_mass_ranks(z.size, n_bins))
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
            "so the bin's mean (eq. (9)) is undefined; use fewer bins or data without tied scores"
        )


def _check_enough_samples(n: int, n_bins: int) -> None:
    if n < 2 * n_bins:
        raise ValueError(f"z must hold at least 2 * n_bins = {2 * n_bins} samples, got {n}")


class _HistogramBinning:
    """Shared fit/predict of histogram-binning recalibrators (eq. (9)).

    Subclasses only choose the edges, through ``_edges(z, scratch)``, which
    receives the validated forecasts and an int64 array like them to use.  Nothing is
    sorted: each point's bin comes from the cell table
    (:class:`~companion.calibration_sharpness.cells.BinLookup`) and the counts
    and class-1 counts are one ``bincount`` of ``2 bin + label``.
    """

    def __init__(self, n_bins: int):
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)

    def _edges(self, z: np.ndarray, scratch: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def fit(self, z, y):
        """Fit the bins and their mean labels on forecasts ``z`` and labels ``y``; return self.

        Sets ``edges_`` (``n_bins + 1`` values from 0 to 1), ``values_`` (bin
        means, eq. (9)) and ``counts_`` (sample points per bin).  Raises
        ``ValueError`` for fewer than ``2 * n_bins`` samples or an empty bin.
        """
        z, smallest = _as_scores(z)
        y = as_labels(y, "y")
        check_same_length(z=z, y=y)
        _check_enough_samples(z.size, self.n_bins)
        scratch = np.empty(z.size, dtype=np.int64)
        edges = self._edges(z, scratch)
        lookup = BinLookup(edges[1:-1])
        # bins in the convention of bin_indices, as 2 bin + label: one count gives the points and the class-1 points of each bin
        codes = lookup.bins(z, smallest, out=scratch, labels=y)
        per_code = np.bincount(codes, minlength=2 * self.n_bins)
        counts = per_code[0::2] + per_code[1::2]
        _check_no_empty_bin(counts, edges)
        self.counts_ = counts
        self.values_ = per_code[1::2] / counts
        self.edges_ = edges
        self._lookup = lookup
        self._side_values = self.values_[lookup.side_bins]
        return self

    def predict(self, z) -> np.ndarray:
        """Recalibrated forecasts ``h(z)``: the mean label of the bin containing each ``z``."""
        if not hasattr(self, "values_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit(z, y) first")
        return self._lookup.take(self.values_, *_as_scores(z), per_side=self._side_values)


class UniformMassBinning(_HistogramBinning):
    r"""Uniform-mass binning recalibrator (paper 000 Definition 6 and eq. (9); book ``def-umb``, ``alg-umb``).

    Interior edges are the order statistics ``u_b = z_(floor(n b / B))`` of
    the fitting forecasts, so every bin holds about ``n / B`` points; the
    recalibrated forecast is the mean label of the bin, the empirical bin
    mean :math:`\hat\theta_I`.  The order statistics come from the cells of
    the forecasts, without a sort (:func:`~companion.calibration_sharpness.cells.order_statistics`).
    """

    def _edges(self, z, scratch):
        return _uniform_mass_edges_unsorted(z, self.n_bins, scratch)


class EqualWidthBinning(_HistogramBinning):
    """Equal-width histogram binning with edges ``0, 1/B, ..., 1`` (same interface)."""

    def _edges(self, z, scratch):
        return equal_width_edges(self.n_bins)
