r"""Cells of the scores: the order statistics and the bins of uniform-mass binning without a sort.

The fit of Definition 6 (book ``def-umb``) needs the order statistics
:math:`z_{(\lfloor nb/B\rfloor)}` and the bin of every point.  Both come here from one
integer pass over the scores.

*Cells.*  The 64 bits of a non-negative double, read as a signed integer (its
*key*), are ordered like the values: the exponent sits above the mantissa.
Cutting the key at a fixed bit, ``key >> shift``, maps every score to a cell;
the map is exact and monotone (``z <= z'`` gives ``cell <= cell'``), the cells
are of equal width inside each binade :math:`[2^e, 2^{e+1})` and twice as fine
in the binade below, so scores piled up near 0 are cut as finely as uniform
ones.  The table keeps at most ``_MAX_CELLS`` cells; smaller scores share cell 0.

*Order statistics* (:func:`order_statistics`).  As the cells are monotone, the
sorted sample is the concatenation of the sorted cells: the cumulative cell
counts give the cell of each wanted rank and the rank inside it.  Only the
points of those few cells are kept.  A cell whose points are all equal gives
its value at once (tied scores); the others are sorted when they hold few
points and otherwise cut again, each within its own range, and the step
repeats on fewer points (a loop over levels, never over points).

*Bins* (:class:`BinLookup`).  The bin of :math:`z` is the number of interior
edges below it (``searchsorted(inner, z, "left")``: bins
:math:`[u_0, u_1], (u_1, u_2], \dots`).  An edge in a lower cell is below every
point of a higher cell, so a cell without an edge gives its bin from a table,
in one gather.  A point in a cell holding copies of one edge value is compared
with it once; only points in a cell holding several different edges take a
binary search.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []

#: Most cells of a table (the counts and the bin table then stay in the processor's cache).
_MAX_CELLS = 1 << 17
#: A set of candidate points this small is sorted rather than cut again.
_SORT_AT_MOST = 1 << 15
#: The key of 1.0, the largest score.
_KEY_OF_ONE = int(np.float64(1.0).view(np.int64))


def _keys(z: np.ndarray) -> np.ndarray:
    """The bits of each score read as an int64 (ordered like the scores for scores >= +0.0)."""
    return np.ascontiguousarray(z, dtype=np.float64).view(np.int64)


class Cells:
    """A monotone map of scores in [0, 1] to cells ``0, ..., n_cells - 1`` (see the module docstring).

    About ``8 n_bins`` cells per binade (``2**bits``, ``bits = bit_length(n_bins) + 3``), from the
    cell of ``smallest`` to the cell of 1.0; when that is more than ``_MAX_CELLS`` cells, the lowest
    cells are merged into cell 0.
    """

    def __init__(self, n_bins: int, smallest: float):
        bits = min(int(n_bins).bit_length() + 3, 24)
        self.shift = 52 - bits
        top = _KEY_OF_ONE >> self.shift
        lowest = self._cell_key(smallest)
        self.low = max(lowest, top - _MAX_CELLS + 1)
        self.n_cells = top - self.low + 1

    def _cell_key(self, score: float) -> int:
        """``key >> shift`` of one score, with -0.0 read as +0.0."""
        return max(int(np.float64(score).view(np.int64)), 0) >> self.shift

    def raw(self, z: np.ndarray) -> np.ndarray:
        """Cell of each score, negative for a score below the table (merge those into cell 0)."""
        cells = np.right_shift(_keys(z), self.shift)
        cells -= self.low
        return cells

    def of(self, z: np.ndarray, smallest: float) -> np.ndarray:
        """Cell of each score of ``z``, whose smallest score is ``smallest`` (scores below the table go to cell 0)."""
        cells = self.raw(z)
        if not smallest > 0.0 or self._cell_key(smallest) < self.low:  # (-0.0 has a negative key)
            np.maximum(cells, 0, out=cells)
        return cells


def order_statistics(z: np.ndarray, cells: np.ndarray, n_cells: int, ranks: np.ndarray) -> np.ndarray:
    """The order statistics ``z_(r)`` for sorted 1-based ``ranks``, exact, without sorting ``z``.

    ``cells`` (in ``0, ..., n_cells - 1``) must be a monotone function of ``z``; ``z >= 0``.
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    out = np.empty(ranks.size)
    open_ranks = np.arange(ranks.size)  # entries of ``out`` still to find
    values = z
    while True:
        counts = np.bincount(cells, minlength=n_cells)
        ends = np.cumsum(counts)
        target = np.searchsorted(ends, ranks)  # the cell holding each rank ...
        inside = ranks - (ends[target] - counts[target])  # ... and the rank within it
        held, slot_of_rank = np.unique(target, return_inverse=True)
        slot = np.full(n_cells, held.size, dtype=np.intp)  # cells holding no wanted rank share the last slot
        slot[held] = np.arange(held.size)
        point_slot = slot[cells]
        if 2 * counts[held].sum() < point_slot.size:  # the wanted cells hold few points: take them out first
            members = np.flatnonzero(point_slot < held.size)
            values, point_slot = values[members], point_slot[members]
        lo, hi = np.full(held.size + 1, np.inf), np.full(held.size + 1, -np.inf)
        np.minimum.at(lo, point_slot, values)
        np.maximum.at(hi, point_slot, values)
        lo, hi = lo[:-1] + 0.0, hi[:-1]  # + 0.0 turns -0.0 into +0.0
        tied = lo[slot_of_rank] == hi[slot_of_rank]  # the cell holds one value: it is the order statistic
        out[open_ranks[tied]] = lo[slot_of_rank[tied]]
        still = lo < hi
        if not np.any(still):
            return out
        kept_counts = np.where(still, counts[held], 0)
        open_ranks, slot_of_rank = open_ranks[~tied], slot_of_rank[~tied]
        ranks = (np.cumsum(kept_counts) - kept_counts)[slot_of_rank] + inside[~tied]  # rank among the kept points
        keep = np.flatnonzero(np.append(still, False)[point_slot])  # the points of the cells still open
        values, point_slot = values[keep] + 0.0, point_slot[keep]
        if values.size <= _SORT_AT_MOST:
            out[open_ranks] = np.sort(values)[ranks - 1]
            return out
        cells, n_cells = _cut_again(values, point_slot, lo, hi, still)


