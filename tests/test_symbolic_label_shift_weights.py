"""Symbolic checks for the label-shift weights and binning-under-label-shift chapters (every residual is exactly 0)."""

import sympy as sp

from companion.binning_label_shift import (
    proposition1_residuals,
    theorem3_epsilon_residual,
    theorem4_algebra,
    theorem4_zero_weight_example,
)
from companion.label_shift_weights import (
    bayes_correction_residuals,
    bbse_perturbation_residuals,
    em_stationarity,
    moment_identity_residuals,
    remark5_chain,
)


def test_bayes_correction_and_moment_identity():
    for k in (2, 3, 4):
        assert bayes_correction_residuals(k) == [0] * k
    for k, m in ((3, 3), (2, 4)):
        res = moment_identity_residuals(k, m)
        assert res["label_shift"] == [0] * k
        assert _moment_residual_numeric(k, m) == res["shifted_example"]


def _moment_residual_numeric(k, m):
    """nu - C q/p at the documented rational instance, in exact fractions without sympy (the check can fail)."""
    from fractions import Fraction as F

    c = [[F(x + y + 1) / sum(F(r + y + 1) for r in range(m)) for y in range(k)] for x in range(m)]
    d = [[F((-1) ** (x + y), 20) for y in range(k)] for x in range(m - 1)]
    d.append([-sum(d[x][y] for x in range(m - 1)) for y in range(k)])
    p, q, t = [F(1, k)] * k, [F(2 * (y + 1), k * (k + 1)) for y in range(k)], F(1, 10)
    phi = [[p[i] * c[x][i] / sum(p[j] * c[x][j] for j in range(k)) for x in range(m)] for i in range(k)]
    target = [sum(q[y] * (c[x][y] + t * d[x][y]) for y in range(k)) for x in range(m)]
    nu = [sum(phi[i][x] * target[x] for x in range(m)) for i in range(k)]
    cw = [sum(phi[i][x] * c[x][j] * p[j] * (q[j] / p[j]) for x in range(m) for j in range(k)) for i in range(k)]
    out = [a - b for a, b in zip(nu, cw)]
    assert any(out), "the perturbed instance must break the identity"
    return [sp.Rational(v.numerator, v.denominator) for v in out]


def test_bbse_perturbation_identity():
    assert bbse_perturbation_residuals(2) == [0, 0]
    assert bbse_perturbation_residuals(3) == [0, 0, 0]


def test_em_fixed_point_is_stationary_and_likelihood_concave():
    d = em_stationarity(3, 2)
    assert d["euler_residual"] == 0
    assert d["fixed_point_residuals"] == [0, 0, 0]
    assert d["hessian_residuals"] == [0] * 9


def test_remark5_chain():
    d = remark5_chain()
    r = sp.Symbol("r", positive=True)
    assert d["norm_residual"] == 0
    assert d["corner_value"] == r
    half = {r: sp.Rational(1, 3)}
    assert d["square_gap"].subs(half) > 0 and d["unsquared_gap"].subs(half) > 0
    assert d["paper_step_gap"].subs(half) > 0
    # Where each step of the chain of App. D holds, solved over (0, 1) (the test fixes the expected sets itself).
    assert d["paper_step_holds_on"] == sp.Interval.open(0, 1)
    assert d["square_gap_holds_on"] == sp.Interval.Lopen(0, sp.Rational(1, 2))
    assert d["unsquared_gap_holds_on"] == sp.Interval.Lopen(0, sp.Rational(1, 2))
    # Independent of the factored forms: the squared chain fails just above r = 1/2.
    assert (4 * r**2 - (r / (1 - r)) ** 2).subs(r, sp.Rational(51, 100)) < 0
    a, b = sp.symbols("a b", positive=True)
    assert sp.simplify(d["ratio_da"] - 2 * b / (a + b) ** 2) == 0


def test_binning_identities():
    assert theorem3_epsilon_residual() == 0
    assert proposition1_residuals(3) == [0, 0, 0]
    t = theorem4_algebra(3)
    assert t["split_residuals"] == [0, 0, 0] and t["weight_split_residuals"] == [0, 0, 0]
    assert t["first_sum_residual"] == 0 and t["second_sum_residual"] == 0 and t["lower_bound_residual"] == 0


def test_zero_weight_counterexample_is_exact():
    d = theorem4_zero_weight_example()
    assert d["lhs"] == sp.Rational(16, 39)
    assert d["paper_rhs"] == sp.Rational(4, 25)
    assert d["lhs"] > d["paper_rhs"]
    assert d["binwise_rhs"] >= d["lhs"]


def test_symbolic_builders_validate_their_sizes():
    import numpy as np
    import pytest

    cases = [(bayes_correction_residuals, "k", 8), (proposition1_residuals, "k", 8), (theorem4_algebra, "k", 5),
             (bbse_perturbation_residuals, "k", 4)]
    for f, name, top in cases:
        for bad in (1, -1, 2.5, None, True, "3", 10**400, np.uint64(2**64 - 1), top + 1):
            with pytest.raises(ValueError, match=name):
                f(bad)
    assert bayes_correction_residuals(np.int64(2)) == [0, 0]
    for kw in ({"k": 1}, {"k": 5}, {"n": 0}, {"n": 5}, {"n": 2.5}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            em_stationarity(**{"k": 2, "n": 1, **kw})
    for kw in ({"k": 7}, {"m": 1}, {"m": 7}, {"m": "3"}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            moment_identity_residuals(**{"k": 2, "m": 2, **kw})
