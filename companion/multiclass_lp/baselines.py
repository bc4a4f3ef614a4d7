"""The baselines the book compares Algorithm 2 with: temperature scaling, class-wise and top-label histogram binning."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._checks import check_int, check_same_length
from ..calibration_sharpness.binning import class_codes
from .level_sets import as_probability_rows
from .._numerics import _softmax

__all__ = ["TemperatureScaling", "ClasswiseBinning", "TopLabelBinning"]


# ---------------------------------------------------------------------------
# Baselines: temperature scaling, class-wise and top-label histogram binning
# ---------------------------------------------------------------------------


def _rows_and_codes(probs, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Probability rows (:func:`as_probability_rows`), label codes and ``classes_``: positions ``0, ..., k - 1``
    or exactly ``k`` distinct labels, the columns in their sorted order (:func:`class_codes`)."""
    probs = as_probability_rows(probs)
    y, classes = class_codes(y, probs.shape[1])
    check_same_length(probs=probs, y=y)
    return probs, y, classes


class _RowRecalibrator(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """A scikit-learn transformer of probability rows: ``fit(probs, y)``, ``transform(probs)`` = ``predict(probs)``."""

    def _checked_rows(self, probs) -> np.ndarray:
        check_is_fitted(self, "classes_")
        probs = as_probability_rows(probs)
        if probs.shape[1] != self.classes_.size:
            raise ValueError(f"probs must have {self.classes_.size} columns, got {probs.shape[1]}")
        return probs

    def transform(self, probs) -> np.ndarray:
        """The recalibrated rows; the same method as ``predict`` (``transform`` is the name a ``Pipeline`` calls)."""
        return self.predict(probs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True  # probability rows
        return tags


class TemperatureScaling(_RowRecalibrator):
    r"""Temperature scaling (Guo et al.): :math:`g(u) = \mathrm{softmax}(\log u / T)`, T by maximum likelihood.

    A scikit-learn transformer of probability rows (``fit(probs, y)``, ``transform`` = ``predict``).
    The temperature is searched over :math:`\log T \in [-4, 4]` (bounded Brent, ``xatol`` 1e-8),
    i.e. :math:`T \in [e^{-4}, e^{4}] \approx [0.018, 54.6]`.  When the likelihood is still falling at
    an end of that range (scores that carry no information about ``y`` push :math:`T` up, rows
    flattened almost to uniform), ``fit`` returns the end and says so with a ``ConvergenceWarning``.

    Attributes
    ----------
    temperature_ : float
        The fitted :math:`T`.
    classes_ : ndarray of shape (k,)
        The label of each column: ``0, ..., k - 1`` for labels that are positions, else the ``k``
        distinct labels of ``y``, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    >>> ts = TemperatureScaling().fit(probs, ["no", "no", "yes", "yes"])
    >>> round(ts.temperature_, 3), ts.classes_.tolist()
    (0.535, ['no', 'yes'])
    >>> ts.transform(probs[:1]).round(3)
    array([[0.984, 0.016]])
    """

    def fit(self, probs, y):
        """Fit :math:`T` by maximum likelihood on rows ``probs`` (n, k) and labels ``y``; return self."""
        probs, y, self.classes_ = _rows_and_codes(probs, y)
        logp = np.log(np.maximum(probs, 1e-300))

        def nll(log_t):
            z = logp / math.exp(log_t)
            z = z - z.max(axis=1, keepdims=True)
            return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(y.size), y]))

        res = minimize_scalar(nll, bounds=(-4.0, 4.0), method="bounded", options={"xatol": 1e-8})
        self.temperature_ = float(math.exp(res.x))
        if abs(res.x) > 4.0 - 1e-4:
            why = "scores with no information about y push T up" if res.x > 0 else "the scores are far too flat"
            warnings.warn(f"the temperature's maximum-likelihood search stopped at the end of its range, "
                          f"temperature_ = {self.temperature_:.4g} = e^{res.x:+.0f}: the optimum lies beyond it "
                          f"({why})", ConvergenceWarning, stacklevel=2)
        return self

    def predict(self, probs) -> np.ndarray:
        r"""The rows :math:`\mathrm{softmax}(\log u / T)`."""
        probs = self._checked_rows(probs)
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


