"""Sympy derivations for conformal prediction under label shift (paper 001, section 2, App. B.3, App. D).

Every ``*_residual(s)`` entry must simplify to exactly 0 (those of
:func:`label_shift_factorization_residual` and :func:`uniform_weight_masses`
by construction: algebra written out for the record).  Labels refer to the
chapter ``chap-conformal-label-shift``: ``lem-conf-weighted-quantile``,
``prop-conf-label-shift-weights``, ``thm-conf-split``, ``thm-conf-weighted``,
``ex-conf-bernoulli``.
"""

from __future__ import annotations

import itertools
import math
import numbers

import sympy as sp

from .scores import exact_level

__all__ = [
    "permutation_weight_residuals",
    "label_shift_factorization_residual",
    "uniform_weight_masses",
    "split_coverage_interval",
    "split_coverage_by_integration",
    "bernoulli_normal_limits",
]


#: Most terms (labelings x permutations) :func:`permutation_weight_residuals` sums: (n, n_classes) = (4, 2) or (3, 3).
_MAX_PERMUTATION_TERMS = 4000


def _small_int(x, name: str, lo: int, hi: int) -> int:
    """An integer argument in [lo, hi] (numpy integers accepted; bools, floats and strings refused)."""
    if hasattr(x, "item") and getattr(x, "ndim", 1) == 0:
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or not lo <= x <= hi:
        raise ValueError(f"{name} must be an integer between {lo} and {hi}, got {x!r}")
    return int(x)


def permutation_weight_residuals(n: int = 3, n_classes: int = 2) -> list:
    r"""Eq. (26) of paper 001 by brute force over all :math:`(n+1)!` permutations, against eq. (9).

    Weight functions :math:`\chi_1 = \dots = \chi_n = 1` and
    :math:`\chi_{n+1}(x, y) = w(y)` (label shift); the points carry labels
    :math:`y_1, \dots, y_{n+1}` in ``n_classes`` classes with symbolic
    weights :math:`w_0, \dots` (every assignment of labels is enumerated).
    For each point :math:`i`,
    :math:`\sum_{\sigma:\sigma(n+1)=i}\prod_j\chi_j(z_{\sigma(j)})/\sum_\sigma\prod_j\chi_j(z_{\sigma(j)})`
    minus :math:`w(y_i)/\sum_{j\le n+1}w(y_j)`; returns the list of all
    residuals (all must be 0).  Book: ``prop-conf-label-shift-weights``.
    """
    n = _small_int(n, "n", 1, 4)  # the brute force enumerates (n+1)! permutations
    n_classes = _small_int(n_classes, "n_classes", 2, 4)
    n_terms = math.factorial(n + 1) * n_classes ** (n + 1)
    if n_terms > _MAX_PERMUTATION_TERMS:
        raise ValueError(f"n = {n} and n_classes = {n_classes} ask for (n+1)! * n_classes^(n+1) = {n_terms} symbolic terms; "
                         f"at most {_MAX_PERMUTATION_TERMS} run in seconds (e.g. n = 4 with 2 classes, n = 3 with 3)")
    w = sp.symbols(f"w0:{n_classes}", positive=True)
    residuals = []
    for labels in itertools.product(range(n_classes), repeat=n + 1):
        chi = [lambda yy: 1] * n + [lambda yy: w[yy]]  # weight function of position j
        total = sp.Integer(0)
        per_point = [sp.Integer(0)] * (n + 1)
        for sigma in itertools.permutations(range(n + 1)):
            term = sp.Mul(*[chi[j](labels[sigma[j]]) for j in range(n + 1)])
            total += term
            per_point[sigma[n]] += term
        denom = sum(w[yy] for yy in labels)
        for i in range(n + 1):
            residuals.append(sp.simplify(per_point[i] / total - w[labels[i]] / denom))
    return residuals


def label_shift_factorization_residual(n: int = 2) -> sp.Expr:
    r"""Label shift makes :math:`(X_i, Y_i)_{i\le n+1}` weighted exchangeable (Definition 3 of paper 001).

    With class-conditional densities :math:`f_y(x)` shared by source and
    target, :math:`p(x,y) = p_y f_y(x)` and :math:`q(x,y) = q_y f_y(x)`; the
    joint density of :math:`n` source points and one target point is
    :math:`\prod_{i\le n}p(x_i,y_i)\,q(x_{n+1},y_{n+1})`.  Returns that minus
    :math:`w(y_{n+1})\prod_{i\le n+1}p(x_i,y_i)` with :math:`w = q/p`, for two
    classes and symbolic densities and labels written as indicator sums.

    **Algebra, not a check**: both sides are built from the same densities,
    and :math:`q(x,y) = w_y\,p(x,y)` is the definition of :math:`w`, so the
    residual is 0 by construction.  It writes out the one-line step of the
    proof of ``prop-conf-label-shift-weights`` for the record; the checks that
    can fail are :func:`permutation_weight_residuals` (eq. (26) by brute force)
    and the coverage simulations.
    """
    n = _small_int(n, "n", 1, 4)
    p0, p1 = sp.symbols("p0 p1", positive=True)
    q0, q1 = sp.symbols("q0 q1", positive=True)
    x = sp.symbols(f"x1:{n + 2}")
    e = sp.symbols(f"e1:{n + 2}")  # e_i = 1{y_i = 1}; the identity must hold for e_i in {0, 1}
    f0, f1 = sp.Function("f0"), sp.Function("f1")

    def dens(prior0, prior1, xi, ei):
        return (1 - ei) * prior0 * f0(xi) + ei * prior1 * f1(xi)

    lhs = sp.Mul(*[dens(p0, p1, x[i], e[i]) for i in range(n)]) * dens(q0, q1, x[n], e[n])
    w_last = (1 - e[n]) * q0 / p0 + e[n] * q1 / p1
    rhs = w_last * sp.Mul(*[dens(p0, p1, x[i], e[i]) for i in range(n + 1)])
    total = sp.Integer(0)
    for bits in itertools.product((0, 1), repeat=n + 1):
        total += sp.Abs(sp.simplify((lhs - rhs).subs(dict(zip(e, bits)))))
    return sp.simplify(total)


