"""GaussianMixture population risks of recalibration maps against independent quadratures.

``population_risks`` returns ``risk = cal + sha`` by construction, so Proposition 1
(book ``prop-risk-decomposition``) is checked here only against values of R(h)
computed directly: 30-digit mpmath quadrature of E[(h*(Z) - h(Z))^2] per bin, and
``recalibration_risk_by_quadrature`` (scipy quad in z).
"""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.calibration_sharpness import bin_indices
from companion.scenarios import GaussianMixture

# a reference that silently misses its accuracy would be no reference
pytestmark = pytest.mark.filterwarnings("error::scipy.integrate.IntegrationWarning")


def mp_risks(prior, mu, edges, values):
    """30-digit quadrature of Definitions 3-5 and the MSE, bin by bin, pooling equal values."""
    mp.mp.dps = 30
    pi, mu = mp.mpf(prior), mp.mpf(mu)
    phi = lambda t: mp.exp(-t * t / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    d1, d0 = (lambda x: pi * phi(x - mu)), (lambda x: (1 - pi) * phi(x + mu))
    post = lambda x: d1(x) / (d1(x) + d0(x))  # noqa: E731  Bayes' rule
    xs = [-mp.inf] + [mp.log(mp.mpf(e) / (1 - mp.mpf(e))) for e in edges[1:-1]] + [mp.inf]
    quad = lambda g, a, b: mp.quad(g, [a, b] if mp.isinf(a) or mp.isinf(b) else mp.linspace(a, b, 4))  # noqa: E731
    mass = [quad(lambda x: d1(x) + d0(x), a, b) for a, b in zip(xs[:-1], xs[1:])]
    ey = [quad(d1, a, b) for a, b in zip(xs[:-1], xs[1:])]
    groups = {}
    for b, v in enumerate(values):
        groups.setdefault(float(v), []).append(b)
    cal = sha = risk = mse = mp.mpf(0)
    for v, bins in groups.items():
        m = sum(mass[b] for b in bins)
        if m == 0:  # only empty bins: no probability, no contribution
            continue
        mean = sum(ey[b] for b in bins) / m
        cal += m * (mp.mpf(v) - mean) ** 2
        for b in bins:
            a, c = xs[b], xs[b + 1]
            sha += quad(lambda x: (d1(x) + d0(x)) * (post(x) - mean) ** 2, a, c)
            risk += quad(lambda x: (d1(x) + d0(x)) * (post(x) - mp.mpf(v)) ** 2, a, c)
            mse += quad(lambda x: d1(x) * (1 - mp.mpf(v)) ** 2 + d0(x) * mp.mpf(v) ** 2, a, c)
    return {"cal": float(cal), "sha": float(sha), "risk": float(risk), "mse": float(mse)}


def piecewise(edges, values):
    edges, values = np.asarray(edges, dtype=float), np.asarray(values, dtype=float)
    return lambda z: values[bin_indices(z, edges)]


CASES = [
    (0.5, 2.0, [0.0, 0.2, 0.5, 0.7, 1.0], [0.05, 0.3, 0.75, 0.98]),
    (0.1, 2.0, [0.0, 0.01, 0.3, 0.999, 1.0], [0.001, 0.2, 0.6, 1.0]),
    (0.03, 1.0, [0.0, 0.4, 0.45, 1.0], [0.0, 0.5, 0.9]),
    (0.8, 3.5, [0.0, 1e-6, 0.5, 0.5, 1.0], [0.2, 0.2, 0.7, 0.99]),  # pooled values, empty bin
    (0.5, 2.0, [0.0, 0.499, 0.5, 0.501, 1.0], [0.1, 0.45, 0.55, 0.9]),  # very narrow bins
]


@pytest.mark.parametrize("prior, mu, edges, values", CASES)
def test_population_risks_match_mpmath(prior, mu, edges, values):
    g = GaussianMixture(prior, mu)
    got = g.population_risks(edges, values)
    ref = mp_risks(prior, mu, edges, values)  # ref["risk"] integrates (h* - h)^2 directly, not cal + sha
    for key in ("cal", "sha", "risk", "mse"):
        assert got[key] == pytest.approx(ref[key], rel=1e-9, abs=1e-300), key
    # the scipy reference used by the chapter agrees with the 30-digit one
    direct = g.recalibration_risk_by_quadrature(piecewise(edges, values), edges[1:-1])
    assert direct == pytest.approx(ref["risk"], rel=1e-10, abs=1e-300)


def test_single_bin_recovers_sharpness_of_f():
    # A constant map loses all sharpness: sha = Var(h*(Z)), the sharpness of eq. (2).
    g = GaussianMixture(0.3, 1.5)
    r = g.population_risks([0.0, 1.0], [0.3])
    d = g.decomposition()
    assert r["cal"] == pytest.approx(0.0, abs=1e-15)
    assert r["sha"] == pytest.approx(d.sharpness, rel=1e-12)
    assert r["mse"] == pytest.approx(0.3 * 0.7, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    cuts=st.lists(st.floats(0.001, 0.999), min_size=1, max_size=8, unique=True),
    seed=st.integers(0, 10_000),
    prior=st.floats(0.05, 0.95),
)
def test_identities(cuts, seed, prior):
    """Proposition 1 against a direct R(h), MSE = Var Y - sharpness(h o f) + cal, and pooling equal values = merging bins."""
    g = GaussianMixture(prior, 2.0)
    edges = np.concatenate(([0.0], np.sort(cuts), [1.0]))
    values = np.random.default_rng(seed).random(edges.size - 1)
    r = g.population_risks(edges, values)
    direct = g.recalibration_risk_by_quadrature(lambda z: values[bin_indices(z, edges)], edges[1:-1])
    assert r["cal"] + r["sha"] == pytest.approx(direct, rel=1e-10, abs=1e-15)
    sharpness_of_h = g.decomposition().sharpness - r["sha"]
    assert r["mse"] == pytest.approx(prior * (1 - prior) - sharpness_of_h + r["cal"], rel=1e-9, abs=1e-12)
    # giving the last two bins one value is the same as merging them
    pooled = values.copy()
    pooled[-1] = pooled[-2]
    merged = g.population_risks(np.delete(edges, -2), pooled[:-1])
    for key, val in g.population_risks(edges, pooled).items():
        assert val == pytest.approx(merged[key], rel=1e-10, abs=1e-15), key


def test_batch_equals_single_calls():
    g = GaussianMixture(0.5, 2.0)
    maps = [([0.0, 0.5, 1.0], [0.1, 0.9]), ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.3, 0.7, 1.0])]
    batch = g.population_risks_batch([m[0] for m in maps], [m[1] for m in maps])
    for i, m in enumerate(maps):
        single = g.population_risks(*m)
        for key in single:
            assert batch[key][i] == pytest.approx(single[key], rel=1e-13)


