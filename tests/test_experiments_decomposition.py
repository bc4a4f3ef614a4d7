"""Drivers of companion.calibration_sharpness.experiments: convergence of the binned terms, and the terms across priors."""

import numpy as np
import pytest

from companion.calibration_sharpness import decomposition_across_priors, decomposition_convergence
from companion.scenarios import GaussianMixture


def test_binned_terms_converge_to_population_values():
    r = decomposition_convergence(n_values=(10**3, 10**5), n_reps=8, rng=3)
    assert r["empirical"].shape == (2, 8, 5)
    assert r["n_bins"].tolist() == [10, 47]
    err = np.abs(r["empirical"] - r["exact"]).mean(axis=1)
    # Every term's mean absolute error falls by at least 3x over a 100x larger sample.
    assert np.all(err[1, :4] < err[0, :4] / 3)
    np.testing.assert_allclose(r["empirical"][1].mean(axis=0), r["exact"], atol=2e-3)
    # The identity holds in every replicate.
    e = r["empirical"]
    np.testing.assert_allclose(e[..., 0], e[..., 1] - e[..., 2] + e[..., 3] + e[..., 4], atol=1e-12)


def test_reproducible():
    a = decomposition_convergence(n_values=(100, 200), n_reps=2, rng=1)["empirical"]
    b = decomposition_convergence(n_values=(100, 200), n_reps=2, rng=1)["empirical"]
    np.testing.assert_array_equal(a, b)


def test_errors_and_slopes_match_a_direct_fit():
    r = decomposition_convergence(n_values=(10**2, 10**3, 10**4), n_reps=4, rng=2)
    err = np.abs(r["empirical"] - r["exact"]).mean(axis=1)
    np.testing.assert_allclose(r["mean_abs_error"], err)
    direct = [np.polyfit(np.log(r["n"]), np.log(err[:, k]), 1)[0] for k in range(5)]
    np.testing.assert_allclose(r["slopes"], direct, rtol=1e-10)
    assert r["slopes"][0] < 0  # the MSE estimate converges


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_values must hold at least two"):
        decomposition_convergence(n_values=(100, 100))
    with pytest.raises(ValueError, match="n_values entries must be at least 2"):
        decomposition_convergence(n_values=(1, 100))
    with pytest.raises(ValueError, match="n_reps must be at least 1"):
        decomposition_convergence(n_reps=0)


def test_across_priors_mse_is_prior_free_and_monte_carlo_agrees():
    """book prop-mse-prior-free: the exact MSE is one number; the Monte Carlo Brier score agrees with it."""
    priors = (0.02, 0.2, 0.5, 0.85)
    r = decomposition_across_priors(priors=priors, mu=1.5, n=200_000, offset=1.0, rng=7)
    assert r["exact"].shape == (4, 4) and r["class_mse"].shape == (4, 2)
    mse = r["exact"][:, 0]
    np.testing.assert_allclose(mse, mse[0], rtol=1e-13)
    np.testing.assert_allclose(r["class_mse"], mse[0], rtol=1e-13)
    # the terms that do depend on the prior really move (the table is not constant by accident)
    assert np.ptp(r["exact"][:, 1]) > 0.1 and np.ptp(r["exact"][:, 3]) > 1e-3
    # exact values match the scenario called directly
    for p, row in zip(priors, r["exact"]):
        np.testing.assert_allclose(row, GaussianMixture(p, 1.5).decomposition(), rtol=1e-14)
    # independent Monte Carlo check: within 4.5 standard errors at every prior
    assert np.all(np.abs(r["mc_mse"] - mse) < 4.5 * r["mc_se"])


def test_across_priors_control_without_mirror_symmetry():
    """The shifted forecaster sigma(X + 1) breaks the symmetry: its Brier score is affine in the prior, not constant."""
    priors = np.array([0.05, 0.35, 0.65, 0.95])
    r = decomposition_across_priors(priors=priors, mu=2.0, n=200_000, offset=1.0, rng=8)
    shifted = r["mc_mse_shifted"]
    assert shifted[0] - shifted[-1] > 50 * r["mc_se_shifted"].max()  # clearly prior-dependent
    slope, intercept = np.polyfit(priors, shifted, 1)
    residual = shifted - (slope * priors + intercept)
    assert np.all(np.abs(residual) < 5 * r["mc_se_shifted"])  # MSE = pi E_1 + (1 - pi) E_0 is affine in pi
    r0 = decomposition_across_priors(priors=priors, mu=2.0, n=200_000, offset=0.0, rng=8)
    np.testing.assert_allclose(r0["mc_mse_shifted"], r0["mc_mse"], rtol=1e-12)  # offset 0 is f itself


def test_across_priors_bad_arguments():
    with pytest.raises(ValueError, match="priors must lie in the open interval"):
        decomposition_across_priors(priors=(0.0, 0.5))
    with pytest.raises(ValueError, match="n must be at least 2"):
        decomposition_across_priors(n=1)
    with pytest.raises(ValueError, match="offset must be a finite real number"):
        decomposition_across_priors(offset=np.inf)
    with pytest.raises(ValueError, match="offset must be a finite real number"):
        decomposition_across_priors(offset="1")
