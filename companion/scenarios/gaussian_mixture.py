"""The one-dimensional Gaussian mixture with the sigmoid forecaster of paper 000 (its App. E.1), with exact oracles.

Posterior, optimal recalibration :math:`h^*`, distribution and quantile functions of the
forecast, the smoothness ratio of assumption (A3) and the population terms of eq. (2), by
closed forms or Gauss-Hermite/Gauss-Legendre quadrature.  The risks of recalibration maps
under the mixture are in :mod:`companion.scenarios.map_risks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit, logit, ndtr, ndtri

from .._checks import (
    as_probabilities,
    as_real_array,
    as_real_values,
    as_rng,
    check_bool,
    check_callable,
    check_int,
    check_size,
    check_open_unit,
    check_positive,
)
from .map_risks import RecalibrationRisks


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


def _sigmoid_gap(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``sigmoid(u) - sigmoid(v)`` without cancellation: near 1 it is ``sigmoid(-v) - sigmoid(-u)``."""
    return np.where(u + v > 0.0, expit(-v) - expit(-u), expit(u) - expit(v))


class PopulationDecomposition(NamedTuple):
    """Population terms of eq. (2): ``mse == variance - sharpness + calibration``."""

    #: Population mean squared error.
    mse: float
    #: Variance of the outcome.
    variance: float
    #: Population sharpness term.
    sharpness: float
    #: Population calibration term.
    calibration: float


