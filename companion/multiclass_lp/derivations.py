r"""Sympy derivations for multiclass calibration under :math:`\ell_p` error (paper 002, as reconstructed in the book).

Each function returns the expressions a chapter cell shows and a test checks;
every ``*_residual`` must simplify to exactly 0.  Labels refer to the
chapter "Multiclass calibration under l_p error".
"""

from __future__ import annotations

from typing import NamedTuple

import sympy as sp

from .._checks import as_sequence, check_int

__all__ = [
    "LevelSetCount",
    "level_set_count_identity",
    "patch_step_identity",
    "group_squared_error_identity",
    "same_level_set_change",
    "lemma11_constants",
    "termination_constants",
    "lemma7_bucket_constants",
    "grid_gain_factor",
    "lemma8_constants",
    "two_worlds_errors",
    "recalibration_lower_bound_constants",
]


#: Largest number of classes the builders accept: their expressions grow with ``k`` (sums of ``k``
#: squares, polynomials of degree ``k``) and ``k <= 12`` keeps each call under a second.
_MAX_K = 12


def _check_k(k, name: str = "k") -> int:
    """``k`` as an int in [2, _MAX_K] (bounds checked before any sympy construction)."""
    return check_int(k, name, minimum=2, maximum=_MAX_K)


def _check_class(i, k: int, name: str) -> int:
    """A class index in {0, ..., k - 1}."""
    return check_int(i, name, minimum=0, maximum=k - 1)


def _k_values(k_values, name: str = "k_values") -> list[int]:
    """A non-empty 1-D sequence of class counts in [2, _MAX_K], without repeats (first occurrence kept)."""
    return list(dict.fromkeys(_check_k(v, f"{name} entries") for v in as_sequence(k_values, name).tolist()))


class LevelSetCount(NamedTuple):
    """Lemma 2 and the exact count (``lem-multiclass-lp-count``, ``lem-multiclass-lp-exact-count``)."""

    #: For each k: the sum over the slack s = 0..k-1 of C(m - s + k - 1, k - 1), a polynomial in m.
    by_slack: dict
    #: For each k: the residual by_slack[k] - (C(m + k, k) - C(m, k)), expanded (zero).
    residuals: dict
    #: (k + j)/j - (k + 1), not positive: each factor of C(m + k, m) is at most k + 1.
    ratio_factor: sp.Expr
    #: The same simplified, -k (j - 1)/j, which is <= 0 for j >= 1.
    ratio_factor_simplified: sp.Expr


def level_set_count_identity(k_values=(2, 3, 4, 5, 6)) -> LevelSetCount:
    r"""Count level sets by their slack :math:`s = m - \sum_i a_i \in \{0, \dots, k-1\}` and compare with :math:`\binom{m+k}{k} - \binom{m}{k}`.

    For fixed ``k`` both sides are polynomials in :math:`m` (valid for
    :math:`m \ge k`); the residual is expanded to 0.  The factor check shows
    :math:`\binom{m+k}{m} = \prod_{j=1}^m \frac{k+j}{j} \le (k+1)^m`.
    Each entry of ``k_values`` must be an integer from 2 to 12.
    """
    k_values = _k_values(k_values)
    m = sp.Symbol("m", integer=True, positive=True)
    by_slack, residuals = {}, {}
    for k in k_values:
        total = sum(sp.expand_func(sp.binomial(m - s + k - 1, k - 1)) for s in range(k))
        exact = sp.expand_func(sp.binomial(m + k, k)) - sp.expand_func(sp.binomial(m, k))
        by_slack[k] = sp.factor(sp.expand(total))
        residuals[k] = sp.expand(total - exact)
    kk, j = sp.symbols("k j", positive=True)
    factor = (kk + j) / j - (kk + 1)
    return LevelSetCount(by_slack, residuals, factor, sp.factor(sp.simplify(factor)))


def patch_step_identity(k: int = 4, i: int = 0) -> tuple[sp.Expr, sp.Expr]:
    r"""Stage 1 before projecting (``lem-multiclass-lp-patch``): replacing :math:`u_i` by :math:`\hat y_i` changes :math:`\|\cdot - \bar y\|^2` by :math:`(\hat y_i - \bar y_i)^2 - (u_i - \bar y_i)^2`.

    Returns ``(change, residual)`` for ``k`` symbolic coordinates (``2 <= k <= 12``, ``0 <= i < k``).
    """
    k = _check_k(k)
    i = _check_class(i, k, "i")
    u = sp.symbols(f"u0:{k}", real=True)
    mu = sp.symbols(" ".join(rf"\bar{{y}}_{j}" for j in range(k)), real=True)
    yhat = sp.Symbol(r"\hat{y}_" + str(i), real=True)
    w = list(u)
    w[i] = yhat
    change = sum((w[j] - mu[j]) ** 2 for j in range(k)) - sum((u[j] - mu[j]) ** 2 for j in range(k))
    claim = (yhat - mu[i]) ** 2 - (u[i] - mu[i]) ** 2
    return sp.simplify(change), sp.simplify(change - claim)