@pytest.mark.parametrize(
    "edges, values, match",
    [
        ([0.0, 0.6, 0.4, 1.0], [0.1, 0.2, 0.3], "edges"),  # unsorted
        ([0.1, 0.5, 1.0], [0.1, 0.2], "edges"),  # does not start at 0
        ([0.0, 0.5, 1.2], [0.1, 0.2], "edges"),  # out of range
        ([0.0, 0.5, 1.0], [0.1, 1.2], "values"),
        ([0.0, 0.5, 1.0], [0.1, np.nan], "values"),
        ([0.0, 0.5, 1.0], [0.1, 0.2, 0.3], "values"),  # wrong length
    ],
)
def test_bad_input(edges, values, match):
    with pytest.raises(ValueError, match=match):
        GaussianMixture().population_risks(edges, values)


def test_cdf_quantile_and_smoothness_constant():
    g = GaussianMixture(0.2, 2.0)
    q = np.array([1e-9, 0.01, 0.2, 0.5, 0.99])
    np.testing.assert_allclose(g.cdf(g.quantile(q)), q, rtol=1e-10)
    # K against a brute-force finite-difference slope of h* against F_Z on the central range
    z = g.quantile(np.linspace(1e-6, 1 - 1e-6, 400_001))
    slopes = np.diff(g.h_star(z)) / np.diff(g.cdf(z))
    k = g.smoothness_constant(1e-6)
    assert np.max(slopes) <= k * (1 + 1e-6)
    assert np.max(slopes) == pytest.approx(k, rel=1e-3)
    with pytest.raises(ValueError, match="tail_mass"):
        g.smoothness_constant(0.7)
    with pytest.raises(ValueError, match="q"):
        g.quantile([0.0, 0.5])


def test_many_bins_against_scipy_quad():
    """200 data-driven bins (edges of a UMB fit, distinct values) against per-bin adaptive quadrature."""
    from scipy.integrate import quad
    from scipy.stats import norm

    from companion.calibration_sharpness import UniformMassBinning

    g = GaussianMixture(0.3, 2.0)
    m = UniformMassBinning(200).fit(*g.sample(4000, 3))
    values = np.sort(np.random.default_rng(4).random(200))  # distinct, so no bins are pooled
    pi = 0.3
    dens = lambda x: pi * norm.pdf(x, 2.0) + (1 - pi) * norm.pdf(x, -2.0)  # noqa: E731
    post = lambda x: 1 / (1 + (1 - pi) / pi * np.exp(-4 * x))  # noqa: E731  Bayes' rule, written out
    xs = np.concatenate(([-30.0], np.log(m.edges_[1:-1] / (1 - m.edges_[1:-1])), [30.0]))  # tails < 1e-150
    sha = cal = 0.0
    for b, v in enumerate(values):
        a, c = xs[b], xs[b + 1]
        mass = quad(dens, a, c, epsabs=0, epsrel=1e-13)[0]
        mean = quad(lambda x: pi * norm.pdf(x, 2.0), a, c, epsabs=0, epsrel=1e-13)[0] / mass
        sha += quad(lambda x: dens(x) * (post(x) - mean) ** 2, a, c, epsabs=1e-17, epsrel=1e-12)[0]
        cal += mass * (v - mean) ** 2
    got = g.population_risks(m.edges_, values)
    assert got["sha"] == pytest.approx(sha, rel=1e-9)
    assert got["cal"] == pytest.approx(cal, rel=1e-9)


