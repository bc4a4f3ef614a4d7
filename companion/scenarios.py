"""The papers' data-generating processes, with exact oracles.

Each scenario can draw samples with a seeded generator and knows its own
population quantities (optimal recalibration, risks) by closed forms or
high-order quadrature, so that every simulation in the book has an exact
target to converge to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy.integrate import quad
from scipy.optimize import minimize_scalar
from scipy.special import expit, logit, ndtr, ndtri
from scipy.stats import binom

from ._checks import (
    as_real_values,
    as_edges,
    as_probabilities,
    as_real_array,
    as_rng,
    check_bool,
    check_callable,
    check_int,
    check_open_unit,
    check_positive,
)

__all__ = ["GaussianMixture", "PopulationDecomposition", "RatingScaleExample"]



def _nonempty_rows(items, name: str) -> list:
    """A non-empty sequence of arrays as a list: a list or tuple of arrays, or the rows of a 2-D array."""
    if isinstance(items, np.ndarray) and items.ndim >= 2:
        return list(items)
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be a non-empty list of arrays, got {type(items).__name__}")
    if len(items) == 0:
        raise ValueError(f"{name} must hold at least one array")
    return list(items)


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

    mse: float
    variance: float
    sharpness: float
    calibration: float


# ---------------------------------------------------------------------------
# Paper 000: the one-dimensional Gaussian mixture with a sigmoid forecaster
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianMixture:
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

        Computed in ``x = logit(z)`` and in log space (book ``err-umb-smoothness``).
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

    @staticmethod
    def _normal_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``Phi(b) - Phi(a)`` for ``a <= b``, from the tail nearer to the interval (no cancellation)."""
        upper = a > 0
        return np.where(upper, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))

    def population_risks(self, edges, values) -> dict:
        r"""Population risks of the piecewise-constant map ``h(z) = values[b]`` on bin ``b``.

        Bins follow :func:`companion.binning.bin_indices` (first bin closed).
        Returns a dict of floats: ``cal`` (paper 000 Definition 3, book
        ``def-calibration-risk``), ``sha`` (Definition 4, ``def-sharpness-risk``),
        ``risk`` (Definition 5, ``def-recalibration-risk``) and ``mse``
        :math:`= \mathbb E[(Y - h(Z))^2]`, all under this mixture.  ``risk`` is
        *computed* as ``cal + sha`` (Proposition 1, ``prop-risk-decomposition``),
        so comparing the two checks nothing; :meth:`recalibration_risk_by_quadrature`
        gives an independent value.  See :meth:`population_risks_batch` for the method.
        """
        batch = self._risks_batch([as_edges(edges, "edges")], [as_probabilities(values, "values")], "values")
        return {key: float(val[0]) for key, val in batch.items()}

    def population_risks_batch(self, edges_list, values_list) -> dict:
        r"""Population risks of many piecewise-constant maps at once (arrays, one entry per map).

        Bins with equal values are pooled, since Definitions 3-4 condition
        on the value :math:`h(Z)`.  Per bin, the masses :math:`P[Z \in I, Y=k]`
        are normal CDF differences in :math:`x = \mathrm{logit}(z)`, and
        :math:`\mathbb E[h^*(Z) 1\{Z \in I\}] = P[Z \in I, Y = 1]` exactly.
        This gives ``cal`` and ``mse`` in closed form.  The sharpness risk
        :math:`\sum_I \mathbb E[(h^*(Z) - \theta_I)^2 1\{Z \in I\}]`, with
        :math:`\theta_I = \mathbb E[Y \mid Z \in I]` the population mean of
        :math:`Y` over the pooled bin, is one
        vectorized composite Gauss-Legendre pass whose panels are a fixed grid
        in ``x`` split at every bin edge of every map, so each panel lies in
        one bin (tests: within 1e-9 relative of 30-digit quadrature).
        """
        edges_list = _nonempty_rows(edges_list, "edges_list")
        values_list = _nonempty_rows(values_list, "values_list")
        if len(edges_list) != len(values_list):
            raise ValueError(
                f"edges_list and values_list must have the same length, got {len(edges_list)} and {len(values_list)}"
            )
        edges_list = [as_edges(e, "edges_list entries") for e in edges_list]
        values_list = [as_probabilities(v, "values_list entries") for v in values_list]
        return self._risks_batch(edges_list, values_list, "values_list entries")

    def _risks_batch(self, edges_list: list, values_list: list, values_name: str) -> dict:
        """:meth:`population_risks_batch` on validated edges and values (``values_name`` names the values in errors)."""
        for e, v in zip(edges_list, values_list):
            if v.size != e.size - 1:
                raise ValueError(f"{values_name} must hold one value per bin ({e.size - 1}), got {v.size}")
        n_maps = len(edges_list)
        n_bins = np.array([v.size for v in values_list])
        map_of_bin = np.repeat(np.arange(n_maps), n_bins)
        values = np.concatenate(values_list)
        x_lo = self._x_edges(np.concatenate([e[:-1] for e in edges_list]))
        x_hi = self._x_edges(np.concatenate([e[1:] for e in edges_list]))
        pi, mu = self.prior, self.mu
        mass1 = self._normal_mass(x_lo - mu, x_hi - mu)  # P[X in I | Y = 1]
        mass0 = self._normal_mass(x_lo + mu, x_hi + mu)
        joint1 = pi * mass1  # P[Z in I, Y = 1] = E[h*(Z) 1{Z in I}]
        mass = joint1 + (1.0 - pi) * mass0
        mse = np.bincount(map_of_bin, joint1 * (1.0 - values) ** 2 + (1.0 - pi) * mass0 * values**2, n_maps)

        # pool bins of the same map that share a value: groups of E[Y | h(Z)]
        order = np.lexsort((values, map_of_bin))
        new_group = np.ones(values.size, dtype=bool)
        new_group[1:] = (np.diff(map_of_bin[order]) != 0) | (np.diff(values[order]) != 0)
        group = np.empty(values.size, dtype=np.int64)
        group[order] = np.cumsum(new_group) - 1
        group_mass = np.bincount(group, mass)
        group_mean = np.divide(np.bincount(group, joint1), group_mass, out=np.zeros_like(group_mass), where=group_mass > 0)
        cal_terms = mass * (values - group_mean[group]) ** 2
        cal = np.bincount(map_of_bin, cal_terms, n_maps)

        nodes, weights, bin_of_node = self._panel_rule(x_lo, x_hi, map_of_bin, n_maps)
        density = (pi * np.exp(-0.5 * (nodes - mu) ** 2) + (1.0 - pi) * np.exp(-0.5 * (nodes + mu) ** 2)) / np.sqrt(2.0 * np.pi)
        spread = (self._posterior_x(nodes) - group_mean[group[bin_of_node]]) ** 2
        sha = np.bincount(map_of_bin[bin_of_node], weights * density * spread, n_maps)
        return {"cal": cal, "sha": sha, "risk": cal + sha, "mse": mse}

    def _panel_rule(self, x_lo, x_hi, map_of_bin, n_maps, order: int = 20):
        """Gauss-Legendre nodes on panels = fixed x-grid split at the bin edges, per bin.

        Returns ``(nodes, weights, bin_of_node)``; the integration range is
        truncated to ``|x| <= mu + 16`` where both class densities are below
        ``1e-55``.
        """
        half_width = self.mu + 16.0
        n_base = int(np.ceil(2.0 * half_width * self.mu / 0.75))
        base = np.linspace(-half_width, half_width, n_base + 1)
        lo = np.clip(x_lo, -half_width, half_width)
        hi = np.clip(x_hi, -half_width, half_width)
        # every base point, placed in the bin (of every map) that contains it
        base_map = np.repeat(np.arange(n_maps), base.size)
        base_x = np.tile(base, n_maps)
        key_lo = map_of_bin * 4.0 * half_width + lo  # sorts bins by (map, left edge)
        base_bin = np.searchsorted(key_lo, base_map * 4.0 * half_width + base_x, side="right") - 1
        # panel breakpoints: bin edges and interior base points, grouped by bin
        inside = (base_x > lo[base_bin]) & (base_x < hi[base_bin])
        point_bin = np.concatenate((np.arange(lo.size), np.arange(lo.size), base_bin[inside]))
        point_x = np.concatenate((lo, hi, base_x[inside]))
        sort = np.lexsort((point_x, point_bin))
        point_bin, point_x = point_bin[sort], point_x[sort]
        panel = (point_bin[1:] == point_bin[:-1]) & (point_x[1:] > point_x[:-1])
        a, b, panel_bin = point_x[:-1][panel], point_x[1:][panel], point_bin[:-1][panel]
        t, w = np.polynomial.legendre.leggauss(order)
        half, mid = 0.5 * (b - a), 0.5 * (a + b)
        nodes = (mid[:, None] + half[:, None] * t[None, :]).ravel()
        weights = (half[:, None] * w[None, :]).ravel()
        return nodes, weights, np.repeat(panel_bin, order)

    # -- Label shift (paper 000 s5): risks of a strictly increasing recalibration map ------
    def population_risks_of_map(self, h) -> dict:
        r"""Population risks of ``h o f`` for a strictly increasing map ``h`` of [0, 1].

        An injective ``h`` keeps all the information in ``Z``, so
        :math:`\mathbb E[Y \mid h(Z)] = h^*(Z)`: the sharpness risk is exactly 0
        and the calibration risk equals the recalibration risk
        :math:`\mathbb E[(h(Z) - h^*(Z))^2]` (paper 000 Proposition 1, book
        ``prop-risk-decomposition``): ``sha`` is set to 0 and ``cal`` to
        ``risk`` by this argument, not computed.  Used for the
        LABEL-SHIFT baseline :math:`\hat g \circ f` of the composite-estimator chapter, with this
        mixture playing the target.

        Parameters
        ----------
        h : callable
            Vectorized map; ``h(z)`` for a 1-D array ``z`` returns an array
            whose last axis matches ``z`` (leading axes give a batch of maps,
            e.g. one per realization of the estimated weights).

        Returns
        -------
        dict
            ``cal``, ``sha`` (zeros), ``risk`` and ``mse`` (:math:`\mathbb E[(h(Z)-Y)^2]`),
            floats or arrays of the batch shape.
        """
        check_callable(h, "h")
        x, w0, w1 = self._x_grid
        raw = h(expit(x))
        hz = as_real_array(raw, "h(z)", ndim=np.ndim(raw))
        if hz.ndim == 0 or hz.shape[-1] != x.size:
            raise ValueError(f"h must map an array of {x.size} forecasts to an array whose last axis has that length")
        if not np.all(np.isfinite(hz)) or np.any((hz < 0.0) | (hz > 1.0)):
            raise ValueError("h must return finite values in [0, 1]")
        step = np.diff(hz, axis=-1)
        # Within 1e-9 of 0 or 1, ties and reversals are rounding of a saturating map (amplified by the odds ratio).
        saturated = (hz[..., 1:] >= 1.0 - 1e-9) | (hz[..., :-1] <= 1e-9)
        if np.any((step <= 0.0) & ~saturated):
            raise ValueError("h must be strictly increasing (injective), otherwise its sharpness risk is not 0")
        pi = self.prior
        sq_err = (hz - self._posterior_x(x)) ** 2
        risk = (1.0 - pi) * (sq_err @ w0) + pi * (sq_err @ w1)
        mse = pi * ((1.0 - hz) ** 2 @ w1) + (1.0 - pi) * (hz**2 @ w0)
        if np.ndim(risk) == 0:
            return {"cal": float(risk), "sha": 0.0, "risk": float(risk), "mse": float(mse)}
        return {"cal": risk, "sha": np.zeros_like(risk), "risk": risk, "mse": mse}

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

    def recalibration_risk_by_quadrature(self, h, breakpoints=(), *, rtol: float = 1e-12) -> float:
        r"""Recalibration risk :math:`R(h) = \mathbb E[(h(Z) - h^*(Z))^2]` by adaptive quadrature in ``z``.

        An independent reference for :meth:`population_risks` and
        :meth:`population_risks_of_map`.  It integrates paper 000 Definition 5
        in the form of book ``eq-excess-mse``,
        :math:`R(h) = \int_0^1 (h(z) - h^*(z))^2\,p_Z(z)\,dz`, with
        :func:`scipy.integrate.quad` (adaptive Gauss-Kronrod) on every piece
        between consecutive ``breakpoints``.  The integrand is written out here
        from the normal density :math:`\varphi`: at :math:`x = \operatorname{logit} z`,
        :math:`p_Z(z) = [\pi\varphi(x-\mu) + (1-\pi)\varphi(x+\mu)]/(z(1-z))`
        and, by Bayes' rule,
        :math:`h^*(z) = \pi\varphi(x-\mu)/[\pi\varphi(x-\mu) + (1-\pi)\varphi(x+\mu)]`.
        No normal distribution function, no Gauss-Legendre rule in ``x`` and no
        calibration or sharpness risk enters, so agreement with ``cal + sha``
        checks Proposition 1 (book ``prop-risk-decomposition``) and the code
        that computes the two risks.

        Parameters
        ----------
        h : callable
            Recalibration map; ``h(z)`` for a 1-D array holding one forecast
            returns one value in [0, 1] (the maps of :mod:`companion.binning`
            and vectorized functions qualify).  Called once per quadrature node.
        breakpoints : array of floats in [0, 1], optional
            Points where ``h`` may jump or kink, e.g. the interior edges of a
            piecewise-constant map; each smooth piece is integrated separately.
        rtol : float
            Relative accuracy requested from ``quad`` on every piece, in (0, 1);
            ``quad`` warns (``IntegrationWarning``) if it cannot reach it.

        Returns
        -------
        float
            :math:`R(h)` under this mixture.
        """
        check_callable(h, "h")
        rtol = check_open_unit(rtol, "rtol")
        cuts = as_real_array(breakpoints, "breakpoints", ndim=np.ndim(breakpoints), allow_empty=True).reshape(-1)
        if np.ndim(breakpoints) > 1:
            raise ValueError(f"breakpoints must be a 1-D array of points in [0, 1], got shape {np.shape(breakpoints)}")
        if np.any((cuts < 0.0) | (cuts > 1.0)):
            raise ValueError("breakpoints must lie in [0, 1]")
        pieces = np.unique(np.concatenate(([0.0, 1.0], cuts)))
        pi, mu = self.prior, self.mu
        norm = 1.0 / math.sqrt(2.0 * math.pi)

        def integrand(z: float) -> float:
            x = math.log(z) - math.log1p(-z)
            dens1 = pi * norm * math.exp(-0.5 * (x - mu) ** 2)
            dens = dens1 + (1.0 - pi) * norm * math.exp(-0.5 * (x + mu) ** 2)
            if dens == 0.0:  # both class densities underflow: no probability here
                return 0.0
            hz = np.asarray(h(np.array([z])), dtype=float).reshape(-1)
            if hz.size != 1 or not 0.0 <= hz[0] <= 1.0:
                raise ValueError(f"h must return one value in [0, 1] for one forecast, got {hz!r} at z = {z!r}")
            return (float(hz[0]) - dens1 / dens) ** 2 * dens / (z * (1.0 - z))

        total = 0.0
        for a, b in zip(pieces[:-1], pieces[1:]):
            total += quad(integrand, a, b, epsabs=1e-17, epsrel=rtol, limit=500)[0]
        return float(total)


