"""Symbolic identities for recalibration to a target prior (paper 003): eq. (13), the bounds (2), the binormal model."""

import numpy as np
import pytest
import sympy as sp

from companion.symbolic import (
    binormal_auc_derivation,
    binormal_posterior_residual,
    implied_auc_residual,
    jensen_bounds_derivation,
)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_eq13_follows_from_3a_3b(n):
    d = implied_auc_residual(n)
    assert d["residual"] == 0
    # the printed sum from i = 2 misses exactly the tie term of the lowest grade, built here from scratch
    free = sp.symbols(f"w1:{n}", positive=True)
    s = sp.symbols(f"s1:{n + 1}", positive=True)
    mean = sum(fi * si for fi, si in zip(free, s)) + (1 - sum(free)) * s[-1]
    assert sp.simplify(d["residual_as_printed"] - free[0] ** 2 * s[0] * (1 - s[0]) / (2 * mean * (1 - mean))) == 0


def test_eq13_value_for_uninformative_score():
    auc = implied_auc_residual(3)["auc_3a"]
    s = sp.symbols("s1:4", positive=True)
    t = sp.Symbol("t", positive=True)
    assert sp.simplify(auc.subs({si: t for si in s})) == sp.Rational(1, 2)


@pytest.mark.parametrize("m", [1, 2, 4])
def test_jensen_bounds(m):
    d = jensen_bounds_derivation(m)
    assert d["chord_residual"] == 0 and d["tangent_residual"] == 0
    u, t = sp.symbols("u t", positive=True)
    # the gaps of C = sqrt at z = u^2, q = t^2, written out by hand
    assert sp.simplify(d["chord_gap"] - (u - u**2)) == 0
    assert sp.simplify(d["tangent_gap"] - (t + (u**2 - t**2) / (2 * t) - u)) == 0
    # what factor() finds is the same expression, and non-negative on a grid of u in [0, 1], t in (0, 1]
    for gap, factored in (("chord_gap", "chord_gap_factored"), ("tangent_gap", "tangent_gap_factored")):
        assert sp.simplify(d[gap] - d[factored]) == 0
        values = [d[factored].subs({u: sp.Rational(i, 10), t: sp.Rational(j, 10)}) for i in range(11) for j in range(1, 11)]
        assert min(values) >= 0


def test_binormal_auc_and_posterior():
    d = binormal_auc_derivation()
    assert d["derivative_residual"] == 0
    assert d["value_at_zero"] == sp.Rational(1, 2)
    _, residual = binormal_posterior_residual()
    assert residual == 0


def test_bad_sizes():
    with pytest.raises(ValueError, match="n must be at least 2"):
        implied_auc_residual(1)
    with pytest.raises(ValueError, match="m must be at least 1"):
        jensen_bounds_derivation(0)
    # the size is an integer checked before any sympy construction, with a bound on the cost
    for bad in (9, 10**400, np.uint64(2**64 - 1), "3", 2.5, True, None):
        with pytest.raises(ValueError, match="n must be"):
            implied_auc_residual(bad)
        with pytest.raises(ValueError, match="m must be"):
            jensen_bounds_derivation(bad)