def group_squared_error_identity(k: int = 4) -> tuple[sp.Expr, sp.Expr]:
    r"""Squared error of a constant prediction :math:`u` on a group with label law :math:`\bar y`: :math:`\|u - \bar y\|^2 + 1 - \|\bar y\|^2`.

    :math:`\mathbb E\|u - e_Y\|^2 = \sum_y \bar y_y \|u - e_y\|^2` with
    :math:`\sum_y \bar y_y = 1`.  Returns ``(expected, residual)`` (``2 <= k <= 12``).
    """
    k = _check_k(k)
    u = sp.symbols(f"u0:{k}", real=True)
    mu = sp.symbols(" ".join(rf"\bar{{y}}_{j}" for j in range(k)), real=True)
    expected = sum(mu[y] * sum((u[j] - (1 if j == y else 0)) ** 2 for j in range(k)) for y in range(k))
    claim = sum((u[j] - mu[j]) ** 2 for j in range(k)) + 1 - sum(m**2 for m in mu)
    last = 1 - sum(mu[:-1])  # impose sum(mu) = 1
    residual = sp.expand((expected - claim).subs(mu[-1], last))
    return sp.expand(expected.subs(mu[-1], last)), residual


def same_level_set_change(k: int = 4, y: int = 0) -> dict:
    r"""Lemma 12 and the merge step (``lem-multiclass-lp-discretisation``): moving a prediction inside its level set.

    For :math:`u, w \in \Delta_k`, :math:`\|w - e_y\|^2 - \|u - e_y\|^2 =
    \sum_i (w_i - u_i)(w_i + u_i - 2\,\mathbb 1\{i = y\})`, and on the simplex
    :math:`\sum_i |w_i + u_i - 2\,\mathbb 1\{i=y\}| = 2(2 - w_y - u_y)`.  Returns
    the two residuals (``identity``, ``abs_sum``; zero); ``2 <= k <= 12``, ``0 <= y < k``.
    """
    k = _check_k(k)
    y = _check_class(y, k, "y")
    u = sp.symbols(f"u0:{k}", nonnegative=True)
    w = sp.symbols(f"w0:{k}", nonnegative=True)
    e = [1 if i == y else 0 for i in range(k)]
    lhs = sum((w[i] - e[i]) ** 2 for i in range(k)) - sum((u[i] - e[i]) ** 2 for i in range(k))
    rhs = sum((w[i] - u[i]) * (w[i] + u[i] - 2 * e[i]) for i in range(k))
    # signs on the simplex: w_i + u_i >= 0 for i != y, and w_y + u_y - 2 <= 0
    abs_sum = sum(w[i] + u[i] for i in range(k) if i != y) + (2 - w[y] - u[y])
    other = [i for i in range(k) if i != y][0]
    on_simplex = {w[other]: 1 - sum(w[i] for i in range(k) if i != other), u[other]: 1 - sum(u[i] for i in range(k) if i != other)}
    return {
        "identity": sp.expand(lhs - rhs),
        "abs_sum": sp.expand((abs_sum - 2 * (2 - w[y] - u[y])).subs(on_simplex)),
    }


def lemma11_constants() -> dict:
    r"""Constants of the paper's Lemma 11 as proved in the book (``lem-multiclass-lp-patch``) under :math:`|\hat q - q| \le \omega/8`, :math:`q|\hat y_i - \bar y_i| \le \omega/8` and :math:`q \ge \omega/2` (one threshold :math:`\omega` for errors and masses).

    ``ratio_low`` :math:`= \min q/\hat q = 4/5`; ``gap`` :math:`= 4/5 - 1/8`
    (lower bound on :math:`q|u_i - \bar y_i|/\omega`); ``decrease`` :math:`=
    \mathrm{gap}^2 - (1/8)^2 = 11/25` (lower bound on the drop of the squared
    error times :math:`q/\omega^2`); ``decrease_minus_two_fifths`` (positive).
    """
    q, omega = sp.symbols("q omega", positive=True)
    ratio = q / (q + omega / 8)
    ratio_low = sp.simplify(ratio.subs(q, omega / 2))
    increasing = sp.simplify(sp.diff(ratio, q))  # positive: the minimum is at the smallest q
    gap = ratio_low - sp.Rational(1, 8)
    decrease = sp.nsimplify(gap**2 - sp.Rational(1, 64))
    return {
        "ratio_low": ratio_low,
        "ratio_derivative": increasing,
        "gap": gap,
        "decrease": decrease,
        "decrease_minus_two_fifths": decrease - sp.Rational(2, 5),
    }


