"""Uniform-mass binning drivers (companion.uniform_mass_binning.experiments) against direct fits, quadrature and exact laws."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import beta as beta_law

from companion.calibration_sharpness import UniformMassBinning
from companion.scenarios import GaussianMixture
from companion.uniform_mass_binning import (
    LEMMA3_CONSTANT,
    umb_a3_regime_start,
    umb_balance_probability_bounds,
    umb_bin_statistics,
    umb_binwise_risks,
    umb_calibration_bound,
    umb_figure_summary,
    umb_lemma_frequencies,
    umb_risk_grid,
)


def mixture_integrals(prior, mu, z_lo, z_hi):
    """P[Z in I], E[h*(Z) 1_I] and E[h*(Z)^2 1_I] by adaptive quadrature in x = logit z (densities written out)."""
    phi = lambda t: np.exp(-0.5 * t * t) / np.sqrt(2 * np.pi)  # noqa: E731
    d1 = lambda x: prior * phi(x - mu)  # noqa: E731
    d0 = lambda x: (1 - prior) * phi(x + mu)  # noqa: E731
    a = -np.inf if z_lo == 0 else np.log(z_lo / (1 - z_lo))
    b = np.inf if z_hi == 1 else np.log(z_hi / (1 - z_hi))
    q = lambda g: quad(g, a, b, epsabs=1e-14, epsrel=1e-11, limit=200)[0]  # noqa: E731
    post = lambda x: 1.0 / (1.0 + d0(x) / d1(x)) if d1(x) > 0 else 0.0  # noqa: E731  Bayes' rule
    return q(lambda x: d1(x) + d0(x)), q(d1), q(lambda x: d1(x) * post(x))


def test_grid_matches_direct_fits():
    n_values, n_bins, reps = [20, 2000], [2, 7, 50], 2
    grid = umb_risk_grid(n_values, n_bins, reps, prior=0.3, rng=11)
    assert grid["valid"].tolist() == [[True, True, False], [True, True, True]]
    assert np.all(np.isnan(grid["cal"][0, 2])) and not np.any(np.isnan(grid["cal"][grid["valid"]]))
    rng = np.random.default_rng(11)  # replay the same random stream by hand: class-1 count, then each class
    g = GaussianMixture(0.3, 2.0)
    for i, n in enumerate(n_values):
        for r in range(reps):
            n_ones = rng.binomial(n, 0.3)
            x = np.concatenate((rng.standard_normal(n_ones) + 2.0, rng.standard_normal(n - n_ones) - 2.0))
            z, y = 1 / (1 + np.exp(-x)), np.repeat([1, 0], [n_ones, n - n_ones])
            for j, b in enumerate(n_bins):
                if 2 * b > n:
                    continue
                m = UniformMassBinning(b).fit(z, y)
                direct = g.population_risks(m.edges_, m.values_)
                for key in ("cal", "sha", "risk", "mse"):
                    assert grid[key][i, j, r] == pytest.approx(direct[key], rel=1e-12)


def test_binwise_risks_against_quadrature():
    """Closed forms of umb_binwise_risks against quad; pooled sharpness against population_risks_batch."""
    prior, mu = 0.4, 1.5
    g = GaussianMixture(prior, mu)
    z, y = g.sample(60, 3)
    m = UniformMassBinning(20).fit(z, y)  # 3 points per bin: values tie
    got = umb_binwise_risks([m.edges_], [m.values_], prior, mu)
    ints = np.array([mixture_integrals(prior, mu, a, b) for a, b in zip(m.edges_[:-1], m.edges_[1:])])
    mass, first, second = ints.T
    theta = first / mass
    assert got["cal_binwise"][0] == pytest.approx(np.sum(mass * (m.values_ - theta) ** 2), rel=1e-9)
    assert got["sha_binwise"][0] == pytest.approx(np.sum(second - mass * theta**2), rel=1e-7)
    shared = np.array([np.sum(m.values_ == v) > 1 for v in m.values_])
    assert shared.any() and got["tied_mass"][0] == pytest.approx(np.sum(mass[shared]), rel=1e-9)
    pooled = g.population_risks(m.edges_, m.values_)
    assert got["sha_pooled"][0] == pytest.approx(pooled["sha"], rel=1e-8)
    # eq-umb-binwise: pooled and bin-wise decompositions share the total
    assert got["cal_binwise"][0] + got["sha_binwise"][0] == pytest.approx(pooled["risk"], rel=1e-8)
    assert got["sha_binwise"][0] < pooled["sha"] and got["cal_binwise"][0] > pooled["cal"]


def test_summary_on_a_small_grid():
    grid = umb_risk_grid([10**3, 10**4, 10**5], [4, 8, 16, 32, 64], n_reps=3, rng=2)
    s = umb_figure_summary(grid, delta=0.1)
    assert s["cal_bound"][1, 2] == pytest.approx(umb_calibration_bound(10**4, 16, 0.1))
    assert 15 < s["smoothness"] < 25  # about 18.5 for prior 0.5, mu 2 (dip of the density at z = 1/2)
    assert -1.3 < s["exponents"]["cal_n"] < -0.7 and s["exponents"]["sha_B"] < -1.0
    assert np.all(np.diff(s["best_n_bins_stated"]) >= 0)
    assert np.all(s["best_n_bins_stated"] <= s["best_n_bins_a3"])
    assert s["coverage"]["sha_binwise"] == 1.0  # the bound the book proves holds for the bin-wise risk
    for frac in s["coverage"].values():
        assert 0.9 <= frac <= 1.0
    rows = {row[0]: row for row in s["cal_fits"]}
    assert rows[100][1] == int((grid["valid"] & (grid["n"][:, None] >= 100 * grid["n_bins"][None, :])).sum())


def test_a3_regime_start_against_brute_force():
    k, delta = 2.0, 0.1  # 4 K^2 = 16 bins: the switch comes early enough to brute-force

    def stated_argmin(n):
        b = np.arange(1, n // 2 + 1, dtype=float)
        per_bin = np.floor(n / b)
        bound = (np.sqrt(np.log(4 * b / delta) / (2 * (per_bin - 1))) + 1 / per_bin) ** 2
        return b[np.argmin(bound + np.minimum(2 / b, 8 * k * k / b**2))]

    start = umb_a3_regime_start(delta, k, n_max=10**6)
    assert stated_argmin(start) > 16 >= stated_argmin(start - 1)


def test_bin_statistics_match_direct_fit_and_quadrature():
    prior, mu = 0.3, 2.0
    g = GaussianMixture(prior, mu)
    samples = [g.sample(50, seed) for seed in (1, 2)]
    z = np.array([s[0] for s in samples])
    y = np.array([s[1] for s in samples])
    stats = umb_bin_statistics(z, y, 7, prior, mu)
    for row in range(2):
        m = UniformMassBinning(7).fit(z[row], y[row])
        np.testing.assert_allclose(stats["edges"][row], m.edges_, rtol=1e-12)
        np.testing.assert_allclose(stats["theta_hat"][row], m.values_, rtol=1e-14)
        np.testing.assert_array_equal(stats["counts"], m.counts_)
        ints = np.array([mixture_integrals(prior, mu, a, b) for a, b in zip(m.edges_[:-1], m.edges_[1:])])
        np.testing.assert_allclose(stats["mass"][row], ints[:, 0], rtol=1e-9)
        np.testing.assert_allclose(stats["theta"][row], ints[:, 1] / ints[:, 0], rtol=1e-8)


def test_bin_means_have_the_exact_conditional_second_moment():
    """Given the edges, E[(theta_hat - theta)^2] = ((m-1) theta(1-theta) + h(1-h) + (h-theta)^2) / m^2.

    h = h*(u_b) is the mean label of the sample point sitting on the right edge (every bin but
    the last); the other m - 1 points of the bin are IID from the law of Z on the bin.  The
    labels come from the mixture's own sampler, so a wrong theta or edge convention shows up.
    """
    prior, mu, n, n_bins, reps = 0.5, 1.0, 60, 4, 20000
    g = GaussianMixture(prior, mu)
    rng = np.random.default_rng(8)
    z, y = map(np.array, zip(*(g.sample(n, rng) for _ in range(reps))))
    s = umb_bin_statistics(z, y, n_bins, prior, mu)
    m, theta = s["counts"], s["theta"]
    h = g.h_star(s["edges"][:, 1:].ravel()).reshape(theta.shape)
    edge_term = np.where(np.arange(n_bins) < n_bins - 1, h * (1 - h) + (h - theta) ** 2, theta * (1 - theta))
    expected = ((m - 1) * theta * (1 - theta) + edge_term) / m**2
    observed = (s["theta_hat"] - theta) ** 2
    se = observed.std(axis=0) / np.sqrt(reps)
    assert np.all(np.abs(observed.mean(axis=0) - expected.mean(axis=0)) < 4 * se)
    # a bin mean that ignores the edge point's own law would be visibly off in the first bin
    naive = theta * (1 - theta) / m
    assert abs(observed.mean(axis=0)[0] - naive.mean(axis=0)[0]) > 4 * se[0]


def test_balance_frequency_against_exact_laws():
    # B = 2: balanced iff U_(k) in [1/4, 3/4] with U_(k) ~ Beta(k, n + 1 - k), k = floor(n/2)
    n, reps = 12, 20000
    out = umb_lemma_frequencies([n], 2, n_reps=reps, rng=4)
    law = beta_law(6, 7)
    exact = law.cdf(0.75) - law.cdf(0.25)
    assert umb_balance_probability_bounds(n, 2)[0] == pytest.approx(exact, rel=1e-12)
    assert abs(out["balance_frequency"][0] - exact) < 4 * np.sqrt(exact * (1 - exact) / reps)
    # B = 5: inside the exact Bonferroni bounds, and equal in law to Dirichlet spacings
    n, reps = 60, 20000
    out = umb_lemma_frequencies([n], 5, n_reps=reps, rng=5)
    lower, upper = umb_balance_probability_bounds(n, 5)
    freq, se = out["balance_frequency"][0], out["balance_se"][0]
    assert lower - 4 * se <= freq <= upper + 4 * se
    steps = np.diff(np.concatenate(([0], (n * np.arange(1, 5)) // 5, [n + 1])))
    masses = np.random.default_rng(6).dirichlet(steps, reps)
    direct = np.mean(np.all((masses >= 0.1) & (masses <= 0.4), axis=1))
    assert abs(freq - direct) < 4 * np.sqrt(2 * direct * (1 - direct) / reps)


def test_lemma_promises():
    out = umb_lemma_frequencies([40, 400], 10, n_reps=3000, delta=0.2, rng=7)
    assert np.all(out["approx_frequency"] >= 0.8 - 3 * np.sqrt(0.16 / 3000))
    assert np.all(out["balance_promise"] == 0.0)  # far below c' B log B: Lemma 3 says nothing
    # at n = c' B log(B / delta) Lemma 3 promises exactly 1 - delta
    b, delta = 2, 0.1
    n = int(np.ceil(LEMMA3_CONSTANT * b * np.log(b / delta)))
    out = umb_lemma_frequencies([n], b, n_reps=20, delta=delta, rng=8)
    assert out["balance_promise"][0] == pytest.approx(1 - delta, abs=1e-4)
    assert out["balance_frequency"][0] == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="n_values"):
        umb_risk_grid([1], [1], 1)
    with pytest.raises(ValueError, match="no cell"):
        umb_risk_grid([10], [6], 1)
    with pytest.raises(ValueError, match="n_reps"):
        umb_risk_grid([10], [2], 0)
    with pytest.raises(ValueError, match="n_values entries"):
        umb_lemma_frequencies([10], 6)
    with pytest.raises(ValueError, match="delta"):
        umb_lemma_frequencies([100], 6, delta=1.0)
    with pytest.raises(ValueError, match="gamma"):
        umb_balance_probability_bounds(100, 6, gamma=0.5)
    with pytest.raises(ValueError, match="n must be at least"):
        umb_balance_probability_bounds(10, 6)
    with pytest.raises(ValueError, match="same shape"):
        umb_bin_statistics(np.full((2, 10), 0.5), np.zeros((2, 9)), 2)
    with pytest.raises(ValueError, match="distinct"):
        umb_bin_statistics(np.full((1, 10), 0.5), np.zeros((1, 10)), 2)
    with pytest.raises(ValueError, match="z must lie"):
        umb_bin_statistics(np.linspace(0, 1, 10)[None], np.zeros((1, 10)), 2)
    with pytest.raises(ValueError, match="mu must be at most 40"):  # issue 39: theta was NaN with a RuntimeWarning
        umb_bin_statistics(np.linspace(0.1, 0.9, 10)[None], np.zeros((1, 10)), 4, mu=1e300)
    with pytest.raises(ValueError, match="n_max"):
        umb_a3_regime_start(0.1, 18.5, n_max=1000)
    with pytest.raises(ValueError, match="edges"):
        umb_binwise_risks([[0.0, 0.5]], [[0.1]])


def test_bad_grids_sizes_and_gamma_are_named():
    """Issue 13: a wrong grid, empty sizes, gamma <= 1, string/complex samples raise ValueErrors naming the argument."""
    from companion.uniform_mass_binning import (
        umb_balance_probability_bounds,
        umb_bin_statistics,
        umb_binwise_risks,
        umb_figure_summary,
        umb_lemma_frequencies,
    )

    for bad in (None, 3, "x", {}):
        with pytest.raises(ValueError, match="grid"):
            umb_figure_summary(bad)
    with pytest.raises(ValueError, match="n_values"):
        umb_lemma_frequencies(np.array([], dtype=int), 4, n_reps=2)
    for gamma in (1.0, 0.5):
        with pytest.raises(ValueError, match="gamma"):
            umb_balance_probability_bounds(100, 4, gamma)
    z = np.linspace(0.05, 0.95, 24)
    y = (np.arange(24) % 2).astype(int)
    with pytest.raises(ValueError, match="z"):
        umb_bin_statistics(z.astype(str).tolist(), y, 4)
    with pytest.raises(ValueError, match="y"):
        umb_bin_statistics(z, y.astype(complex), 4)
    for bad in (None, 3, "x"):
        with pytest.raises(ValueError, match="edges_list"):
            umb_binwise_risks(bad, [[0.5]])


def _nan_entries(summary):
    """Names of the scalar, fit and per-n entries of a summary that are NaN (cell arrays excluded)."""
    found = [f"coverage_where_theorem_applies[{k}]" for k, v in summary["coverage_where_theorem_applies"].items()
             if np.isnan(v)]
    found += [f"exponents[{k}]" for k, v in summary["exponents"].items() if np.isnan(v)]
    found += [f"cal_fits[{row[0]}]" for row in summary["cal_fits"] if np.isnan(row[2:]).any()]
    found += [k for k in summary if k.startswith(("slope_", "best_n_bins_")) and np.isnan(summary[k]).any()]
    return found


def test_summary_names_every_undefined_entry_and_why():
    # Regression (issue 20, item 18): a small valid grid gave 4 unexplained NaN entries.  The sample-size
    # condition is evaluated here from its formula, independently of the companion.
    grid = umb_risk_grid([100, 1000], [6, 10, 40], n_reps=2, rng=0)
    s = umb_figure_summary(grid, delta=0.1)
    nn, bb = np.meshgrid(grid["n"], grid["n_bins"], indexing="ij")
    assert not np.any(nn >= LEMMA3_CONSTANT * bb * np.log(2 * bb / 0.1))  # the theorem applies nowhere
    nans = _nan_entries(s)
    assert len([k for k in nans if k.startswith("coverage")]) == 4
    assert "coverage_where_theorem_applies" in s["undefined"] and "6.95e+04" in s["undefined"]["coverage_where_theorem_applies"]
    # only 2 cells have n/B >= 100: three coefficients are not determined (the old fit returned a number)
    assert np.isnan(s["cal_fits"][2][2:]).all() and "cal_fits row n/B >= 100" in s["undefined"]
    assert len(s["undefined"]) == 2 and len(nans) == 5
    # a row without a valid B: the empirical optimum and every fit over n are undefined and listed
    s = umb_figure_summary(umb_risk_grid([10, 100], [6, 10], n_reps=2, rng=0), delta=0.1)
    assert np.isnan(s["best_n_bins_empirical"][0]) and s["best_n_bins_empirical"][1] in (6, 10)
    for key in ("best_n_bins_empirical", "slope_empirical", "slope_stated", "exponents risk_n"):
        assert key in s["undefined"]
    assert all(any(name.split("[")[0] in key or key in name for key in s["undefined"]) for name in _nan_entries(s))


def test_summary_of_a_well_posed_grid_has_nothing_undefined():
    grid = umb_risk_grid([10**3, 10**4, 10**5, 10**6], [4, 8, 16, 32], n_reps=2, rng=1)
    s = umb_figure_summary(grid, delta=0.1)
    assert s["undefined"] == {} and _nan_entries(s) == []


def test_sizes_are_bounded_before_allocation():
    # Regression (issue 20, item 18): 10**15 reached numpy's MemoryError instead of a named ValueError.
    from companion.calibration_sharpness import equal_width_edges
    from companion.uniform_mass_binning import theorem1_optimal_n_bins

    for call, name in [
        (lambda: equal_width_edges(10**15), "n_bins"),
        (lambda: theorem1_optimal_n_bins(10**15, 0.1, 2.0), "n ="),
        (lambda: umb_risk_grid([10**15], [6], n_reps=1), "n_values"),
        (lambda: umb_risk_grid([100], [6], n_reps=10**15), "n_reps"),
        (lambda: umb_lemma_frequencies([10**15], 10, n_reps=2), "n_values"),
        (lambda: umb_lemma_frequencies([100], 10, n_reps=10**15), "n_reps"),
        (lambda: umb_a3_regime_start(0.1, 2.0, n_max=10**15), "n_max"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()
    # the search runs in chunks of 2**20 candidates: at n = 10**11 (about 1.5e6 candidates) it must agree with
    # a brute-force argmin of the bound written out from the statement over every B up to 3e6
    n, k, delta = 10**11, 18.5, 0.1
    b = np.arange(1, 3 * 10**6 + 1, dtype=float)
    per_bin = np.floor(n / b)
    bound = (np.sqrt(np.log(4 * b / delta) / (2 * (per_bin - 1))) + 1 / per_bin) ** 2 + np.minimum(2 / b, 8 * k * k / b**2)
    assert theorem1_optimal_n_bins(n, delta, k) == int(b[np.argmin(bound)])
