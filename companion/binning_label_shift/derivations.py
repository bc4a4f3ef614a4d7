"""Sympy derivations for calibration by binning under label shift (paper 001, section 3, App. C.1, D).

Every ``*_residual`` entry must simplify to exactly 0.  Labels refer to the
chapter ``chap-binning-label-shift``: ``thm-binls-theorem3``,
``prop-binls-proposition1``, ``thm-binls-theorem4``, ``rem-binls-zero-weight``.
"""

from __future__ import annotations

import sympy as sp

from .._checks import check_int

__all__ = ["theorem3_epsilon_residual", "proposition1_residuals", "theorem4_algebra", "theorem4_zero_weight_example"]


def theorem3_epsilon_residual() -> sp.Expr:
    r"""Theorem 3: at :math:`t = \sqrt{N}\,\varepsilon/2` with :math:`\varepsilon = \frac{2}{\sqrt N}\sqrt{\frac12\log\frac{B2^k}{\delta}}`, the BHC tail :math:`2^k e^{-2t^2}` equals :math:`\delta/B`.

    Returns :math:`2^k e^{-2t^2} - \delta/B`, simplified.
    """
    N, B, k, delta = sp.symbols("N B k delta", positive=True)
    eps = 2 / sp.sqrt(N) * sp.sqrt(sp.log(B * 2**k / delta) / 2)
    t = sp.sqrt(N) * eps / 2
    return sp.simplify(2**k * sp.exp(-2 * t**2) - delta / B)


def proposition1_residuals(k: int = 3) -> list:
    r"""Proposition 1 of paper 001: :math:`\theta^Q_I = g_{w^*}(\theta^P_I)` per class.

    ``a_y`` = :math:`P[f(X)\in I\mid Y=y]` (the same under both priors by label
    shift) are free positive symbols; :math:`\theta^D_{I,y} = d_y a_y/\sum_j d_j a_j`.
    ``k`` is an integer in [2, 8].
    """
    k = check_int(k, "k", minimum=2, maximum=8)
    a = sp.symbols(f"a1:{k + 1}", positive=True)
    p = sp.symbols(f"p1:{k + 1}", positive=True)
    q = sp.symbols(f"q1:{k + 1}", positive=True)

    def bayes(prior, masses):
        total = sum(d * m for d, m in zip(prior, masses))
        return [d * m / total for d, m in zip(prior, masses)]

    theta_p, theta_q = bayes(p, a), bayes(q, a)
    corrected = bayes([qy / py for qy, py in zip(q, p)], theta_p)
    return [sp.simplify(c - t) for c, t in zip(corrected, theta_q)]


