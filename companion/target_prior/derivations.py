"""Sympy derivations for recalibration to a target prior (paper 003): eq. (13), the Jensen bounds (2), the binormal model.

The book's chapter "Recalibrating to a target prior without target labels"
(``chap-target-prior``) displays these results.
"""

from __future__ import annotations

import sympy as sp

from .._checks import check_int

__all__ = ["implied_auc_residual", "jensen_bounds_derivation", "binormal_auc_derivation", "binormal_posterior_residual"]


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
    r"""The gaps of the bounds (2), :math:`(1-q)C(0) + qC(1) \le E[C(Z)] \le C(q)`, for :math:`C = \sqrt{\cdot}`, ``Z`` on ``m`` values.

    Write the values as :math:`z_i = u_i^2` with :math:`u_i \in [0, 1]`, masses
    :math:`w_i` and :math:`q = \sum_i w_i u_i^2`.  Both gaps of (2) (the book's
    ``eq-tp-jensen``) are sums of masses times pointwise gaps:

    .. math:: E[\sqrt Z] - q = \sum_i w_i u_i (1 - u_i), \qquad
              \sqrt q - E[\sqrt Z] = \sum_i w_i \frac{(\sqrt q - u_i)^2}{2\sqrt q}.

    The identities only move the sign into the pointwise gaps; they do not
    establish it.  The first is a term-by-term rewriting: ``lower_residual``
    is computed with free masses (not summing to one) and is zero all the same.
    The second uses :math:`\sum_i w_i = 1`: ``upper_residual`` (masses summing
    to one) is zero, ``upper_residual_any_mass`` (free masses) is
    :math:`\sqrt q\,(1 - \sum_i w_i)/2`.  Concavity enters only through the sign
    of the pointwise chord gap :math:`C(z) - (1-z)C(0) - zC(1)` and tangent gap
    :math:`C(q) + C'(q)(z - q) - C(z)`, returned in ``u = sqrt(z)``,
    ``t = sqrt(q)`` with the forms :func:`sympy.factor` finds for them: for
    :math:`C = \sqrt{\cdot}` (``chord_gap``, ``tangent_gap``, ``..._factored``)
    and for the convex control :math:`C(z) = z^2` (``convex_chord_gap``,
    ``convex_tangent_gap``, ``..._factored``), whose gaps are :math:`\le 0`.
    Evaluating both pairs on a grid is the check of the sign that can fail.
    ``m`` is an integer from 1 to 8.
    """
    m = check_int(m, "m", minimum=1, maximum=_MAX_VALUES)
    w = sp.symbols(f"w1:{m + 1}", positive=True)
    u = sp.symbols(f"u1:{m + 1}", nonnegative=True)

    def residuals(weights):
        q = sum(wi * ui**2 for wi, ui in zip(weights, u))
        mean_root = sum(wi * ui for wi, ui in zip(weights, u))  # E[sqrt Z]
        lower_sum = sum(wi * ui * (1 - ui) for wi, ui in zip(weights, u))
        upper_sum = sum(wi * (sp.sqrt(q) - ui) ** 2 / (2 * sp.sqrt(q)) for wi, ui in zip(weights, u))
        return sp.simplify(mean_root - q - lower_sum), sp.factor(sp.simplify(sp.sqrt(q) - mean_root - upper_sum))

    lower_any_mass, upper_any_mass = residuals(w)
    _, upper = residuals(tuple(w[:-1]) + (1 - sum(w[:-1]),))
    v, t, x = sp.symbols("u t x", positive=True)  # one value u = sqrt(z), and t = sqrt(q)

    def gaps(C):
        """Chord and tangent gaps of ``C`` at z = u^2, q = t^2, with their factored forms."""
        chord = C(v**2) - (1 - v**2) * C(0) - v**2 * C(1)
        tangent = C(t**2) + sp.diff(C(x), x).subs(x, t**2) * (v**2 - t**2) - C(v**2)
        return chord, sp.factor(chord), tangent, sp.factor(sp.together(tangent))

    chord, chord_f, tangent, tangent_f = gaps(sp.sqrt)
    convex_chord, convex_chord_f, convex_tangent, convex_tangent_f = gaps(lambda z: z**2)
    return {
        "lower_residual": lower_any_mass,
        "upper_residual": upper,
        "upper_residual_any_mass": upper_any_mass,
        "chord_gap": chord,
        "chord_gap_factored": chord_f,
        "tangent_gap": tangent,
        "tangent_gap_factored": tangent_f,
        "convex_chord_gap": convex_chord,
        "convex_chord_gap_factored": convex_chord_f,
        "convex_tangent_gap": convex_tangent,
        "convex_tangent_gap_factored": convex_tangent_f,
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
