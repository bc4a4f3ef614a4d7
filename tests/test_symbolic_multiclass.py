"""Sympy derivations of the l_p calibration chapter (companion.symbolic.multiclass)."""

import math

import numpy as np
import sympy as sp

from companion.multiclass import level_set_count
from companion.symbolic import (
    group_squared_error_identity,
    lemma8_constants,
    lemma11_constants,
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
