r"""The Gaussian label-shift examples of paper 001, with exact posteriors under source and target.

:class:`GaussianLabelShift` holds ``k`` Gaussian class-conditional laws in
:math:`\mathbb R^d` with a source and a target prior; it samples either domain
and gives the posteriors, the importance weights and exact probabilities of
boxes in log-ratio coordinates.  :func:`two_class_gaussian` and
:func:`three_class_gaussian` are the two worlds of the paper's experiments.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.integrate import quad
from scipy.special import ndtr

from .._checks import (
    as_cut_point_list,
    as_cut_points,
    as_points,
    as_real_array,
    as_rng,
    check_int,
    check_option,
    check_real,
)
from .._numerics import _log_normal_mass, _softmax


__all__ = ["GaussianLabelShift", "two_class_gaussian", "three_class_gaussian"]


#: Largest Gauss-Hermite order of :meth:`GaussianLabelShift.confusion_matrix` and its node budget.
_MAX_HERMITE_ORDER = 1000


_MAX_QUADRATURE_NODES = 10**7


#: Largest number of points :meth:`GaussianLabelShift.sample` draws in one call.
_MAX_POINTS = 10**8


@dataclass(frozen=True)
class GaussianLabelShift:
    r"""Gaussian classes with a shared covariance under a source and a target prior (paper 001 s2.2, s3.2).

    :math:`X \mid Y=y \sim N(\mu_y, \Sigma)` in both domains;
    :math:`P[Y=y] = p_y`, :math:`Q[Y=y] = q_y`.  Classes are ``0, ..., k-1``.
    The posteriors are exact (Bayes' rule in log space):
    :math:`\eta^D_y(x) \propto d_y\,\varphi(x;\mu_y,\Sigma)` with :math:`d = p`
    or :math:`q`.  With a shared covariance every log-ratio
    :math:`\log(\eta_y/\eta_j)` is affine in :math:`x`, which makes the
    quantities of the binning chapter (``chap-binning-label-shift``)
    computable in closed form: see :meth:`projection_probabilities`,
    :meth:`log_ratio_map` and :meth:`confusion_matrix`.
    """

    means: tuple
    covariance: tuple
    source_prior: tuple
    target_prior: tuple

    def __post_init__(self):
        m = as_real_array(self.means, "means", ndim=2)
        s = as_real_array(self.covariance, "covariance", ndim=2)
        if s.shape != (m.shape[1], m.shape[1]):
            raise ValueError(f"covariance must be {m.shape[1]} x {m.shape[1]} to match the means, got {s.shape}")
        if not np.allclose(s, s.T) or np.any(np.linalg.eigvalsh(s) <= 0):
            raise ValueError("covariance must be symmetric positive definite")
        for name in ("source_prior", "target_prior"):
            v = as_real_array(getattr(self, name), name)
            if v.size != m.shape[0]:
                raise ValueError(f"{name} must hold one probability per class ({m.shape[0]}), got {v.size}")
            if np.any(v <= 0) or abs(v.sum() - 1.0) > 1e-12:
                raise ValueError(f"{name} must be positive and sum to 1")

    # -- parameters as arrays ------------------------------------------------
    @cached_property
    def _m(self) -> np.ndarray:
        return np.asarray(self.means, dtype=float)

    @cached_property
    def _cov(self) -> np.ndarray:
        return np.asarray(self.covariance, dtype=float)

    @cached_property
    def _chol(self) -> np.ndarray:
        return np.linalg.cholesky(self._cov)

    @cached_property
    def _precision(self) -> np.ndarray:
        return np.linalg.inv(self._cov)

    @property
    def n_classes(self) -> int:
        return self._m.shape[0]

    @property
    def dim(self) -> int:
        return self._m.shape[1]

    def prior(self, domain: str = "source") -> np.ndarray:
        """The class prior :math:`p` (``"source"``) or :math:`q` (``"target"``)."""
        if domain == "source":
            return np.asarray(self.source_prior, dtype=float)
        if domain == "target":
            return np.asarray(self.target_prior, dtype=float)
        raise ValueError(f"domain must be 'source' or 'target', got {domain!r}")

    @property
    def weights(self) -> np.ndarray:
        """True importance weights :math:`w^*_y = q_y / p_y`."""
        return self.prior("target") / self.prior("source")

    # -- sampling --------------------------------------------------------------
    def sample(self, n, rng, domain: str = "source", *, size=()) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` IID pairs from the source or the target; return ``x`` (``size + (n, d)``) and ``y``.

        ``size`` adds leading axes (independent repetitions), e.g. ``size=(R,)``:
        an integer or a sequence of positive integers.  At most
        :math:`10^8` points are drawn in one call (memory bound).
        """
        n = check_int(n, "n", maximum=_MAX_POINTS)
        rng = as_rng(rng)
        prior = self.prior(domain)
        if isinstance(size, tuple) and not size:
            shape = ()
        elif isinstance(size, (str, bytes)) or np.ndim(size) > 1:
            raise ValueError(f"size must be an integer or a sequence of integers, got {size!r}")
        else:
            shape = tuple(check_int(v, "size entries", maximum=_MAX_POINTS) for v in np.atleast_1d(np.asarray(size, dtype=object)))
        if n * int(np.prod(shape, dtype=object)) > _MAX_POINTS:
            raise ValueError(f"n times the product of size must be at most {_MAX_POINTS} points, got {n} and size {shape}")
        u = rng.random(shape + (n,))
        y = np.searchsorted(np.cumsum(prior)[:-1], u, side="right")
        z = rng.standard_normal(shape + (n, self.dim))
        return self._m[y] + z @ self._chol.T, y

    # -- exact posteriors -------------------------------------------------------
    def log_class_densities(self, x) -> np.ndarray:
        r"""Log densities :math:`\log\varphi(x;\mu_y,\Sigma)`, shape ``x.shape[:-1] + (k,)``.

        Expanded as :math:`\mu_y^\top\Sigma^{-1}x - \tfrac12\mu_y^\top\Sigma^{-1}\mu_y - \tfrac12 x^\top\Sigma^{-1}x`
        plus the normalising constant (the covariance is shared).
        """
        x = as_points(x, "x")
        if x.shape[-1] != self.dim:
            raise ValueError(f"x must have {self.dim} coordinates in its last axis, got shape {x.shape}")
        lin = self._m @ self._precision  # (k, d)
        white = x @ np.linalg.inv(self._chol).T  # L^{-1} x, so |white|^2 = x^T Sigma^{-1} x
        quad = np.sum(white * white, axis=-1, keepdims=True)
        logdet = 2.0 * np.sum(np.log(np.diag(self._chol)))
        const = -0.5 * (np.einsum("kd,kd->k", lin, self._m) + logdet + self.dim * np.log(2.0 * np.pi))
        return x @ lin.T - 0.5 * quad + const

    def posterior(self, x, domain: str = "source") -> np.ndarray:
        r"""Exact posterior :math:`\eta^D(x)` (rows of the simplex) under the source or the target prior.

        The softmax of :math:`\mu_y^\top\Sigma^{-1}x - \tfrac12\mu_y^\top\Sigma^{-1}\mu_y + \log\pi^D_y`: the
        quadratic term and the constant of the log densities are shared by the classes and dropped, so a
        far ``x`` (``1e200``) gives its limit, not ``inf - inf``; a linear term beyond the float range is refused.
        """
        x = as_points(x, "x")
        if x.shape[-1] != self.dim:
            raise ValueError(f"x must have {self.dim} coordinates in its last axis, got shape {x.shape}")
        lin = self._m @ self._precision  # (k, d)
        const = -0.5 * np.einsum("kd,kd->k", lin, self._m) + np.log(self.prior(domain))
        with np.errstate(over="ignore", invalid="ignore"):
            logits = x @ lin.T + const
        if not np.all(np.isfinite(logits)):
            raise ValueError("x is too large: the log-odds mu_y^T Sigma^-1 x exceed the float range")
        return _softmax(logits)

    def log_ratio_map(self, contrasts) -> tuple[np.ndarray, np.ndarray]:
        r"""Affine map :math:`x \mapsto Gx + g` equal to ``contrasts @ log eta^P(x)``.

        Each row of ``contrasts`` (shape ``(r, k)``) must sum to 0, so the
        normaliser of the posterior cancels and the quadratic terms of the
        log-densities too (shared covariance).  Returns ``(G, g)``.
        """
        c = as_real_array(contrasts, "contrasts", ndim=2)
        if c.shape[1] != self.n_classes or np.any(np.abs(c.sum(axis=1)) > 1e-12):
            raise ValueError(f"contrasts must have {self.n_classes} columns and rows summing to 0")
        lin = self._m @ self._precision  # (k, d): mu_y^T Sigma^-1
        const = -0.5 * np.einsum("kd,kd->k", lin, self._m) + np.log(self.prior("source"))
        return c @ lin, c @ const

    def projection_probabilities(self, direction, offset, edges) -> np.ndarray:
        r"""Exact :math:`P[a^\top X + c \in (e_{j-1}, e_j] \mid Y = y]`, shape ``(k, len(edges) - 1)``.

        ``direction`` :math:`a` has ``dim`` coordinates (not all zero),
        ``offset`` :math:`c` is a finite number, ``edges`` are sorted and may
        start at ``-inf`` and end at ``+inf``.  Since
        :math:`a^\top X \mid Y=y \sim N(a^\top\mu_y, a^\top\Sigma a)`, these are
        normal distribution-function differences.
        """
        return self._projection_probabilities(direction, offset, edges, "direction", "offset", "edges")

    def _projection_probabilities(self, direction, offset, edges, name_a: str, name_c: str, name_e: str) -> np.ndarray:
        return np.diff(ndtr(self._projection_z(direction, offset, edges, name_a, name_c, name_e)), axis=1)

    def _projection_log_probabilities(self, direction, offset, edges) -> np.ndarray:
        """The logarithms of :meth:`projection_probabilities`, finite where those underflow (cells far in a tail)."""
        z = self._projection_z(direction, offset, edges, "direction", "offset", "edges")
        return _log_normal_mass(z[:, :-1], z[:, 1:])

    def _projection_z(self, direction, offset, edges, name_a: str, name_c: str, name_e: str) -> np.ndarray:
        """The edges standardised per class, ``(e - a^T mu_y - c) / sd``, shape ``(k, len(edges))``."""
        a = as_real_array(direction, name_a)
        if a.size != self.dim:
            raise ValueError(f"{name_a} must hold {self.dim} coordinates, got {a.size}")
        offset = check_real(offset, name_c)
        e = as_cut_points(edges, name_e)
        # the event a^T X + c in (e0, e1] is unchanged when a, c and the edges are divided by s = max|a_i|,
        # so a^T Sigma a cannot overflow (a = (1e300, 0)) nor underflow (a = (1e-200, 0))
        scale = float(np.max(np.abs(a)))
        if not scale > 0.0:
            raise ValueError(f"{name_a} must not be zero (a^T Sigma a = 0)")
        a = a / scale
        sd = float(np.sqrt(a @ self._cov @ a))
        mean = self._m @ a + offset / scale
        return (e[None, :] / scale - mean[:, None]) / sd

    def grid_cell_probabilities(self, contrasts, edges) -> np.ndarray:
        r"""Exact :math:`P[u(X) \in \text{cell} \mid Y = y]` for a grid in log-ratio coordinates :math:`u = A\log\eta^P`.

        The cells are those of
        :class:`companion.binning_label_shift.LogRatioGridPartition` with the
        same ``contrasts`` and ``edges`` (C order).  Given :math:`Y=y`,
        :math:`u = GX + g` is normal with covariance :math:`G\Sigma G^\top`;
        this must be diagonal (one or two coordinates chosen orthogonal in
        the metric of :math:`\Sigma`), so a cell's probability is a product
        of normal distribution-function differences.  Returns shape
        ``(k, n_cells)``.
        """
        G, g = self.log_ratio_map(contrasts)
        edges = as_cut_point_list(edges, "edges", G.shape[0])
        cov = G @ self._cov @ G.T
        off = cov - np.diag(np.diag(cov))
        if np.max(np.abs(off)) > 1e-10 * np.max(np.abs(cov)):
            raise ValueError("the log-ratio coordinates must be uncorrelated given the class (G Sigma G^T diagonal)")
        probs = np.ones((self.n_classes, 1))
        for r in range(G.shape[0]):
            marginal = self._projection_probabilities(G[r], g[r], edges[r], f"contrasts[{r}]", f"contrasts[{r}]",
                                                      f"edges[{r}]")  # (k, cells along axis r)
            probs = (probs[:, :, None] * marginal[:, None, :]).reshape(self.n_classes, -1)
        return probs

    def confusion_matrix(self, kind: str = "soft", *, order: int = 64) -> np.ndarray:
        r"""Exact joint confusion matrix :math:`C_{ij} = E_P[\phi_i(X)1\{Y=j\}]` of the Bayes source posterior.

        ``kind="soft"``: :math:`\phi = \eta^P`; the class-conditional
        expectations are computed by a tensor Gauss-Hermite rule of ``order``
        nodes per axis (the integrand is smooth).  ``kind="hard"``:
        :math:`\phi` is the one-hot arg-max of :math:`\eta^P`; the region where
        class ``i`` wins is an intersection of half-spaces, and its
        probability is a normal distribution function (``k = 2``) or a
        bivariate normal orthant probability written as a one-dimensional
        integral (``k = 3``).  ``order`` is an integer in [1, 1000] with
        ``order ** dim`` at most :math:`10^7` nodes.
        """
        kind = check_option(kind, "kind", ("soft", "hard"))
        order = check_int(order, "order", maximum=_MAX_HERMITE_ORDER)
        if order**self.dim > _MAX_QUADRATURE_NODES:
            raise ValueError(f"order must satisfy order ** dim <= {_MAX_QUADRATURE_NODES} (quadrature nodes), got "
                             f"{order} ** {self.dim}")
        k = self.n_classes
        p = self.prior("source")
        if kind == "soft":
            t, wgt = np.polynomial.hermite_e.hermegauss(order)
            wgt = wgt / np.sqrt(2.0 * np.pi)
            grids = np.meshgrid(*([t] * self.dim), indexing="ij")
            nodes = np.stack([g.ravel() for g in grids], axis=1)
            weights = np.prod(np.meshgrid(*([wgt] * self.dim), indexing="ij"), axis=0).ravel()
            cond = np.empty((k, k))
            for j in range(k):  # k classes: E[eta^P(X) | Y = j]
                x = self._m[j] + nodes @ self._chol.T
                cond[:, j] = weights @ self.posterior(x, "source")
            return cond * p[None, :]
        if k > 3:
            raise ValueError("the exact hard confusion matrix is implemented for k <= 3 classes")
        cond = np.empty((k, k))
        for i in range(k):
            others = [j for j in range(k) if j != i]
            contrasts = np.zeros((len(others), k))
            for r, j in enumerate(others):
                contrasts[r, i], contrasts[r, j] = 1.0, -1.0
            G, g = self.log_ratio_map(contrasts)  # class i wins iff G x + g >= 0
            for j in range(k):
                mean = G @ self._m[j] + g
                cov = G @ self._cov @ G.T
                cond[i, j] = _orthant_probability(mean, cov)
        return cond * p[None, :]


def _orthant_probability(mean: np.ndarray, cov: np.ndarray) -> float:
    """P[U >= 0] for U ~ N(mean, cov) of dimension 1 or 2 (the latter as a 1-D integral)."""
    sd = np.sqrt(np.diag(cov))
    if mean.size == 1:
        return float(ndtr(mean[0] / sd[0]))
    rho = cov[0, 1] / (sd[0] * sd[1])
    s = np.sqrt(1.0 - rho**2)
    m0, m1 = mean[0] / sd[0], mean[1] / sd[1]
    # U0 = m0 + Z0 (standardised); U1 >= 0 given Z0 = z has probability Phi((m1 + rho z) / s)
    integrand = lambda z: np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) * ndtr((m1 + rho * z) / s)  # noqa: E731
    value, _ = quad(integrand, -m0, np.inf, epsabs=1e-14, epsrel=1e-12, limit=200)
    return float(value)


