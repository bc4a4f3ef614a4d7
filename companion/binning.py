"""Histogram-binning recalibrators and bin assignment.

Bins follow the book's convention (paper 000, Definition 6): the first bin is
closed, ``[u_0, u_1]``, every later bin is half-open on the left,
``(u_{b-1}, u_b]``.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_edges, as_probabilities, check_int

__all__ = ["bin_indices", "equal_width_edges"]


def bin_indices(z, edges) -> np.ndarray:
    """Index of the bin of each forecast: 0 for ``[u_0, u_1]``, b for ``(u_b, u_{b+1}]``."""
    z = as_probabilities(z, "z")
    edges = as_edges(edges)
    return np.searchsorted(edges[1:-1], z, side="left")


def equal_width_edges(n_bins: int) -> np.ndarray:
    """Edges ``0, 1/B, ..., 1`` of ``n_bins`` equal-width bins on [0, 1]."""
    n_bins = check_int(n_bins, "n_bins", minimum=1)
    return np.linspace(0.0, 1.0, n_bins + 1)
