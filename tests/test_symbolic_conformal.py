"""The sympy derivations of companion.conformal_label_shift.derivations simplify to exactly zero."""

from __future__ import annotations

import sympy as sp

from companion.conformal_label_shift import (
    bernoulli_normal_limits,
    label_shift_factorization_residual,
    permutation_weight_residuals,
    split_coverage_by_integration,
    split_coverage_interval,
    uniform_weight_masses,
)


def test_permutation_masses_reduce_to_eq9():
    for n, k in ((1, 2), (2, 3), (3, 2)):
        residuals = permutation_weight_residuals(n, k)
        assert len(residuals) == k ** (n + 1) * (n + 1)
        assert all(sp.simplify(r) == 0 for r in residuals)


def test_permutation_masses_detect_a_wrong_formula():
    # the brute force is not true by construction: the masses without the test point's weight differ
    w = sp.symbols("w0:2", positive=True)
    labels = (0, 1, 1)
    wrong = w[labels[0]] / (w[labels[0]] + w[labels[1]])  # leaves out the last point
    right = w[labels[0]] / sum(w[y] for y in labels)
    assert sp.simplify(wrong - right) != 0


def test_label_shift_factorization():
    assert label_shift_factorization_residual(2) == 0


def test_uniform_masses():
    assert all(r == 0 for r in uniform_weight_masses(6))


def test_split_coverage_interval():
    gaps = split_coverage_interval(30)
    assert gaps["min_gap_below"] == 0  # attained when (1 - alpha)(n + 1) is an integer
    assert gaps["min_gap_above"] > 0
    # a float level is read as the simplest fraction that rounds to it: 1/3 attains the bound like Rational(1, 3)
    assert split_coverage_interval(10, alphas=(1 / 3,))["min_gap_below"] == 0


def test_split_coverage_by_integration_gives_rank_over_n_plus_one():
    values = split_coverage_by_integration(8)
    assert len(values) == 8 * 9 // 2
    for (n, r), v in values.items():
        assert v == sp.Rational(r, n + 1)  # the closed form of thm-conf-split, independent of the integral
    # the check can fail: the rank r / n (no appended point) is not what the integral gives
    assert all(v != sp.Rational(r, n) for (n, r), v in values.items())


def test_bernoulli_limits():
    lim = bernoulli_normal_limits()
    assert (lim["above"], lim["below"], lim["at"]) == (1, 0, sp.Rational(1, 2))
