"""Drivers of companion.label_shift_weights.experiments, at small scale, against independent computations."""

import numpy as np
import pytest
from scipy.stats import binom

from companion.label_shift_weights import miscalibration_study, mlls, remark5_rates, weight_estimation_rates
from companion.label_shift_weights.estimators import _em
from companion.scenarios import GaussianMixture


def test_grouped_em_equals_em_on_the_expanded_sample():
    rng = np.random.default_rng(0)
    rows = rng.dirichlet(np.ones(3), size=7)
    counts = rng.integers(0, 40, size=7)
    counts[2] = 0
    p = np.array([0.2, 0.5, 0.3])
    q_grouped = _em(rows, p, counts=counts, tol=1e-13, max_iter=100_000)[0]
    expanded = np.repeat(rows, counts, axis=0)
    np.testing.assert_allclose(_em(expanded, p, tol=1e-13)[0], q_grouped, atol=1e-10)
    # and the public mlls on the expanded sample, with labels whose frequencies are p
    y = np.repeat(np.arange(3), [20, 50, 30])
    source = np.full((100, 3), 1.0 / 3.0)
    np.testing.assert_allclose(mlls(source, y, expanded, tol=1e-13).target_prior, q_grouped, atol=1e-10)


def test_batched_em_equals_one_call_per_repetition():
    rng = np.random.default_rng(1)
    eta = rng.dirichlet(np.ones(3), size=(4, 200))
    p = rng.dirichlet(np.ones(3) * 5, size=4)
    batched = _em(eta, p, tol=1e-12)[0]
    for r in range(4):
        np.testing.assert_allclose(batched[r], _em(eta[r], p[r], tol=1e-12)[0], atol=1e-12)


@pytest.mark.parametrize("scenario", ["two_class", "three_class"])
def test_weight_rates_decrease_like_root_n(scenario):
    out = weight_estimation_rates(scenario, n_values=(400, 4_000, 40_000), n_reps=12, rng=2)
    assert out["errors"].shape == (3, 12, 4)
    assert np.all(out["mean_error"][-1] < out["mean_error"][0])
    assert np.all((out["slopes"] > -0.8) & (out["slopes"] < -0.3))
    # The Bayes-corrected posterior error is quadratic in the weight error: slope about -1.
    assert np.all((out["posterior_slopes"] > -1.5) & (out["posterior_slopes"] < -0.6))
    np.testing.assert_allclose(out["weights"][-1].mean(axis=0), np.broadcast_to(out["true_weights"], (4, out["true_weights"].size)), atol=0.1)


def test_rates_bbse_matches_public_bbse():
    # Same seeds: the driver's batched BBSE on the first repetition equals companion.label_shift_weights.bbse on the same draws.
    from companion.label_shift_weights import bbse
    from companion.scenarios import two_class_gaussian

    sc = two_class_gaussian()
    rng = np.random.default_rng(3)
    sc.sample(100, rng, "target")  # the driver first draws its evaluation sample (n_eval = 100 here)
    xs, ys = sc.sample(500, rng, "source", size=(2,))
    xt, _ = sc.sample(500, rng, "target", size=(2,))
    out = weight_estimation_rates("two_class", n_values=(500, 1000), n_reps=2, n_eval=100, rng=3)
    ref = bbse(sc.posterior(xs[0]), ys[0], sc.posterior(xt[0]), negative="keep").weights
    np.testing.assert_allclose(out["weights"][0, 0, 0], ref, rtol=1e-12)
    # The source frequencies it reports are those of the same redrawn labels.
    np.testing.assert_array_equal(out["source_frequencies"][0], [np.bincount(row, minlength=2) / 500 for row in ys])


def test_miscalibration_bias_and_its_repair():
    out = miscalibration_study(n_values=(2_000, 20_000), n_reps=6, n_limit=200_000, rng=4)
    err = out["mean_error"]
    m = {name: j for j, name in enumerate(out["methods"])}
    assert err[-1, m["mlls"]] > 0.8  # the limit of uncalibrated MLLS is far from w* = (3, 1/3, 5/3)
    assert np.linalg.norm(out["limit_weights"] - out["true_weights"]) > 0.8
    assert err[-1, m["mlls_bcts"]] < 0.3 and err[-1, m["mlls_vs"]] < 0.3 and err[-1, m["bbse_soft"]] < 0.35
    assert err[-1, m["mlls_bcts"]] < err[0, m["mlls_bcts"]]