# ---------------------------------------------------------------------------
# Paper 003: the rating-scale example (recalibration to a target prior)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingScaleExample:
    r"""The 17-grade example of paper 003, section 5.

    Scores are grades ``0, ..., n_trials``.  Source: ``S | Y=0 ~ Bin(n, success0)``,
    ``S | Y=1 ~ Bin(n, success1)``, prior ``source_prior``.  Target: ``S ~ Bin(n, Pi)``
    with the Vasicek-distributed success probability
    :math:`\Pi = \Phi\bigl((\Phi^{-1}(\bar\pi) + \sqrt{r}\, M)/\sqrt{1-r}\bigr)`,
    :math:`M \sim N(0, 1)`, of mean :math:`\bar\pi` = ``target_mean`` and correlation
    :math:`r` = ``target_correlation``; the target prior ``target_prior`` is known
    but the target class-conditional laws are not (the book's chapter
    ``chap-target-prior``, section "The rating-scale example").  The mixture over
    ``M`` is computed by Gauss-Hermite quadrature with ``n_nodes`` nodes.
    """

    n_trials: int = 16
    success0: float = 0.4
    success1: float = 0.55
    source_prior: float = 0.01
    target_mean: float = 0.3
    target_correlation: float = 0.3
    target_prior: float = 0.05
    n_nodes: int = 160

    def __post_init__(self):
        # Stored as Python ints: a float holding an integer (160.0) is accepted, as everywhere, but numpy's
        # Gauss-Hermite rule and binom need an int, so the checked value replaces the given one.
        object.__setattr__(self, "n_trials", check_int(self.n_trials, "n_trials", minimum=1))
        object.__setattr__(self, "n_nodes", check_int(self.n_nodes, "n_nodes", minimum=2))
        for name in ("success0", "success1", "source_prior", "target_mean", "target_correlation", "target_prior"):
            check_open_unit(getattr(self, name), name)
        if not self.success1 > self.success0:
            raise ValueError(f"success1 must exceed success0 (class 1 scores higher), got {self.success1} <= {self.success0}")

    @property
    def scores(self) -> np.ndarray:
        """The grades ``0, 1, ..., n_trials`` in increasing order."""
        return np.arange(self.n_trials + 1)

    @cached_property
    def class_masses(self) -> np.ndarray:
        """Source class-conditional masses, shape ``(2, n_trials + 1)``; row ``k`` is ``P[S = s | Y = k]``."""
        return binom.pmf(self.scores[None, :], self.n_trials, np.array([[self.success0], [self.success1]]))

    @property
    def source_masses(self) -> np.ndarray:
        """Unconditional source masses ``P[S = s]``."""
        m0, m1 = self.class_masses
        return (1.0 - self.source_prior) * m0 + self.source_prior * m1

    @property
    def source_posteriors(self) -> np.ndarray:
        """Source posterior ``P[Y = 1 | S = s]`` by Bayes' rule (increasing in ``s``).

        Computed in log space, as the sigmoid of the log prior odds plus the
        log-likelihood ratio ``log Bin(s; n, success1) - log Bin(s; n, success0)``:
        the ratio of the two masses would be 0/0 on grades where both
        underflow (e.g. ``n_trials=200, success0=1e-3, success1=2e-3``).
        """
        p, s, n = self.source_prior, self.scores, self.n_trials
        log_ratio = binom.logpmf(s, n, self.success1) - binom.logpmf(s, n, self.success0)
        return expit(np.log(p) - np.log1p(-p) + log_ratio)

    def vasicek_nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """Gauss-Hermite nodes ``P(M_j)`` of the Vasicek success probability and their weights (sum 1)."""
        m, w = np.polynomial.hermite_e.hermegauss(self.n_nodes)
        rho = self.target_correlation
        return ndtr((ndtri(self.target_mean) + np.sqrt(rho) * m) / np.sqrt(1.0 - rho)), w / np.sqrt(2.0 * np.pi)

    @cached_property
    def target_masses(self) -> np.ndarray:
        """Target masses ``Q[S = s] = E[Bin(n, P)(s)]`` over the Vasicek ``P``."""
        success, weights = self.vasicek_nodes()
        return weights @ binom.pmf(self.scores[None, :], self.n_trials, success[:, None])

    def sample_target(self, n: int, rng) -> np.ndarray:
        """Draw ``n`` target grades: a Vasicek success probability per draw, then ``Bin(n_trials, P)``."""
        n = check_int(n, "n", minimum=1)
        rng = as_rng(rng)
        rho = self.target_correlation
        success = ndtr((ndtri(self.target_mean) + np.sqrt(rho) * rng.standard_normal(n)) / np.sqrt(1.0 - rho))
        return rng.binomial(self.n_trials, success)

    def label_shift_target_masses(self, target_prior: float) -> np.ndarray:
        """The mixture (5) ``q P[S=s|Y=1] + (1-q) P[S=s|Y=0]``: a target for which label shift holds."""
        q = check_open_unit(target_prior, "target_prior")
        m0, m1 = self.class_masses
        return (1.0 - q) * m0 + q * m1
