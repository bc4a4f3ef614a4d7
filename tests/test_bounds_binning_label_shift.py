"""Bounds of paper 001 (companion.binning_label_shift.bounds, companion.label_shift_weights.bounds): Theorem 5 (BHC), Theorem 3, Theorem 4 and the BBSE bound.

Each bound is checked by simulation (it must hold with the promised
probability) or on random instances (a deterministic bound must never fail),
and the zero-weight counterexample to Theorem 4 is recomputed by hand.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.binning_label_shift import (
    bhc_tail_bound,
    label_shift_binning_bound,
    multiclass_binning_epsilon,
    weight_condition_number,
)
from companion.label_shift_weights import bbse, bbse_error_bound, posterior_correction
from companion.scenarios import two_class_gaussian


@pytest.mark.parametrize("k", [2, 3, 5])
def test_bhc_inequality_by_simulation(k):
    rng = np.random.default_rng(k)
    n, reps = 200, 200_000
    p = rng.dirichlet(np.ones(k))
    counts = rng.multinomial(n, p, size=reps)
    stat = np.abs(counts - n * p).sum(axis=1) / (2 * np.sqrt(n))
    for t in (0.8, 1.2, 1.6, 2.0):
        assert np.mean(stat >= t) <= bhc_tail_bound(t, k)


def test_bhc_sum_of_deviations_is_twice_the_best_subset_sum():
    # The identity behind the proof: sum |d_i| = 2 max_A sum_{i in A} d_i when sum d_i = 0.
    rng = np.random.default_rng(7)
    for _ in range(200):
        d = rng.normal(size=5)
        d -= d.mean()
        subsets = [[i for i in range(5) if mask >> i & 1] for mask in range(32)]
        best = max(d[s].sum() if s else 0.0 for s in subsets)
        assert np.abs(d).sum() == pytest.approx(2 * best)


def test_theorem3_epsilon_formula_and_coverage():
    eps = multiclass_binning_epsilon([100, 400], 3, 0.1)
    np.testing.assert_allclose(eps, 2 / np.sqrt([100, 400]) * np.sqrt(0.5 * np.log(2 * 8 / 0.1)))
    # Coverage: 4 bins, 3 classes, multinomial cell counts; all bins within eps in >= 1 - delta of runs.
    rng = np.random.default_rng(8)
    theta = rng.dirichlet(np.ones(3), size=4)
    mass = np.array([0.1, 0.2, 0.3, 0.4])
    cells = (mass[:, None] * theta).ravel()
    reps, n, delta = 20_000, 500, 0.2
    counts = rng.multinomial(n, cells, size=reps).reshape(reps, 4, 3)
    n_bin = counts.sum(axis=2)
    ok = np.ones(reps, dtype=bool)
    for b in range(4):
        nb = np.maximum(n_bin[:, b], 1)
        err = np.abs(counts[:, b] / nb[:, None] - theta[b]).sum(axis=1)
        eps_b = 2 / np.sqrt(nb) * np.sqrt(0.5 * np.log(4 * 2**3 / delta))
        ok &= (n_bin[:, b] == 0) | (err <= eps_b)
    assert ok.mean() >= 1 - delta


def test_theorem3_bad_input():
    with pytest.raises(ValueError, match="delta"):
        multiclass_binning_epsilon([10], 3, 1.0)
    with pytest.raises(ValueError, match="counts"):
        multiclass_binning_epsilon([0, 10], 3, 0.1)
    with pytest.raises(ValueError, match="n_classes"):
        multiclass_binning_epsilon([10], 1, 0.1)
    with pytest.raises(ValueError, match="t must"):
        bhc_tail_bound(-1.0, 3)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6))
def test_theorem4_holds_on_random_instances_with_positive_weights(seed, k):
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.ones(k))
    theta_hat = rng.dirichlet(np.ones(k) * rng.uniform(0.2, 5))
    w = rng.uniform(0.05, 5, k)
    w_hat = np.maximum(w + rng.normal(scale=rng.uniform(0, 1), size=k), 1e-3)
    lhs = np.abs(posterior_correction(theta_hat, w_hat) - posterior_correction(theta, w)).sum()
    rhs = label_shift_binning_bound(np.abs(theta_hat - theta).sum(), w, w_hat)
    assert lhs <= rhs + 1e-12


def test_theorem4_fails_with_a_zero_weight():
    # w = (0, 1, 2): class 0 is absent from the target but holds most of the source bin's mass.
    w = np.array([0.0, 1.0, 2.0])
    theta, theta_hat = np.array([0.9, 0.05, 0.05]), np.array([0.9, 0.07, 0.03])
    lhs = np.abs(posterior_correction(theta_hat, w) - posterior_correction(theta, w)).sum()
    assert lhs == pytest.approx(16 / 39)  # (0, 7/13, 6/13) against (0, 1/3, 2/3)
    kappa = weight_condition_number(w)
    assert kappa == 2.0
    paper_rhs = 2 * kappa * np.abs(theta_hat - theta).sum() + 0.0  # w_hat = w
    assert lhs > paper_rhs  # 0.41 > 0.16: the bound as printed fails
    with pytest.raises(ValueError, match="positive"):
        label_shift_binning_bound(0.04, w, w)


def test_bbse_bound_coverage_on_the_two_class_scenario():
    sc = two_class_gaussian()
    confusion = sc.confusion_matrix("hard")
    delta, n = 0.1, 2000
    bound = bbse_error_bound(confusion, sc.weights, n, n, delta)
    rng = np.random.default_rng(9)
    errors = []
    for _ in range(300):
        xs, ys = sc.sample(n, rng, "source")
        xt, _ = sc.sample(n, rng, "target")
        errors.append(np.linalg.norm(bbse(sc.posterior(xs), ys, sc.posterior(xt), negative="keep").weights - sc.weights))
    assert np.mean(np.array(errors) <= bound) >= 1 - delta
    assert bound < 1.0  # not vacuous at this size


def test_bbse_bound_too_small_sample_and_bad_input():
    sc = two_class_gaussian()
    with pytest.raises(ValueError, match="too small"):
        bbse_error_bound(sc.confusion_matrix("hard"), sc.weights, 10, 10, 0.1)
    with pytest.raises(ValueError, match="delta"):
        bbse_error_bound(sc.confusion_matrix("hard"), sc.weights, 10, 10, 0.0)
    with pytest.raises(ValueError, match="square"):
        bbse_error_bound(np.ones((2, 3)), sc.weights, 10, 10, 0.1)


def test_theorem4_bound_batched_over_weight_estimates_matches_rows():
    rng = np.random.default_rng(11)
    w = np.array([0.5, 1.0, 3.0])
    w_hat = np.abs(w + rng.normal(scale=0.3, size=(6, 3)))
    err = rng.uniform(0, 0.5, size=(6, 4))  # 6 repetitions, 4 bins
    batched = label_shift_binning_bound(err, w, w_hat)
    assert batched.shape == (6, 4)
    for r in range(6):
        np.testing.assert_allclose(batched[r], label_shift_binning_bound(err[r], w, w_hat[r]))
    with pytest.raises(ValueError, match="weights_hat must be non-negative"):
        label_shift_binning_bound(0.1, w, np.array([-0.1, 1.0, 3.0]))
    with pytest.raises(ValueError, match="weights_hat must be finite, of shape"):
        label_shift_binning_bound(0.1, w, np.ones(4))


def test_theorem4_source_factor_kappa_is_attained_up_to_two():
    # Two classes, w = (1, 4), kappa = 4, exact weights.  In a bin dominated by the class of smaller
    # weight, |g(u) - g(t)|_1 / |u - t|_1 tends to w_1 / w_0 = kappa, half of the factor 2 kappa of (18)
    # (the book's exercise ex-binls-theorem4-tight): the bound is tight up to the factor 2.
    w = np.array([1.0, 4.0])
    t = np.array([1 - 1e-6, 1e-6])
    u = t + 1e-7 * np.array([-1.0, 1.0])
    lhs = np.abs(posterior_correction(u, w) - posterior_correction(t, w)).sum()
    ratio = lhs / label_shift_binning_bound(np.abs(u - t).sum(), w, w)
    assert 0.49 < ratio <= 0.5


def test_target_binning_bound_matches_the_three_formulas_by_hand():
    from companion.binning_label_shift import target_binning_bound

    conf, w = np.array([[0.45, 0.05], [0.05, 0.45]]), np.array([0.4, 1.6])
    counts, n_w, delta = np.array([3000, 4000, 3000]), 20_000, 0.1
    s_min = np.linalg.svd(conf, compute_uv=False).min()  # 0.4 for this matrix
    assert abs(s_min - 0.4) < 1e-12
    a_q, a_p = np.sqrt(np.log(8 / (delta / 2)) / (2 * n_w)), np.sqrt(np.log(16 / (delta / 2)) / (2 * n_w))
    beta = (np.sqrt(2) * a_q + 2 * a_p * np.hypot(0.4, 1.6)) / (s_min - 2 * a_p)
    eps = 2 / np.sqrt(counts) * np.sqrt(0.5 * np.log(3 * 4 / (delta / 2)))
    expected = 2 * 4.0 * eps + 2 * beta / 0.4
    np.testing.assert_allclose(target_binning_bound(counts, conf, w, n_w, n_w, delta), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="too small for the guarantee"):
        target_binning_bound(counts, conf, w, 2_000, 2_000, delta)  # beta >= min weight
    with pytest.raises(ValueError, match="weights"):
        target_binning_bound(counts, conf, np.array([0.0, 2.0]), n_w, n_w, delta)
