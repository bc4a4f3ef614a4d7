"""Chapter 2 sympy derivations: B* ~ n^(1/3), rate n^(-2/3), Remark 9."""

import sympy as sp

from companion.symbolic import umb_zeta_optimum, uniform_bins_sharpness


def test_zeta_optimum():
    r = umb_zeta_optimum()
    b, n, k, big_l = sp.symbols("B n K L", positive=True)
    assert r.rate_residual == 0 and r.sample_size_residual == 0
    # B* solves the first-order condition and has the n^(1/3) L^(-1/3) order of eq. (10)
    assert sp.simplify(sp.diff(r.zeta, b).subs(b, r.b_star)) == 0
    assert sp.simplify(r.b_star**3 - 4 * k**2 * n / big_l) == 0
    assert r.curvature_at_b_star.is_positive
    # numerical spot check: no integer-free B does better than B*
    vals = {n: 10**6, k: 2, big_l: sp.log(10)}
    best = float(r.zeta_at_b_star.subs(vals))
    for trial in (0.5, 0.9, 1.1, 2.0):
        assert float(r.zeta.subs(vals).subs(b, trial * r.b_star.subs(vals))) > best


def test_remark9():
    risk, residual = uniform_bins_sharpness()
    assert residual == 0
    assert risk.subs(sp.Symbol("B", positive=True, integer=True), 4) == sp.Rational(1, 192)