def termination_constants() -> dict:
    r"""Constants of the paper's Lemmas 13-14 and Theorem 6 as proved in the book (``thm-multiclass-lp-main``).

    ``ratio_high`` :math:`= \max q/\hat q = 4/3`; ``group_error`` :math:`=
    4/3 + 1/8 = 35/24 \le 3/2`; ``lp_constant``: with group errors and
    left-out masses at most :math:`\tfrac32\omega`, Lemma 14 gives
    :math:`(2^{p-1}\cdot 4(\tfrac32\omega)^{p-1})^{1/p} = 3(4/3)^{1/p}\omega^{1-1/p}`
    (``lp_residual`` is the difference, zero); ``threshold``: the root
    :math:`\omega` of :math:`4\omega^{1-1/p} = \varepsilon`; ``iterations``:
    :math:`(2 + D)/(\tfrac25\omega^2)` with :math:`D = 4\lambda\log_{3/2}(2/\omega)`.
    """
    q, omega, p, eps, lam = sp.symbols("q omega p varepsilon lambda", positive=True)
    a = omega  # one threshold for errors and masses
    ratio_high = sp.simplify((q / (q - omega / 8)).subs(q, omega / 2))
    group_error = ratio_high + sp.Rational(1, 8)
    bound = (2 ** (p - 1) * 4 * (sp.Rational(3, 2) * a) ** (p - 1)) ** (1 / p)
    claim = 3 * sp.Rational(4, 3) ** (1 / p) * a ** (1 - 1 / p)
    lp_residual = sp.simplify(sp.expand_power_base(sp.log(bound) - sp.log(claim), force=True).expand(force=True))
    (omega_root,) = sp.solve(sp.Eq(4 * a ** ((p - 1) / p), eps), a)
    d = 4 * lam * sp.log(2 / omega) / sp.log(sp.Rational(3, 2))
    return {
        "ratio_high": ratio_high,
        "group_error": group_error,
        "group_error_minus_three_halves": group_error - sp.Rational(3, 2),
        "lp_bound": bound,
        "lp_residual": lp_residual,
        "threshold": sp.simplify(omega_root),
        "threshold_residual": sp.simplify(omega_root - (eps / 4) ** (p / (p - 1))),
        "iterations": (5 + 10 * lam * sp.log(2 / omega) / sp.log(sp.Rational(3, 2))) / a**2,
        "iterations_residual": sp.simplify((2 + d) / (sp.Rational(2, 5) * a**2) - (5 + 10 * lam * sp.log(2 / omega) / sp.log(sp.Rational(3, 2))) / a**2),
    }


def lemma8_constants() -> dict:
    r"""The paper's Lemma 8 as proved in the book (``lem-multiclass-lp-disjoint``): Laplace tail, privacy and the accuracy budget.

    ``tail``: :math:`P[|L| > t] = e^{-t/b}` for :math:`L \sim \mathrm{Laplace}(b)`
    (``tail_residual`` zero); with privacy parameter :math:`\varepsilon_{\mathrm{DP}} = \psi/4`, :math:`c = \psi/4`,
    :math:`b = 8/(n\psi)` and :math:`n = 32\log(4kT/(\delta\psi))/\psi^2`:
    ``noise_radius`` :math:`= b\log(kT/\delta')` at :math:`\delta' = \delta\psi/4`
    equals :math:`\psi/4` (``noise_residual`` zero); ``exp_gap``
    :math:`= \psi/3 - (e^{\psi/4} - 1)` at :math:`\psi = 1` (positive, and the
    gap is concave so it is non-negative on [0, 1]); ``total`` :math:`= \psi/4 + \psi/3 + \psi/4 = 5\psi/6`.
    """
    x, t, b, psi, n, k, big_t, delta = sp.symbols("x t b psi n k T delta", positive=True)
    density = sp.exp(-x / b) / (2 * b)
    tail = 2 * sp.integrate(density, (x, t, sp.oo))
    b_value = 8 / (n * psi)
    n_value = 32 * sp.log(4 * k * big_t / (delta * psi)) / psi**2
    radius = (b_value * sp.log(k * big_t / (delta * psi / 4))).subs(n, n_value)
    gap = psi / 3 - (sp.exp(psi / 4) - 1)
    return {
        "tail": sp.simplify(tail),
        "tail_residual": sp.simplify(tail - sp.exp(-t / b)),
        "noise_radius": sp.simplify(radius),
        "noise_residual": sp.simplify(radius - psi / 4),
        "exp_gap_at_1": gap.subs(psi, 1),
        "exp_gap_second_derivative": sp.diff(gap, psi, 2),
        "total": psi / 4 + psi / 3 + psi / 4,
    }


