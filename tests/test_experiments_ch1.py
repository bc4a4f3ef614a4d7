"""The Chapter 1 convergence driver: shape, determinism and convergence to the exact terms."""

import numpy as np
import pytest

from companion.experiments import decomposition_convergence


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
