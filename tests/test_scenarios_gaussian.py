"""GaussianMixture: sampling law, h*, the exact decomposition and the class-wise errors against mpmath quadrature."""

import mpmath as mp
import numpy as np
import pytest
from scipy.special import expit

from companion.scenarios import GaussianMixture


def mp_decomposition(prior, mu):
    """Independent 30-digit quadrature of the four terms of eq. (2)."""
    mp.mp.dps = 30
    pi, mu = mp.mpf(prior), mp.mpf(mu)
    phi = lambda t: mp.exp(-t * t / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    sig = lambda t: 1 / (1 + mp.exp(-t))  # noqa: E731
    dens1, dens0 = (lambda x: phi(x - mu)), (lambda x: phi(x + mu))
    dens = lambda x: pi * dens1(x) + (1 - pi) * dens0(x)  # noqa: E731
    post = lambda x: pi * dens1(x) / dens(x)  # noqa: E731  Bayes' rule, not the sigmoid form
    pts = [-mp.inf, -mu, 0, mu, mp.inf]
    mse = mp.quad(lambda x: pi * dens1(x) * (1 - sig(x)) ** 2 + (1 - pi) * dens0(x) * sig(x) ** 2, pts)
    sharp = mp.quad(lambda x: dens(x) * (post(x) - pi) ** 2, pts)
    cal = mp.quad(lambda x: dens(x) * (sig(x) - post(x)) ** 2, pts)
    return float(mse), float(pi * (1 - pi)), float(sharp), float(cal)


@pytest.mark.parametrize("prior, mu", [(0.5, 2.0), (0.1, 2.0), (0.03, 1.0), (0.8, 3.5)])
def test_decomposition_matches_high_precision_quadrature(prior, mu):
    d = GaussianMixture(prior, mu).decomposition()
    np.testing.assert_allclose(d, mp_decomposition(prior, mu), rtol=0, atol=1e-10)
    assert d.mse == pytest.approx(d.variance - d.sharpness + d.calibration, abs=1e-12)


def test_h_star_is_bayes_posterior():
    g = GaussianMixture(0.2, 1.5)
    z = np.linspace(0.01, 0.99, 41)
    x = np.log(z / (1 - z))
    from scipy.stats import norm
    bayes = 0.2 * norm.pdf(x, 1.5) / (0.2 * norm.pdf(x, 1.5) + 0.8 * norm.pdf(x, -1.5))
    np.testing.assert_allclose(g.h_star(z), bayes, rtol=1e-12)
    assert g.h_star(np.array([0.0, 1.0])).tolist() == [0.0, 1.0]


def test_paper_closed_form_of_h_star():
    # The papers' README: h*(z) = sigmoid(4 logit z + log(pi / (1 - pi))) for mu = 2.
    z = np.linspace(0.02, 0.98, 25)
    g = GaussianMixture(0.1, 2.0)
    np.testing.assert_allclose(g.h_star(z), expit(4 * np.log(z / (1 - z)) + np.log(0.1 / 0.9)), rtol=1e-13)


def test_sampling_law():
    g = GaussianMixture(0.3, 2.0)
    z, y = g.sample(200_000, np.random.default_rng(5))
    assert z.shape == y.shape == (200_000,)
    assert abs(y.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / 200_000)
    x1 = np.log(z[y == 1] / (1 - z[y == 1]))
    assert abs(x1.mean() - 2.0) < 0.02 and abs(x1.std() - 1.0) < 0.02
    # Monte Carlo MSE against the exact value (standard error about 1e-4).
    assert abs(np.mean((y - z) ** 2) - g.decomposition().mse) < 6e-4


def test_sampling_is_reproducible_from_a_seed():
    a = GaussianMixture().sample(50, 7)
    b = GaussianMixture().sample(50, 7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def mp_class_errors(mu):
    """Independent 30-digit quadrature of E[sigma(X)^2 | Y=0] and E[(1 - sigma(X))^2 | Y=1]."""
    mp.mp.dps = 30
    mu = mp.mpf(mu)
    phi = lambda t: mp.exp(-t * t / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    sig = lambda t: 1 / (1 + mp.exp(-t))  # noqa: E731
    pts = [-mp.inf, -mu, 0, mu, mp.inf]
    error0 = mp.quad(lambda x: phi(x + mu) * sig(x) ** 2, pts)
    error1 = mp.quad(lambda x: phi(x - mu) * (1 - sig(x)) ** 2, pts)
    assert abs(error0 - error1) < mp.mpf(10) ** -25 * error0  # the mirror symmetry, to 25 digits
    return float(error0), float(error1)


@pytest.mark.parametrize("mu", [0.5, 2.0, 3.5])
def test_mse_is_the_same_for_every_prior(mu):
    """book prop-mse-prior-free: both class-wise errors equal one number, so the MSE is free of the prior."""
    error0, error1 = mp_class_errors(mu)
    for prior in (0.001, 0.1, 0.5, 0.73, 0.999):
        g = GaussianMixture(prior, mu)
        np.testing.assert_allclose(g.class_conditional_mse(), (error0, error1), rtol=1e-12)
        assert g.decomposition().mse == pytest.approx(error0, rel=1e-12)


def test_prior_free_mse_by_simulation():
    """Independent of any quadrature: the Brier score per class and overall, at two far-apart priors."""
    rng = np.random.default_rng(12)
    errors = GaussianMixture(0.5, 2.0).class_conditional_mse()
    for prior in (0.05, 0.9):
        z, y = GaussianMixture(prior, 2.0).sample(400_000, rng)
        loss = (y - z) ** 2
        se = loss.std() / np.sqrt(loss.size)
        assert abs(loss.mean() - errors[0]) < 4.5 * se
        for k in (0, 1):
            cls = loss[y == k]
            assert abs(cls.mean() - errors[k]) < 4.5 * cls.std() / np.sqrt(cls.size)


def test_expect_against_closed_moments_and_bad_input():
    """E[X] = (2 pi - 1) mu and E[X^2] = 1 + mu^2 under the mixture; a non-callable or scalar g is refused."""
    g = GaussianMixture(0.3, 1.5)
    assert g.expect(lambda x: x) == pytest.approx((2 * 0.3 - 1) * 1.5, abs=1e-13)
    assert g.expect(lambda x: x**2) == pytest.approx(1 + 1.5**2, rel=1e-13)
    with pytest.raises(ValueError, match="g must be callable"):
        g.expect(0.5)
    with pytest.raises(ValueError, match="g must map an array"):
        g.expect(lambda x: 1.0)


def test_posterior_x_and_callables_are_validated():
    """Issue 13: posterior_x takes finite reals of any shape; g and h must be callables returning finite reals."""
    g = GaussianMixture(0.3, 1.5)
    for bad in (None, [], [np.nan], ["0.5"], np.array([0.5 + 0j]), np.array([True])):
        with pytest.raises(ValueError, match="x"):
            g.posterior_x(bad)
    np.testing.assert_allclose(g.posterior_x(np.zeros((2, 2))), np.full((2, 2), 0.3))
    with pytest.raises(ValueError, match="g"):
        g.expect(lambda x: np.full(x.shape, np.nan))
    for bad in (None, 3):
        with pytest.raises(ValueError, match="h"):
            g.population_risks_of_map(bad)


@pytest.mark.parametrize("mu", [40.0, 150.0, 1e3, 1e6, 1e300])
def test_decomposition_for_widely_separated_classes(mu):
    """Issue 20 item 18: at mu = 1e6 every term came out 0 while Var Y = 0.21, violating eq. (2).

    Independent values: the posterior is 0 or 1 up to exp(-2 mu^2)-sized terms, so the sharpness is
    pi(1 - pi); the MSE is E[sigma(X)^2 | Y = 0] = E[e^{2X}](1 + O(e^{-mu})) = exp(2 - 2 mu) for
    X ~ N(-mu, 1) (0 once that underflows), and the calibration term equals it to the same order.
    """
    d = GaussianMixture(0.3, mu).decomposition()
    assert d.variance == pytest.approx(0.21, abs=1e-15)
    assert d.sharpness == pytest.approx(0.21, abs=1e-15)
    assert d.mse == pytest.approx(np.exp(2.0 - 2.0 * mu), rel=1e-12, abs=1e-300)
    assert d.calibration == pytest.approx(d.mse, rel=1e-12, abs=1e-300)
    assert abs(d.variance - d.sharpness + d.calibration - d.mse) < 1e-15


def test_grid_switch_at_mu_16_is_seamless():
    """The class grids used for mu > 16 and the single grid below agree with each other at the switch."""
    below, above = GaussianMixture(0.3, 16.0), GaussianMixture(0.3, 16.0 + 1e-9)
    np.testing.assert_allclose(below.decomposition(), above.decomposition(), rtol=1e-6, atol=1e-17)
    for mu in (20.0, 30.0):
        gm = GaussianMixture(0.5, mu)
        risk = gm.population_risks_of_map(lambda z: z)["risk"]
        assert risk == pytest.approx(gm.decomposition().calibration, rel=1e-10)


@pytest.mark.parametrize("method, arg", [
    ("posterior_x", np.array([[-1.0, 0.0, 0.3], [0.7, 1.1, 2.5]])),
    ("h_star", np.array([[0.1, 0.2, 0.5], [0.6, 0.8, 0.95]])),
    ("cdf", np.array([[0.1, 0.2, 0.5], [0.6, 0.8, 0.95]])),
    ("quantile", np.array([[0.1, 0.2, 0.5], [0.6, 0.8, 0.95]])),
    ("forecast_density", np.array([[0.1, 0.2, 0.5], [0.6, 0.8, 0.95]])),
    ("smoothness_ratio", np.array([[0.1, 0.2, 0.5], [0.6, 0.8, 0.95]])),
])
def test_pointwise_oracles_are_elementwise_for_every_shape(method, arg):
    """Issue 20 item 18 (posterior_x accepts 2-D x): documented, and the same for every pointwise oracle.

    Each entry of a 2-D call equals the scalar call on that entry, and a scalar gives a float.
    """
    f = getattr(GaussianMixture(0.3, 1.5), method)
    out = f(arg)
    assert out.shape == arg.shape
    np.testing.assert_array_equal(out, np.array([[f(float(v)) for v in row] for row in arg]))
    assert isinstance(f(float(arg[0, 0])), float)
