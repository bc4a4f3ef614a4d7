"""A ``k``-class forecaster with finitely many outputs and a known miscalibration map.

Population errors of any predictor that is a function of the forecast are
exact finite sums, so the book's study of Algorithm 2 (``alg-multiclass-lp``)
has exact targets.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_real_array, as_rng, check_bool, check_int, check_positive, check_size
from .._numerics import _softmax
from .errors import (
    population_classwise_ece,
    population_lp_calibration_error,
    population_squared_error,
    population_top_label_ece,
)
from .level_sets import _p_values, as_probability_rows, check_lam


__all__ = ["MulticlassScenario"]


# ---------------------------------------------------------------------------
# A scenario with an exact oracle
# ---------------------------------------------------------------------------


class MulticlassScenario:
    r"""A ``k``-class forecaster with finitely many outputs and a known miscalibration map.

    The forecast :math:`f(X)` is uniform on ``n_atoms`` points of the simplex,
    drawn once (seed ``seed``) as :math:`a_j = \mathrm{softmax}(z_j)` with
    logits :math:`z_j = s\,e_{c_j} + r\,g_j` (``sharpness`` :math:`s`,
    ``spread`` :math:`r`), :math:`c_j` uniform over the classes and
    :math:`g_j \sim N(0, I_k)` (a confident classifier).  The label law given
    the forecast is the tempered, shifted softmax

    .. math:: h^*(a_j) = \mathbb E[e_Y \mid f(X) = a_j] = \mathrm{softmax}(t\,z_j + o),

    with temperature ``temperature`` :math:`t` (below 1: :math:`f` is
    over-confident) and class offsets ``class_offsets`` :math:`o` (default
    evenly spaced from -1/2 to 1/2).  Because the law is finite, population
    errors of any predictor that is a function of
    :math:`f(X)` are exact finite sums (:meth:`evaluate`).
    """

    def __init__(
        self,
        n_classes: int = 5,
        n_atoms: int = 4000,
        *,
        sharpness: float = 3.0,
        spread: float = 1.0,
        temperature: float = 0.6,
        class_offsets=None,
        seed: int = 0,
    ):
        self.n_classes = k = check_int(n_classes, "n_classes", minimum=2)
        if not isinstance(seed, np.random.Generator):
            seed = check_int(seed, "seed", minimum=0)
        self.n_atoms = check_size(n_atoms, "n_atoms", item_bytes=32 * k, what="four float64 arrays of shape (n_atoms, n_classes)")
        self.sharpness = check_positive(sharpness, "sharpness")
        self.spread = check_positive(spread, "spread")
        self.temperature = check_positive(temperature, "temperature")
        if class_offsets is None:
            offsets = np.linspace(-0.5, 0.5, k)
        else:
            offsets = as_real_array(class_offsets, "class_offsets")
            if offsets.size != k:
                raise ValueError(f"class_offsets must have n_classes = {k} entries, got {offsets.size}")
        self.class_offsets = offsets
        rng = as_rng(seed, "seed")
        centre = rng.integers(k, size=self.n_atoms)
        logits = self.spread * rng.standard_normal((self.n_atoms, k))
        logits[np.arange(self.n_atoms), centre] += self.sharpness
        self.atoms = _softmax(logits)
        self.weights = np.full(self.n_atoms, 1.0 / self.n_atoms)
        self.h_star = _softmax(self.temperature * logits + offsets)

    def sample(self, n: int, rng=None, *, return_index: bool = False):
        """Draw ``n`` IID pairs: forecasts ``probs`` (n, k) and labels ``y``; optionally the atom indices."""
        n = check_size(n, "n", item_bytes=8 * (self.n_classes + 4), what="the rows, labels, atom indices and order")
        rng = as_rng(0 if rng is None else rng)
        return_index = check_bool(return_index, "return_index")
        # multinomial counts per (atom, class) cell, expanded and put in a uniformly random order:
        # the same law as n independent draws of (atom, label)
        per_atom = rng.multinomial(n, self.weights)
        cells = rng.multinomial(per_atom, self.h_star).ravel()
        order = rng.permutation(n)
        idx = np.repeat(np.repeat(np.arange(self.n_atoms), self.n_classes), cells)[order]
        y = np.repeat(np.tile(np.arange(self.n_classes), self.n_atoms), cells)[order]
        out = (self.atoms[idx], y)
        return (*out, idx) if return_index else out

    def evaluate(self, predict, lam, p=(1.0, 2.0, np.inf), n_bins: int = 15) -> dict:
        r"""Exact population metrics of a predictor :math:`g \circ f`.

        ``predict`` is a callable mapping forecasts (rows) to probability
        vectors, or the ``(n_atoms, k)`` array of its values on the atoms.
        Returns ``lp`` (array over ``p``), ``squared_error``, ``top_label_ece``,
        ``classwise_ece`` (``n_bins`` equal-width bins) and ``accuracy``.
        """
        check_lam(lam)
        p_values, _ = _p_values(p)
        n_bins = check_int(n_bins, "n_bins")
        g = predict(self.atoms) if callable(predict) else predict
        g = as_probability_rows(g, "predictions")
        if g.shape != self.atoms.shape:
            raise ValueError(f"predictions must have shape {self.atoms.shape}, got {g.shape}")
        lp = population_lp_calibration_error(g, self.h_star, self.weights, p_values, lam)
        hit = self.h_star[np.arange(self.n_atoms), np.argmax(g, axis=1)]
        return {
            "p": p_values,
            "lp": lp,
            "squared_error": population_squared_error(g, self.h_star, self.weights),
            "top_label_ece": population_top_label_ece(g, self.h_star, self.weights, n_bins),
            "classwise_ece": population_classwise_ece(g, self.h_star, self.weights, n_bins),
            "accuracy": float(self.weights @ hit),
        }
