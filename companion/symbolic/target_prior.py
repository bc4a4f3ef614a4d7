"""Sympy derivations for recalibration to a target prior (paper 003): eq. (13), the Jensen bounds (2), the binormal model.

The book's chapter "Recalibrating to a target prior without target labels"
(``chap-target-prior``) displays these results.
"""

from __future__ import annotations

import sympy as sp

from .._checks import check_int

__all__ = [
    "implied_auc_residual",
    "jensen_bounds_derivation",
    "binormal_auc_derivation",
    "binormal_posterior_residual",
]

#: Largest number of score values the two builders accept: the expressions grow with it
#: (:func:`implied_auc_residual` is quadratic in ``n`` before :func:`sympy.simplify`), and a
#: few values already show the identities; at 8 each call takes about a second or two.
_MAX_VALUES = 8


def implied_auc_residual(n: int) -> dict[str, sp.Expr]:
    r"""Eq. (13) from (3a)-(3b) for a symbolic auto-calibrated score with ``n`` ordered values.

    Masses :math:`w_i` (summing to one) and values :math:`s_i` are symbols.  (3b) gives
    :math:`P_1[s_i] = w_i s_i/\bar s`, :math:`P_0[s_i] = w_i(1-s_i)/(1-\bar s)` with
    :math:`\bar s = \sum_j w_j s_j`, and (3a) sums
    :math:`P_1[s_i]\,(P_0[S<s_i] + \tfrac12 P_0[s_i])`.  ``residual`` is (3a) minus (13)
    with the sum over ``i`` starting at 1 (the book's ``eq-tp-implied-auc``;
    identically zero); ``residual_as_printed`` is (3a) minus (13) as printed,
    summing from ``i = 2``, and ``tie_term`` is
    :math:`w_1^2 s_1(1-s_1)/(2\bar s(1-\bar s))`, the tie term of the lowest
    value, which the printed sum misses: ``residual_as_printed - tie_term``
    simplifies to zero.  Returns a dict with these three and ``auc_3a``.
    ``n`` is an integer from 2 to 8 (the expressions grow quadratically in it).
    """
    n = check_int(n, "n", minimum=2, maximum=_MAX_VALUES)
    free = sp.symbols(f"w1:{n}", positive=True)
    w = tuple(free) + (1 - sum(free),)  # masses summing to one
    s = sp.symbols(f"s1:{n + 1}", positive=True)
    mean = sum(w[j] * s[j] for j in range(n))
    P1 = [w[i] * s[i] / mean for i in range(n)]
    P0 = [w[i] * (1 - s[i]) / (1 - mean) for i in range(n)]
    auc_3a = sum(P1[i] * (sum(P0[:i]) + P0[i] / 2) for i in range(n))

    def eq13(first: int) -> sp.Expr:
        num = sum(w[i] * s[i] * (w[i] * (1 - s[i]) / 2 + sum(w[k] * (1 - s[k]) for k in range(i))) for i in range(first, n))
        return num / ((1 - mean) * mean)

    return {
        "residual": sp.simplify(sp.together(auc_3a - eq13(0))),
        "residual_as_printed": sp.factor(sp.together(auc_3a - eq13(1))),
        "tie_term": w[0] ** 2 * s[0] * (1 - s[0]) / (2 * mean * (1 - mean)),
        "auc_3a": auc_3a,
    }


