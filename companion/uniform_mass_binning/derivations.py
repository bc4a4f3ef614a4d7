"""Sympy derivations for uniform-mass binning (paper 000, section 4 and App. B; book ``chap-uniform-mass-binning``).

The bin-wise decomposition and the cost of pooling tied bins (book
``eq-umb-binwise``), the bin-count rule (eqs. (10)-(12), book
``eq-umb-zeta`` and ``cor-umb-rule``) and Remark 9 (book ``rem-umb-tight``).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import sympy as sp

from .._checks import check_int
from ..calibration_sharpness import set_partitions

__all__ = ["BinwiseIdentity", "binwise_pooling_identity", "ZetaOptimum", "umb_zeta_optimum", "uniform_bins_sharpness"]


class BinwiseIdentity(NamedTuple):
    """Residuals of book ``eq-umb-binwise`` and of the pooling shift for one tie pattern (all must be 0)."""

    #: The bins (0..B-1) grouped by equal value.
    groups: list
    #: Residual R - R~cal - R~sha of the bin-wise decomposition (book ``eq-umb-binwise``).
    binwise: sp.Expr
    #: Residual R - Rcal - Rsha of Proposition 1 for the pooled risks.
    pooled: sp.Expr
    #: Residual of the calibration risk's shift under pooling: R~cal - Rcal - sum_I p_I (theta_I - theta_G)^2.
    calibration_shift: sp.Expr
    #: Residual of the sharpness risk's shift under pooling: Rsha - R~sha - sum_I p_I (theta_I - theta_G)^2.
    sharpness_shift: sp.Expr
    #: The shift sum_I p_I (theta_I - theta_G)^2, the amount pooling moves (0 without ties).
    shift: sp.Expr


def _one_pattern(groups: Sequence[Sequence[int]], n_bins: int) -> BinwiseIdentity:
    """The four residuals for one tie pattern, computed in the field of rational functions (exact, fast)."""
    names = [f"p{i}" for i in range(1, n_bins + 1)] + [f"theta{i}" for i in range(1, n_bins + 1)]
    names += [f"M{i}" for i in range(1, n_bins + 1)] + [f"v{g}" for g in range(1, len(groups) + 1)]
    _, *gens = sp.field(names, sp.QQ)
    p, theta = gens[:n_bins], gens[n_bins : 2 * n_bins]  # P[Z in I], E[Y | Z in I] = E[h*(Z) | Z in I]
    second, v = gens[2 * n_bins : 3 * n_bins], gens[3 * n_bins :]  # E[h*(Z)^2 1{Z in I}], one value per group
    zero = p[0] - p[0]
    risk = cal_bin = sha_bin = cal = sha = gap = zero
    for vg, block in zip(v, groups):
        mass = sum((p[i] for i in block), zero)
        theta_g = sum((p[i] * theta[i] for i in block), zero) / mass  # E[Y | h(Z) = v_g]
        cal += mass * (vg - theta_g) ** 2
        for i in block:
            # E[(c - h*(Z))^2 1{Z in I}] = c^2 p_I - 2 c p_I theta_I + M_I for a constant c
            second_moment = lambda c: c**2 * p[i] - 2 * c * p[i] * theta[i] + second[i]  # noqa: E731
            risk += second_moment(vg)
            cal_bin += p[i] * (vg - theta[i]) ** 2
            sha_bin += second_moment(theta[i])
            sha += second_moment(theta_g)
            gap += p[i] * (theta[i] - theta_g) ** 2
    return BinwiseIdentity(
        groups=[list(g) for g in groups],
        binwise=(risk - cal_bin - sha_bin).as_expr(),
        pooled=(risk - cal - sha).as_expr(),
        calibration_shift=(cal_bin - cal - gap).as_expr(),
        sharpness_shift=(sha - sha_bin - gap).as_expr(),
        shift=gap.as_expr(),
    )


def binwise_pooling_identity(n_bins: int = 4) -> list[BinwiseIdentity]:
    r"""Book ``eq-umb-binwise`` and the pooling shift for every tie pattern of ``n_bins`` bins.

    Bin :math:`I` has mass :math:`p_I`, mean :math:`\theta_I` and second moment
    :math:`M_I = \mathbb E[h^*(Z)^2 1\{Z\in I\}]`; the bins of a group ``G``
    share the value :math:`v_G`, so :math:`\mathbb E[Y\mid\hat h(Z)=v_G]=\theta_G`
    is their mass-weighted mean.  Every risk is written from its definition
    as a combination of :math:`\mathbb E[(c-h^*(Z))^2 1\{Z\in I\}]`; the four
    residuals of :class:`BinwiseIdentity` simplify to 0 for each of the
    Bell-number many patterns (15 for 4 bins).  ``n_bins`` is at most 4: the
    52 patterns of 5 bins already take tens of seconds to simplify.
    """
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=4)  # Bell-number many patterns
    return [_one_pattern(groups, n_bins) for groups in set_partitions(range(n_bins))]


class ZetaOptimum(NamedTuple):
    """Minimization of the simplified bound over B (eqs. (10)-(12)); residuals must be exactly 0."""

    #: The simplified bound 4 B tau / n + 8 K^2 / B^2 with tau = log(1/delta) (log B left out).
    zeta: sp.Expr
    #: The stationary point.
    b_star: sp.Expr
    #: The bound at B*.
    zeta_at_b_star: sp.Expr
    #: Residual zeta(B*) - 6 (4 K^2)^(1/3) tau^(2/3) n^(-2/3).
    rate_residual: sp.Expr
    #: Second derivative d^2 zeta / dB^2 at B* (positive: a minimum).
    curvature_at_b_star: sp.Expr
    #: The n with zeta(B*) = epsilon, of order epsilon^(-3/2).
    sample_size: sp.Expr
    #: Residual sample_size - 2 * 6^(3/2) K tau epsilon^(-3/2).
    sample_size_residual: sp.Expr
    #: The bound at the rounded bin count, 16 B* tau / n + 8 K^2 / B*^2 (book cor-umb-rule, integer B <= 2 B*).
    rounded_bound: sp.Expr
    #: Residual rounded_bound - 18 (4 K^2)^(1/3) tau^(2/3) n^(-2/3).
    rounded_residual: sp.Expr


def umb_zeta_optimum() -> ZetaOptimum:
    r"""Derive :math:`B^*` and the risk rate from :math:`\zeta(B) = \frac{4B\tau}{n} + \frac{8K^2}{B^2}`.

    With :math:`\tau = \log(1/\delta)` (the :math:`\log(4B)` inside
    :math:`\log(4B/\delta)` left out, as for eq. (10)), the stationary point
    is :math:`B^* = (4K^2 n/\tau)^{1/3}`, the minimum
    :math:`\zeta(B^*) = 6(4K^2)^{1/3}\tau^{2/3} n^{-2/3}` (eq. (11)), and
    :math:`\zeta(B^*) \le \varepsilon` needs :math:`n = 2\cdot 6^{3/2} K \tau\,\varepsilon^{-3/2}`
    (eq. (12)).  For book ``cor-umb-rule``: at :math:`B^*`,
    :math:`16B^*\tau/n + 8K^2/B^{*2} = 18(4K^2)^{1/3}\tau^{2/3}n^{-2/3}`.
    """
    b, n, k, tau, eps = sp.symbols("B n K tau varepsilon", positive=True)
    zeta = 4 * b * tau / n + 8 * k**2 / b**2
    (b_star,) = sp.solve(sp.Eq(sp.diff(zeta, b), 0), b)
    at_star = sp.simplify(zeta.subs(b, b_star))
    third = sp.Rational(1, 3)
    rate = 6 * (4 * k**2) ** third * tau ** (2 * third) * n ** (-2 * third)
    (n_needed,) = sp.solve(sp.Eq(at_star, eps), n)
    rounded = 16 * b_star * tau / n + 8 * k**2 / b_star**2
    return ZetaOptimum(
        zeta=zeta,
        b_star=b_star,
        zeta_at_b_star=at_star,
        rate_residual=sp.simplify(sp.powsimp(at_star - rate, force=True)),
        curvature_at_b_star=sp.simplify(sp.diff(zeta, b, 2).subs(b, b_star)),
        sample_size=n_needed,
        sample_size_residual=sp.simplify(n_needed - 2 * 6 ** sp.Rational(3, 2) * k * tau * eps ** sp.Rational(-3, 2)),
        rounded_bound=sp.simplify(rounded),
        rounded_residual=sp.simplify(sp.powsimp(rounded - 3 * rate, force=True)),
    )


def uniform_bins_sharpness() -> tuple[sp.Expr, sp.Expr]:
    r"""Remark 9 (book ``rem-umb-tight``): sharpness risk of B uniform-mass bins for :math:`Z \sim U[0,1]`, :math:`h^*(z) = z`.

    Each bin :math:`((b-1)/B, b/B]` has mass :math:`1/B`; its mean
    :math:`\theta_b = B\int_{\mathrm{bin}} z\,dz` is integrated, not assumed
    to be the midpoint, and the risk is
    :math:`\sum_b \int_{\mathrm{bin}} (z - \theta_b)^2 dz`.  Returns
    ``(risk, residual)`` with ``residual = risk - 1/(12 B^2)`` (zero).
    """
    z = sp.Symbol("z", real=True)
    b_count = sp.Symbol("B", positive=True, integer=True)
    j = sp.Symbol("b", positive=True, integer=True)
    lo, hi = (j - 1) / b_count, j / b_count
    mass = sp.integrate(sp.Integer(1), (z, lo, hi))
    theta = sp.integrate(z, (z, lo, hi)) / mass  # E[h*(Z) | Z in bin] with h*(z) = z
    per_bin = sp.integrate((z - theta) ** 2, (z, lo, hi))
    risk = sp.simplify(sp.summation(sp.simplify(per_bin), (j, 1, b_count)))
    return risk, sp.simplify(risk - 1 / (12 * b_count**2))
