"""Sympy derivations behind the book's algebra.

Each function builds both sides of an identity from symbols and returns
sympy expressions; a chapter shows them and ``tests/`` asserts that the
difference simplifies to exactly zero.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import sympy as sp

__all__ = [
    "FiniteJointDistribution",
    "finite_joint_distribution",
    "set_partitions",
    "proposition1_residual",
    "mse_decomposition_residual",
    "gaussian_posterior_log_odds",
    "ZetaOptimum",
    "umb_zeta_optimum",
    "uniform_bins_sharpness",
    "implied_auc_residual",
    "jensen_bounds_derivation",
    "binormal_auc_derivation",
    "binormal_posterior_residual",
    "label_shift_composition_residuals",
    "lemma10_derivatives",
    "theorem2_step2_residuals",
]

# ---------------------------------------------------------------------------
# Chapter 1: Proposition 1 and eq. (2) on an arbitrary finite joint distribution
# ---------------------------------------------------------------------------


class FiniteJointDistribution(NamedTuple):
    """A symbolic law of (Z, Y) on ``m`` forecast values.

    ``masses[i] = P[Z = z_i]`` (positive symbols; the last one is
    ``1 - sum(others)`` so they sum to one), ``cond[i] = P[Y = 1 | Z = z_i]``
    and ``values[i] = z_i``.
    """

    masses: tuple
    cond: tuple
    values: tuple


def finite_joint_distribution(m: int) -> FiniteJointDistribution:
    """Symbols for a joint law of (Z, Y) with Z taking ``m`` distinct values."""
    if m < 1:
        raise ValueError(f"m must be at least 1, got {m}")
    w = sp.symbols(f"w1:{m + 1}", positive=True)
    masses = tuple(w[:-1]) + (1 - sum(w[:-1]),)
    cond = sp.symbols(f"q1:{m + 1}", nonnegative=True)
    values = sp.symbols(f"z1:{m + 1}", nonnegative=True)
    return FiniteJointDistribution(masses, tuple(cond), tuple(values))


def set_partitions(items: Sequence) -> list[list[list]]:
    """Every partition of ``items`` into non-empty blocks (Bell-number many).

    A map ``h`` on ``m`` forecast values is, up to the values it assigns, the
    partition of those values into the groups it merges, so running
    :func:`proposition1_residual` over ``set_partitions(range(m))`` covers
    every ``h``.
    """
    items = list(items)
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    out = []
    for part in set_partitions(rest):
        out.extend(part[:i] + [[first] + part[i]] + part[i + 1:] for i in range(len(part)))
        out.append([[first]] + part)
    return out


def _check_partition(groups: Sequence[Sequence[int]], m: int) -> None:
    flat = sorted(i for g in groups for i in g)
    if flat != list(range(m)) or any(len(g) == 0 for g in groups):
        raise ValueError(f"groups must partition range({m}) into non-empty blocks, got {groups!r}")


def proposition1_residual(groups: Sequence[Sequence[int]]) -> tuple[sp.Expr, dict[str, sp.Expr]]:
    r"""Residual ``R(h) - R^cal(h) - R^sha(h)`` for a grouping map ``h``.

    ``groups`` partitions the forecast values ``0..m-1``; ``h`` sends every
    value of block ``g`` to its own symbol ``v_g`` (distinct blocks get
    distinct values, so ``E[Y | h(Z)]`` is the block's mean).  Returns the
    residual (which Proposition 1 says is identically zero) and the three
    risks as expressions.
    """
    m = sum(len(g) for g in groups)
    _check_partition(groups, m)
    law = finite_joint_distribution(m)
    w, q = law.masses, law.cond
    v = sp.symbols(f"v1:{len(groups) + 1}")
    risk = cal = sha = sp.Integer(0)
    for vg, block in zip(v, groups):
        mass = sum(w[i] for i in block)
        mean_y = sum(w[i] * q[i] for i in block) / mass  # E[Y | h(Z) = v_g]
        risk += sum(w[i] * (vg - q[i]) ** 2 for i in block)  # Definition 5
        cal += mass * (vg - mean_y) ** 2  # Definition 3
        sha += sum(w[i] * (mean_y - q[i]) ** 2 for i in block)  # Definition 4
    residual = sp.simplify(sp.together(risk - cal - sha))
    return residual, {"risk": risk, "calibration": cal, "sharpness": sha}


def mse_decomposition_residual(m: int) -> tuple[sp.Expr, dict[str, sp.Expr]]:
    r"""Residual of eq. (2), ``MSE - (Var Y - sharpness + calibration)``, for ``m`` values.

    With :math:`\bar q = \sum_i w_i q_i = \mathbb E[Y]`:
    MSE :math:`= \sum_i w_i\,[q_i (1-z_i)^2 + (1-q_i) z_i^2]`,
    Var Y :math:`= \bar q (1 - \bar q)`, sharpness
    :math:`= \sum_i w_i (q_i - \bar q)^2`, calibration
    :math:`= \sum_i w_i (z_i - q_i)^2`.
    """
    law = finite_joint_distribution(m)
    w, q, z = law
    qbar = sum(wi * qi for wi, qi in zip(w, q))
    terms = {
        "mse": sum(wi * (qi * (1 - zi) ** 2 + (1 - qi) * zi**2) for wi, qi, zi in zip(w, q, z)),
        "variance": qbar * (1 - qbar),
        "sharpness": sum(wi * (qi - qbar) ** 2 for wi, qi in zip(w, q)),
        "calibration": sum(wi * (zi - qi) ** 2 for wi, qi, zi in zip(w, q, z)),
    }
    residual = sp.expand(terms["mse"] - (terms["variance"] - terms["sharpness"] + terms["calibration"]))
    return residual, terms


def gaussian_posterior_log_odds() -> tuple[sp.Expr, sp.Expr]:
    r"""Log posterior odds of the Gaussian mixture, by Bayes' rule, and its residual.

    With :math:`X\mid Y=1 \sim N(\mu,1)`, :math:`X\mid Y=0\sim N(-\mu,1)` and
    prior :math:`\pi`, returns ``(log_odds, residual)`` where ``log_odds`` is
    :math:`\log\frac{\pi\varphi(x-\mu)}{(1-\pi)\varphi(x+\mu)}` simplified and
    ``residual`` is its difference from :math:`2\mu x + \log\frac{\pi}{1-\pi}`
    (zero), which gives :math:`h^*(z) = \sigma(2\mu\,\mathrm{logit}\,z + \log\frac{\pi}{1-\pi})`.
    """
    x = sp.Symbol("x", real=True)
    mu, pi = sp.symbols("mu pi", positive=True)
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    log_odds = sp.expand_log(sp.log(pi * phi(x - mu) / ((1 - pi) * phi(x + mu))), force=True)
    log_odds = sp.simplify(log_odds)
    residual = sp.simplify(sp.expand_log(log_odds - (2 * mu * x + sp.log(pi) - sp.log(1 - pi)), force=True))
    return log_odds, residual


# ---------------------------------------------------------------------------
# Chapter 2: uniform-mass binning (minimizing zeta over B)
# ---------------------------------------------------------------------------


class ZetaOptimum(NamedTuple):
    """Minimization of the simplified bound over B (eqs. (10)-(12)); residuals must be exactly 0."""

    zeta: sp.Expr  # 4 B L / n + 8 K^2 / B^2 with L = log(1/delta) (log B ignored)
    b_star: sp.Expr  # the stationary point
    zeta_at_b_star: sp.Expr  # the bound at B*
    rate_residual: sp.Expr  # zeta(B*) - 6 (4 K^2)^(1/3) L^(2/3) n^(-2/3)
    curvature_at_b_star: sp.Expr  # d^2 zeta / dB^2 at B* (positive: a minimum)
    sample_size: sp.Expr  # the n with zeta(B*) = epsilon, of order epsilon^(-3/2)
    sample_size_residual: sp.Expr  # sample_size - 2 * 6^(3/2) K L epsilon^(-3/2)


def umb_zeta_optimum() -> ZetaOptimum:
    r"""Derive :math:`B^*` and the risk rate from :math:`\zeta(B) = \frac{4BL}{n} + \frac{8K^2}{B^2}`.

    With :math:`L = \log(1/\delta)` (the :math:`\log B` inside
    :math:`\log(4B/\delta)` ignored, as in the paper), the stationary point is
    :math:`B^* = (4K^2 n/L)^{1/3}`, the minimum is
    :math:`\zeta(B^*) = 6(4K^2)^{1/3} L^{2/3} n^{-2/3}` and
    :math:`\zeta(B^*) \le \varepsilon` needs :math:`n = 2\cdot 6^{3/2} K L\,\varepsilon^{-3/2}`.
    """
    b, n, k, big_l, eps = sp.symbols("B n K L epsilon", positive=True)
    zeta = 4 * b * big_l / n + 8 * k**2 / b**2
    (b_star,) = sp.solve(sp.Eq(sp.diff(zeta, b), 0), b)
    at_star = sp.simplify(zeta.subs(b, b_star))
    rate = 6 * (4 * k**2) ** sp.Rational(1, 3) * big_l ** sp.Rational(2, 3) * n ** sp.Rational(-2, 3)
    (n_needed,) = sp.solve(sp.Eq(at_star, eps), n)
    return ZetaOptimum(
        zeta=zeta,
        b_star=b_star,
        zeta_at_b_star=at_star,
        rate_residual=sp.simplify(sp.powsimp(at_star - rate, force=True)),
        curvature_at_b_star=sp.simplify(sp.diff(zeta, b, 2).subs(b, b_star)),
        sample_size=n_needed,
        sample_size_residual=sp.simplify(n_needed - 2 * 6 ** sp.Rational(3, 2) * k * big_l * eps ** sp.Rational(-3, 2)),
    )


def uniform_bins_sharpness() -> tuple[sp.Expr, sp.Expr]:
    r"""Remark 9: sharpness risk of B uniform-mass bins for :math:`Z \sim U[0,1]`, :math:`h^*(z) = z`.

    Each bin :math:`((b-1)/B, b/B]` has mass :math:`1/B` and conditional mean
    at its midpoint, so the risk is :math:`\sum_b \int_{bin} (z - m_b)^2 dz`.
    Returns ``(risk, residual)`` with ``residual = risk - 1/(12 B^2)`` (zero).
    """
    z = sp.Symbol("z", real=True)
    b_count = sp.Symbol("B", positive=True, integer=True)
    j = sp.Symbol("b", positive=True, integer=True)
    lo, hi = (j - 1) / b_count, j / b_count
    per_bin = sp.integrate((z - (lo + hi) / 2) ** 2, (z, lo, hi))
    risk = sp.simplify(sp.summation(sp.simplify(per_bin), (j, 1, b_count)))
    return risk, sp.simplify(risk - 1 / (12 * b_count**2))

# ---------------------------------------------------------------------------
# Chapter 5: label shift (eq. (15), Lemma 10, Theorem 2 step 2)
# ---------------------------------------------------------------------------


def _correction(z, w0, w1):
    """The label-shift correction g_w(z) = w1 z / (w1 z + w0 (1 - z)) of eq. (13)."""
    return w1 * z / (w1 * z + w0 * (1 - z))


def label_shift_composition_residuals() -> dict[str, sp.Expr]:
    r"""Eq. (15), :math:`g^* \circ h^*_P = h^*_Q`, as residuals that simplify to 0.

    ``"general"``: class-conditional densities ``a`` (class 1) and ``b``
    (class 0) of the forecast are arbitrary positive symbols, so
    :math:`h^*_\pi = \pi a / (\pi a + (1-\pi) b)` by Bayes' rule.
    ``"gaussian"``: the mixture of paper 000 with :math:`X \mid Y=k \sim N(\pm\mu, 1)`,
    written in ``x = logit z``.  Priors are ``p`` (source) and ``q`` (target).
    """
    p, q, a, b, mu = sp.symbols("p q a b mu", positive=True)
    x = sp.Symbol("x", real=True)
    w0, w1 = (1 - q) / (1 - p), q / p
    posterior = lambda prior, d1, d0: prior * d1 / (prior * d1 + (1 - prior) * d0)  # noqa: E731
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    general = _correction(posterior(p, a, b), w0, w1) - posterior(q, a, b)
    gaussian = _correction(posterior(p, phi(x - mu), phi(x + mu)), w0, w1) - posterior(q, phi(x - mu), phi(x + mu))
    return {"general": sp.simplify(general), "gaussian": sp.simplify(gaussian)}


def lemma10_derivatives() -> dict[str, sp.Expr]:
    r"""Lemma 10: derivatives of :math:`g_w` and its slopes at the end points.

    Returns ``first`` and ``second`` (the derivatives, simplified), the
    residuals ``first_residual`` of :math:`g' - w_0 w_1 / D^2` and
    ``second_residual`` of :math:`g'' + 2 w_0 w_1 (w_1 - w_0) / D^3` with
    :math:`D = w_1 z + w_0 (1 - z)`, and the slopes ``slope_at_0`` (:math:`w_1/w_0`)
    and ``slope_at_1`` (:math:`w_0/w_1`).  Since :math:`D > 0`, the sign of
    :math:`g''` is that of :math:`w_0 - w_1`, so :math:`g'` is monotone and
    its maximum is the larger end-point slope.
    """
    z = sp.Symbol("z", nonnegative=True)
    w0, w1 = sp.symbols("w0 w1", positive=True)
    g = _correction(z, w0, w1)
    denom = w1 * z + w0 * (1 - z)
    first, second = sp.factor(sp.diff(g, z)), sp.factor(sp.diff(g, z, 2))
    return {
        "first": first,
        "second": second,
        "first_residual": sp.simplify(first - w0 * w1 / denom**2),
        "second_residual": sp.simplify(second + 2 * w0 * w1 * (w1 - w0) / denom**3),
        "slope_at_0": sp.simplify(first.subs(z, 0)),
        "slope_at_1": sp.simplify(first.subs(z, 1)),
    }


def theorem2_step2_residuals() -> dict[str, sp.Expr]:
    r"""The algebra of Step 2 of the proof of Theorem 2 (and of Corollary 9).

    With true weights ``w0, w1``, estimates ``v0, v1`` and
    :math:`D_v = v_1 z + v_0 (1-z)`, :math:`D_w = w_1 z + w_0 (1-z)`:

    * ``difference``: :math:`\hat g - g^* - (v_1 w_0 - w_1 v_0)\,z(1-z)/(D_v D_w)` (0);
    * ``denominator``: :math:`D_v D_w - (v_1 w_0 + w_1 v_0) z (1-z) - v_1 w_1 z^2 - v_0 w_0 (1-z)^2`
      (0, so :math:`D_v D_w \ge (v_1 w_0 + w_1 v_0) z(1-z)`);
    * ``ratio``: :math:`(v_1 w_0 - w_1 v_0)/(v_1 w_0 + w_1 v_0) - (\rho_1 - \rho_0)/(\rho_1 + \rho_0)`
      with :math:`\rho_k = v_k / w_k` (0);
    * ``chernoff_upper``: :math:`(1 + 3\varepsilon)(1 - \varepsilon) - (1 + \varepsilon)`, which
      factors as :math:`\varepsilon(1 - 3\varepsilon) \ge 0` for :math:`\varepsilon \le 1/3`
      (Corollary 9: :math:`(1+\varepsilon)/(1-\varepsilon) \le 1 + 3\varepsilon = \beta`);
    * ``beta_gap``: :math:`(\beta - 1) - (\beta^2 - 1)/(\beta^2 + 1)`, which factors as
      :math:`\beta(\beta-1)^2/(\beta^2+1) \ge 0`, so on the ratio event
      :math:`|\rho_0-\rho_1|/(\rho_0+\rho_1) \le (\beta^2-1)/(\beta^2+1) \le \beta - 1` (Step 4).
    """
    z = sp.Symbol("z", nonnegative=True)
    w0, w1, v0, v1, eps, beta = sp.symbols("w0 w1 v0 v1 epsilon beta", positive=True)
    dv, dw = v1 * z + v0 * (1 - z), w1 * z + w0 * (1 - z)
    rho0, rho1 = v0 / w0, v1 / w1
    return {
        "difference": sp.simplify(_correction(z, v0, v1) - _correction(z, w0, w1) - (v1 * w0 - w1 * v0) * z * (1 - z) / (dv * dw)),
        "denominator": sp.expand(dv * dw - (v1 * w0 + w1 * v0) * z * (1 - z) - v1 * w1 * z**2 - v0 * w0 * (1 - z) ** 2),
        "ratio": sp.simplify((v1 * w0 - w1 * v0) / (v1 * w0 + w1 * v0) - (rho1 - rho0) / (rho1 + rho0)),
        "chernoff_upper": sp.factor((1 + 3 * eps) * (1 - eps) - (1 + eps)),
        "beta_gap": sp.factor((beta - 1) - (beta**2 - 1) / (beta**2 + 1)),
    }


# ---------------------------------------------------------------------------
# Chapter 8: paper 003 (eq. (13), Jensen bounds (2), binormal AUC)
# ---------------------------------------------------------------------------


def implied_auc_residual(n: int) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""Eq. (13) from (3a)-(3b) for a symbolic auto-calibrated score with ``n`` ordered values.

    Masses :math:`\pi_i` (summing to one) and values :math:`s_i` are symbols.  (3b) gives
    :math:`P_1[s_i] = \pi_i s_i/p`, :math:`P_0[s_i] = \pi_i(1-s_i)/(1-p)` with
    :math:`p = \sum_j \pi_j s_j`, and (3a) sums
    :math:`P_1[s_i]\,(P_0[S<s_i] + \tfrac12 P_0[s_i])`.  Returns
    ``(residual, residual_as_printed, auc_3a)``: ``residual`` is (3a) minus (13)
    with the sum over ``i`` starting at 1 (identically zero); ``residual_as_printed``
    is (3a) minus (13) as printed, summing from ``i = 2``, which misses the
    tie term :math:`\pi_1^2 s_1(1-s_1)/2` of the lowest value.
    """
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    free = sp.symbols(f"pi1:{n}", positive=True)
    pi = tuple(free) + (1 - sum(free),)  # masses summing to one
    s = sp.symbols(f"s1:{n + 1}", positive=True)
    p = sum(pi[j] * s[j] for j in range(n))
    P1 = [pi[i] * s[i] / p for i in range(n)]
    P0 = [pi[i] * (1 - s[i]) / (1 - p) for i in range(n)]
    auc_3a = sum(P1[i] * (sum(P0[:i]) + P0[i] / 2) for i in range(n))

    def eq13(first: int) -> sp.Expr:
        num = sum(pi[i] * s[i] * (pi[i] * (1 - s[i]) / 2 + sum(pi[k] * (1 - s[k]) for k in range(i))) for i in range(first, n))
        return num / ((1 - p) * p)

    residual = sp.simplify(sp.together(auc_3a - eq13(0)))
    residual_as_printed = sp.factor(sp.together(auc_3a - eq13(1)))
    return residual, residual_as_printed, auc_3a


def jensen_bounds_derivation(m: int) -> dict[str, sp.Expr]:
    r"""The bounds (2), :math:`(1-q)C(0) + qC(1) \le E[C(Z)] \le C(q)`, for ``Z`` on ``m`` values in [0, 1].

    Concavity gives the chord bound :math:`C(z) \ge (1-z)C(0) + zC(1)` and the
    tangent bound :math:`C(z) \le C(q) + C'(q)(z-q)`; taking expectations with
    :math:`E[Z] = q` turns them into (2).  Returns the two expectation
    residuals (zero for any ``C``) and, for :math:`C = \sqrt{\cdot}`, the chord
    and tangent gaps with their factored (visibly non-negative) forms:
    ``chord_gap - chord_gap_factored`` and ``tangent_gap - tangent_gap_factored`` are zero.
    """
    if m < 1:
        raise ValueError(f"m must be at least 1, got {m}")
    w = sp.symbols(f"w1:{m + 1}", positive=True)
    z = sp.symbols(f"z1:{m + 1}", nonnegative=True)
    weights = tuple(w[:-1]) + (1 - sum(w[:-1]),)
    q = sum(wi * zi for wi, zi in zip(weights, z))
    C0, C1, Cq, dCq = sp.symbols("C0 C1 C_q dC_q")
    chord = sum(wi * ((1 - zi) * C0 + zi * C1) for wi, zi in zip(weights, z))
    tangent = sum(wi * (Cq + dCq * (zi - q)) for wi, zi in zip(weights, z))
    u, t = sp.symbols("u t", positive=True)  # u = sqrt(z), t = sqrt(q)
    chord_gap = u - u**2  # sqrt(z) - [(1-z) * 0 + z * 1]
    tangent_gap = t + (u**2 - t**2) / (2 * t) - u  # C(q) + C'(q)(z - q) - C(z)
    return {
        "chord_residual": sp.expand(chord - ((1 - q) * C0 + q * C1)),
        "tangent_residual": sp.expand(tangent - Cq),
        "chord_gap": chord_gap,
        "chord_gap_factored": u * (1 - u),
        "tangent_gap": tangent_gap,
        "tangent_gap_factored": (u - t) ** 2 / (2 * t),
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
