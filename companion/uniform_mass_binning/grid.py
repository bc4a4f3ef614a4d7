"""Risks of uniform-mass binning for many bin counts from one sort of the sample.

:func:`uniform_mass_grid` fits the uniform-mass recalibrator of paper 000,
Definition 6 (book ``def-umb``) for every bin count of a grid at once, from
one sort of the forecasts and the prefix sums of the sorted labels.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import as_sizes
from ..calibration_sharpness.binning import _bin_statistics, _check_enough_samples, _sorted_sample, _uniform_mass_edges
from ..scenarios import GaussianMixture

__all__ = ["UniformMassGrid", "uniform_mass_grid"]


class UniformMassGrid(NamedTuple):
    """Uniform-mass fits for several bin counts from one sample (see :func:`uniform_mass_grid`)."""

    #: The bin counts, one fit each.
    n_bins: np.ndarray
    #: ``edges[i]``: the ``edges_`` of ``UniformMassBinning(n_bins[i]).fit``.
    edges: list
    #: ``values[i]``: the ``values_`` of that fit.
    values: list
    #: ``counts[i]``: the ``counts_`` of that fit.
    counts: list


def uniform_mass_grid(z, y, n_bins_values) -> UniformMassGrid:
    """Fit uniform-mass binning for every bin count in ``n_bins_values`` from one sort.

    The forecasts and the class-1 forecasts are sorted once; every order
    statistic (Definition 6) is then an index and every bin count a
    ``searchsorted``, so each extra bin count costs ``O(B log n)``, not a refit.
    """
    n_bins_values = np.array(as_sizes(n_bins_values, "n_bins_values", scalar=True))
    z_sorted, ones_sorted = _sorted_sample(z, y)
    _check_enough_samples(z_sorted.size, int(n_bins_values.max()))
    return _grid_from_sorted(z_sorted, ones_sorted, n_bins_values)


def _grid_from_sorted(z_sorted: np.ndarray, ones_sorted: np.ndarray, n_bins_values: np.ndarray) -> UniformMassGrid:
    """:func:`uniform_mass_grid` on already sorted, validated forecasts and class-1 forecasts."""
    edges = [_uniform_mass_edges(z_sorted, int(b)) for b in n_bins_values]
    stats = [_bin_statistics(z_sorted, ones_sorted, e) for e in edges]
    return UniformMassGrid(
        n_bins=n_bins_values,
        edges=edges,
        values=[s[1] for s in stats],
        counts=[s[0] for s in stats],
    )


#: Largest class separation ``mu`` of the scenario functions: beyond it the classes overlap by less than
#: Phi(-40) ~ 1e-350, so bin masses underflow to 0 (and at mu near 1e300 the bin means become NaN).
_MAX_MU = 40.0


def _mixture(prior: float, mu: float) -> GaussianMixture:
    """The simulation family with prior ``prior`` and separation ``mu`` in (0, ``_MAX_MU``] (a ValueError naming ``mu``)."""
    scenario = GaussianMixture(prior, mu)
    if scenario.mu > _MAX_MU:
        raise ValueError(f"mu must be at most {_MAX_MU:g} (beyond it the bin masses of the mixture underflow), got {mu!r}")
    return scenario
