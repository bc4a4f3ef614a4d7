"""Sympy derivations for uniform-mass binning (companion.uniform_mass_binning.derivations): eq-umb-binwise, eqs. (10)-(12), Remark 9."""

import sympy as sp

from companion.uniform_mass_binning import binwise_pooling_identity, umb_zeta_optimum, uniform_bins_sharpness


def test_binwise_identity_for_every_tie_pattern():
    patterns = binwise_pooling_identity(4)
    assert len(patterns) == 15  # Bell number B_4
    for r in patterns:
        assert r.binwise == 0 and r.pooled == 0
        assert r.calibration_shift == 0 and r.sharpness_shift == 0
        # pooling moves something exactly when two bins share a value
        assert (r.shift == 0) == all(len(g) == 1 for g in r.groups)


def test_shift_matches_a_numeric_example():
    (tied,) = [r for r in binwise_pooling_identity(4) if sorted(map(sorted, r.groups)) == [[0, 1], [2], [3]]]
    p, theta = [0.1, 0.2, 0.3, 0.4], [0.1, 0.5, 0.6, 0.9]
    pooled_mean = (0.1 * 0.1 + 0.2 * 0.5) / 0.3
    expected = 0.1 * (0.1 - pooled_mean) ** 2 + 0.2 * (0.5 - pooled_mean) ** 2
    subs = {sp.Symbol(f"p{i + 1}"): p[i] for i in range(4)} | {sp.Symbol(f"theta{i + 1}"): theta[i] for i in range(4)}
    assert abs(float(tied.shift.subs(subs)) - expected) < 1e-14


def test_zeta_optimum():
    r = umb_zeta_optimum()
    b, n, k, tau = sp.symbols("B n K tau", positive=True)
    assert r.rate_residual == 0 and r.sample_size_residual == 0 and r.rounded_residual == 0
    # B* solves the first-order condition and has the n^(1/3) tau^(-1/3) order of eq. (10)
    assert sp.simplify(sp.diff(r.zeta, b).subs(b, r.b_star)) == 0
    assert sp.simplify(r.b_star**3 - 4 * k**2 * n / tau) == 0
    assert r.curvature_at_b_star.is_positive
    # numerical spot check: no real B does better than B*
    vals = {n: 10**6, k: 2, tau: sp.log(10)}
    best = float(r.zeta_at_b_star.subs(vals))
    for trial in (0.5, 0.9, 1.1, 2.0):
        assert float(r.zeta.subs(vals).subs(b, trial * r.b_star.subs(vals))) > best
    # the corollary's bound at B*, evaluated numerically from its definition
    b_num = float(r.b_star.subs(vals))
    assert abs(float(r.rounded_bound.subs(vals)) - (16 * b_num * float(sp.log(10)) / 1e6 + 32 / b_num**2)) < 1e-15


def test_remark9():
    risk, residual = uniform_bins_sharpness()
    assert residual == 0
    assert risk.subs(sp.Symbol("B", positive=True, integer=True), 4) == sp.Rational(1, 192)
