"""Symbolic identities of Chapter 8 (paper 003)."""

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
    residual, as_printed, _ = implied_auc_residual(n)
    assert residual == 0
    # the printed sum from i = 2 misses exactly the tie term of the lowest grade
    pi1, s1 = sp.Symbol("pi1", positive=True), sp.Symbol("s1", positive=True)
    free = sp.symbols(f"pi1:{n}", positive=True)
    s = sp.symbols(f"s1:{n + 1}", positive=True)
    p = sum(fi * si for fi, si in zip(free, s)) + (1 - sum(free)) * s[-1]
    assert sp.simplify(as_printed - pi1**2 * s1 * (1 - s1) / (2 * p * (1 - p))) == 0


def test_eq13_value_for_uninformative_score():
    _, _, auc = implied_auc_residual(3)
    s = sp.symbols("s1:4", positive=True)
    t = sp.Symbol("t", positive=True)
    assert sp.simplify(auc.subs({si: t for si in s})) == sp.Rational(1, 2)


@pytest.mark.parametrize("m", [1, 2, 4])
def test_jensen_bounds(m):
    d = jensen_bounds_derivation(m)
    assert d["chord_residual"] == 0 and d["tangent_residual"] == 0
    assert sp.simplify(d["chord_gap"] - d["chord_gap_factored"]) == 0
    assert sp.simplify(d["tangent_gap"] - d["tangent_gap_factored"]) == 0


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