class ClasswiseBinning(_RowRecalibrator):
    r"""Class-wise uniform-mass histogram binning, renormalised to the simplex.

    For each class :math:`i` the coordinate :math:`f_i` is binned at the
    empirical quantiles of the fitting sample (``n_bins`` bins) and replaced by
    the bin's frequency of class :math:`i`; the vector is then divided by its
    sum (the book's choice, so that outputs are distributions).  Bins empty in
    the fitting sample keep the identity.  A scikit-learn transformer of
    probability rows (``fit(probs, y)``, ``transform`` = ``predict``).

    Parameters
    ----------
    n_bins : int, default 15
        Bins per class, from 1 to the number of fitting points (tied quantiles collapse bins).

    Attributes
    ----------
    edges_ : list of k ndarrays
        The interior edges of each class's bins (bins ``(e_{j-1}, e_j]``, the first from 0).
    values_ : list of k ndarrays
        Each bin's frequency of its class (NaN for a bin with no fitting point).
    classes_ : ndarray of shape (k,)
        The label of each column: ``0, ..., k - 1`` for labels that are positions, else the ``k``
        distinct labels of ``y``, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    >>> cw = ClasswiseBinning(2).fit(probs, [0, 0, 1, 1])
    >>> [e.round(4).tolist() for e in cw.edges_], [v.tolist() for v in cw.values_]
    ([[0.7], [0.3]], [[0.0, 1.0], [0.0, 1.0]])
    >>> cw.transform([[0.65, 0.35]]).tolist()
    [[0.0, 1.0]]
    """

    def __init__(self, n_bins: int = 15):
        self.n_bins = n_bins

    def fit(self, probs, y):
        """Fit each class's quantile edges and bin frequencies on rows ``probs`` (n, k) and labels ``y``; return self."""
        probs, y, self.classes_ = _rows_and_codes(probs, y)
        n_bins = check_int(self.n_bins, "n_bins", minimum=1, maximum=y.size)  # more quantiles than points: empty bins
        k = probs.shape[1]
        self.edges_, self.values_ = [], []
        for i in range(k):
            edges = _quantile_edges(probs[:, i], n_bins)
            values, _ = _bin_means(probs[:, i], (y == i).astype(float), edges)
            self.edges_.append(edges)
            self.values_.append(values)
        return self

    def predict(self, probs) -> np.ndarray:
        """Each coordinate replaced by its bin's frequency, the row divided by its sum."""
        probs = self._checked_rows(probs)
        out = np.empty_like(probs)
        for i, (edges, values) in enumerate(zip(self.edges_, self.values_)):
            v = values[np.searchsorted(edges, probs[:, i], side="left")]
            out[:, i] = np.where(np.isnan(v), probs[:, i], v)
        total = out.sum(axis=1, keepdims=True)
        return np.where(total > 0, out / np.where(total > 0, total, 1.0), 1.0 / probs.shape[1])


class TopLabelBinning(_RowRecalibrator):
    r"""Top-label uniform-mass histogram binning (Gupta and Ramdas), completed to a distribution.

    For each predicted class :math:`c` the top confidence is binned at the
    quantiles of the fitting points predicted :math:`c` and replaced by the
    bin's accuracy :math:`\hat P[Y = c]`; the other coordinates are rescaled to
    share the remaining mass in their original proportions (the book's
    completion; top-label calibration itself only specifies the top
    coordinate).  A class never predicted in the fitting sample keeps the identity.
    A scikit-learn transformer of probability rows (``fit(probs, y)``, ``transform`` = ``predict``).

    Parameters
    ----------
    n_bins : int, default 15
        Bins of the top confidence per predicted class, from 1 to the number of fitting points
        (tied quantiles collapse bins).

    Attributes
    ----------
    edges_ : list of k ndarrays
        The interior edges of the top-confidence bins of each predicted class (empty if never predicted).
    values_ : list of k ndarrays
        Each bin's accuracy (NaN for a bin with no fitting point).
    k_ : int
        The number of classes.
    classes_ : ndarray of shape (k,)
        The label of each column: ``0, ..., k - 1`` for labels that are positions, else the ``k``
        distinct labels of ``y``, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> probs = np.array([[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.8, 0.1]])
    >>> tl = TopLabelBinning(1).fit(probs, ["cat", "eel", "dog", "dog"])
    >>> tl.classes_.tolist(), [v.tolist() for v in tl.values_]
    (['cat', 'dog', 'eel'], [[0.5], [1.0], [nan]])
    >>> tl.transform([[0.6, 0.3, 0.1]]).round(3)
    array([[0.5  , 0.375, 0.125]])
    """

    def __init__(self, n_bins: int = 15):
        self.n_bins = n_bins

    def fit(self, probs, y):
        """Fit the top-confidence bins and their accuracies per predicted class on ``probs`` (n, k) and ``y``; return self."""
        probs, y, self.classes_ = _rows_and_codes(probs, y)
        n_bins = check_int(self.n_bins, "n_bins", minimum=1, maximum=y.size)  # more quantiles than points: empty bins
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
            edges = _quantile_edges(conf[sel], n_bins)
            values, _ = _bin_means(conf[sel], (y[sel] == c).astype(float), edges)
            self.edges_.append(edges)
            self.values_.append(values)
        return self

    def predict(self, probs) -> np.ndarray:
        """The top coordinate replaced by its bin's accuracy, the others sharing the rest in proportion."""
        probs = self._checked_rows(probs)
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