def grid_gain_factor() -> dict:
    r"""Factors of :math:`\binom{m+k}{k}/(m+1)^k = \prod_{j=1}^k \frac{m+j}{j(m+1)}` (``cor-multiclass-lp-gain``).

    ``one_minus_factor`` :math:`= 1 - \frac{m+j}{j(m+1)}` in factored form
    (non-negative for :math:`j \ge 1`); ``derivative`` of :math:`(m+j)/j` in
    :math:`j` (negative: the factors decrease); ``three_quarters_gap``
    :math:`= \frac34 - \frac{m+2}{2(m+1)}` factored (non-negative for :math:`m \ge 1`);
    ``product_residual``: the product minus :math:`\binom{m+k}{k}/(m+1)^k` for
    ``k = 2, ..., 6`` (zeros).
    """
    m, j = sp.symbols("m j", positive=True)
    factor = (m + j) / (j * (m + 1))
    residuals = {
        k: sp.simplify(sp.prod([factor.subs(j, i) for i in range(1, k + 1)]) - sp.binomial(m + k, k).expand(func=True) / (m + 1) ** k)
        for k in range(2, 7)
    }
    return {
        "one_minus_factor": sp.factor(1 - factor),
        "derivative": sp.simplify(sp.diff((m + j) / j, j)),
        "three_quarters_gap": sp.factor(sp.Rational(3, 4) - factor.subs(j, 2)),
        "product_residual": residuals,
    }


def lemma7_bucket_constants() -> dict:
    r"""Constants of the bucket proof of the book's Lemma 7 (``lem-multiclass-lp-bins``).

    Light level sets (mass below :math:`\omega/2`) are grouped into buckets closed
    once their mass reaches :math:`\omega/4`: ``bucket_mass`` :math:`= \omega/4 + \omega/2`
    bounds a bucket's mass, ``bucket_gap`` :math:`= \omega -` that is the deviation a
    light level set needs to look heavy; ``heavy_gap`` :math:`= 3\omega/2 - \omega` the
    deviation a level set of mass at least :math:`3\omega/2` needs to look light.
    Hoeffding exponents :math:`2n\,\mathrm{gap}^2`: ``bucket_exponent``,
    ``heavy_exponent``.  Events: at most ``n_events`` :math:`= 2/(3\omega) + 4/\omega + 1`;
    ``events_slack`` :math:`= 6/\omega -` ``n_events`` is non-negative for
    :math:`\omega \le 1` (its value at :math:`\omega = 1` is ``events_slack_at_1``,
    and it decreases in :math:`\omega`); ``sample_size_residual`` is the root of
    :math:`(6/\omega)e^{-n\omega^2/8} = \delta` minus :math:`8\log(6/(\omega\delta))/\omega^2` (zero).
    """
    omega, n, delta = sp.symbols("omega n delta", positive=True)
    bucket_mass = omega / 4 + omega / 2
    bucket_gap = omega - bucket_mass
    heavy_gap = sp.Rational(3, 2) * omega - omega
    n_events = 2 / (3 * omega) + 4 / omega + 1
    slack = 6 / omega - n_events
    size = sp.solve(sp.Eq(6 / omega * sp.exp(-n * omega**2 / 8), delta), n)
    return {
        "bucket_mass": bucket_mass,
        "bucket_gap": bucket_gap,
        "heavy_gap": heavy_gap,
        "bucket_exponent": sp.expand(2 * n * bucket_gap**2),
        "heavy_exponent": sp.expand(2 * n * heavy_gap**2),
        "n_events": sp.together(n_events),
        "events_slack": sp.simplify(slack),
        "events_slack_at_1": slack.subs(omega, 1),
        "events_slack_derivative": sp.simplify(sp.diff(slack, omega)),
        "sample_size_residual": sp.simplify(sp.expand_log(size[0] - 8 * sp.log(6 / (omega * delta)) / omega**2, force=True)),
    }