def two_class_gaussian() -> GaussianLabelShift:
    r"""The binary example of paper 001, section 3.2.

    :math:`p = (1/2, 1/2)`, :math:`q = (0.2, 0.8)`, :math:`\mu_0 = (-1, 0)`,
    :math:`\mu_1 = (1, 0)`, :math:`\Sigma = [[0.75, 0.25], [0.25, 0.75]]`.
    """
    return GaussianLabelShift(((-1.0, 0.0), (1.0, 0.0)), ((0.75, 0.25), (0.25, 0.75)), (0.5, 0.5), (0.2, 0.8))


def three_class_gaussian() -> GaussianLabelShift:
    r"""The three-class example of paper 001, section 2.2 (its classes 1, 2, 3 are ``0, 1, 2`` here).

    :math:`p = (0.1, 0.6, 0.3)`, :math:`q = (0.3, 0.2, 0.5)`, means
    :math:`(-2, 0)`, :math:`(2, 0)`, :math:`(0, 2\sqrt3)`, :math:`\Sigma = 4I`.
    """
    return GaussianLabelShift(
        ((-2.0, 0.0), (2.0, 0.0), (0.0, 2.0 * np.sqrt(3.0))),
        ((4.0, 0.0), (0.0, 4.0)),
        (0.1, 0.6, 0.3),
        (0.3, 0.2, 0.5),
    )
