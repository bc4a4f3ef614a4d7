"""Sympy derivations of the l_p calibration chapter (companion.multiclass_lp.derivations)."""

import math

import numpy as np
import pytest
import sympy as sp

from companion.multiclass_lp import (
    group_squared_error_identity,
    lemma11_constants,
    lemma8_constants,
    level_set_count,
    level_set_count_identity,
    patch_step_identity,
    same_level_set_change,
    termination_constants,
    two_worlds_errors,
)


def test_level_set_count_identity():
    r = level_set_count_identity()
    assert all(v == 0 for v in r.residuals.values())
    m = sp.Symbol("m", integer=True, positive=True)
    # the polynomial agrees with the companion's count wherever m >= k
    for k, poly in r.by_slack.items():
        for mm in range(k, k + 6):
            assert poly.subs(m, mm) == level_set_count(k, 1 / mm)
    j, k = sp.symbols("j k", positive=True)
    assert sp.simplify(r.ratio_factor_simplified + k * (j - 1) / j) == 0


def test_patch_and_group_identities():
    change, residual = patch_step_identity(5, 2)
    assert residual == 0
    _, residual = group_squared_error_identity(4)
    assert residual == 0
    checks = same_level_set_change(5, 1)
    assert checks["identity"] == 0 and checks["abs_sum"] == 0


def test_lemma11_and_termination_constants():
    c = lemma11_constants()
    assert c["ratio_low"] == sp.Rational(4, 5) and c["decrease"] == sp.Rational(11, 25)
    assert c["decrease_minus_two_fifths"] > 0 and c["ratio_derivative"].is_positive
    t = termination_constants()
    assert t["ratio_high"] == sp.Rational(4, 3) and t["group_error"] == sp.Rational(35, 24)
    assert t["group_error_minus_three_halves"] < 0
    assert t["lp_residual"] == 0 and t["threshold_residual"] == 0 and t["iterations_residual"] == 0
    # 3 (4/3)^(1/p) <= 4 for every p >= 1, which is what makes omega = (eps/4)^(p/(p-1)) enough
    for p in (1, 1.5, 2, 5, 50):
        assert 3 * (4 / 3) ** (1 / p) <= 4 + 1e-12
    # numeric spot check of the Lemma 14 constant
    p_, a_ = sp.symbols("p omega", positive=True)
    val = float(t["lp_bound"].subs({p_: 3, a_: sp.Rational(1, 100)}))
    assert math.isclose(val, 3 * (4 / 3) ** (1 / 3) * 0.01 ** (2 / 3), rel_tol=1e-12)


def test_lemma8_constants():
    c = lemma8_constants()
    assert c["tail_residual"] == 0 and c["noise_residual"] == 0
    assert float(c["exp_gap_at_1"]) > 0
    psi = sp.Symbol("psi", positive=True)
    assert c["exp_gap_second_derivative"].subs(psi, 1) < 0
    assert sp.simplify(c["total"] - sp.Rational(5, 6) * psi) == 0
    # the concave gap psi/3 - (e^(psi/4) - 1) is non-negative on a grid of [0, 1]
    grid = np.linspace(0, 1, 101)
    assert np.all(grid / 3 - np.expm1(grid / 4) >= 0)


def test_two_worlds_closed_form():
    c = two_worlds_errors()
    b = sp.Symbol("chi", positive=True)
    assert c["residual"] == 0 and sp.simplify(c["at_p1"] - 2 * b) == 0 and c["limit_large_N_p2"] == 0


def test_builders_validate_sizes_and_indices():
    import pytest

    for bad in (1, 13, 2.5, True, None, "3", 10**400, np.uint64(2**64 - 1)):
        for f in (group_squared_error_identity, patch_step_identity, same_level_set_change):
            with pytest.raises(ValueError, match="k"):
                f(bad)
        with pytest.raises(ValueError, match="k_values"):
            level_set_count_identity((bad,))
    for bad in (-1, 3, 2.5, True, None, "0", 10**400):
        with pytest.raises(ValueError, match="i"):
            patch_step_identity(3, bad)
        with pytest.raises(ValueError, match="y"):
            same_level_set_change(3, bad)
    for bad in ((), None, [[2, 3]], ["2"], [2.0 + 0j]):
        with pytest.raises(ValueError, match="k_values"):
            level_set_count_identity(bad)
    # repeated entries are computed once; numpy integers and integral floats are sizes
    assert list(level_set_count_identity(np.array([3, 3, 2])).by_slack) == [3, 2]
    assert patch_step_identity(np.int64(3), np.array(2))[1] == 0 and same_level_set_change(3.0, 2)["identity"] == 0