def two_worlds_errors() -> dict:
    r"""Errors of world B of ``thm-multiclass-lp-testing``: :math:`N` bins of mass :math:`1/N`, two classes, bias :math:`\pm\chi`.

    Every bin contributes :math:`\chi/N` in each of the two classes, so
    :math:`\mathrm{err}_p = (2N(\chi/N)^p)^{1/p} = 2^{1/p} \chi N^{1/p - 1}`
    (``residual`` zero): :math:`2\chi` at :math:`p = 1`, vanishing as
    :math:`N \to \infty` for every :math:`p > 1`.  ``collision_bound``: the
    probability that two of :math:`n` uniform draws share one of :math:`N`
    bins is at most :math:`\binom n2/N`.
    """
    big_n, b, p, n = sp.symbols("N chi p n", positive=True)
    err = (2 * big_n * (b / big_n) ** p) ** (1 / p)
    claim = 2 ** (1 / p) * b * big_n ** (1 / p - 1)
    residual = sp.simplify(sp.expand_power_base(sp.log(err) - sp.log(claim), force=True).expand(force=True))
    return {
        "err": err,
        "closed_form": claim,
        "residual": residual,
        "at_p1": sp.simplify(claim.subs(p, 1)),
        "limit_large_N_p2": sp.limit(claim.subs(p, 2), big_n, sp.oo),
        "collision_bound": sp.binomial(n, 2) / big_n,
    }


def recalibration_lower_bound_constants() -> dict:
    r"""Constants of the reduction from recalibration to testing (``cor-multiclass-lp-recalibration-lower-bound``).

    Two classes, :math:`X` a single point, :math:`P[Y = 1] = 1/2` (world A) or
    :math:`1/2 + d` (world B).  ``chi_square`` :math:`= \sum_y (P_B(y) - P_A(y))^2/P_A(y) = 4d^2`
    bounds :math:`\mathrm{KL}(P_B\|P_A)`; Pinsker's inequality with total
    variation at least :math:`1/3` then needs :math:`n \ge 1/(18 d^2)`:
    ``n_bound`` at :math:`d = 3\varepsilon` (``n_bound_residual`` :math:`= n -
    1/(162\varepsilon^2)`, zero) and ``n_bound_gap`` at :math:`d = \gamma\varepsilon`,
    whose limit as :math:`\gamma \downarrow 2` is ``n_bound_limit``.  The test says B when
    :math:`u_1 > 1/2 + 3\varepsilon/2`: ``margin_a`` is the cut minus the largest
    :math:`u_1` within :math:`\varepsilon` of world A, ``margin_b`` the smallest within
    :math:`\varepsilon` of world B minus the cut (both :math:`\varepsilon/2 > 0`).
    ``zero_sample_errors``: the errors, in the proposition's worlds (gap
    :math:`\varepsilon`), of the data-free output :math:`u_1 = 1/2 + \varepsilon/2` (both
    :math:`\varepsilon/2`), which is why the reduction needs a gap above :math:`2\varepsilon`.
    """
    eps, d, n, gamma = sp.symbols("varepsilon d n gamma", positive=True)
    p_a = (sp.Rational(1, 2), sp.Rational(1, 2))
    p_b = (sp.Rational(1, 2) + d, sp.Rational(1, 2) - d)
    chi = sp.simplify(sum((b - a) ** 2 / a for a, b in zip(p_a, p_b)))
    # Pinsker: 1/3 <= TV <= sqrt(n KL / 2) <= sqrt(n chi / 2), solved for n
    size = sp.solve(sp.Eq(sp.Rational(1, 9), n * chi / 2), n)[0]
    cut = sp.Rational(1, 2) + sp.Rational(3, 2) * eps
    u = sp.Rational(1, 2) + eps / 2
    return {
        "chi_square": chi,
        "n_bound": sp.simplify(size.subs(d, 3 * eps)),
        "n_bound_residual": sp.simplify(size.subs(d, 3 * eps) - 1 / (162 * eps**2)),
        "n_bound_gap": sp.simplify(size.subs(d, gamma * eps)),
        "n_bound_limit": sp.limit(size.subs(d, gamma * eps), gamma, 2),
        "margin_a": sp.simplify(cut - (sp.Rational(1, 2) + eps)),
        "margin_b": sp.simplify((sp.Rational(1, 2) + 3 * eps - eps) - cut),
        "zero_sample_errors": (sp.Abs(u - sp.Rational(1, 2)), sp.Abs(u - sp.Rational(1, 2) - eps)),
    }
