"""The papers' data-generating processes, with exact oracles.

Each scenario can draw samples with a seeded generator and knows its own
population quantities (optimal recalibration, risks) by closed forms or
high-order quadrature, so that every simulation in the book has an exact
target to converge to.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy.special import expit, logit

from ._checks import as_probabilities, as_rng, check_int, check_open_unit

__all__ = ["GaussianMixture", "PopulationDecomposition"]


def _gauss_legendre_panels(lo: float, hi: float, n_panels: int, order: int):
    """Nodes and weights of a composite Gauss-Legendre rule on [lo, hi]."""
    t, w = np.polynomial.legendre.leggauss(order)
    edges = np.linspace(lo, hi, n_panels + 1)
    half = 0.5 * np.diff(edges)
    mid = 0.5 * (edges[1:] + edges[:-1])
    nodes = (mid[:, None] + half[:, None] * t[None, :]).ravel()
    weights = (half[:, None] * w[None, :]).ravel()
    return nodes, weights


class PopulationDecomposition(NamedTuple):
    """Population terms of eq. (2): ``mse == variance - sharpness + calibration``."""

    mse: float
    variance: float
    sharpness: float
    calibration: float


# ---------------------------------------------------------------------------
# Paper 000: the one-dimensional Gaussian mixture with a sigmoid forecaster
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianMixture:
    r"""Binary Gaussian mixture with the sigmoid forecaster of paper 000.

    ``Y ~ Bernoulli(prior)``, ``X | Y=0 ~ N(-mu, 1)``, ``X | Y=1 ~ N(mu, 1)``
    and the forecast is ``Z = f(X) = sigmoid(X)``.  The optimal
    recalibration (the book's eq. for :math:`h^*`) is

    .. math:: h^*(z) = \sigma\bigl(2\mu\,\mathrm{logit}(z) + \log\tfrac{\pi}{1-\pi}\bigr).
    """

    prior: float = 0.5
    mu: float = 2.0

    def __post_init__(self):
        check_open_unit(self.prior, "prior")
        if not (np.isfinite(self.mu) and self.mu > 0):
            raise ValueError(f"mu must be a finite positive number, got {self.mu!r}")

    # -- sampling ---------------------------------------------------------
    def sample(self, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` IID pairs; return forecasts ``z = sigmoid(x)`` and labels ``y``."""
        n = check_int(n, "n", minimum=1)
        rng = as_rng(rng)
        y = (rng.random(n) < self.prior).astype(np.int64)
        x = rng.standard_normal(n) + self.mu * (2 * y - 1)
        return expit(x), y

    # -- exact oracles ----------------------------------------------------
    @property
    def log_prior_odds(self) -> float:
        return float(np.log(self.prior / (1.0 - self.prior)))

    def posterior_x(self, x) -> np.ndarray:
        """P[Y = 1 | X = x] = sigmoid(2 mu x + log prior odds)."""
        return expit(2.0 * self.mu * np.asarray(x, dtype=float) + self.log_prior_odds)

    def h_star(self, z) -> np.ndarray:
        """Optimal recalibration h*(z) = E[Y | Z = z] of the sigmoid forecaster (eq. (7))."""
        z = as_probabilities(z, "z", ndim=np.ndim(z))
        with np.errstate(divide="ignore"):
            return self.posterior_x(logit(z))

    @cached_property
    def _x_grid(self):
        """Quadrature nodes in x with weights times the class-conditional densities.

        Returns ``(x, w0, w1)`` such that ``sum(w_k * g(x))`` equals
        ``E[g(X) | Y = k]`` for smooth ``g`` to about machine precision.
        """
        half_width = self.mu + 16.0
        x, w = _gauss_legendre_panels(-half_width, half_width, n_panels=96, order=20)
        phi = lambda t: np.exp(-0.5 * t * t) / np.sqrt(2.0 * np.pi)  # noqa: E731
        return x, w * phi(x + self.mu), w * phi(x - self.mu)

    def expect(self, g) -> float:
        """E[g(X)] under the mixture, for a smooth vectorized ``g`` of x."""
        x, w0, w1 = self._x_grid
        gx = g(x)
        return float((1.0 - self.prior) * (w0 @ gx) + self.prior * (w1 @ gx))

    def decomposition(self) -> PopulationDecomposition:
        """Exact population terms of eq. (2) for the forecaster ``f = sigmoid``."""
        x, w0, w1 = self._x_grid
        z = expit(x)
        post = self.posterior_x(x)
        pi = self.prior
        mse = pi * (w1 @ (1.0 - z) ** 2) + (1.0 - pi) * (w0 @ z**2)
        sharpness = self.expect(lambda t: (self.posterior_x(t) - pi) ** 2)
        calibration = self.expect(lambda t: (expit(t) - self.posterior_x(t)) ** 2)
        return PopulationDecomposition(
            mse=float(mse),
            variance=pi * (1.0 - pi),
            sharpness=sharpness,
            calibration=calibration,
        )


# ---------------------------------------------------------------------------
# Paper 000, label shift (Chapter 5) -- extensions of GaussianMixture go above
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Paper 003: the rating-scale example (Chapter 8)
# ---------------------------------------------------------------------------
