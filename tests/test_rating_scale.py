"""Tests for RatingScaleExample (paper 003, section 5)."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import binom, norm

from companion.scenarios import RatingScaleExample

EX = RatingScaleExample()


def vasicek_mass(k, n=16, mean=0.3, rho=0.3):
    """Q[S = k] by adaptive quadrature over the Vasicek density of P on (0, 1)."""

    def density(u):
        z = norm.ppf(u)
        return np.sqrt((1 - rho) / rho) * np.exp(0.5 * z**2 - (np.sqrt(1 - rho) * z - norm.ppf(mean)) ** 2 / (2 * rho))

    return integrate.quad(lambda u: density(u) * binom.pmf(k, n, u), 0, 1, epsabs=1e-14, epsrel=1e-12, limit=200)[0]


def test_target_masses_sum_to_one_and_have_the_vasicek_mean():
    f = EX.target_masses
    assert abs(f.sum() - 1.0) < 1e-12
    assert abs(f @ EX.scores - 0.3 * 16) < 1e-12


@pytest.mark.parametrize("k", range(17))
def test_target_masses_match_adaptive_quadrature(k):
    assert EX.target_masses[k] == pytest.approx(vasicek_mass(k), abs=1e-11)


def test_quadrature_has_converged_in_the_number_of_nodes():
    np.testing.assert_allclose(RatingScaleExample(n_nodes=80).target_masses, EX.target_masses, atol=1e-13)


def test_source_quantities():
    m0, m1 = EX.class_masses
    np.testing.assert_allclose(m0, binom.pmf(EX.scores, 16, 0.4))
    assert EX.source_masses @ EX.source_posteriors == pytest.approx(0.01, abs=1e-15)
    assert np.all(np.diff(EX.source_posteriors) > 0)  # likelihood ratio increasing in the grade
    mix = EX.label_shift_target_masses(0.2)
    assert mix.sum() == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"success1": 0.3}, "success1"), ({"target_prior": 1.0}, "target_prior"), ({"n_nodes": 1}, "n_nodes"),
     ({"target_correlation": 0.0}, "target_correlation"), ({"n_trials": 0}, "n_trials")],
)
def test_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        RatingScaleExample(**kwargs)


def test_bad_label_shift_prior():
    with pytest.raises(ValueError, match="target_prior"):
        EX.label_shift_target_masses(0.0)


def test_source_posteriors_where_both_class_masses_underflow():
    """Issue 20 item 18: Bayes' rule in log space; 50-digit exact binomials are the reference (was 62 NaN)."""
    import mpmath as mp

    ex = RatingScaleExample(n_trials=200, success0=1e-3, success1=2e-3)
    post = ex.source_posteriors
    assert np.all(np.isfinite(post)) and np.all(np.diff(post) >= 0)
    mp.mp.dps = 50
    p, s0, s1 = mp.mpf(ex.source_prior), mp.mpf("1e-3"), mp.mpf("2e-3")
    for k in (0, 1, 5, 20, 60, 138, 200):
        m0, m1 = (mp.binomial(200, k) * s**k * (1 - s) ** (200 - k) for s in (s0, s1))
        assert post[k] == pytest.approx(float(p * m1 / (p * m1 + (1 - p) * m0)), rel=1e-12, abs=1e-300)


def test_integral_float_sizes_are_stored_as_ints():
    """Issue 20 item 18: n_nodes=160.0 was accepted and then failed inside numpy with a TypeError."""
    ex = RatingScaleExample(n_trials=16.0, n_nodes=160.0)
    assert type(ex.n_nodes) is int and type(ex.n_trials) is int
    np.testing.assert_array_equal(ex.target_masses, EX.target_masses)
    with pytest.raises(ValueError, match="n_nodes"):
        RatingScaleExample(n_nodes=160.5)