def uniform_weight_masses(n: int = 6) -> list:
    r"""With equal weights the masses of eq. (9) are :math:`1/(n+1)`: returns :math:`\varpi_i - 1/(n+1)` for all :math:`i`."""
    n = _small_int(n, "n", 1, 1000)
    c = sp.symbols("c", positive=True)
    weights = [c] * (n + 1)
    return [sp.simplify(wi / sum(weights) - sp.Rational(1, n + 1)) for wi in weights]


def split_coverage_interval(n_max: int = 40, alphas=(sp.Rational(1, 10), sp.Rational(1, 20), sp.Rational(3, 10),
                                                     sp.Rational(1, 3))) -> dict:
    r"""Theorem 1 with distinct scores: the exact coverage :math:`c = \lceil(1-\alpha)(n+1)\rceil/(n+1)` lies in :math:`[1-\alpha, 1-\alpha+1/(n+1))`.

    For every :math:`n\le` ``n_max`` and every rational level (a float is read
    as :func:`companion.conformal_label_shift.exact_level` reads it: ``1/3`` is 1/3), returns the
    smallest value of :math:`c-(1-\alpha)` (must be :math:`\ge 0`) and of
    :math:`1-\alpha+1/(n+1)-c` (must be :math:`>0`), as exact rationals.
    """
    n_max = _small_int(n_max, "n_max", 1, 10_000)
    try:
        levels = [sp.Rational(a) if not isinstance(a, float) else sp.Rational(*exact_level(a).as_integer_ratio()) for a in alphas]
    except (TypeError, ValueError, sp.SympifyError):
        raise ValueError(f"alphas must be a non-empty sequence of rational levels in (0, 1), got {alphas!r}") from None
    if not levels or any(isinstance(a, (bool, str)) for a in alphas) or any(not (0 < a < 1) for a in levels):
        raise ValueError(f"alphas must be a non-empty sequence of rational levels in (0, 1), got {alphas!r}")
    low, high = [], []
    for a in levels:
        for n in range(1, n_max + 1):
            c = sp.ceiling((1 - a) * (n + 1)) / sp.Integer(n + 1)
            c = sp.Min(c, 1)
            low.append(c - (1 - a))
            high.append(1 - a + sp.Rational(1, n + 1) - c)
    return {"min_gap_below": min(low), "min_gap_above": min(high)}


def split_coverage_by_integration(n_max: int = 12) -> dict:
    r"""The exact coverage :math:`r/(n+1)` of split conformal by integrating over an order statistic.

    Book: ``thm-conf-split``.  With :math:`n+1` independent uniform scores
    (continuous i.i.d. scores reduce to them by the probability integral
    transform), the test score is at most the calibration score of rank
    :math:`r` with probability :math:`\int_0^1 t f_r(t)\,dt`, where
    :math:`f_r(t) = n!/((r-1)!(n-r)!)\,t^{r-1}(1-t)^{n-r}` is the density of
    that order statistic.  The book's proof gets :math:`r/(n+1)` from the
    uniform rank instead.  Returns ``{(n, r): integral}`` for every
    :math:`1\le r\le n\le` ``n_max``, to be compared with :math:`r/(n+1)`.
    """
    n_max = _small_int(n_max, "n_max", 1, 40)
    t = sp.symbols("t", nonnegative=True)
    out = {}
    for n in range(1, n_max + 1):
        for r in range(1, n + 1):
            density = sp.factorial(n) / (sp.factorial(r - 1) * sp.factorial(n - r)) * t ** (r - 1) * (1 - t) ** (n - r)
            out[(n, r)] = sp.integrate(t * density, (t, 0, 1))
    return out


def bernoulli_normal_limits() -> dict:
    r"""The example after Corollary 1: normal approximation of :math:`P[\bar c_n > 1-\alpha]` as :math:`n\to\infty`.

    :math:`1-\Phi\bigl(\sqrt n\,((1-\alpha)-\vartheta)/\sqrt{\vartheta(1-\vartheta)}\bigr)`
    tends to 1 for :math:`\vartheta > 1-\alpha`, to 0 for
    :math:`\vartheta < 1-\alpha` and equals 1/2 at :math:`\vartheta = 1-\alpha`.
    Returns the three limits (sympy numbers).  The limits are elementary (the
    sign of :math:`(1-\alpha)-\vartheta` decides them, and :math:`1-\Phi(0)=1/2`):
    written out for the record, not a check; the binomial probabilities of
    :func:`~companion.conformal_label_shift.bernoulli_quantile_jump` are the evidence.
    """
    n = sp.symbols("n", positive=True)
    alpha = sp.Rational(1, 10)
    Phi = lambda t: (1 + sp.erf(t / sp.sqrt(2))) / 2  # noqa: E731

    def prob(theta):
        return 1 - Phi(sp.sqrt(n) * ((1 - alpha) - theta) / sp.sqrt(theta * (1 - theta)))

    return {
        "above": sp.limit(prob(1 - alpha + sp.Rational(1, 50)), n, sp.oo),
        "below": sp.limit(prob(1 - alpha - sp.Rational(1, 50)), n, sp.oo),
        "at": sp.simplify(prob(1 - alpha)),
    }