# ---------------------------------------------------------------------------
# Paper 000: the one-dimensional Gaussian mixture with a sigmoid forecaster
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianMixture(RecalibrationRisks):
    r"""Binary Gaussian mixture with the sigmoid forecaster of paper 000 (its App. E.1).

    ``Y ~ Bernoulli(prior)``, ``X | Y=0 ~ N(-mu, 1)``, ``X | Y=1 ~ N(mu, 1)``
    and the forecast is ``Z = f(X) = sigmoid(X)``.  The minimum-risk
    recalibration :math:`h^*(z) = \mathbb E[Y \mid Z = z]` (paper 000 eq. (7),
    book ``eq-gaussian-h-star``) is

    .. math:: h^*(z) = \sigma\bigl(2\mu\,\mathrm{logit}(z) + \log\tfrac{\pi}{1-\pi}\bigr).

    The family is mirror-symmetric: ``-X`` given ``Y = 1`` has the law of ``X``
    given ``Y = 0`` and :math:`\sigma(-x) = 1 - \sigma(x)`, so the MSE of
    ``f`` is the same for every prior (book ``prop-mse-prior-free``).

    The pointwise oracles (:meth:`posterior_x`, :meth:`h_star`, :meth:`cdf`,
    :meth:`quantile`, :meth:`forecast_density`, :meth:`smoothness_ratio`)
    are elementwise: they take a scalar or an array of any shape (1-D, 2-D,
    ...) and return a float or an array of the same shape, entry by entry.
    """

    prior: float = 0.5
    mu: float = 2.0

    def __post_init__(self):
        check_open_unit(self.prior, "prior")
        check_positive(self.mu, "mu")

    # -- sampling ---------------------------------------------------------
    def sample(self, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` IID pairs; return forecasts ``z = sigmoid(x)`` and labels ``y``."""
        n = check_size(n, "n", item_bytes=32, what="four float64 arrays of length n")
        rng = as_rng(rng)
        y = (rng.random(n) < self.prior).astype(np.int64)
        x = rng.standard_normal(n) + self.mu * (2 * y - 1)
        return expit(x), y

    # -- exact oracles ----------------------------------------------------
    @property
    def log_prior_odds(self) -> float:
        return float(np.log(self.prior / (1.0 - self.prior)))

    def posterior_x(self, x) -> np.ndarray:
        """P[Y = 1 | X = x] = sigmoid(2 mu x + log prior odds), for a finite real ``x`` of any shape."""
        return self._posterior_x(as_real_values(x, "x"))

    def _posterior_x(self, x: np.ndarray) -> np.ndarray:
        """:meth:`posterior_x` without validation (internal callers pass clean arrays, possibly +-inf)."""
        with np.errstate(over="ignore"):  # 2 mu x beyond the float range is +-inf: expit gives 1 or 0
            return expit(2.0 * self.mu * x + self.log_prior_odds)

    def h_star(self, z) -> np.ndarray:
        """Optimal recalibration h*(z) = E[Y | Z = z] of the sigmoid forecaster (eq. (7))."""
        z = as_probabilities(z, "z", ndim=np.ndim(z))
        with np.errstate(divide="ignore"):
            return self._posterior_x(logit(z))

    @cached_property
    def _x_grid(self):
        """Quadrature nodes in x with weights times the class-conditional densities.

        Returns ``(x, w0, w1)`` such that ``sum(w_k * g(x))`` equals
        ``E[g(X) | Y = k]`` for smooth ``g`` to about machine precision; ``x``
        is increasing.  Each class density is below ``1e-55`` more than 16
        from its mean.  For ``mu <= 16`` one grid covers ``[-mu - 16, mu + 16]``;
        for larger ``mu`` each class gets its own grid ``x = -+mu + t``,
        ``|t| <= 16``, with the density weights computed from ``t``, so the
        weights keep summing to 1 however large ``mu`` is (a single grid over
        ``2 mu + 32`` would leave the densities between its nodes and return
        zeros for every term at ``mu = 1e6``).
        """
        phi = lambda t: np.exp(-0.5 * t * t) / np.sqrt(2.0 * np.pi)  # noqa: E731
        if self.mu <= 16.0:
            half_width = self.mu + 16.0
            x, w = _gauss_legendre_panels(-half_width, half_width, n_panels=96, order=20)
            return x, w * phi(x + self.mu), w * phi(x - self.mu)
        t, w = _gauss_legendre_panels(-16.0, 16.0, n_panels=96, order=20)
        zeros = np.zeros_like(w)
        x = np.concatenate((t - self.mu, t + self.mu))
        return x, np.concatenate((w * phi(t), zeros)), np.concatenate((zeros, w * phi(t)))

    def expect(self, g) -> float:
        """E[g(X)] under the mixture, for a smooth vectorized ``g`` of x (one value per node)."""
        check_callable(g, "g")
        x, w0, w1 = self._x_grid
        raw = g(x)
        gx = as_real_array(raw, "g(x)", ndim=np.ndim(raw))
        if gx.shape != x.shape:
            raise ValueError(f"g must map an array of {x.size} points x to an array of the same shape, got shape {gx.shape}")
        return float((1.0 - self.prior) * (w0 @ gx) + self.prior * (w1 @ gx))

    def class_conditional_mse(self) -> tuple[float, float]:
        r"""Class-wise squared errors of ``f = sigmoid``: :math:`(\mathbb E[Z^2 \mid Y=0], \mathbb E[(1-Z)^2 \mid Y=1])`.

        They do not depend on the prior, and by the mirror symmetry of the
        family they are equal (book ``prop-mse-prior-free``); the MSE is
        their mixture with weights ``1 - prior`` and ``prior``.
        """
        x, w0, w1 = self._x_grid
        return float(w0 @ expit(x) ** 2), float(w1 @ expit(-x) ** 2)  # 1 - sigmoid(x) = sigmoid(-x), no cancellation

    def decomposition(self) -> PopulationDecomposition:
        """Exact population terms of paper 000 eq. (2) (book ``eq-mse-decomposition``) for ``f = sigmoid``."""
        pi = self.prior
        error0, error1 = self.class_conditional_mse()
        mse = (1.0 - pi) * error0 + pi * error1
        sharpness = self.expect(lambda t: (self._posterior_x(t) - pi) ** 2)
        with np.errstate(over="ignore"):  # 2 mu t beyond the float range is +-inf, where the gap is exact
            calibration = self.expect(lambda t: _sigmoid_gap(t, 2.0 * self.mu * t + self.log_prior_odds) ** 2)
        return PopulationDecomposition(
            mse=float(mse),
            variance=pi * (1.0 - pi),
            sharpness=sharpness,
            calibration=calibration,
        )

    # -- Uniform-mass binning (paper 000 s4): population risks of piecewise-constant maps, F_Z and (A3) --
    def _x_edges(self, edges: np.ndarray) -> np.ndarray:
        """Bin edges moved to the logit scale ``x = logit(z)`` (0 and 1 map to -inf and +inf)."""
        with np.errstate(divide="ignore"):
            return logit(edges)

    def cdf(self, z) -> np.ndarray:
        """Distribution function ``F_Z(z) = (1-pi) Phi(logit z + mu) + pi Phi(logit z - mu)``."""
        z = as_probabilities(z, "z", ndim=np.ndim(z))
        x = self._x_edges(z)
        return (1.0 - self.prior) * ndtr(x + self.mu) + self.prior * ndtr(x - self.mu)

    def quantile(self, q) -> np.ndarray:
        """Inverse of :meth:`cdf` for ``q`` in (0, 1), by a vectorized bisection in ``x``.

        ``F_X`` is bracketed by the two class quantiles; 200 halvings of that
        bracket reach the floating-point resolution of ``x``.
        """
        q = as_probabilities(q, "q", ndim=np.ndim(q), open_interval=True)
        lo = ndtri(q) - self.mu  # F_X(x) <= Phi(x + mu) <= q there
        hi = ndtri(q) + self.mu  # F_X(x) >= Phi(x - mu) >= q there
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            below = (1.0 - self.prior) * ndtr(mid + self.mu) + self.prior * ndtr(mid - self.mu) < q
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return expit(0.5 * (lo + hi))

    def _log_smoothness_ratio(self, x: np.ndarray) -> np.ndarray:
        r"""``log(dh*/dF_Z)`` at ``z = sigmoid(x)``.

        With :math:`p_X` the mixture density, :math:`dh^*/dF_Z = (d\eta/dx) / p_X(x)`
        where :math:`\eta(x) = P[Y=1 \mid X=x]`, which equals
        :math:`2\mu\pi(1-\pi)\varphi(x-\mu)\varphi(x+\mu)/p_X(x)^3`.
        """
        pi, mu = self.prior, self.mu
        log_phi = lambda t: -0.5 * t * t - 0.5 * np.log(2.0 * np.pi)  # noqa: E731
        log_px = np.logaddexp(np.log(pi) + log_phi(x - mu), np.log(1.0 - pi) + log_phi(x + mu))
        return np.log(2.0 * mu * pi * (1.0 - pi)) + log_phi(x - mu) + log_phi(x + mu) - 3.0 * log_px

    def smoothness_ratio(self, z, log: bool = False) -> np.ndarray:
        """The derivative ``dh*/dF_Z`` at forecasts ``z`` in (0, 1) (the local slope in (A3)), or its logarithm.

        Computed in ``x = logit(z)`` and in log space (book: :ref:`the smoothness constant <err-umb-smoothness>`).
        In the tails the ratio grows like ``exp(x^2/2 - 3 mu |x|)`` and leaves the
        float range (at ``z = 1e-30`` it is about ``e^1966``); with ``log=True`` the
        logarithm is returned, finite for every ``z`` in (0, 1).  With
        ``log=False`` a ratio beyond the float range raises a ValueError naming
        ``z`` instead of returning ``inf``.
        """
        z = as_probabilities(z, "z", ndim=np.ndim(z), open_interval=True)
        log_ratio = self._log_smoothness_ratio(logit(z))
        if check_bool(log, "log"):
            return log_ratio
        too_large = log_ratio >= np.log(np.finfo(float).max)
        if np.any(too_large):
            first = float(np.atleast_1d(z)[np.atleast_1d(too_large)][0])
            raise ValueError(
                f"z holds forecasts (e.g. {first!r}) where dh*/dF_Z = exp({float(np.max(log_ratio)):.6g}) exceeds "
                "the float range; use smoothness_ratio(z, log=True) for its logarithm"
            )
        return np.exp(log_ratio)

    def smoothness_constant(self, tail_mass: float = 1e-12) -> float:
        r"""The constant K of assumption (A3) on the central part of the forecast law.

        Returns :math:`\sup dh^*/dF_Z` over the forecasts ``z`` with
        ``tail_mass <= F_Z(z) <= 1 - tail_mass``.  Over all of [0, 1] the
        supremum is infinite for this family: the ratio behaves like
        :math:`e^{x^2/2 - 3\mu|x|}` as :math:`|x| \to \infty`, so (A3) holds
        only after the two tails of mass ``tail_mass`` are set aside.
        The maximum is located on a fine grid and polished by a bounded
        scalar maximization.
        """
        tail_mass = check_open_unit(tail_mass, "tail_mass")
        if tail_mass >= 0.5:
            raise ValueError(f"tail_mass must be below 0.5 (two tails are removed), got {tail_mass!r}")
        if 1.0 - tail_mass == 1.0:
            raise ValueError(f"tail_mass must be at least about 1e-16 so that 1 - tail_mass < 1, got {tail_mass!r}")
        x_lo, x_hi = logit(self.quantile(np.array([tail_mass, 1.0 - tail_mass])))
        grid = np.linspace(x_lo, x_hi, 20001)
        log_ratio = self._log_smoothness_ratio(grid)
        best = int(np.argmax(log_ratio))
        step = grid[1] - grid[0]
        polished = minimize_scalar(
            lambda t: -self._log_smoothness_ratio(np.array(t)),
            bounds=(max(x_lo, grid[best] - step), min(x_hi, grid[best] + step)),
            method="bounded",
            options={"xatol": 1e-12},
        )
        return float(np.exp(max(log_ratio[best], -polished.fun)))

    def forecast_density(self, z) -> np.ndarray:
        r"""Density of the forecast :math:`Z = \sigma(X)` at ``z`` (0 at the end points).

        :math:`p_Z(z) = p_X(\operatorname{logit} z) / (z(1-z))` with the mixture
        density :math:`p_X` (the right panel of the paper's Figure 4).
        """
        z = as_probabilities(z, "z", ndim=np.ndim(z))
        inner = (z > 0.0) & (z < 1.0)
        zi = np.where(inner, z, 0.5)
        x = logit(zi)
        phi = lambda t: np.exp(-0.5 * t * t) / np.sqrt(2.0 * np.pi)  # noqa: E731
        density_x = self.prior * phi(x - self.mu) + (1.0 - self.prior) * phi(x + self.mu)
        return np.where(inner, density_x / (zi * (1.0 - zi)), 0.0)[()]  # [()]: a scalar for a scalar z
