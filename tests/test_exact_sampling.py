"""The exact sampler of uniform-mass fits (book ``prop-umb-exact-sampling``) against sorted samples and quadrature."""

import warnings

import numpy as np
import pytest
from scipy.special import expit, ndtr
from scipy.stats import ks_2samp

from companion.scenarios import GaussianMixture
from companion.uniform_mass_binning import (
    RISK_TERMS,
    umb_bin_statistics,
    umb_binwise_risks,
    umb_exact_fits,
    umb_expected_bin_ones,
    umb_figure_summary,
    umb_logit_quantile,
    umb_risk_grid_exact,
)

MIXTURE = GaussianMixture(0.5, 2.0)
N, B, REPS = 60, 6, 4000


class _NoEndpointLabels(np.random.Generator):
    """Planted bug: every label at an order statistic is 0 (``random`` is used only for those labels)."""

    def random(self, size=None, dtype=np.float64, out=None):
        return np.ones(size)


class _OneTooManyInEachGap(np.random.Generator):
    """Planted bug: the class-1 count of a gap of m points is Binomial(m + 1, q)."""

    def binomial(self, n, p, size=None):
        return super().binomial(np.asarray(n) + 1, p, size)


def _sorted_fits(seed: int):
    """Interior edges and bin class-1 counts of REPS fits of sorted samples of size N."""
    z, y = MIXTURE.sample(N * REPS, seed)
    stats = umb_bin_statistics(z.reshape(REPS, N), y.reshape(REPS, N), B)
    return stats["edges"][:, 1:-1], np.rint(stats["theta_hat"] * stats["counts"]).astype(int)


def _exact_fits(rng, n=N, reps=REPS):
    fits = umb_exact_fits(n, [B], n_reps=reps, rng=rng)
    edges = np.array([f.edges[0][1:-1] for f in fits])
    ones = np.rint(np.array([f.values[0] * f.counts[0] for f in fits])).astype(int)
    return edges, ones


def _smallest_p(rng) -> float:
    """Smallest KS p-value over the 5 interior edges and the 6 bin class-1 counts, exact against sorted."""
    ref_edges, ref_ones = _sorted_fits(11)
    edges, ones = _exact_fits(rng)
    p = [ks_2samp(ref_edges[:, j], edges[:, j], method="asymp").pvalue for j in range(B - 1)]
    p += [ks_2samp(ref_ones[:, j], ones[:, j], method="asymp").pvalue for j in range(B)]
    return min(p)


def test_exact_fits_have_the_law_of_sorted_samples():
    assert _smallest_p(np.random.default_rng(12)) > 1e-3 / 11  # Bonferroni over the 11 tests


@pytest.mark.parametrize("planted", [_NoEndpointLabels, _OneTooManyInEachGap])
def test_the_two_sample_test_catches_a_planted_bug(planted):
    assert _smallest_p(planted(np.random.PCG64(12))) < 1e-6


def test_mean_class1_counts_match_quadrature():
    quad = umb_expected_bin_ones(N, B)
    assert quad.sum() == pytest.approx(N * MIXTURE.prior, rel=1e-9)  # every point lies in one bin
    for ones in (_exact_fits(13, reps=20000)[1], _sorted_fits(14)[1]):
        se = ones.std(axis=0) / np.sqrt(ones.shape[0])
        assert np.all(np.abs(ones.mean(axis=0) - quad) <= 4.0 * se + 2e-3)


@pytest.mark.parametrize("n", [N, 10**9])
def test_dirichlet_spacings_have_beta_moments(n):
    fits = umb_exact_fits(n, [B], n_reps=REPS, rng=15)
    u = MIXTURE.cdf(np.array([f.edges[0][1:-1] for f in fits]))
    ranks = (n * np.arange(1, B)) // B
    mean, var = ranks / (n + 1), ranks * (n + 1 - ranks) / ((n + 1) ** 2 * (n + 2))
    assert np.all(np.abs(u.mean(axis=0) - mean) <= 4.5 * np.sqrt(var / REPS))
    assert np.allclose(u.var(axis=0) / var, 1.0, atol=0.12)
    steps = np.diff(u, axis=1)  # Dirichlet spacings: mean (r_j - r_{j-1}) / (n + 1)
    step_mean = np.diff(ranks) / (n + 1)
    step_var = step_mean * (1 - step_mean) / (n + 2)
    assert np.all(np.abs(steps.mean(axis=0) - step_mean) <= 4.5 * np.sqrt(step_var / REPS))


