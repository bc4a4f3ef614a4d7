"""The baselines the book compares Algorithm 2 with: temperature scaling, class-wise and top-label histogram binning."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar

from .._checks import check_int
from .level_sets import _labels_for, as_probability_rows
from .._numerics import _softmax

__all__ = ["TemperatureScaling", "ClasswiseBinning", "TopLabelBinning"]


# ---------------------------------------------------------------------------
# Baselines: temperature scaling, class-wise and top-label histogram binning
# ---------------------------------------------------------------------------


class TemperatureScaling:
    r"""Temperature scaling (Guo et al.): :math:`g(u) = \mathrm{softmax}(\log u / T)`, T by maximum likelihood."""

    def fit(self, probs, y):
        probs = as_probability_rows(probs)
        y = _labels_for(probs, y)
        logp = np.log(np.maximum(probs, 1e-300))

        def nll(log_t):
            z = logp / math.exp(log_t)
            z = z - z.max(axis=1, keepdims=True)
            return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(y.size), y]))

        res = minimize_scalar(nll, bounds=(-4.0, 4.0), method="bounded", options={"xatol": 1e-8})
        self.temperature_ = float(math.exp(res.x))
        return self

    def predict(self, probs) -> np.ndarray:
        if not hasattr(self, "temperature_"):
            raise ValueError("this TemperatureScaling is not fitted yet; call fit(probs, y) first")
        probs = as_probability_rows(probs)
        return _softmax(np.log(np.maximum(probs, 1e-300)) / self.temperature_)


def _quantile_edges(x: np.ndarray, n_bins: int) -> np.ndarray:
    """Interior edges at the empirical quantiles (ties collapse bins)."""
    return np.unique(np.quantile(x, np.arange(1, n_bins) / n_bins))


def _bin_means(x: np.ndarray, target: np.ndarray, edges: np.ndarray):
    idx = np.searchsorted(edges, x, side="left")
    n_cells = edges.size + 1
    count = np.bincount(idx, minlength=n_cells)
    mean_x = np.bincount(idx, weights=x, minlength=n_cells)
    mean_t = np.bincount(idx, weights=target, minlength=n_cells)
    values = np.where(count > 0, mean_t / np.maximum(count, 1), np.nan)
    filler = np.where(count > 0, mean_x / np.maximum(count, 1), np.nan)
    return values, filler


class ClasswiseBinning:
    r"""Class-wise uniform-mass histogram binning, renormalised to the simplex.

    For each class :math:`i` the coordinate :math:`f_i` is binned at the
    empirical quantiles of the fitting sample (``n_bins`` bins) and replaced by
    the bin's frequency of class :math:`i`; the vector is then divided by its
    sum (the book's choice, so that outputs are distributions).  Bins empty in
    the fitting sample keep the identity.
    """

    def __init__(self, n_bins: int = 15):
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)

    def fit(self, probs, y):
        probs = as_probability_rows(probs)
        y = _labels_for(probs, y)
        k = probs.shape[1]
        self.edges_, self.values_ = [], []
        for i in range(k):
            edges = _quantile_edges(probs[:, i], self.n_bins)
            values, _ = _bin_means(probs[:, i], (y == i).astype(float), edges)
            self.edges_.append(edges)
            self.values_.append(values)
        return self

    def predict(self, probs) -> np.ndarray:
        if not hasattr(self, "values_"):
            raise ValueError("this ClasswiseBinning is not fitted yet; call fit(probs, y) first")
        probs = as_probability_rows(probs)
        if probs.shape[1] != len(self.values_):
            raise ValueError(f"probs must have {len(self.values_)} columns, got {probs.shape[1]}")
        out = np.empty_like(probs)
        for i, (edges, values) in enumerate(zip(self.edges_, self.values_)):
            v = values[np.searchsorted(edges, probs[:, i], side="left")]
            out[:, i] = np.where(np.isnan(v), probs[:, i], v)
        total = out.sum(axis=1, keepdims=True)
        return np.where(total > 0, out / np.where(total > 0, total, 1.0), 1.0 / probs.shape[1])


class TopLabelBinning:
    r"""Top-label uniform-mass histogram binning (Gupta and Ramdas), completed to a distribution.

    For each predicted class :math:`c` the top confidence is binned at the
    quantiles of the fitting points predicted :math:`c` and replaced by the
    bin's accuracy :math:`\hat P[Y = c]`; the other coordinates are rescaled to
    share the remaining mass in their original proportions (the book's
    completion; top-label calibration itself only specifies the top
    coordinate).  A class never predicted in the fitting sample keeps the identity.
    """

    def __init__(self, n_bins: int = 15):
        self.n_bins = check_int(n_bins, "n_bins", minimum=1)

    def fit(self, probs, y):
        probs = as_probability_rows(probs)
        y = _labels_for(probs, y)
        top = np.argmax(probs, axis=1)
        conf = probs[np.arange(y.size), top]
        self.k_ = probs.shape[1]
        self.edges_, self.values_ = [], []
        for c in range(self.k_):
            sel = top == c
            if not np.any(sel):
                self.edges_.append(np.zeros(0))
                self.values_.append(np.array([np.nan]))
                continue
            edges = _quantile_edges(conf[sel], self.n_bins)
            values, _ = _bin_means(conf[sel], (y[sel] == c).astype(float), edges)
            self.edges_.append(edges)
            self.values_.append(values)
        return self

    def predict(self, probs) -> np.ndarray:
        if not hasattr(self, "values_"):
            raise ValueError("this TopLabelBinning is not fitted yet; call fit(probs, y) first")
        probs = as_probability_rows(probs)
        if probs.shape[1] != self.k_:
            raise ValueError(f"probs must have {self.k_} columns, got {probs.shape[1]}")
        n = probs.shape[0]
        top = np.argmax(probs, axis=1)
        conf = probs[np.arange(n), top]
        new = conf.copy()
        for c in range(self.k_):
            sel = top == c
            if np.any(sel):
                v = self.values_[c][np.searchsorted(self.edges_[c], conf[sel], side="left")]
                new[sel] = np.where(np.isnan(v), conf[sel], v)
        rest = 1.0 - conf
        out = np.where(rest[:, None] > 0, probs * ((1.0 - new) / np.where(rest > 0, rest, 1.0))[:, None],
                       (1.0 - new)[:, None] / (self.k_ - 1))
        out[np.arange(n), top] = new
        return out