def jensen_bounds_derivation(m: int) -> dict[str, sp.Expr]:
    r"""The bounds (2), :math:`(1-q)C(0) + qC(1) \le E[C(Z)] \le C(q)`, for ``Z`` on ``m`` values in [0, 1].

    Concavity gives the chord bound :math:`C(z) \ge (1-z)C(0) + zC(1)` and the
    tangent bound :math:`C(z) \le C(q) + C'(q)(z-q)`; taking expectations with
    :math:`E[Z] = q` turns them into (2) (the book's ``eq-tp-jensen``).
    Returns the two expectation residuals (zero for any ``C``) and, for
    :math:`C = \sqrt{\cdot}` written with :math:`u = \sqrt z`, :math:`t = \sqrt q`,
    the chord gap :math:`\sqrt z - z` and the tangent gap
    :math:`C(q) + C'(q)(z - q) - \sqrt z` together with the forms
    :func:`sympy.factor` finds for them (visibly non-negative).
    ``m`` is an integer from 1 to 8.
    """
    m = check_int(m, "m", minimum=1, maximum=_MAX_VALUES)
    w = sp.symbols(f"w1:{m + 1}", positive=True)
    z = sp.symbols(f"z1:{m + 1}", nonnegative=True)
    weights = tuple(w[:-1]) + (1 - sum(w[:-1]),)
    q = sum(wi * zi for wi, zi in zip(weights, z))
    C0, C1, Cq, dCq = sp.symbols("C_0 C_1 C_q C'_q")
    chord = sum(wi * ((1 - zi) * C0 + zi * C1) for wi, zi in zip(weights, z))
    tangent = sum(wi * (Cq + dCq * (zi - q)) for wi, zi in zip(weights, z))
    u, t, x = sp.symbols("u t x", positive=True)  # u = sqrt(z), t = sqrt(q)
    C = sp.sqrt
    dC_at_q = sp.diff(C(x), x).subs(x, t**2)
    chord_gap = C(u**2) - ((1 - u**2) * C(0) + u**2 * C(1))
    tangent_gap = C(t**2) + dC_at_q * (u**2 - t**2) - C(u**2)
    return {
        "chord_residual": sp.expand(chord - ((1 - q) * C0 + q * C1)),
        "tangent_residual": sp.expand(tangent - Cq),
        "chord_gap": chord_gap,
        "chord_gap_factored": sp.factor(chord_gap),
        "tangent_gap": tangent_gap,
        "tangent_gap_factored": sp.factor(sp.together(tangent_gap)),
    }


def binormal_auc_derivation() -> dict[str, sp.Expr]:
    r"""AUC of the binormal ROC (10a) is :math:`\Phi(c/\sqrt2)`.

    :math:`\mathrm{AUC}(c) = \int_0^1 \Phi(c + \Phi^{-1}(u))\,du = \int \Phi(c+x)\varphi(x)\,dx`.
    Its derivative in ``c`` is the Gaussian integral :math:`\int\varphi(c+x)\varphi(x)\,dx`,
    which sympy evaluates; ``derivative_residual`` is that integral minus
    :math:`\frac{d}{dc}\Phi(c/\sqrt2)` and ``value_at_zero`` is
    :math:`\mathrm{AUC}(0) = \int\Phi(x)\varphi(x)\,dx` (equal to :math:`\Phi(0) = 1/2`).
    """
    x, c = sp.symbols("x c", real=True)
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    Phi = lambda t: (1 + sp.erf(t / sp.sqrt(2))) / 2  # noqa: E731
    derivative = sp.integrate(phi(c + x) * phi(x), (x, -sp.oo, sp.oo))
    value_at_zero = sp.integrate(Phi(x) * phi(x), (x, -sp.oo, sp.oo))
    return {
        "derivative": sp.simplify(derivative),
        "derivative_residual": sp.simplify(derivative - sp.diff(Phi(c / sp.sqrt(2)), c)),
        "value_at_zero": sp.simplify(value_at_zero),
    }


def binormal_posterior_residual() -> tuple[sp.Expr, sp.Expr]:
    r"""Posterior (10b) from the binormal model behind (10a).

    If :math:`S \mid Y=0 \sim N(0,1)` and :math:`S \mid Y=1 \sim N(c,1)` then
    :math:`\Phi^{-1}(F_0(s)) = s` and the ROC is (10a).  Bayes' rule with prior
    :math:`q` gives the posterior; returns it and its difference from
    :math:`1/(1 + \frac{1-q}{q}\exp(c^2/2 - c\,s))`, which is zero.
    """
    s, c = sp.symbols("s c", real=True)
    q = sp.Symbol("q", positive=True)
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    posterior = q * phi(s - c) / (q * phi(s - c) + (1 - q) * phi(s))
    target = 1 / (1 + (1 - q) / q * sp.exp(c**2 / 2 - c * s))
    return sp.simplify(posterior), sp.simplify(posterior - target)