def test_fits_at_huge_n_are_valid():
    for fit in umb_exact_fits(10**12, [6, 1000], n_reps=2, rng=16):
        for edges, values, counts in zip(fit.edges, fit.values, fit.counts):
            assert np.all(np.diff(edges) > 0) and edges[0] == 0.0 and edges[-1] == 1.0
            assert np.all((values >= 0) & (values <= 1)) and counts.sum() == 10**12


@pytest.mark.parametrize("n, grid", [(60, [6, 7, 12]), (1001, [6, 7, 15, 36])])
def test_fits_of_several_bin_counts_share_their_order_statistics(n, grid):
    """One draw serves every B of a grid: edges at a shared rank coincide, counts are rank differences, and the
    class-1 counts below a shared rank agree (book ``prop-umb-exact-sampling``, part 3)."""
    from companion.calibration_sharpness.binning import _uniform_mass_ranks

    for fit in umb_exact_fits(n, grid, n_reps=3, rng=21):
        edge_at, ones_below = {}, {}
        for b, edges, values, counts in zip(grid, fit.edges, fit.values, fit.counts):
            ranks = _uniform_mass_ranks(n, b)
            assert np.array_equal(counts, np.diff(np.concatenate(([0], ranks, [n]))))
            cumulative = np.cumsum(np.rint(values * counts).astype(int))
            for r, e, c in zip(ranks, edges[1:-1], cumulative[:-1]):
                assert edge_at.setdefault(int(r), e) == e
                assert ones_below.setdefault(int(r), int(c)) == int(c)
        shared = [r for r in edge_at if sum(r in set(_uniform_mass_ranks(n, b).tolist()) for b in grid) > 1]
        assert shared, "the grid must share at least one rank for the test to check anything"


def test_quantile_tails_are_finite_monotone_and_accurate():
    lower = np.geomspace(1e-300, 0.5, 400)
    x = np.concatenate((umb_logit_quantile(lower), umb_logit_quantile(lower[::-1], upper=True)))
    assert np.all(np.isfinite(x)) and np.all(np.diff(x[:400]) > 0) and np.all(np.diff(x[400:]) > 0)
    assert x[399] == pytest.approx(x[400], abs=1e-12)  # the two tails meet at the median
    assert np.isfinite(umb_logit_quantile(1e-300)) and np.isfinite(umb_logit_quantile(1e-16, upper=True))
    assert umb_logit_quantile(1e-16, upper=True) > umb_logit_quantile(1 - 1e-9)
    cdf = 0.5 * ndtr(x[:400] + 2.0) + 0.5 * ndtr(x[:400] - 2.0)
    sf = 0.5 * ndtr(-x[400:] - 2.0) + 0.5 * ndtr(2.0 - x[400:])
    assert np.allclose(cdf / lower, 1.0, rtol=1e-12) and np.allclose(sf / lower[::-1], 1.0, rtol=1e-12)
    central = np.linspace(0.01, 0.99, 9)
    assert np.allclose(expit(umb_logit_quantile(central)), MIXTURE.quantile(central), rtol=1e-12)