def test_lemma7_bucket_constants():
    from companion.multiclass_lp import lemma7_bucket_constants

    c = lemma7_bucket_constants()
    w = sp.Symbol("omega", positive=True)
    n = sp.Symbol("n", positive=True)
    assert sp.simplify(c["bucket_mass"] - sp.Rational(3, 4) * w) == 0 and sp.simplify(c["bucket_gap"] - w / 4) == 0
    assert sp.simplify(c["bucket_exponent"] - n * w**2 / 8) == 0 and sp.simplify(c["heavy_exponent"] - n * w**2 / 2) == 0
    assert c["events_slack_at_1"] == sp.Rational(1, 3) and c["sample_size_residual"] == 0
    # the slack is non-negative on (0, 1]: positive at 1 and decreasing
    assert all(c["events_slack"].subs(w, v) > 0 for v in (sp.Rational(1, 1000), sp.Rational(1, 2), 1))
    assert all(c["events_slack_derivative"].subs(w, v) < 0 for v in (sp.Rational(1, 10), 1))


def test_grid_gain_factor():
    from companion.multiclass_lp import grid_gain_factor

    g = grid_gain_factor()
    m, j = sp.symbols("m j", positive=True)
    assert sp.simplify(g["one_minus_factor"] - (1 - (m + j) / (j * (m + 1)))) == 0
    assert all(v == 0 for v in g["product_residual"].values())
    assert sp.simplify(g["three_quarters_gap"] - (m - 1) / (4 * (m + 1))) == 0
    # numeric check of the product against the binomial ratio
    import math

    for mm, kk in ((3, 5), (10, 7)):
        prod = math.prod((mm + i) / (i * (mm + 1)) for i in range(1, kk + 1))
        assert prod == pytest.approx(math.comb(mm + kk, kk) / (mm + 1) ** kk) and prod <= 0.75 ** (kk - 1)


def test_recalibration_lower_bound_constants():
    """The reduction's constants, checked against exact binomial numbers that do not use them."""
    from companion.multiclass_lp import bernoulli_test_size
    from companion.multiclass_lp import recalibration_lower_bound_constants

    c = recalibration_lower_bound_constants()
    eps, d = sp.symbols("varepsilon d", positive=True)
    assert c["n_bound_residual"] == 0
    assert sp.simplify(c["margin_a"]) == eps / 2 and sp.simplify(c["margin_b"]) == eps / 2
    # chi-square at d = 0.1 summed numerically, and it bounds the KL divergence
    pa, pb = np.array([0.5, 0.5]), np.array([0.6, 0.4])
    assert float(c["chi_square"].subs(d, 0.1)) == pytest.approx(np.sum((pb - pa) ** 2 / pa))
    assert np.sum(pb * np.log(pb / pa)) <= np.sum((pb - pa) ** 2 / pa)
    # the bound is below the exact minimax size of the test with gap 3 eps (a larger constant would fail here)
    e = np.array([0.1, 0.05, 0.025, 0.0125])
    exact = bernoulli_test_size(eps_values=3 * e)["n"]
    bound = np.array([float(c["n_bound"].subs(eps, v)) for v in e])
    assert np.all(bound <= exact) and np.all(exact < 6 * bound)
    # the zero-sample output u_1 = 1/2 + eps/2, evaluated directly in the proposition's two worlds (gap eps)
    errs = [float(v.subs(eps, 0.1)) for v in c["zero_sample_errors"]]
    assert errs == pytest.approx([abs(0.55 - 0.5), abs(0.55 - 0.6)])
