"""The rating-scale example of paper 003 (Tasche, section 4), with exact source and target laws.

A binormal score discretised by Gauss-Hermite nodes: source and target grade
distributions, the source posterior and the label-shift target, so the
recalibration methods of the target-prior chapter have exact comparison values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import expit, ndtr, ndtri
from scipy.stats import binom

from .._checks import as_rng, check_int, check_open_unit, check_size

#: Most Gauss-Hermite nodes: numpy's rule (``hermegauss``) returns NaN weights from 371 nodes on.
_MAX_NODES = 370

__all__ = ["RatingScaleExample"]


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
        object.__setattr__(self, "n_nodes", check_int(self.n_nodes, "n_nodes", minimum=2, maximum=_MAX_NODES))
        object.__setattr__(self, "n_trials", check_size(self.n_trials, "n_trials", item_bytes=8 * (self.n_nodes + 4),
                                                        what="binomial masses at every node and grade"))
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
        n = check_size(n, "n", item_bytes=32, what="four arrays of length n")
        rng = as_rng(rng)
        rho = self.target_correlation
        success = ndtr((ndtri(self.target_mean) + np.sqrt(rho) * rng.standard_normal(n)) / np.sqrt(1.0 - rho))
        return rng.binomial(self.n_trials, success)

    def label_shift_target_masses(self, target_prior: float) -> np.ndarray:
        """The mixture (5) ``q P[S=s|Y=1] + (1-q) P[S=s|Y=0]``: a target for which label shift holds."""
        q = check_open_unit(target_prior, "target_prior")
        m0, m1 = self.class_masses
        return (1.0 - q) * m0 + q * m1