def _cut_again(values, point_slot, lo, hi, still) -> tuple[np.ndarray, int]:
    """Finer monotone cells for the points of the cells ``still`` open: each cut into equal key ranges between its own min and max."""
    n_open = int(np.count_nonzero(still))
    bits = max(_MAX_CELLS // n_open, 16).bit_length() - 1
    key_lo = lo.view(np.int64)
    spread = np.where(still, hi.view(np.int64) - key_lo, 0)
    shift = np.maximum(np.frexp(spread.astype(float))[1] - bits, 0)  # any shift >= 0 is exact; this one gives <= 2**(bits+1) cells
    width = (spread >> shift) + 1
    start = np.cumsum(width) - width
    cells = start[point_slot] + ((values.view(np.int64) - key_lo[point_slot]) >> shift[point_slot])
    return cells, int(width.sum())


class BinLookup:
    """Bin of each score for sorted interior edges ``inner``: ``searchsorted(inner, z, "left")`` by the cell table.

    ``cells`` is the map of :class:`Cells`; by default it starts at the lowest edge.
    """

    def __init__(self, inner: np.ndarray, cells: Cells | None = None):
        self.inner = inner
        self.cells = cells if cells is not None else Cells(inner.size + 1, inner[0] if inner.size else 1.0)
        edge_cells = np.maximum(self.cells.raw(inner), 0)
        n_in = np.bincount(edge_cells, minlength=self.cells.n_cells)  # edges in each cell ...
        below = np.cumsum(n_in) - n_in  # ... and in the cells below it
        padded = np.append(inner, 1.0)  # so that a cell without an edge indexes something
        self.first = padded[below]
        one_value = (n_in == 0) | (self.first == padded[np.maximum(below + n_in - 1, 0)])
        self.below = np.where(one_value, below, -1)  # -1: several different edges, a binary search
        self.above = np.where(one_value, below + n_in, -1)
        self.table = np.where(n_in > 0, -1, below)  # -1: the cell holds an edge, compare with it
        self.any_several = not np.all(one_value)

    def bins(self, z: np.ndarray, smallest: float, cells: np.ndarray | None = None) -> np.ndarray:
        """Bin of each score of ``z``, whose smallest score is ``smallest`` (``cells``: ``self.cells.of(z, smallest)``, if computed).

        When few points (judged on every 64th) fall in a cell holding an edge,
        those alone are compared; otherwise (tied or piled-up scores) every
        point is compared with the edge of its cell, in one vectorized pass.
        """
        if cells is None:
            cells = self.cells.of(z, smallest)
        if 4 * np.count_nonzero(self.table[cells[::64]] < 0) < cells[::64].size:
            bins = self.table[cells]
            edge_points = np.flatnonzero(bins < 0)
            cell = cells[edge_points]
            bins[edge_points] = np.where(z[edge_points] > self.first[cell], self.above[cell], self.below[cell])
        else:
            bins = np.where(z > self.first[cells], self.above[cells], self.below[cells])
        if self.any_several:
            several = np.flatnonzero(bins < 0)  # in a cell holding different edges
            bins[several] = np.searchsorted(self.inner, z[several], side="left")
        return bins
