r"""Calibration, sharpness and the mean-squared-error decomposition.

Everything here works on the *empirical* distribution of a sample of
forecasts ``z`` (or ``p``) and labels ``y``: a conditional expectation such
as :math:`\mathbb E[Y \mid Z]` is the mean label over the sample points that
share the same forecast value.  The population versions for the papers'
scenarios live in :mod:`companion.scenarios`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .._checks import as_edges, as_labels, as_probabilities, as_real_array, check_int, check_same_length
from .binning import bin_indices, equal_width_edges

__all__ = [
    "MSEDecomposition",
    "mse_decomposition",
    "conditional_mean",
    "calibration_risk",
    "sharpness_risk",
    "recalibration_risk",
    "ReliabilityCurve",
    "reliability_curve",
]


class MSEDecomposition(NamedTuple):
    """Terms of paper 000 eq. (2) (book ``eq-mse-decomposition``): ``mse == variance - sharpness + calibration + within_bin``.

    ``within_bin`` is exactly 0 when forecasts are grouped by their distinct
    values (the exact decomposition); with ``bins=`` it carries the two
    within-bin terms that binning adds (see :func:`mse_decomposition`).
    """

    #: Mean squared error of the forecasts.
    mse: float
    #: Variance of the outcomes.
    variance: float
    #: Sharpness term: the variance of the conditional frequency given the forecast.
    sharpness: float
    #: Calibration term: the mean squared gap between forecast and conditional frequency.
    calibration: float
    #: The two within-bin terms that binning adds; exactly 0 when forecasts are grouped by their distinct values.
    within_bin: float = 0.0


def _group_means(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group ``values`` by equal ``keys``: return (group index per point, counts, group means)."""
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    means = np.bincount(inverse, weights=values) / counts
    return inverse, counts, means


def _forecasts_and_labels(p, y, p_name: str = "p") -> tuple[np.ndarray, np.ndarray]:
    p = as_probabilities(p, p_name)
    y = as_labels(y, "y")
    check_same_length(**{p_name: p, "y": y})
    return p, y


def mse_decomposition(p, y, bins=None) -> MSEDecomposition:
    r"""Decompose the empirical MSE of forecasts ``p`` into paper 000 eq. (2) (book ``eq-mse-decomposition``).

    Parameters
    ----------
    p : array of forecasts in [0, 1].
    y : array of labels in {0, 1}, same length.
    bins : None, int or array of edges.
        ``None`` groups forecasts by their distinct values; then the
        decomposition is exact, ``mse == variance - sharpness + calibration``,
        and ``within_bin == 0``.  An integer ``B`` groups them into ``B``
        equal-width bins of [0, 1]; an array gives the bin edges (from 0 to 1,
        first bin closed, later bins half-open on the left).  A binned
        calibration term uses each bin's *mean forecast*, so two further
        terms appear (Stephenson, Coelho and Jolliffe, 2008; book ``eq-binned-decomposition``):
        ``within_bin = WBV - WBC`` with the within-bin variance of the
        forecasts :math:`\mathrm{WBV} = \frac1n\sum_b\sum_{i\in b}(p_i-\bar p_b)^2`
        and the within-bin covariance
        :math:`\mathrm{WBC} = \frac2n\sum_b\sum_{i\in b}(y_i-\bar y_b)(p_i-\bar p_b)`,
        and ``mse == variance - sharpness + calibration + within_bin`` holds
        exactly again.

    Raises
    ------
    ValueError
        If ``p`` is not in [0, 1], ``y`` not in {0, 1}, their lengths differ,
        an integer ``bins`` is below 1, or an array ``bins`` is not a sorted
        array of edges from 0 to 1 (each message names the argument).

    Returns
    -------
    MSEDecomposition
        ``mse`` = mean of (y - p)^2, ``variance`` = ybar (1 - ybar),
        ``sharpness`` = weighted variance of the group label means
        :math:`\hat\theta_b` (the empirical :math:`\hat\theta_I` of each bin
        or value group), ``calibration`` = weighted mean of
        (group mean forecast - :math:`\hat\theta_b`)^2.

    Examples
    --------
    >>> import numpy as np
    >>> d = mse_decomposition(np.array([0.2, 0.2, 0.8, 0.8]), np.array([0, 1, 1, 1]))
    >>> [round(t, 4) for t in (d.mse, d.variance, d.sharpness, d.calibration, d.within_bin)]
    [0.19, 0.1875, 0.0625, 0.065, 0.0]
    >>> round(mse_decomposition(np.array([0.1, 0.3, 0.6, 0.8]), np.array([0, 1, 1, 1]), bins=2).within_bin, 4)
    -0.04
    """
    p, y = _forecasts_and_labels(p, y)
    n = p.size
    if bins is None:
        keys = p
    else:
        if np.ndim(bins) == 0:
            edges = equal_width_edges(check_int(bins, "bins", minimum=1))
        else:
            edges = as_edges(bins, "bins")
        keys = bin_indices(p, edges)
    group, counts, ybar_g = _group_means(keys, y.astype(float))
    pbar_g = np.bincount(group, weights=p) / counts
    ybar = y.mean()
    share = counts / n
    mse = float(np.mean((y - p) ** 2))
    variance = float(ybar * (1.0 - ybar))
    sharpness = float(share @ (ybar_g - ybar) ** 2)
    calibration = float(share @ (pbar_g - ybar_g) ** 2)
    if bins is None:
        within = 0.0
    else:
        dp = p - pbar_g[group]
        dy = y - ybar_g[group]
        within = float(np.mean(dp * dp) - 2.0 * np.mean(dy * dp))
    return MSEDecomposition(mse, variance, sharpness, calibration, within)