def _labels_t1_exact(out, n, q1):
    """E[T1] of the label-based weights with the population binning, by summing over the binomial law of n q_hat."""
    theta = out["theta"][0]
    edges = out["edges"][0]
    target = GaussianMixture(q1, 2.0)
    mass = np.diff(target.cdf(edges))
    w = out["true_weights"]
    g = lambda th, w0, w1: w1 * th / (w1 * th + w0 * (1 - th))  # noqa: E731
    k = np.arange(1, n)
    pmf = binom.pmf(k, n, q1)
    q_hat = k / n
    vals = g(theta[None, :], ((1 - q_hat) / 0.5)[:, None], (q_hat / 0.5)[:, None])
    t1 = np.sum(mass * (vals - g(theta, w[0], w[1])) ** 2, axis=1)
    return float(pmf @ t1 / pmf.sum())


def test_remark5_label_based_t1_matches_exact_expectation_and_risk_identity():
    out = remark5_rates(n_target_values=(100, 1000), n_reps=4000, rng=5)
    for i, n in enumerate((100, 1000)):
        t1 = out["t1"][0, i]
        exact = _labels_t1_exact(out, n, 0.1)
        assert abs(t1.mean() - exact) < 4 * t1.std() / np.sqrt(t1.size)
    # Risk identity R_Q(g_hat o h_B) = R_Q(g* o h_B) + T1 for the population binning, checked by the quadrature of scenarios.
    target = GaussianMixture(0.1, 2.0)
    theta, edges = out["theta"][0], out["edges"][0]
    for m in range(3):
        w = out["weights"][m, 0, 0]
        values = w[1] * theta / (w[1] * theta + w[0] * (1 - theta))
        assert target.population_risks(edges, values)["risk"] == pytest.approx(out["risk"][m, 0, 0], rel=1e-9, abs=1e-13)


def test_remark5_rates_are_one_over_n_for_t1_and_root_n_for_weights():
    out = remark5_rates(n_target_values=(10**3, 10**4, 10**5), n_reps=300, rng=6)
    assert np.all((out["slopes_t1"] > -1.2) & (out["slopes_t1"] < -0.8))
    assert np.all((out["slopes_r"] > -0.6) & (out["slopes_r"] < -0.4))
    # The chain of App. D: T1 <= rho bound <= r^2 in every repetition.
    assert np.all(out["t1"] <= out["rho_bound"] + 1e-15)
    assert np.all(out["rho_bound"] <= out["r"] ** 2 + 1e-15)


def test_remark5_with_a_finite_source_sample_levels_off_above_population_version():
    finite = remark5_rates(n_target_values=(100, 10**5), n_reps=20, n_source=20_000, rng=7)
    assert finite["risk"].shape == (3, 2, 20)
    assert np.all(finite["risk"] > 0)
    assert finite["oracle_risk"] is None


def test_driver_arguments_are_checked():
    with pytest.raises(ValueError, match="scenario"):
        weight_estimation_rates("four_class")
    with pytest.raises(ValueError, match="n_values"):
        weight_estimation_rates(n_values=(1000,))
    with pytest.raises(ValueError, match="target_prior"):
        remark5_rates(target_prior=1.5)


def test_exponent_intervals_cover_the_true_exponent_with_the_delta_method_width():
    from companion.label_shift_weights.experiments import _exponent_intervals

    n = np.array([500.0, 1_000.0, 3_000.0, 10_000.0])
    reps, trials = 100, 200
    rng = np.random.default_rng(5)
    x = np.log(n) - np.log(n).mean()
    half = 1.96 / np.sqrt(reps) / np.sqrt(x @ x)  # delta method: sd(log mean) = 1/sqrt(reps) for exponential noise
    covered, widths = 0, []
    for _ in range(trials):
        errors = n[:, None, None] ** -0.5 * rng.exponential(size=(n.size, reps, 1))  # exponent -1/2, relative sd 1
        lo, hi = _exponent_intervals(n, errors, rng)[0]
        covered += lo < -0.5 < hi
        widths.append((hi - lo) / 2)
    assert 0.88 <= covered / trials <= 0.995  # nominal 0.95; binomial sd 0.015
    assert abs(np.mean(widths) - half) < 0.15 * half
    # no noise across repetitions: the interval collapses onto the exact exponent
    flat = np.broadcast_to(n[:, None, None] ** -0.7, (n.size, 10, 1))
    np.testing.assert_allclose(_exponent_intervals(n, flat, np.random.default_rng(0))[0], [-0.7, -0.7], atol=1e-12)
