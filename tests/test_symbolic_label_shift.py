"""companion.label_shift_recalibration.derivations: eq. (15), Lemma 10, Steps 2 and 4 of Theorem 2, Corollary 9 (book: chap-label-shift-recalibration)."""

import sympy as sp

from companion.label_shift_recalibration import (
    label_shift_composition_residuals,
    lemma10_derivatives,
    theorem2_step2_residuals,
)


def test_eq15_composition_is_the_target_posterior():
    res = label_shift_composition_residuals()
    assert res["general"] == 0
    assert res["gaussian"] == 0


def test_lemma10_derivatives_and_end_point_slopes():
    d = lemma10_derivatives()
    assert d["first_residual"] == 0 and d["second_residual"] == 0
    w0, w1 = sp.symbols("w0 w1", positive=True)
    assert sp.simplify(d["slope_at_0"] - w1 / w0) == 0
    assert sp.simplify(d["slope_at_1"] - w0 / w1) == 0
    # Independent numeric check: the derivative against a central difference of g_w, and the sign of g''.
    z = sp.Symbol("z", nonnegative=True)
    for a, b in [(2, 1), (1, 3)]:
        g = lambda t: b * t / (b * t + a * (1 - t))  # noqa: E731
        h = 1e-6
        numeric = (g(1 / 3 + h) - g(1 / 3 - h)) / (2 * h)
        assert abs(float(d["first"].subs({w0: a, w1: b, z: sp.Rational(1, 3)})) - numeric) < 1e-6
        assert sp.sign(d["second"].subs({w0: a, w1: b, z: sp.Rational(1, 3)})) == sp.sign(a - b)


def test_step2_identities():
    r = theorem2_step2_residuals()
    assert r["difference"] == 0 and r["denominator"] == 0 and r["ratio"] == 0
    xi = sp.Symbol("xi", positive=True)
    assert sp.expand(r["chernoff_upper"] - xi * (1 - 3 * xi)) == 0


def test_step4_beta_gap_is_nonnegative():
    beta = sp.Symbol("beta", positive=True)
    gap = theorem2_step2_residuals()["beta_gap"]
    assert sp.simplify(gap - beta * (beta - 1) ** 2 / (beta**2 + 1)) == 0
    # the returned expression, evaluated numerically, against the definition on [1, 2]
    for b in (1.0, 1.2, 1.7, 2.0):
        direct = (b - 1) - (b**2 - 1) / (b**2 + 1)
        assert abs(float(gap.subs(beta, b)) - direct) < 1e-14
        assert direct >= 0


def test_step4_two_bins_gap_is_positive():
    delta = sp.Symbol("delta", positive=True)
    gap = theorem2_step2_residuals()["two_bins_gap"]
    assert sp.simplify(gap - sp.log(4 / delta)) == 0
    for d in (1e-6, 0.1, 0.5, 0.999):
        value = float(gap.subs(delta, d))
        assert abs(value - (2 * sp.log(8 / d) - sp.log(16 / d))) < 1e-12
        assert value > 0
