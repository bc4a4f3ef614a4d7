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
its value at once (tied scores: when the wanted cells hold most points, a
guess from a sample is checked on all of them, a gather and a compare a
point); the others are sorted when they hold few points and otherwise cut
again, each within its own range, and the step repeats on fewer points (a
loop over levels, never over points).

*Bins* (:class:`BinLookup`).  The bin of :math:`z` is the number of interior
edges below it (``searchsorted(inner, z, "left")``: bins
:math:`[u_0, u_1], (u_1, u_2], \dots`).  An edge in a lower cell is below every
point of a higher cell, so a point's bin follows from its cell and one
compare with the cell's lowest edge (none: every point is at or below it):
a table per side of the cell (at or below, above) gives the bin, or directly
the bin's value for ``predict``.  Only points in a cell holding several
different edges take a binary search.

*Blocks.*  The passes over all points go by blocks of ``_BLOCK`` points into
scratch arrays that stay in the processor's cache, so no temporary of the
size of the sample is written: at 10^7 points a fresh array costs as much as
the arithmetic on it (its pages are mapped on first touch).
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []

#: Most cells of a table (the counts and the bin table then stay in the processor's cache).
_MAX_CELLS = 1 << 17
#: A set of candidate points this small is sorted rather than cut again.
_SORT_AT_MOST = 1 << 15
#: Points handled at a time by the passes over all points (their scratch arrays then stay in the processor's cache).
_BLOCK = 1 << 16
#: The key of 1.0, the largest score.
_KEY_OF_ONE = int(np.float64(1.0).view(np.int64))


def _keys(z: np.ndarray) -> np.ndarray:
    """The bits of each score read as an int64 (ordered like the scores for scores >= +0.0)."""
    return np.ascontiguousarray(z, dtype=np.float64).view(np.int64)


def _blocks(size: int):
    """Consecutive slices of at most ``_BLOCK`` points covering ``range(size)``."""
    return (slice(start, min(start + _BLOCK, size)) for start in range(0, size, _BLOCK))