def theorem4_algebra(k: int = 3) -> dict:
    r"""The identities behind the proof of (18), Theorem 4 (book ``thm-binls-theorem4``).

    Symbols: ``t_y`` (:math:`\theta^P_{I,y}`), ``u_y`` (:math:`\hat\theta^P_{I,y}`),
    ``w_y`` (true weights), ``v_y`` (estimated weights); :math:`S_w(t) = \sum_y w_y t_y`.

    * ``split_residuals``: :math:`g_w(u)_y - g_w(t)_y - \bigl[w_yu_y(1/S_w(u) - 1/S_w(t)) + w_y(u_y-t_y)/S_w(t)\bigr]`;
    * ``first_sum_residual``: :math:`\sum_y w_yu_y(1/S_w(u) - 1/S_w(t)) - \sum_y w_y(t_y - u_y)/S_w(t)`;
    * ``weight_split_residuals``: :math:`g_v(u)_y - g_w(u)_y - \bigl[v_yu_y(1/S_v(u)-1/S_w(u)) + u_y(v_y-w_y)/S_w(u)\bigr]`;
    * ``second_sum_residual``: :math:`\sum_y v_yu_y(1/S_v(u)-1/S_w(u)) - \sum_y (w_y-v_y)u_y/S_w(u)`;
    * ``lower_bound_residual``: :math:`S_w(t) - w_{\min}\sum_y t_y - \sum_y (w_y - w_{\min})t_y`
      (so :math:`S_w(t) \ge w_{\min}` when :math:`\sum_y t_y = 1` and every :math:`w_y \ge w_{\min}`).

    The absolute values and the triangle and Hölder inequalities that turn
    these identities into (24), (25) and (18) are in the chapter's proof.
    ``k`` is an integer in [2, 5] (the simplifications take seconds at 5).
    """
    k = check_int(k, "k", minimum=2, maximum=5)
    t = sp.symbols(f"t1:{k + 1}", positive=True)
    u = sp.symbols(f"u1:{k + 1}", positive=True)
    w = sp.symbols(f"w1:{k + 1}", positive=True)
    v = sp.symbols(f"v1:{k + 1}", positive=True)
    wmin = sp.Symbol("w_min", positive=True)

    def S(weights, theta):
        return sum(a * b for a, b in zip(weights, theta))

    def g(weights, theta):
        s = S(weights, theta)
        return [a * b / s for a, b in zip(weights, theta)]

    split = [sp.simplify(g(w, u)[y] - g(w, t)[y] - (w[y] * u[y] * (1 / S(w, u) - 1 / S(w, t)) + w[y] * (u[y] - t[y]) / S(w, t)))
             for y in range(k)]
    first = sp.simplify(sum(w[y] * u[y] * (1 / S(w, u) - 1 / S(w, t)) for y in range(k))
                        - sum(w[y] * (t[y] - u[y]) for y in range(k)) / S(w, t))
    wsplit = [sp.simplify(g(v, u)[y] - g(w, u)[y] - (v[y] * u[y] * (1 / S(v, u) - 1 / S(w, u)) + u[y] * (v[y] - w[y]) / S(w, u)))
              for y in range(k)]
    second = sp.simplify(sum(v[y] * u[y] * (1 / S(v, u) - 1 / S(w, u)) for y in range(k))
                         - sum((w[y] - v[y]) * u[y] for y in range(k)) / S(w, u))
    lower = sp.expand(S(w, t) - wmin * sum(t) - sum((w[y] - wmin) * t[y] for y in range(k)))
    return {"split_residuals": split, "first_sum_residual": first, "weight_split_residuals": wsplit,
            "second_sum_residual": second, "lower_bound_residual": lower}


def theorem4_zero_weight_example() -> dict:
    r"""An exact counterexample to (18) when a true weight is 0 (book ``rem-binls-zero-weight``).

    Three classes, :math:`w^* = (0, 1, 2)` (source prior uniform, target
    prior :math:`(0, 1/3, 2/3)`), :math:`\hat w = w^*`, a bin with
    :math:`\theta^P = (9/10, 1/20, 1/20)` estimated as
    :math:`\hat\theta^P = (9/10, 7/100, 3/100)`.  Returns the exact
    ``lhs`` :math:`\|\hat\theta^{(w)} - \theta^Q\|_1 = 16/39`, the paper's
    ``rhs`` :math:`2\kappa\|\hat\theta^P - \theta^P\|_1 = 4/25` with
    :math:`\kappa = 2` (the infimum over the non-zero weights), and the
    bound with the bin's own denominator
    :math:`2\max_y w_y\|\hat\theta^P-\theta^P\|_1/\sum_y w_y\theta^P_{I,y}`,
    which holds.
    """
    w = [sp.Integer(0), sp.Integer(1), sp.Integer(2)]
    theta = [sp.Rational(9, 10), sp.Rational(1, 20), sp.Rational(1, 20)]
    theta_hat = [sp.Rational(9, 10), sp.Rational(7, 100), sp.Rational(3, 100)]

    def g(weights, th):
        s = sum(a * b for a, b in zip(weights, th))
        return [a * b / s for a, b in zip(weights, th)]

    l1 = sum(abs(a - b) for a, b in zip(theta_hat, theta))
    lhs = sum(abs(a - b) for a, b in zip(g(w, theta_hat), g(w, theta)))
    kappa = max(w) / min(x for x in w if x != 0)
    binwise = 2 * max(w) * l1 / sum(a * b for a, b in zip(w, theta))
    return {"lhs": sp.nsimplify(lhs), "paper_rhs": sp.nsimplify(2 * kappa * l1), "binwise_rhs": sp.nsimplify(binwise),
            "kappa": kappa}
