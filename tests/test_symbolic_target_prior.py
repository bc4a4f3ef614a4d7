"""Symbolic identities for recalibration to a target prior (paper 003): eq. (13), the bounds (2), the binormal model."""

import numpy as np
import pytest
import sympy as sp

from companion.target_prior import (
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
    assert d["lower_residual"] == 0 and d["upper_residual"] == 0
    # the upper identity is the one that uses sum(w) = 1: with free masses it leaves sqrt(q) (1 - sum(w)) / 2
    w = sp.symbols(f"w1:{m + 1}", positive=True)
    z_root = sp.symbols(f"u1:{m + 1}", nonnegative=True)
    q_free = sum(wi * ui**2 for wi, ui in zip(w, z_root))
    assert sp.simplify(d["upper_residual_any_mass"] - sp.sqrt(q_free) * (1 - sum(w)) / 2) == 0
    # numerically, on random laws: both gaps of (2) are non-negative for sqrt, the convex control's is not
    rng = np.random.default_rng(m)
    for _ in range(20):
        z, weights = rng.random(m), rng.dirichlet(np.ones(m))
        q = weights @ z
        assert weights @ np.sqrt(z) - q >= 0 and np.sqrt(q) - weights @ np.sqrt(z) >= 0 and weights @ z**2 - q <= 0
    u, t = sp.symbols("u t", positive=True)
    # the pointwise gaps at z = u^2, q = t^2, written out by hand from C(z) = sqrt(z) and C(z) = z^2
    assert sp.simplify(d["chord_gap"] - (u - u**2)) == 0
    assert sp.simplify(d["tangent_gap"] - (t + (u**2 - t**2) / (2 * t) - u)) == 0
    assert sp.simplify(d["convex_chord_gap"] - (u**4 - u**2)) == 0
    assert sp.simplify(d["convex_tangent_gap"] - (t**4 + 2 * t**2 * (u**2 - t**2) - u**4)) == 0
    # what factor() finds is the same expression; on a grid of u in [0, 1], t in (0, 1] the gaps of the
    # concave sqrt are >= 0 (zero at the equality cases) and those of the convex control reach below 0
    grid = [(sp.Rational(i, 10), sp.Rational(j, 10)) for i in range(11) for j in range(1, 11)]
    for gap, concave in (("chord_gap", True), ("tangent_gap", True), ("convex_chord_gap", False), ("convex_tangent_gap", False)):
        assert sp.simplify(d[gap] - d[gap + "_factored"]) == 0
        smallest = min(d[gap + "_factored"].subs({u: a, t: b}) for a, b in grid)
        assert (smallest == 0) if concave else (smallest < 0)


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


def test_jensen_gap_identities_catch_a_misstated_bound():
    """A mis-stated lower bound breaks the lower gap identity.

    The identity itself is a term-by-term rewriting, true for any masses (it needs neither
    sum(w) = 1 nor concavity), so it checks the bound's formula, not the sign of the gap: with the
    weights q and 1 - q of the lower bound swapped, its left side changes and the residual is not zero.
    """
    w1, u1, u2 = sp.symbols("w1 u1 u2", positive=True)
    w = (w1, 1 - w1)
    q = w[0] * u1**2 + w[1] * u2**2
    mean_root = w[0] * u1 + w[1] * u2
    lower_sum = w[0] * u1 * (1 - u1) + w[1] * u2 * (1 - u2)
    assert sp.simplify(mean_root - q - lower_sum) == 0  # the bound (1 - q) C(0) + q C(1) = q
    assert sp.simplify(mean_root - (1 - q) - lower_sum) != 0  # mis-stated: q C(0) + (1 - q) C(1) = 1 - q