def test_batch_and_smoothness_bad_input():
    g = GaussianMixture()
    with pytest.raises(ValueError, match="values_list must hold at least one"):
        g.population_risks_batch([[0.0, 1.0]], [])
    with pytest.raises(ValueError, match="edges_list must hold at least one"):
        g.population_risks_batch([], [])
    with pytest.raises(ValueError, match="edges_list and values_list must have the same length"):
        g.population_risks_batch([[0.0, 1.0]], [[0.5], [0.5]])
    with pytest.raises(ValueError, match="edges_list must be a non-empty list"):
        g.population_risks_batch("x", [[0.5]])
    with pytest.raises(ValueError, match="values_list entries must hold one value per bin"):
        g.population_risks_batch([[0.0, 0.5, 1.0]], [[0.5]])
    with pytest.raises(ValueError, match="z"):
        g.smoothness_ratio([0.0, 0.5])
    with pytest.raises(ValueError, match="tail_mass"):
        g.smoothness_constant(1e-17)
    with pytest.raises(ValueError, match="tail_mass"):
        g.smoothness_constant(0.0)


@pytest.mark.parametrize(
    "prior, mu, h",
    [
        (0.5, 2.0, lambda z: z),  # the identity: R = calibration term of eq. (2)
        (0.1, 2.0, np.sqrt),
        (0.3, 1.0, lambda z: z**3),
        (0.8, 3.5, lambda z: 1 / (1 + 3 * (1 - z) / np.maximum(z, 1e-300))),  # a prior correction; 0 at z = 0
    ],
)
def test_quadrature_risk_matches_population_risks_of_map(prior, mu, h):
    """Injective maps: Gauss-Legendre in x (population_risks_of_map) against adaptive quad in z."""
    g = GaussianMixture(prior, mu)
    r = g.population_risks_of_map(h)
    assert r["risk"] == pytest.approx(g.recalibration_risk_by_quadrature(h), rel=1e-10)


def test_identity_map_risk_is_the_calibration_term_and_excess_mse():
    """R(identity) = calibration term of eq. (2), and MSE(h o f) - MSE(h* o f) = R(h) (book eq-excess-mse)."""
    g = GaussianMixture(0.5, 2.0)
    direct = g.recalibration_risk_by_quadrature(lambda z: z)
    d = g.decomposition()
    assert direct == pytest.approx(d.calibration, rel=1e-11)
    bayes_mse = g.expect(lambda x: g.posterior_x(x) * (1 - g.posterior_x(x)))
    assert d.mse - bayes_mse == pytest.approx(direct, rel=1e-11)
    for edges, values in [([0.0, 0.3, 0.6, 1.0], [0.1, 0.5, 0.9]), ([0.0, 0.5, 1.0], [0.02, 0.98])]:
        r = g.population_risks(edges, values)
        direct = g.recalibration_risk_by_quadrature(piecewise(edges, values), edges[1:-1])
        assert r["mse"] - bayes_mse == pytest.approx(direct, rel=1e-10)


def test_quadrature_risk_tells_a_wrong_identity_apart():
    """The check can fail: the calibration risk alone, or a wrong map, misses R(h) by far more than the tolerance."""
    g = GaussianMixture(0.5, 2.0)
    edges, values = [0.0, 0.3, 0.6, 1.0], [0.1, 0.5, 0.9]
    r = g.population_risks(edges, values)
    direct = g.recalibration_risk_by_quadrature(piecewise(edges, values), edges[1:-1])
    assert r["sha"] > 1e-3 and abs(direct - r["cal"]) > 1e-3
    shifted = g.recalibration_risk_by_quadrature(piecewise(edges, [0.1, 0.51, 0.9]), edges[1:-1])
    assert abs(shifted - direct) > 1e-6


def test_quadrature_risk_bad_input():
    g = GaussianMixture()
    with pytest.raises(ValueError, match="h must be callable"):
        g.recalibration_risk_by_quadrature(0.5)
    with pytest.raises(ValueError, match="breakpoints must be an array of real numbers"):
        g.recalibration_risk_by_quadrature(lambda z: z, ["0.5"])
    with pytest.raises(ValueError, match="breakpoints must lie in"):
        g.recalibration_risk_by_quadrature(lambda z: z, [0.5, 1.5])
    with pytest.raises(ValueError, match="breakpoints must be finite"):
        g.recalibration_risk_by_quadrature(lambda z: z, [np.nan])
    with pytest.raises(ValueError, match="breakpoints must be a 1-D"):
        g.recalibration_risk_by_quadrature(lambda z: z, [[0.2, 0.4]])
    with pytest.raises(ValueError, match=r"h must return one value in \[0, 1\]"):
        g.recalibration_risk_by_quadrature(lambda z: 2 * z)
    with pytest.raises(ValueError, match="rtol must lie in the open interval"):
        g.recalibration_risk_by_quadrature(lambda z: z, rtol=0.0)