def test_risk_grid_matches_the_quadrature_risks_of_the_same_fits():
    n_values, n_bins = np.array([200, 1000]), np.array([6, 12, 50])
    grid = umb_risk_grid_exact(n_values, n_bins, n_reps=3, rng=np.random.default_rng(17))
    rng = np.random.default_rng(17)  # the same stream: one draw per n, in order
    for i, n in enumerate(n_values):
        fits = umb_exact_fits(int(n), n_bins, n_reps=3, rng=rng)
        edges = [e for f in fits for e in f.edges]
        values = [v for f in fits for v in f.values]
        risks = MIXTURE.population_risks_batch(edges, values)
        risks.update(umb_binwise_risks(edges, values))
        for key in RISK_TERMS:
            expected = risks[key].reshape(3, n_bins.size).T
            assert np.allclose(grid[key][i], expected, rtol=1e-8, atol=1e-15), key
    assert set(umb_figure_summary(grid)) >= {"mean", "exponents", "coverage"}


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: umb_exact_fits(10, [6]), "n_bins_values"),
        (lambda: umb_exact_fits(10**13, [6]), "n"),
        (lambda: umb_exact_fits(100, [6], n_reps=0), "n_reps"),
        (lambda: umb_exact_fits(100, [6], prior=1.0), "prior"),
        (lambda: umb_risk_grid_exact([10**13], [6]), "n_values"),
        (lambda: umb_risk_grid_exact([100], [6], n_reps=10**7), "n_reps"),
        (lambda: umb_logit_quantile(1.0), "u"),
        (lambda: umb_logit_quantile(0.5, upper="yes"), "upper"),
        (lambda: umb_expected_bin_ones(10, 6), "n_bins"),
        (lambda: umb_expected_bin_ones(100, 6, mu=-1.0), "mu"),
        (lambda: umb_expected_bin_ones(10**6, 6), "n"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_expected_bin_ones_refuses_too_many_bins_before_allocating():
    """Issue 39: n = 1e5, B = 5e4 ran for minutes and then needed a 1.49 GiB array; it is refused at once."""
    import time

    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_bins must be at most 1000, got 50000"):
        umb_expected_bin_ones(n=100_000, n_bins=50_000)
    assert time.perf_counter() - start < 1.0  # nothing was computed
    assert umb_expected_bin_ones(2000, 1000).shape == (1000,)  # the limit itself is served


def test_expected_bin_ones_refuses_mu_outside_its_domain():
    with pytest.raises(ValueError, match=r"mu must be at most 40"):
        umb_expected_bin_ones(100, 6, mu=1e300)
    ones = umb_expected_bin_ones(1000, 6, mu=40.0)  # separated classes: the class-1 points are the top ones
    assert ones[:2].max() < 1e-12 and abs(ones.sum() - 500.0) < 1e-6  # n * prior class-1 points in all
    np.testing.assert_allclose(ones[4:], 167.0, atol=1e-6)  # the two top bins (167 points each) hold only class 1


def test_class1_counts_at_large_n_match_an_independent_integral():
    """At n = 1e7 (beyond the quadrature of umb_expected_bin_ones): the mean number of class-1 points among the r
    smallest is n pi E[F_1(F^{-1}(W))] with W ~ Beta(r, n - r), since Z_1 is among them exactly when at most r - 1
    of the other n - 1 points lie below it (adaptive quadrature over W, no use of the proposition)."""
    from scipy.integrate import quad
    from scipy.stats import beta

    from companion.calibration_sharpness.binning import _uniform_mass_ranks

    n, b, reps = 10**7, 6, 4000
    ranks = _uniform_mass_ranks(n, b)
    fits = umb_exact_fits(n, [b], n_reps=reps, rng=23)
    below = np.array([np.cumsum(np.rint(f.values[0] * f.counts[0]))[:-1] for f in fits])
    for j, r in enumerate(ranks):
        law = beta(r, n - r)
        sd = law.std()

        def integrand(w):
            return law.pdf(w) * ndtr(umb_logit_quantile(w) - 2.0)

        lo, hi = max(0.0, law.mean() - 12 * sd), min(1.0, law.mean() + 12 * sd)
        expected = n * 0.5 * quad(integrand, lo, hi, points=[law.mean()], epsabs=0, epsrel=1e-12, limit=200)[0]
        se = below[:, j].std(ddof=1) / np.sqrt(reps)
        assert abs(below[:, j].mean() - expected) <= 4.5 * se, (r, below[:, j].mean(), expected, se)


def test_well_separated_classes_solve_without_warnings_and_saturate_edges():
    """At mu = 300 the Newton step overflows and is bisected silently; the logit quantiles stay exact, and the
    edges, their expit, tie at 1 past logit z = 36.7 (documented in ``umb_exact_fits``)."""
    u = np.array([1e-200, 0.3, 0.5 - 1e-9, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = umb_logit_quantile(u, mu=300.0)
        fits = umb_exact_fits(100, [5], n_reps=3, mu=300.0, rng=4)
    assert np.allclose(0.5 * ndtr(x + 300.0) + 0.5 * ndtr(x - 300.0), u, rtol=1e-12, atol=0)
    for fit in fits:
        edges, values = fit.edges[0], fit.values[0]
        assert np.all(np.diff(edges) >= 0) and edges[-2] == 1.0 and np.all((values >= 0) & (values <= 1))


def test_large_separation_keeps_the_separated_law_and_refuses_what_float64_cannot_resolve():
    """From mu = 40 on the classes do not overlap, so the mean class-1 counts of the bins are their separated
    limit (``umb_expected_bin_ones`` at mu = 40, by quadrature); the Newton stop scaled by |x| gave bin 3 of
    B = 6 about 16 ones instead of 6.3 at mu = 1e8 (35 standard errors)."""
    limit = umb_expected_bin_ones(1000, 6, mu=40.0)
    for mu in (1e8, 1e12):
        fits = umb_exact_fits(1000, [6], n_reps=3000, mu=mu, rng=1)
        ones = np.array([f.values[0] * f.counts[0] for f in fits])
        se = np.maximum(ones.std(axis=0) / np.sqrt(len(ones)), 1e-9)
        assert np.all(np.abs(ones.mean(axis=0) - limit) <= 4 * se + 1e-9), (mu, ones.mean(axis=0), limit)
    with pytest.raises(ValueError, match="mu"):
        umb_exact_fits(1000, [6], mu=1e13)
