"""companion.label_shift_recalibration.bounds: Lemma 10, Corollary 9, Theorem 2 (18)-(19) against hand computations.

Book: lem-ls-lipschitz, cor-ls-ratio, thm-ls-composite.
"""

import numpy as np
import pytest

from companion.label_shift_recalibration import (
    composite_high_probability_bound,
    composite_risk_bound,
    prior_correction_lipschitz,
    ratio_event_beta,
    ratio_event_sample_sizes,
)


def test_lipschitz_constant_hand_values():
    # p = 0.5, q = 0.1: w0 = 0.9 / 0.5 = 1.8, w1 = 0.1 / 0.5 = 0.2, L = 9.
    assert prior_correction_lipschitz(0.5, 0.1) == pytest.approx(9.0, rel=1e-14)
    # p = 0.2, q = 0.6: w0 = 0.5, w1 = 3, L = 6.
    assert prior_correction_lipschitz(0.2, 0.6) == pytest.approx(6.0, rel=1e-14)
    assert prior_correction_lipschitz(0.3, 0.3) == 1.0


def test_lipschitz_constant_is_the_largest_slope_of_g():
    from companion.label_shift_recalibration import prior_correction

    z = np.linspace(0.0, 1.0, 200_001)
    for p, q in [(0.5, 0.1), (0.2, 0.6), (0.7, 0.65)]:
        slopes = np.diff(prior_correction(z, p, q)) / np.diff(z)
        assert slopes.max() == pytest.approx(prior_correction_lipschitz(p, q), rel=1e-4)


def test_ratio_sample_sizes_hand_values():
    # 27 log(8 / 0.1) / (0.5^2) = 473.28..., divided by min priors 0.5 and 0.1.
    scale = 27 * 4.382026634673881 / 0.25
    n_p, n_q = ratio_event_sample_sizes(1.5, 0.1, 0.5, 0.1)
    assert n_p == pytest.approx(scale / 0.5, rel=1e-12)
    assert n_q == pytest.approx(scale / 0.1, rel=1e-12)


def test_beta_inverts_the_sample_sizes():
    n_p, n_q = ratio_event_sample_sizes(1.3, 0.05, 0.4, 0.2)
    assert ratio_event_beta(int(np.ceil(n_p)), int(np.ceil(n_q)), 0.4, 0.2, 0.05) <= 1.3
    assert ratio_event_beta(int(np.ceil(n_p)), int(np.ceil(n_q)), 0.4, 0.2, 0.05) == pytest.approx(1.3, abs=1e-3)


def test_corollary9_event_frequency_monte_carlo():
    # At the sample sizes of Corollary 9, the ratio event must hold in at least 1 - delta of the draws.
    rng = np.random.default_rng(1)
    p, q, beta, delta = 0.5, 0.1, 1.5, 0.2
    n_p, n_q = (int(np.ceil(n)) for n in ratio_event_sample_sizes(beta, delta, p, q))
    p_hat = rng.binomial(n_p, p, 20_000) / n_p
    q_hat = rng.binomial(n_q, q, 20_000) / n_q
    rho1 = (q_hat / p_hat) / (q / p)
    rho0 = ((1 - q_hat) / (1 - p_hat)) / ((1 - q) / (1 - p))
    inside = (rho0 >= 1 / beta) & (rho0 <= beta) & (rho1 >= 1 / beta) & (rho1 <= beta)
    assert inside.mean() >= 1 - delta


def test_deterministic_bound_hand_values():
    # Exact priors: 2 * w_max^3 / w_min^2 * R = 2 * 1.8^3 / 0.2^2 * 0.01 = 2.916.
    assert composite_risk_bound(0.01, 0.5, 0.1, 0.5, 0.1) == pytest.approx(2.916, rel=1e-12)
    # No shift and exact priors: Remark 3, the bound is 2 R.
    assert composite_risk_bound(0.02, 0.3, 0.3, 0.3, 0.3) == pytest.approx(0.04, rel=1e-12)
    # rho1 = (0.12 / 0.5) / 0.2 = 1.2, rho0 = (0.88 / 0.5) / 1.8 = 0.97777...
    rho0, rho1 = 0.88 / 0.5 / 1.8, 1.2
    expected = 2 * (((rho0 - rho1) / (rho0 + rho1)) ** 2 + 145.8 * 0.001)
    assert composite_risk_bound(0.001, 0.5, 0.1, 0.5, 0.12) == pytest.approx(expected, rel=1e-12)


def test_high_probability_bound_hand_value():
    n_p, n_q, b, p, q, delta = 100_000, 10_000, 46, 0.5, 0.3, 0.1
    per_bin = 100_000 // 46  # 2173
    # Theorem 1 at delta / 2 (Lemma 4 at delta / 4): log(4 B / (delta / 2)) = log(8 B / delta).
    eps = np.sqrt(np.log(8 * 46 / 0.1) / (2 * (per_bin - 1))) + 1 / per_bin
    weight = 2 * 1.4**3 / 0.6**2
    ratio = 54 * max(1 / (0.5 * n_p), 1 / (0.3 * n_q)) * np.log(160)
    expected = weight * (eps**2 + 2 / 46) + ratio
    assert composite_high_probability_bound(n_p, n_q, b, p, q, delta) == pytest.approx(expected, rel=1e-12)
    with_k = weight * (eps**2 + 8 * 3.0**2 / 46**2) + ratio
    assert composite_high_probability_bound(n_p, n_q, b, p, q, delta, smoothness=3.0) == pytest.approx(with_k, rel=1e-12)
    # With a large K, 8 K^2 / B^2 = 0.378 exceeds 2 / B = 0.0435: the smaller sharpness bound is used.
    assert composite_high_probability_bound(n_p, n_q, b, p, q, delta, smoothness=10.0) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: prior_correction_lipschitz(0.0, 0.1), "source_prior"),
        (lambda: prior_correction_lipschitz(0.5, 1.0), "target_prior"),
        (lambda: ratio_event_sample_sizes(2.5, 0.1, 0.5, 0.1), "beta"),
        (lambda: ratio_event_sample_sizes(1.0, 0.1, 0.5, 0.1), "beta"),
        (lambda: ratio_event_sample_sizes(1.5, 1.2, 0.5, 0.1), "delta"),
        (lambda: ratio_event_beta(1000, 100, 0.5, 0.1, 0.1), "too small"),
        (lambda: ratio_event_beta(0, 100, 0.5, 0.1, 0.1), "n_source"),
        (lambda: composite_risk_bound(1.5, 0.5, 0.1, 0.5, 0.1), "source_risk"),
        (lambda: composite_risk_bound(0.1, 0.5, 0.1, 0.0, 0.1), "source_prior_hat"),
        (lambda: composite_risk_bound(0.1, 0.5, 0.1, 0.5, 1.0), "target_prior_hat"),
        (lambda: composite_high_probability_bound(1000, 100, 10, 0.5, 0.1, 0.1), "n_target"),
        (lambda: composite_high_probability_bound(100_000, 100_000, 10, 0.001, 0.5, 0.1), "n_source"),
        (lambda: composite_high_probability_bound(30, 10**6, 20, 0.5, 0.5, 0.1), "n_source must be at least 2"),
        (lambda: composite_high_probability_bound(10**5, 10**5, 0, 0.5, 0.5, 0.1), "n_bins"),
        (lambda: composite_high_probability_bound(10**5, 10**5, 10, 0.5, 0.5, 0.1, smoothness=-1.0), "smoothness"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
