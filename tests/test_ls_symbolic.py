"""Chapter 5 sympy derivations: eq. (15), Lemma 10, Step 2 of Theorem 2, Corollary 9."""

import sympy as sp

from companion.symbolic import label_shift_composition_residuals, lemma10_derivatives, theorem2_step2_residuals


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
    # Independent numeric check of the second derivative's sign: g'' has the sign of w0 - w1.
    z = sp.Symbol("z", nonnegative=True)
    for (a, b) in [(2, 1), (1, 3)]:
        value = d["second"].subs({w0: a, w1: b, z: sp.Rational(1, 3)})
        assert sp.sign(value) == sp.sign(a - b)


def test_step2_identities():
    r = theorem2_step2_residuals()
    assert r["difference"] == 0 and r["denominator"] == 0 and r["ratio"] == 0
    eps = sp.Symbol("epsilon", positive=True)
    assert sp.expand(r["chernoff_upper"] - eps * (1 - 3 * eps)) == 0


def test_step4_beta_gap_is_nonnegative():
    beta = sp.Symbol("beta", positive=True)
    gap = theorem2_step2_residuals()["beta_gap"]
    assert sp.simplify(gap - beta * (beta - 1) ** 2 / (beta**2 + 1)) == 0
    # independent numeric spot checks on [1, 2]
    for b in (1.0, 1.2, 1.7, 2.0):
        assert (b - 1) - (b**2 - 1) / (b**2 + 1) >= 0
