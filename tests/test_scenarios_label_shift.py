"""GaussianMixture.population_risks_of_map and the composite's risks against independent adaptive quadrature (label shift)."""

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit
from scipy.stats import norm

from companion.scenarios import GaussianMixture


def quad_risks(prior, mu, h):
    """R = E[(h(Z) - h*(Z))^2] and MSE = E[(h(Z) - Y)^2] by scipy.quad over x, posterior by Bayes' rule."""
    d1 = lambda x: norm.pdf(x, mu)  # noqa: E731
    d0 = lambda x: norm.pdf(x, -mu)  # noqa: E731
    post = lambda x: prior * d1(x) / (prior * d1(x) + (1 - prior) * d0(x))  # noqa: E731
    opts = dict(points=[-mu, 0.0, mu], epsabs=1e-14, epsrel=1e-12, limit=200)
    risk = integrate.quad(lambda x: (prior * d1(x) + (1 - prior) * d0(x)) * (h(expit(x)) - post(x)) ** 2, -40, 40, **opts)[0]
    mse = integrate.quad(lambda x: prior * d1(x) * (1 - h(expit(x))) ** 2 + (1 - prior) * d0(x) * h(expit(x)) ** 2, -40, 40, **opts)[0]
    return risk, mse


@pytest.mark.parametrize(
    "prior, mu, h",
    [
        (0.1, 2.0, lambda z: z),
        (0.1, 2.0, lambda z: 0.2 * z / (0.2 * z + 1.8 * (1 - z))),
        (0.3, 1.5, lambda z: z**0.7),
        (0.02, 2.0, lambda z: np.sqrt(z)),
    ],
)
def test_risks_of_map_match_quadrature(prior, mu, h):
    r = GaussianMixture(prior, mu).population_risks_of_map(h)
    risk, mse = quad_risks(prior, mu, h)
    assert r["risk"] == pytest.approx(risk, abs=1e-9)
    assert r["mse"] == pytest.approx(mse, abs=1e-9)


def test_mse_is_risk_plus_irreducible_noise():
    g = GaussianMixture(0.1)
    r = g.population_risks_of_map(lambda z: z**0.9)
    noise = g.expect(lambda x: g.posterior_x(x) * (1 - g.posterior_x(x)))
    assert r["mse"] == pytest.approx(r["risk"] + noise, abs=1e-12)


def test_batch_of_maps_matches_one_at_a_time():
    g = GaussianMixture(0.1)
    a = np.array([0.5, 1.0, 2.0])[:, None]
    batch = g.population_risks_of_map(lambda z: z**a)
    for i, ai in enumerate(a[:, 0]):
        single = g.population_risks_of_map(lambda z: z**ai)
        assert batch["risk"][i] == pytest.approx(single["risk"], rel=1e-14)
        assert batch["mse"][i] == pytest.approx(single["mse"], rel=1e-14)
    assert batch["sha"].shape == (3,) and not batch["sha"].any()


@pytest.mark.parametrize(
    "h, match",
    [
        (lambda z: np.round(z, 1), "strictly increasing"),
        (lambda z: 1 - z, "strictly increasing"),
        (lambda z: 2 * z, r"\[0, 1\]"),
        (lambda z: z[:-1], "last axis"),
        (lambda z: 0.5, "last axis"),
    ],
)
def test_bad_maps(h, match):
    with pytest.raises(ValueError, match=match):
        GaussianMixture(0.1).population_risks_of_map(h)


def test_saturated_increasing_map_is_accepted():
    # g(h*_P(z)) rounds to exactly 1 for large logit z; those ties are rounding, not a step.
    source, target = GaussianMixture(0.5), GaussianMixture(0.1)
    r = target.population_risks_of_map(lambda z: 0.1 * 0.5 * source.h_star(z) / (0.05 * source.h_star(z) + 0.45 * (1 - source.h_star(z))))
    assert r["risk"] == pytest.approx(0.0, abs=1e-15)


def test_forecast_density_is_derivative_of_cdf():
    g = GaussianMixture(0.1, 2.0)
    cdf = lambda z: 0.1 * norm.cdf(np.log(z / (1 - z)) - 2) + 0.9 * norm.cdf(np.log(z / (1 - z)) + 2)  # noqa: E731
    z = np.linspace(0.01, 0.99, 99)
    h = 1e-6
    np.testing.assert_allclose(g.forecast_density(z), (cdf(z + h) - cdf(z - h)) / (2 * h), rtol=1e-6)
    assert integrate.quad(g.forecast_density, 0, 1, limit=200)[0] == pytest.approx(1.0, abs=1e-9)
    assert g.forecast_density(np.array([0.0, 1.0])).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="z"):
        g.forecast_density([1.2])


def test_composite_target_risk_matches_quadrature():
    # The composite is piecewise constant on the source bins; integrate (value_b - h*_Q)^2 bin by bin in x.
    from companion.label_shift_recalibration import CompositeRecalibrator

    rng = np.random.default_rng(8)
    z_s, y_s = GaussianMixture(0.5).sample(1000, rng)
    _, y_t = GaussianMixture(0.1).sample(100, rng)
    model = CompositeRecalibrator().fit(z_s, y_s, y_t)
    prior, mu = 0.1, 2.0
    d1, d0 = (lambda x: norm.pdf(x, mu)), (lambda x: norm.pdf(x, -mu))
    dens = lambda x: prior * d1(x) + (1 - prior) * d0(x)  # noqa: E731
    post = lambda x: prior * d1(x) / dens(x)  # noqa: E731
    x_edges = np.concatenate(([-40.0], np.log(model.edges_[1:-1] / (1 - model.edges_[1:-1])), [40.0]))
    risk = sum(
        integrate.quad(lambda x: dens(x) * (v - post(x)) ** 2, a, b, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
        for v, a, b in zip(model.values_, x_edges[:-1], x_edges[1:])
    )
    got = GaussianMixture(prior, mu).population_risks(model.edges_, model.values_)
    assert got["risk"] == pytest.approx(risk, abs=1e-9)