class Cells:
    """A monotone map of scores in [0, 1] to cells ``0, ..., n_cells - 1`` (see the module docstring).

    About ``8 n_bins`` cells per binade (``2**bits``, ``bits = bit_length(n_bins) + 3``), from the
    cell of ``smallest`` to the cell of 1.0; when that is more than ``_MAX_CELLS`` cells, the lowest
    cells are merged into cell 0, or, with ``whole_span``, the cells are made coarser until the
    binades from ``smallest`` up fit (the table of :class:`BinLookup`, whose cell 0 would
    otherwise hold many edges).
    """

    def __init__(self, n_bins: int, smallest: float, whole_span: bool = False):
        bits = min(int(n_bins).bit_length() + 3, 24)
        if whole_span:
            binades = (_KEY_OF_ONE - max(int(np.float64(smallest).view(np.int64)), 0)) >> 52
            bits = max(min(bits, (_MAX_CELLS // (binades + 1)).bit_length() - 1), 0)
        self.shift = 52 - bits
        top = _KEY_OF_ONE >> self.shift
        lowest = self._cell_key(smallest)
        self.low = max(lowest, top - _MAX_CELLS + 1)
        self.n_cells = top - self.low + 1

    def _cell_key(self, score: float) -> int:
        """``key >> shift`` of one score, with -0.0 read as +0.0."""
        return max(int(np.float64(score).view(np.int64)), 0) >> self.shift

    def below_table(self, smallest) -> bool:
        """Whether scores as small as ``smallest`` (or -0.0, whose key is negative) fall below the table."""
        return not smallest > 0.0 or self._cell_key(smallest) < self.low

    def of(self, z: np.ndarray, smallest: float = 0.0, out: np.ndarray | None = None) -> np.ndarray:
        """Cell of each score of ``z`` (into ``out`` if given), whose smallest score is ``smallest``; scores below the table go to cell 0."""
        keys, clip = _keys(z), self.below_table(smallest)
        out = np.empty(keys.size, dtype=np.int64) if out is None else out
        for part in _blocks(keys.size):  # block by block: each block's three steps in the cache
            cells = np.right_shift(keys[part], self.shift, out=out[part])
            cells -= self.low
            if clip:
                np.maximum(cells, 0, out=cells)
        return out


def order_statistics(z: np.ndarray, cells: np.ndarray, n_cells: int, ranks: np.ndarray) -> np.ndarray:
    """The order statistics ``z_(r)`` for sorted 1-based ``ranks``, exact, without sorting ``z``.

    ``cells`` (in ``0, ..., n_cells - 1``) must be a monotone function of ``z``; ``z >= 0``.
    Nothing of the size of ``z`` is allocated but masks of one byte a point and the kept points.
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
        lo = hi = _one_value_each(values, cells, n_cells, held, counts[held].sum())
        if lo is None:
            if 2 * counts[held].sum() < cells.size:  # the wanted cells hold few points: take them out first
                members = np.flatnonzero(_marks(n_cells, held)[cells])
                values, cells = values[members], cells[members]
            lo, hi = _extremes(values, cells, n_cells, held)
        tied = lo[slot_of_rank] == hi[slot_of_rank]  # the cell holds one value: it is the order statistic
        out[open_ranks[tied]] = lo[slot_of_rank[tied]]
        still = lo < hi
        if not np.any(still):
            return out
        kept_counts = np.where(still, counts[held], 0)
        open_ranks, slot_of_rank = open_ranks[~tied], slot_of_rank[~tied]
        ranks = (np.cumsum(kept_counts) - kept_counts)[slot_of_rank] + inside[~tied]  # rank among the kept points
        keep = np.flatnonzero(_marks(n_cells, held[still])[cells])  # the points of the cells still open
        slot = np.empty(n_cells, dtype=np.intp)
        slot[held] = np.arange(held.size)
        values, point_slot = values[keep] + 0.0, slot[cells[keep]]
        if values.size <= _SORT_AT_MOST:
            out[open_ranks] = np.sort(values)[ranks - 1]
            return out
        cells, n_cells = _cut_again(values, point_slot, lo, hi, still)


def _extremes(values, cells, n_cells, held) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest value in each cell of ``held`` (+inf and -inf where none), -0.0 read as +0.0."""
    lo, hi = np.full(n_cells, np.inf), np.full(n_cells, -np.inf)
    np.minimum.at(lo, cells, values)
    np.maximum.at(hi, cells, values)
    return lo[held] + 0.0, hi[held] + 0.0


def _one_value_each(values, cells, n_cells, held, n_held) -> np.ndarray | None:
    """The value of each cell of ``held`` if each holds copies of one value (tied scores), else None.

    A guess from every ``k``-th point (the extremes of a sample of about
    ``_BLOCK`` points), then a check that all ``n_held`` points of these
    cells equal their cell's guess: one gather and one compare a point, by
    blocks, in place of taking the cells' points out or the scatter of
    :func:`_extremes` over all points.
    """
    step = max(values.size // _BLOCK, 1)
    lo, hi = _extremes(values[::step], cells[::step], n_cells, held)
    if not np.all(lo == hi):  # (a cell left out of the sample has lo = inf, hi = -inf)
        return None
    if step == 1:  # the sample was every point
        return lo
    guess = np.full(n_cells, np.nan)  # a cell outside ``held``: no point equals NaN
    guess[held] = lo
    scratch = np.empty(min(values.size, _BLOCK))
    equal = 0
    for part in _blocks(values.size):
        g = np.take(guess, cells[part], out=scratch[: part.stop - part.start], mode="clip")
        equal += np.count_nonzero(values[part] == g)
    return lo if equal == n_held else None


def _marks(n_cells: int, marked: np.ndarray) -> np.ndarray:
    """A boolean table over the cells, true at ``marked``."""
    table = np.zeros(n_cells, dtype=bool)
    table[marked] = True
    return table


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

    The cells (:class:`Cells`) span the lowest edge to 1.
    Each cell has a *threshold*, its lowest edge (``inf`` in a cell without
    an edge), and two *sides*: its points at or below the threshold, and
    above it.  When the cell's edges are copies of one value, a side lies in
    one bin, ``side_bins[2 cell + above]``; a cell holding different edges
    (``several``) sends its points to a binary search.
    """

    def __init__(self, inner: np.ndarray):
        self.inner = inner
        self.cells = Cells(inner.size + 1, inner[0] if inner.size else 1.0, whole_span=True)
        n_in = np.bincount(self.cells.of(inner), minlength=self.cells.n_cells)  # edges in each cell ...
        below = np.cumsum(n_in) - n_in  # ... and in the cells below it
        padded = np.append(inner, 1.0)  # so that a cell without an edge indexes something
        self.threshold = np.where(n_in > 0, padded[below], np.inf)
        several = self.threshold < padded[np.maximum(below + n_in - 1, 0)]
        self.several = several if np.any(several) else None
        self.side_bins = np.column_stack((below, below + n_in)).ravel()
        self.bin_numbers = np.arange(inner.size + 1)

    def bins(self, z: np.ndarray, smallest: float, out: np.ndarray | None = None, labels: np.ndarray | None = None) -> np.ndarray:
        """Bin of each score of ``z`` (see :meth:`take`); with 0/1 ``labels``, ``2 bin + label``."""
        if labels is None:
            return self.take(self.bin_numbers, z, smallest, out=out, per_side=self.side_bins)
        return self.take(2 * self.bin_numbers, z, smallest, out=out, per_side=2 * self.side_bins, plus=labels)

    def take(self, per_bin: np.ndarray, z: np.ndarray, smallest: float, out: np.ndarray | None = None,
             per_side: np.ndarray | None = None, plus: np.ndarray | None = None) -> np.ndarray:
        """``per_bin[bin]`` (``+ plus``) for each score of ``z``, whose smallest score is ``smallest``, into ``out``.

        ``per_side``: ``per_bin[self.side_bins]``, if computed.  The points go
        by blocks of ``_BLOCK``: cell, threshold, one compare and one gather,
        all in arrays that stay in the processor's cache.
        """
        per_side = per_bin[self.side_bins] if per_side is None else per_side
        out = np.empty(z.size, dtype=per_bin.dtype) if out is None else out
        size = min(z.size, _BLOCK)
        cell, threshold, above = np.empty(size, dtype=np.int64), np.empty(size), np.empty(size, dtype=bool)
        for part in _blocks(z.size):
            scores, n = z[part], part.stop - part.start
            c, t, a = self.cells.of(scores, smallest, out=cell[:n]), threshold[:n], above[:n]
            np.take(self.threshold, c, out=t, mode="clip")  # the cells are in range: "clip" only spares a check
            np.greater(scores, t, out=a)
            several = np.flatnonzero(self.several[c]) if self.several is not None else None
            c <<= 1
            c += a
            np.take(per_side, c, out=out[part], mode="clip")
            if several is not None and several.size:
                out[part.start + several] = per_bin[np.searchsorted(self.inner, scores[several], side="left")]
            if plus is not None:
                out[part] += plus[part]
        return out
