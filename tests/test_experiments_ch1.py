"""The Chapter 1 convergence driver: shape, determinism and convergence to the exact terms."""

import numpy as np

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
    a = decomposition_convergence(n_values=(100,), n_reps=2, rng=1)["empirical"]
    b = decomposition_convergence(n_values=(100,), n_reps=2, rng=1)["empirical"]
    np.testing.assert_array_equal(a, b)
