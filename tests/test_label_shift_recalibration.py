"""companion.label_shift_recalibration: the correction g, the composite estimator and the Table 1 baselines."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit

from companion.calibration_sharpness import UniformMassBinning
from companion.label_shift_recalibration import (
    CompositeRecalibrator,
    cube_root_bins,
    fit_label_shift_estimators,
    prior_correction,
)
from companion.scenarios import GaussianMixture

priors = st.floats(min_value=1e-3, max_value=1 - 1e-3)


@settings(max_examples=200, deadline=None)
@given(p=priors, q=priors, seed=st.integers(0, 2**32 - 1))
def test_matches_bayes_odds_update(p, q, seed):
    # Bayes: posterior odds under Q = odds under P times (prior odds Q) / (prior odds P).
    z = np.random.default_rng(seed).uniform(1e-6, 1 - 1e-6, 50)
    expected = expit(logit(z) + logit(q) - logit(p))
    np.testing.assert_allclose(prior_correction(z, p, q), expected, rtol=1e-10, atol=1e-15)


moderate_priors = st.floats(min_value=0.01, max_value=0.99)


@settings(max_examples=200, deadline=None)
@given(p=moderate_priors, q=moderate_priors, seed=st.integers(0, 2**32 - 1))
def test_correcting_back_is_the_identity(p, q, seed):
    # Rounding of g(z) near 0 or 1 is amplified by the odds ratio (at most 99^2 here) on the way back.
    z = np.random.default_rng(seed).uniform(0, 1, 50)
    np.testing.assert_allclose(prior_correction(prior_correction(z, p, q), q, p), z, rtol=1e-10, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(p=priors, q=priors, p_hat=priors, q_hat=priors)
def test_step2_sup_bound(p, q, p_hat, q_hat):
    # Step 2 of Theorem 2: sup_z |g_hat(z) - g*(z)| <= |rho0 - rho1| / (rho0 + rho1).
    z = np.linspace(0, 1, 2001)
    rho1 = (q_hat / p_hat) / (q / p)
    rho0 = ((1 - q_hat) / (1 - p_hat)) / ((1 - q) / (1 - p))
    gap = np.abs(prior_correction(z, p_hat, q_hat) - prior_correction(z, p, q)).max()
    assert gap <= abs(rho0 - rho1) / (rho0 + rho1) + 1e-12


def test_gaussian_eq15_numerically():
    z = np.linspace(0.001, 0.999, 999)
    source, target = GaussianMixture(0.5), GaussianMixture(0.1)
    np.testing.assert_allclose(prior_correction(source.h_star(z), 0.5, 0.1), target.h_star(z), rtol=1e-12)


def test_exact_end_points_and_broadcasting():
    out = prior_correction(np.array([0.0, 0.3, 1.0]), np.array([[0.2], [0.7]]), 0.4)
    assert out.shape == (2, 3)
    assert out[:, 0].tolist() == [0.0, 0.0] and out[:, 2].tolist() == [1.0, 1.0]
    assert prior_correction(0.25, 0.3, 0.3) == pytest.approx(0.25, rel=1e-15)


@pytest.mark.parametrize("n, b", [(1, 1), (7, 1), (8, 2), (100, 4), (999, 9), (1000, 10), (10**6, 100), (10**9 - 1, 999)])
def test_cube_root_bins(n, b):
    assert cube_root_bins(n) == b


def _samples(seed, n_p=1000, n_q=100):
    rng = np.random.default_rng(seed)
    z_s, y_s = GaussianMixture(0.5).sample(n_p, rng)
    z_t, y_t = GaussianMixture(0.1).sample(n_q, rng)
    return z_s, y_s, z_t, y_t


def test_composite_is_umb_then_correction():
    z_s, y_s, z_t, y_t = _samples(0)
    model = CompositeRecalibrator().fit(z_s, y_s, y_t)
    umb = UniformMassBinning(10).fit(z_s, y_s)
    grid = np.linspace(0, 1, 1001)
    direct = prior_correction(umb.predict(grid), y_s.mean(), y_t.mean())
    np.testing.assert_array_equal(model.predict(grid), direct)
    np.testing.assert_array_equal(model.edges_, umb.edges_)
    np.testing.assert_array_equal(model.values_, prior_correction(umb.values_, y_s.mean(), y_t.mean()))
    assert model.source_prior_ == y_s.mean() and model.target_prior_ == y_t.mean()
    assert len(model.values_) == 10
    assert len(CompositeRecalibrator(n_bins=7).fit(z_s, y_s, y_t).values_) == 7


def test_four_estimators():
    z_s, y_s, z_t, y_t = _samples(1)
    est = fit_label_shift_estimators(z_s, y_s, z_t, y_t)
    grid = np.linspace(0, 1, 501)
    np.testing.assert_array_equal(est.source.predict(grid), UniformMassBinning(10).fit(z_s, y_s).predict(grid))
    np.testing.assert_array_equal(est.target.predict(grid), UniformMassBinning(4).fit(z_t, y_t).predict(grid))
    np.testing.assert_array_equal(est.label_shift(grid), prior_correction(grid, y_s.mean(), y_t.mean()))
    np.testing.assert_array_equal(est.composite.predict(grid), est.label_shift(est.source.predict(grid)))


def test_bad_inputs():
    z_s, y_s, z_t, y_t = _samples(2)
    with pytest.raises(ValueError, match="source_prior"):
        prior_correction(0.5, 0.0, 0.1)
    with pytest.raises(ValueError, match="source_prior"):
        prior_correction(0.5, np.array([0.2, 1.0]), 0.1)
    with pytest.raises(ValueError, match="target_prior"):
        prior_correction(0.5, 0.5, 1.2)
    with pytest.raises(ValueError, match="target_prior"):
        prior_correction(0.5, 0.5, np.nan)
    with pytest.raises(ValueError, match="z"):
        prior_correction([0.5, 1.5], 0.5, 0.1)
    with pytest.raises(ValueError, match="y_target must contain both classes"):
        CompositeRecalibrator().fit(z_s, y_s, np.zeros(100))
    with pytest.raises(ValueError, match="y_source must contain both classes"):
        CompositeRecalibrator().fit(z_s, np.ones_like(y_s), y_t)
    with pytest.raises(ValueError, match="z_source and y_source"):
        CompositeRecalibrator().fit(z_s, y_s[:-1], y_t)
    with pytest.raises(ValueError, match="z_target and y_target"):
        fit_label_shift_estimators(z_s, y_s, z_t, y_t[:-1])
    with pytest.raises(ValueError, match="y_target"):
        CompositeRecalibrator().fit(z_s, y_s, y_t + 2)
    with pytest.raises(ValueError, match="n_bins"):
        CompositeRecalibrator(n_bins=0).fit(z_s, y_s, y_t)
    with pytest.raises(ValueError, match="not fitted"):
        CompositeRecalibrator().predict([0.5])
    with pytest.raises(ValueError, match="n"):
        cube_root_bins(0)


def test_bin_counts_are_validated_under_their_own_names():
    """Issue 13: CompositeRecalibrator checks n_bins (in fit since issue 38); the driver names n_bins_source/n_bins_target."""
    from companion.label_shift_recalibration import CompositeRecalibrator, fit_label_shift_estimators

    z = np.linspace(0.05, 0.95, 30)
    y = (np.arange(30) % 2).astype(int)
    for bad in (2.5, 0, True, "3", np.uint64(2**64 - 1), 10**400):
        with pytest.raises(ValueError, match="n_bins"):
            CompositeRecalibrator(bad).fit(z, y, y)
        with pytest.raises(ValueError, match="n_bins_source"):
            fit_label_shift_estimators(z, y, z, y, n_bins_source=bad)
        with pytest.raises(ValueError, match="n_bins_target"):
            fit_label_shift_estimators(z, y, z, y, n_bins_target=bad)
    assert CompositeRecalibrator(np.int64(3)).n_bins == 3


@pytest.mark.parametrize("p, q", [(1e-100, 0.5), (0.5, 1e-100), (1e-100, 1 - 2**-53), (1 - 2**-53, 1e-100), (0.4, 1 - 2**-53)])
def test_priors_at_the_ends_of_the_domain_match_exact_arithmetic(p, q):
    # The domain's corners, where w_0 / w_1 reaches 9e115 and 1e-116: eq. (13) in 60-digit arithmetic on the same
    # floats, to a few ulps (subnormal posteriors included: z = 1e-310 is inside the domain of z).
    import mpmath

    z = np.array([0.0, 1e-310, 1e-300, 1e-20, 0.3, 0.5, 0.9, 1 - 1e-16, 1.0])
    got = prior_correction(z, p, q)
    with mpmath.workdps(60):
        P, Q = mpmath.mpf(p), mpmath.mpf(q)
        w1, w0 = Q / P, (1 - Q) / (1 - P)
        want = [float(w1 * mpmath.mpf(v) / (w1 * mpmath.mpf(v) + w0 * (1 - mpmath.mpf(v)))) for v in z]
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(float).eps, atol=5e-324)


@pytest.mark.parametrize("p, q, name", [(1e-101, 0.5, "source_prior"), (0.5, 5e-324, "target_prior"),
                                        (np.array([[0.3], [1e-300]]), 0.5, "source_prior")])
def test_priors_below_the_domain_are_refused(p, q, name):
    with pytest.raises(ValueError, match=rf"{name} must lie in \[1e-100, 1\)"):
        prior_correction([0.2, 0.7], p, q)


def test_a_predict_proba_array_is_refused_with_the_column_to_pass():
    # A practitioner's first use: both columns of predict_proba "corrected" gave rows summing to 1.03-1.32.
    proba = np.array([[0.8, 0.2], [0.35, 0.65], [0.5, 0.5]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"class-1 column, proba\[:, 1\]"):
        prior_correction(proba, 0.5, 0.1)
    np.testing.assert_allclose(prior_correction(proba[:, 1], 0.5, 0.1), [1 / 37, 0.65 / 9.0 / (0.65 / 9 + 0.35), 0.1],
                               rtol=1e-6)
    # class-1 probabilities in any other shape are corrected entry by entry, as before
    pairs = np.array([[0.2, 0.3], [0.6, 0.9]])
    np.testing.assert_array_equal(prior_correction(pairs, 0.5, 0.1), prior_correction(pairs.ravel(), 0.5, 0.1).reshape(2, 2))


def test_composite_names_z_source_when_it_is_too_short_for_its_bins():
    with pytest.raises(ValueError, match=r"^z_source must hold at least 2 \* n_bins = 8 samples, got 6"):
        CompositeRecalibrator(4).fit(np.linspace(0.1, 0.9, 6), [0, 1, 0, 1, 0, 1], [0, 1])