def conditional_mean(keys, y) -> np.ndarray:
    r"""Empirical :math:`\mathbb E[Y \mid \text{key}]` at every sample point (mean label of equal keys).

    With ``keys = z`` this is the empirical :math:`h^*(z_i)`; with ``keys = h(z)``
    it is the empirical :math:`\mathbb E[Y \mid h(Z)]`.  ``keys`` are finite
    real numbers and ``y`` labels in {0, 1}, of the same length.
    """
    keys = as_real_array(keys, "keys")
    y = as_labels(y, "y")
    check_same_length(keys=keys, y=y)
    return _conditional_mean(keys, y)


def _conditional_mean(keys: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`conditional_mean` on validated arrays."""
    group, _, means = _group_means(keys, y.astype(float))
    return means[group]


def _recalibrated(h: Callable, z, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not callable(h):
        raise ValueError("h must be a callable recalibration map from [0, 1] to [0, 1]")
    z, y = _forecasts_and_labels(z, y, "z")
    hz = as_probabilities(np.broadcast_to(h(z), z.shape), "h(z)")
    return z, y, hz


def calibration_risk(h: Callable, z, y) -> float:
    r"""Empirical calibration risk of ``h`` over forecasts ``z`` (paper 000 Definition 3, book ``def-calibration-risk``).

    :math:`R^{cal}(h) = \mathbb E[(h(Z) - \mathbb E[Y\mid h(Z)])^2]` on the
    empirical distribution of ``(z, y)``.
    """
    _, y, hz = _recalibrated(h, z, y)
    return float(np.mean((hz - _conditional_mean(hz, y)) ** 2))


def sharpness_risk(h: Callable, z, y) -> float:
    r"""Empirical sharpness risk of ``h`` over forecasts ``z`` (paper 000 Definition 4, book ``def-sharpness-risk``).

    :math:`R^{sha}(h) = \mathbb E[(\mathbb E[Y\mid h(Z)] - \mathbb E[Y\mid Z])^2]`.
    """
    z, y, hz = _recalibrated(h, z, y)
    return float(np.mean((_conditional_mean(hz, y) - _conditional_mean(z, y)) ** 2))


def recalibration_risk(h: Callable, z, y) -> float:
    r"""Empirical recalibration risk of ``h`` over forecasts ``z`` (paper 000 Definition 5, book ``def-recalibration-risk``).

    :math:`R(h) = \mathbb E[(h(Z) - h^*(Z))^2]` with the empirical
    :math:`h^*(Z) = \mathbb E[Y\mid Z]`, computed directly (not as a sum); by
    Proposition 1 (book ``prop-risk-decomposition``) it equals
    ``calibration_risk + sharpness_risk``.
    """
    z, y, hz = _recalibrated(h, z, y)
    return float(np.mean((hz - _conditional_mean(z, y)) ** 2))


class ReliabilityCurve(NamedTuple):
    """Per-bin summary of forecasts against outcomes.

    Empty bins keep ``counts == 0`` and ``nan`` in ``mean_forecast`` and
    ``frequency`` (they are not dropped, so arrays line up with ``edges``).
    """

    #: Bin edges, ``n_bins + 1`` increasing values.
    edges: np.ndarray
    #: Mid-point of each bin.
    centres: np.ndarray
    #: Mean forecast of the points in each bin (``nan`` for an empty bin).
    mean_forecast: np.ndarray
    #: Observed frequency of the outcome 1 in each bin (``nan`` for an empty bin).
    frequency: np.ndarray
    #: Number of points in each bin.
    counts: np.ndarray


def reliability_curve(p, y, n_bins: int = 10, strategy: str = "uniform") -> ReliabilityCurve:
    """Observed frequency of ``Y = 1`` per forecast bin.

    ``strategy="uniform"`` uses ``n_bins`` equal-width bins of [0, 1];
    ``strategy="quantile"`` puts (as nearly as ties allow) equally many
    forecasts in each bin, with edges at empirical quantiles and the outer
    edges at 0 and 1.  ``centres`` are the midpoints of the bin intervals.
    """
    p, y = _forecasts_and_labels(p, y)
    n_bins = check_int(n_bins, "n_bins", minimum=1)
    if strategy == "uniform":
        edges = equal_width_edges(n_bins)
    elif strategy == "quantile":
        if n_bins > p.size:
            raise ValueError(f"n_bins must not exceed the number of forecasts ({p.size}) for quantile bins")
        edges = np.quantile(p, np.linspace(0.0, 1.0, n_bins + 1))
        edges[0], edges[-1] = 0.0, 1.0
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    idx = bin_indices(p, edges)
    counts = np.bincount(idx, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_forecast = np.bincount(idx, weights=p, minlength=n_bins) / counts
        frequency = np.bincount(idx, weights=y, minlength=n_bins) / counts
    return ReliabilityCurve(edges, 0.5 * (edges[1:] + edges[:-1]), mean_forecast, frequency, counts)
