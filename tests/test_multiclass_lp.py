"""Level sets, projection, l_p calibration error and the calibration algorithm of paper 002 (companion.multiclass_lp)."""

import itertools
import math
import warnings
from collections import defaultdict

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from companion.multiclass_lp import (
    as_probability_rows,
    ClasswiseBinning,
    LpCalibrator,
    MulticlassScenario,
    TemperatureScaling,
    TopLabelBinning,
    calibration_error_terms,
    canonical_distribution,
    check_lam,
    check_p,
    classwise_ece,
    enumerate_level_sets,
    grid_size,
    lemma13_iteration_bound,
    lemma14_bound,
    level_set_count,
    level_set_count_bound,
    level_set_counts,
    level_set_key,
    lp_calibration_error,
    population_classwise_ece,
    population_lp_calibration_error,
    population_squared_error,
    population_top_label_ece,
    project_to_simplex,
    rounding,
    squared_error,
    squared_error_excess_bound,
    top_label_ece,
)


def dirichlet_rows(rng, n, k, conc=0.7):
    return rng.dirichlet(np.full(k, conc), size=n)


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("lam, m", [(0.1, 10), (0.25, 4), (1 / 3, 3), (0.5, 2), (1 / 7, 7)])
def test_check_lam_accepts_reciprocals_of_integers(lam, m):
    got, mm = check_lam(lam)
    assert mm == m and got == 1.0 / m


@pytest.mark.parametrize("lam", [0.0, 1.0, 0.3, 1.5, -0.1, "0.1", True, 0.15])
def test_check_lam_rejects(lam):
    with pytest.raises(ValueError, match="lam"):
        check_lam(lam)


def test_check_p():
    assert check_p(1) == 1.0 and check_p(np.inf) == np.inf and check_p(2.5) == 2.5
    for bad in (0.5, -1, float("nan"), "2", True):
        with pytest.raises(ValueError, match="p must"):
            check_p(bad)


def test_scalar_checks_accept_numpy_scalars_and_name_the_argument():
    from fractions import Fraction

    assert check_p(np.float32(2.5)) == 2.5 and check_p(np.array(3.0)) == 3.0 and check_p(Fraction(3, 2)) == 1.5
    assert check_p(np.int64(2)) == 2.0 and check_p(np.array(np.inf)) == np.inf
    assert check_lam(np.array(0.25)) == (0.25, 4) and check_lam(np.float32(0.5)) == (0.5, 2)
    for bad in (10**400, 2 + 0j, np.array("2"), None, [2.0], np.bool_(True)):
        with pytest.raises(ValueError, match="my_p must"):
            check_p(bad, "my_p")
    with pytest.raises(ValueError, match="my_lam must be 1/m"):
        check_lam(0.3, "my_lam")


def test_p_sequences_are_checked_entry_by_entry():
    probs, y = np.full((2, 2), 0.5), np.array([0, 1])
    assert lp_calibration_error(probs, y, [1.0, np.inf], 0.5).shape == (2,)
    for bad in ([], [[2.0]], ["2.0"], [2.0 + 0j], [True], [np.nan], [0.5]):
        with pytest.raises(ValueError, match="p"):
            lp_calibration_error(probs, y, bad, 0.5)


def test_atol_and_max_count_are_validated():
    from companion.multiclass_lp import as_probability_rows

    rows = np.array([[0.5, 0.5]])
    assert as_probability_rows(rows, atol=0) is not None
    for bad in (np.nan, np.inf, -1.0, "0.3", 0.3 + 0j, None, True, 10**400, [1e-8]):
        with pytest.raises(ValueError, match="atol"):
            as_probability_rows(rows, atol=bad)
    for bad in (None, "3", 10**400, np.uint64(2**64 - 1), 0, 2.5):
        with pytest.raises(ValueError, match="max_count"):
            enumerate_level_sets(3, 0.25, max_count=bad)


def test_population_functions_require_their_law():
    rng = np.random.default_rng(3)
    probs, h = dirichlet_rows(rng, 4, 3), dirichlet_rows(rng, 4, 3)
    w = np.full(4, 0.25)
    for f in (population_top_label_ece, population_classwise_ece):
        with pytest.raises(ValueError, match="cond_mean"):
            f(probs, None, w)
        with pytest.raises(ValueError, match="weights"):
            f(probs, h, None)
    with pytest.raises(ValueError, match="weights"):  # uniform weights are not assumed for a population
        population_lp_calibration_error(probs, h, None, 2.0, 0.25)
    with pytest.raises(ValueError, match="cond_mean"):
        population_lp_calibration_error(probs, None, w, 2.0, 0.25)


def test_flags_seeds_and_rng_are_validated():
    probs, y = np.full((6, 3), 1 / 3), np.arange(6) % 3
    for flag in ("record_states", "record_queries", "check_sample_size"):
        for bad in ("False", 0, 1, None):
            with pytest.raises(ValueError, match=flag):  # checked by fit (scikit-learn's rule: __init__ only stores)
                LpCalibrator(0.25, **{flag: bad}).fit(probs, y)
    for bad in (-1, 1.5, "seed", True):
        with pytest.raises(ValueError, match="rng"):
            LpCalibrator(0.25, rng=bad).fit(probs, y)
    for bad in (10**400, np.uint64(2**64 - 1), -1, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            MulticlassScenario(3, 20, seed=bad)
    a, b = MulticlassScenario(3, 20, seed=np.array(4)), MulticlassScenario(3, 20, seed=4)
    assert np.array_equal(a.atoms, b.atoms)
    for bad in ("False", 0, 1, None):
        with pytest.raises(ValueError, match="return_index"):
            b.sample(5, 0, return_index=bad)


def test_zero_steps_give_the_discretised_forecaster():
    # max_iter = 0 is a valid cap: the algorithm stops before its first step, so every point gets c(r(f(x)))
    sc = MulticlassScenario(3, 200, seed=2)
    probs, y = sc.sample(3000, 1)
    cal = LpCalibrator(0.25, noise=False, pools=False, max_iter=0).fit(probs, y)
    assert cal.n_steps_ == 0
    assert np.allclose(cal.predict(probs), canonical_distribution(level_set_counts(probs, 0.25), 0.25))


def test_probability_rows_are_checked():
    y = np.array([0, 1])
    with pytest.raises(ValueError, match="probs rows must sum to 1"):
        lp_calibration_error(np.array([[0.5, 0.4], [0.5, 0.5]]), y, 2, 0.1)
    with pytest.raises(ValueError, match="probs must be non-negative"):
        lp_calibration_error(np.array([[1.2, -0.2], [0.5, 0.5]]), y, 2, 0.1)
    with pytest.raises(ValueError, match="at least 2 columns"):
        lp_calibration_error(np.ones((2, 1)), y, 2, 0.1)
    with pytest.raises(ValueError, match="p must be at least 1"):
        lp_calibration_error(np.full((2, 2), 0.5), y, 0.5, 0.1)
    with pytest.raises(ValueError, match="y must contain only labels"):  # k mismatch: label 2 with 2 classes
        lp_calibration_error(np.full((2, 2), 0.5), np.array([0, 2]), 2, 0.1)
    with pytest.raises(ValueError, match="same length"):
        lp_calibration_error(np.full((3, 2), 0.5), y, 2, 0.1)


# ---------------------------------------------------------------------------
# level sets and Lemma 2
# ---------------------------------------------------------------------------


def simplex_grid(k, denominator):
    """All points of the simplex with coordinates in (1/denominator) Z (stars and bars)."""
    rows = []
    for bars in itertools.combinations(range(denominator + k - 1), k - 1):
        edges = (-1,) + bars + (denominator + k - 1,)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(k)])
    return np.array(rows, dtype=float) / denominator


@pytest.mark.parametrize("k, m", [(2, 2), (2, 5), (3, 2), (3, 4), (3, 6), (4, 3), (4, 5), (5, 2), (5, 4), (6, 3)])
def test_level_set_count_against_rounding_a_fine_grid(k, m):
    # every level set contains a point of the grid with denominator m k (its canonical distribution),
    # so rounding the whole grid reaches every level set: an enumeration from the definition alone
    lam = 1.0 / m
    reached = {tuple(row) for row in level_set_counts(simplex_grid(k, m * k), lam)}
    assert len(reached) == level_set_count(k, lam)
    assert level_set_count(k, lam) <= level_set_count_bound(k, lam) <= grid_size(k, lam)
    assert (level_set_count(k, lam) == level_set_count_bound(k, lam)) == (k > m)
    listed = {tuple(row) for row in enumerate_level_sets(k, lam)}
    assert listed == reached
    # the note after Lemma 2: C(m + k, k) <= (k + 1)^m, polynomial in k
    assert level_set_count_bound(k, lam) <= (k + 1) ** m


def test_random_points_round_into_the_enumeration():
    rng = np.random.default_rng(1)
    for k, m in [(3, 5), (4, 4), (5, 3)]:
        lam = 1.0 / m
        listed = {tuple(row) for row in enumerate_level_sets(k, lam)}
        for conc in (0.1, 1.0, 10.0):
            counts = level_set_counts(dirichlet_rows(rng, 2000, k, conc), lam)
            assert {tuple(r) for r in counts} <= listed
            s = counts.sum(axis=1)
            assert np.all((s <= m) & (s > m - k))


def test_rounding_is_idempotent_on_grid_points():
    # 0.29 * 100 = 28.999999999999996 in floating point; the grid point must round to itself
    u = np.array([[0.29, 0.71], [0.57, 0.43], [1.0, 0.0]])
    assert np.array_equal(level_set_counts(u, 0.01), np.array([[29, 71], [57, 43], [100, 0]]))
    assert np.allclose(rounding(u, 0.01), u)


def test_level_set_key_is_a_bijection_onto_its_range():
    for k, m in [(2, 4), (3, 3), (4, 2), (3, 5)]:
        allv = np.array([a for a in itertools.product(range(m + 1), repeat=k) if sum(a) <= m])
        keys = level_set_key(allv, 1.0 / m)
        assert np.array_equal(np.sort(keys), np.arange(math.comb(m + k, k)))


def test_level_set_key_falls_back_to_exact_integers():
    rng = np.random.default_rng(2)
    k, m = 40, 60  # C(100, 40) > 2^62
    counts = level_set_counts(dirichlet_rows(rng, 300, k, 0.3), 1.0 / m)
    keys = level_set_key(counts, 1.0 / m)
    assert keys.dtype == object
    # distinct count vectors <-> distinct keys
    assert len(set(keys.tolist())) == len({tuple(r) for r in counts})
    assert max(keys.tolist()) < math.comb(m + k, k)


def test_enumeration_refuses_huge_walks():
    with pytest.raises(ValueError, match="max_count"):
        enumerate_level_sets(20, 0.05)


def test_canonical_distribution_is_the_nearest_simplex_point_and_in_its_level_set():
    for k, m in [(3, 4), (4, 5), (5, 3)]:
        lam = 1.0 / m
        v = enumerate_level_sets(k, lam)
        c = canonical_distribution(v, lam)
        assert np.allclose(c.sum(axis=1), 1.0) and np.all(c >= 0)
        assert np.array_equal(level_set_counts(c, lam), v)
        # independent: the Euclidean projection of v onto the simplex
        assert np.allclose(project_to_simplex(v * lam), c, atol=1e-12)
        assert np.allclose(canonical_distribution(v * lam, lam), c)
    with pytest.raises(ValueError, match="levels must be level sets"):
        canonical_distribution(np.array([[0, 0, 1]]), 0.25)  # sum 1 <= m - k = 1: no distribution rounds to it
    with pytest.raises(ValueError, match="multiples of lam"):
        canonical_distribution(np.array([[0.33, 0.33, 0.34]]), 0.25)


# ---------------------------------------------------------------------------
# projection onto the simplex
# ---------------------------------------------------------------------------


def qp_projection(w):
    k = w.size
    res = minimize(
        lambda x: 0.5 * np.sum((x - w) ** 2),
        np.full(k, 1.0 / k),
        jac=lambda x: x - w,
        bounds=[(0, None)] * k,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1.0, "jac": lambda x: np.ones(k)}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return res.x


def test_projection_against_a_quadratic_program_and_kkt():
    rng = np.random.default_rng(3)
    for k in (2, 3, 5, 10):
        w = rng.normal(scale=1.5, size=(40, k)) + rng.uniform(-1, 1, size=(40, 1))
        x = project_to_simplex(w)
        assert np.allclose(x.sum(axis=1), 1.0, atol=1e-12) and np.all(x >= 0)
        for row_w, row_x in zip(w, x):
            assert np.allclose(row_x, qp_projection(row_w), atol=1e-6)
            # KKT: w - x equals a common theta on the support and w <= theta off it
            support = row_x > 0
            theta = (row_w - row_x)[support]
            assert np.ptp(theta) < 1e-12
            assert np.all(row_w[~support] <= theta[0] + 1e-12)
        assert np.allclose(project_to_simplex(w[0]), x[0])


def test_projection_fixes_simplex_points_and_is_nonexpansive():
    rng = np.random.default_rng(4)
    u = dirichlet_rows(rng, 100, 6)
    assert np.allclose(project_to_simplex(u), u, atol=1e-15)
    w = u + rng.normal(scale=0.3, size=u.shape)
    z = dirichlet_rows(rng, 100, 6)
    # non-expansive towards any simplex point (the fact behind Lemma 11)
    assert np.all(np.linalg.norm(project_to_simplex(w) - z, axis=1) <= np.linalg.norm(w - z, axis=1) + 1e-12)


# ---------------------------------------------------------------------------
# l_p calibration error and the ECEs
# ---------------------------------------------------------------------------


def brute_lp(probs, y, p, lam):
    m = round(1 / lam)
    groups = defaultdict(list)
    for s in range(len(y)):
        groups[tuple(int(math.floor(v * m + 1e-9)) for v in probs[s])].append(s)
    terms = []
    for members in groups.values():
        for i in range(probs.shape[1]):
            terms.append(abs(sum(probs[s, i] - (y[s] == i) for s in members)) / len(y))
    terms = np.array(terms)
    return terms.max() if np.isinf(p) else np.sum(terms**p) ** (1 / p)


def test_lp_error_against_a_double_loop():
    rng = np.random.default_rng(5)
    for k, lam in [(2, 0.25), (3, 0.2), (4, 0.5), (5, 0.1)]:
        probs = dirichlet_rows(rng, 300, k, 0.5)
        probs = np.repeat(probs[:60], 5, axis=0)  # repeated rows: several points per level set
        y = rng.integers(k, size=probs.shape[0])
        ps = [1.0, 1.5, 2.0, 3.0, np.inf]
        got = lp_calibration_error(probs, y, ps, lam)
        want = [brute_lp(probs, y, p, lam) for p in ps]
        assert np.allclose(got, want, rtol=1e-12, atol=1e-15)
        assert lp_calibration_error(probs, y, 2, lam) == pytest.approx(want[2], rel=1e-12)
        # norms are non-increasing in p
        assert np.all(np.diff(got) <= 1e-15)


def test_population_error_equals_empirical_error_of_an_exactly_balanced_sample():
    # a law whose label probabilities are multiples of 1/10: repeating each atom 10 times with
    # exactly 10 h*_i copies of label i is a sample whose empirical law IS the population law
    rng = np.random.default_rng(6)
    k, n_atoms = 4, 30
    h = rng.multinomial(10, np.full(k, 1 / k), size=n_atoms) / 10
    g = dirichlet_rows(rng, n_atoms, k, 1.0)
    w = np.full(n_atoms, 1 / n_atoms)
    y = np.concatenate([np.repeat(np.arange(k), (10 * row).round().astype(int)) for row in h])
    probs = np.repeat(g, 10, axis=0)
    for lam in (0.1, 0.25):
        ps = [1, 2, 4, np.inf]
        assert np.allclose(population_lp_calibration_error(g, h, w, ps, lam), lp_calibration_error(probs, y, ps, lam))
        assert population_top_label_ece(g, h, w, 7) == pytest.approx(top_label_ece(probs, y, 7))
        assert population_classwise_ece(g, h, w, 7) == pytest.approx(classwise_ece(probs, y, 7))
    assert population_squared_error(g, h, w) == pytest.approx(squared_error(probs, y))


def test_population_error_rejects_bad_weights_and_shapes():
    g = np.full((3, 2), 0.5)
    with pytest.raises(ValueError, match="weights must sum to 1"):
        population_lp_calibration_error(g, g, [0.2, 0.2, 0.2], 2, 0.5)
    with pytest.raises(ValueError, match="cond_mean must have the same shape"):
        population_lp_calibration_error(g, np.full((2, 2), 0.5), [0.5, 0.5], 2, 0.5)


def brute_ece(probs, y, n_bins, top_label):
    total = 0.0
    n, k = probs.shape
    if top_label:
        cells = defaultdict(float)
        for s in range(n):
            c = int(np.argmax(probs[s]))
            b = min(int(math.floor(probs[s, c] * n_bins + 1e-9)), n_bins - 1)
            cells[(c, b)] += probs[s, c] - (y[s] == c)
        return sum(abs(v) for v in cells.values()) / n
    for i in range(k):
        cells = defaultdict(float)
        for s in range(n):
            b = min(int(math.floor(probs[s, i] * n_bins + 1e-9)), n_bins - 1)
            cells[b] += probs[s, i] - (y[s] == i)
        total += sum(abs(v) for v in cells.values()) / n
    return total


def test_eces_against_loops_and_classwise_below_l1():
    rng = np.random.default_rng(7)
    for k in (3, 5):
        probs = dirichlet_rows(rng, 400, k, 0.6)
        y = rng.integers(k, size=400)
        for b in (5, 10, 15):
            assert top_label_ece(probs, y, b) == pytest.approx(brute_ece(probs, y, b, True), rel=1e-12)
            assert classwise_ece(probs, y, b) == pytest.approx(brute_ece(probs, y, b, False), rel=1e-12)
        for m in (4, 10):  # class-wise bins with n_bins = 1/lam are unions of level sets
            assert classwise_ece(probs, y, m) <= lp_calibration_error(probs, y, 1, 1 / m) + 1e-12


def test_error_terms_masses_sum_to_one():
    rng = np.random.default_rng(8)
    probs = dirichlet_rows(rng, 500, 4)
    terms = calibration_error_terms(probs, rng.integers(4, size=500), 0.2)
    assert terms.mass.sum() == pytest.approx(1.0)
    assert np.all(np.diff(terms.keys) > 0)
    assert np.allclose(terms.signed.sum(axis=1).sum(), 0.0, atol=1e-12)  # sum_i (g_i - y_i) = 0 on each point


def test_squared_error_against_a_loop():
    rng = np.random.default_rng(9)
    probs = dirichlet_rows(rng, 200, 5)
    y = rng.integers(5, size=200)
    want = np.mean([np.sum((probs[s] - np.eye(5)[y[s]]) ** 2) for s in range(200)])
    assert squared_error(probs, y) == pytest.approx(want, rel=1e-12)


# ---------------------------------------------------------------------------
# the scenario
# ---------------------------------------------------------------------------


def test_scenario_sampling_matches_its_oracle():
    sc = MulticlassScenario(4, n_atoms=50, seed=3)
    assert np.allclose(sc.atoms.sum(axis=1), 1) and np.allclose(sc.h_star.sum(axis=1), 1)
    probs, y, idx = sc.sample(200_000, 11, return_index=True)
    assert np.array_equal(probs, sc.atoms[idx])
    # class frequencies given the atom agree with h* (4 standard errors over all atoms and classes)
    counts = np.zeros((50, 4))
    np.add.at(counts, (idx, y), 1)
    n_j = counts.sum(axis=1, keepdims=True)
    z = (counts / n_j - sc.h_star) / np.sqrt(sc.h_star * (1 - sc.h_star) / n_j)
    assert np.abs(z).max() < 4.5
    # reproducible with a seed, different with another
    assert np.array_equal(sc.sample(100, 5)[1], sc.sample(100, 5)[1])
    assert not np.array_equal(sc.sample(100, 5)[1], sc.sample(100, 6)[1])


def test_scenario_population_error_is_the_limit_of_the_empirical_error():
    sc = MulticlassScenario(3, n_atoms=40, seed=4)
    lam = 0.25
    exact = sc.evaluate(sc.atoms, lam, p=[2, np.inf])
    probs, y = sc.sample(2_000_000, 12)
    emp = lp_calibration_error(probs, y, [2, np.inf], lam)
    # the plug-in estimate is biased upwards by O(n^(-1/2)); 2e6 samples leave a few per mille
    assert np.allclose(emp, exact["lp"], rtol=0.03)
    assert squared_error(probs, y) == pytest.approx(exact["squared_error"], abs=2e-3)


def test_scenario_rejects_bad_arguments():
    with pytest.raises(ValueError, match="class_offsets"):
        MulticlassScenario(3, class_offsets=[0.0, 1.0])
    with pytest.raises(ValueError, match="temperature"):
        MulticlassScenario(3, temperature=0.0)
    sc = MulticlassScenario(3, n_atoms=10)
    with pytest.raises(ValueError, match="predictions must have shape"):
        sc.evaluate(np.full((5, 3), 1 / 3), 0.25)


# ---------------------------------------------------------------------------
# the calibration algorithm
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scenario5():
    return MulticlassScenario(5, n_atoms=3000, sharpness=3.0, spread=0.7, temperature=0.5, seed=1)


def test_outputs_are_always_on_the_simplex(scenario5):
    rng = np.random.default_rng(10)
    probs, y = scenario5.sample(20_000, 3)
    for noise, pools in itertools.product((True, False), (True, False)):
        cal = LpCalibrator(0.1, noise=noise, pools=pools, rng=1).fit(probs, y)
        assert cal.converged_
        for x in (probs[:500], dirichlet_rows(rng, 500, 5, 0.3)):
            out = cal.predict(x)
            assert np.all(out >= 0) and np.allclose(out.sum(axis=1), 1.0, atol=1e-12)
        assert np.allclose(cal.bin_predictions_.sum(axis=1), 1.0, atol=1e-12)


def test_fit_is_reproducible_with_a_seed(scenario5):
    probs, y = scenario5.sample(100_000, 4)
    a = LpCalibrator(0.1, threshold=0.01, rng=7).fit(probs, y)
    b = LpCalibrator(0.1, threshold=0.01, rng=7).fit(probs, y)
    c = LpCalibrator(0.1, threshold=0.01, rng=8).fit(probs, y)
    assert a.keys_.size > 0 and a.n_steps_ > 0
    assert np.array_equal(a.bin_predictions_, b.bin_predictions_) and a.n_steps_ == b.n_steps_
    assert not np.array_equal(a.keys_, c.keys_) or not np.array_equal(a.bin_predictions_, c.bin_predictions_)


def test_without_noise_and_pools_the_estimates_are_the_sample_frequencies(scenario5):
    probs, y = scenario5.sample(5000, 5)
    cal = LpCalibrator(0.1, noise=False, pools=False, record_queries=True).fit(probs, y)
    counts = level_set_counts(probs, 0.1)
    keys = level_set_key(counts, 0.1)
    for bins, mass, labels in cal.queries_:
        inside = np.isin(keys, cal.keys_[bins])
        assert mass == pytest.approx(inside.mean(), abs=1e-14)
        assert labels[0] == pytest.approx(inside.mean(), abs=1e-14)
        assert np.allclose(labels[1:], np.bincount(y[inside], minlength=5) / y.size, atol=1e-14)


def test_estimation_groups_are_powers_of_two_and_disjoint_within_a_size(scenario5):
    # the structure Lemma 8 needs: all queried groups of one size are pairwise disjoint
    probs, y = scenario5.sample(200_000, 6)
    cal = LpCalibrator(0.1, threshold=0.002, pools=False, noise=False, record_queries=True).fit(probs, y)
    assert cal.n_merges_ > 0
    by_size = defaultdict(list)
    for bins, _, _ in cal.queries_:
        assert bins.size & (bins.size - 1) == 0
        by_size[bins.size].append(set(bins.tolist()))
    for sets in by_size.values():
        union = set().union(*sets)
        assert len(union) == sum(len(s) for s in sets)
    # every final group is a union of bins of H and the groups partition H
    assert sorted(np.concatenate(cal.groups_).tolist()) == list(range(cal.keys_.size))


def test_pools_split_the_sample(scenario5):
    probs, y = scenario5.sample(30_000, 7)
    cal = LpCalibrator(0.1, noise=False, rng=0).fit(probs, y)
    sizes = cal.pool_sizes_
    assert len(sizes) % 2 == 1 and sum(sizes) == 30_000
    j = (len(sizes) - 1) // 2
    assert 2 ** (j - 1) <= 1 / cal.mass_threshold_  # J group sizes cover up to floor(1/omega_m) bins
    assert cal.threshold_ == pytest.approx(1 / math.sqrt(sizes[1]))
    # with noise the automatic threshold adds two standard deviations of the Laplace noise
    noisy = LpCalibrator(0.1, rng=0).fit(probs, y)
    b_m, b_y = np.max(noisy.noise_scales_, axis=0)
    n_pool = noisy.pool_sizes_[1]
    assert noisy.threshold_ == pytest.approx(min(0.5, 2 * (0.5 / math.sqrt(n_pool) + math.sqrt(2) * (b_m + 2 * b_y))))


def exact_run(scenario, lam, threshold, **kw):
    cal = LpCalibrator(lam, threshold=threshold, record_states=True, **kw)
    return cal.fit_exact(scenario.atoms, scenario.h_star, scenario.weights)


def test_exact_oracle_lemmas_10_to_13(scenario5):
    lam, omega = 0.1, 0.004
    cal = exact_run(scenario5, lam, omega)
    sc = scenario5
    t = cal.trajectory_
    assert cal.n_steps_ > 5 and cal.n_merges_ > 0 and cal.converged_
    sq = lambda state: sc.evaluate(cal.predict(sc.atoms, state), lam)["squared_error"]  # noqa: E731
    start = sc.evaluate(cal.predict(sc.atoms, canonical_distribution(cal.bin_levels_, lam)), lam)["squared_error"]
    previous = start
    for step in range(cal.n_steps_):
        after1, after2 = sq(t["stage1"][step]), sq(t["stage2"][step])
        # Lemma 11 with exact estimates: the projection stage lowers the squared error by more than omega^2
        assert after1 < previous - omega**2
        # Lemma 10: a merge raises it by at most 4 lambda times the mass of the group that moves
        assert after2 - after1 <= 4 * lam * t["moved_mass"][step] + 1e-14
        if not t["merged"][step]:
            assert after2 == after1
        previous = after2
    assert cal.n_steps_ <= lemma13_iteration_bound(omega, omega, lam)
    final = sc.evaluate(cal.predict, lam, p=[1.5, 2, 4, np.inf])
    assert final["squared_error"] == pytest.approx(previous)
    base = sc.evaluate(sc.atoms, lam)["squared_error"]
    assert final["squared_error"] <= base + squared_error_excess_bound(lam, omega)
    # Lemma 14 with exact estimates (zero accuracy terms)
    for p, err in zip([1.5, 2, 4, np.inf], final["lp"]):
        assert err <= lemma14_bound(omega, omega, p)


def test_exact_oracle_termination_leaves_every_group_below_omega(scenario5):
    lam, omega = 0.2, 0.01
    cal = exact_run(scenario5, lam, omega)
    sc = scenario5
    g = cal.predict(sc.atoms)
    keys = level_set_key(level_set_counts(sc.atoms, lam), lam)
    for bins in cal.groups_:
        inside = np.isin(keys, cal.keys_[bins])
        q = sc.weights[inside].sum()
        err = np.abs(sc.weights[inside] @ (g[inside] - sc.h_star[inside]))
        assert np.all(err <= omega + 1e-12) and q >= omega - 1e-12


def test_discretisation_lemma_12():
    rng = np.random.default_rng(11)
    for k, lam in [(3, 0.1), (5, 0.25), (10, 0.05)]:
        u = dirichlet_rows(rng, 5000, k, 0.5)
        counts = level_set_counts(u, lam)
        c = canonical_distribution(counts, lam)
        # a second point of the same level set: mix c(v) with u (the cell is convex)
        w = 0.5 * (u + c)
        assert np.array_equal(level_set_counts(w, lam), counts)
        for y in range(k):
            e = np.eye(k)[y]
            change = np.sum((w - e) ** 2, axis=1) - np.sum((u - e) ** 2, axis=1)
            assert np.all(np.abs(change) <= 2 * lam * (2 - w[:, y] - u[:, y]) + 1e-12)
            assert np.all(np.abs(change) < 4 * lam)


def test_bad_input_to_the_calibrator(scenario5):
    probs, y = scenario5.sample(2000, 8)
    with pytest.raises(ValueError, match="y must contain only labels"):  # 6 distinct labels for 5 columns
        LpCalibrator(0.1).fit(probs, np.where(np.arange(y.size) == 0, 9, y))
    with pytest.raises(ValueError, match="same length"):
        LpCalibrator(0.1).fit(probs, y[:-1])
    with pytest.raises(ValueError, match="Theorem 6"):
        LpCalibrator(0.1, p=np.inf, epsilon=0.2).fit(probs, y)
    with pytest.raises(ValueError, match="p must be greater than 1"):
        LpCalibrator(0.1, p=1, epsilon=0.2).fit(probs, y)
    with pytest.raises(ValueError, match="threshold"):
        LpCalibrator(0.1, threshold="large").fit(probs, y)
    with pytest.raises(ValueError, match="noise"):
        LpCalibrator(0.1, noise=-1.0).fit(probs, y)
    with pytest.raises(ValueError, match="lam"):
        LpCalibrator(0.3).fit(probs, y)
    with pytest.raises(ValueError, match="not fitted"):
        LpCalibrator(0.1).predict(probs)
    with pytest.raises(ValueError, match="fit_exact"):
        LpCalibrator(0.1).fit_exact(scenario5.atoms, scenario5.h_star, scenario5.weights)
    with pytest.raises(ValueError, match="probs rows must sum to 1"):
        LpCalibrator(0.1).fit(probs * 0.9, y)


def test_predict_refuses_bin_predictions_that_are_not_probability_vectors(scenario5):
    """Issue 39: rows of all ones were accepted and returned; rows must be probability vectors (sum 1 within 1e-8)."""
    probs, y = scenario5.sample(20_000, 8)
    cal = LpCalibrator(0.1, noise=False, pools=False, threshold=0.01, record_states=True).fit(probs, y)
    n_bins, k = cal.bin_predictions_.shape
    assert n_bins > 0 and cal.n_steps_ > 0
    assert np.array_equal(cal.predict(probs, cal.bin_predictions_), cal.predict(probs))
    state = cal.trajectory_["stage1"][0]  # a recorded state is a table of probability vectors
    assert np.allclose(cal.predict(probs, state).sum(axis=1), 1.0)
    uniform = np.full((n_bins, k), 1 / k)
    uniform[0] += np.array([5e-9] + [0.0] * (k - 1))  # within the tolerance
    cal.predict(probs, uniform)
    swap = np.zeros(k)
    swap[:2] = (1.5, -0.5)  # sums to 1, entries outside [0, 1]
    for name, row in (("all ones", np.ones(k)), ("sum 1 + 2e-8", np.full(k, (1 + 2e-8) / k)), ("entries outside [0, 1]", swap)):
        table = cal.bin_predictions_.copy()
        table[-1] = row
        with pytest.raises(ValueError, match=r"bin_predictions rows must be probability vectors .* within 1e-08\); row"):
            cal.predict(probs, table)
    with pytest.raises(ValueError, match="bin_predictions must have shape"):
        cal.predict(probs, uniform[:-1])


def test_epsilon_mode_with_the_check_disabled_runs(scenario5):
    probs, y = scenario5.sample(20_000, 9)
    cal = LpCalibrator(0.1, p=np.inf, epsilon=0.2, check_sample_size=False, rng=0).fit(probs, y)
    assert cal.threshold_ == pytest.approx(0.05)
    assert np.allclose(cal.predict(probs[:10]).sum(axis=1), 1)


def test_calibration_improves_the_population_error(scenario5):
    probs, y = scenario5.sample(100_000, 10)
    sc, lam = scenario5, 0.1
    before = sc.evaluate(canonical_distribution(level_set_counts(sc.atoms, lam), lam), lam, p=[2, np.inf])
    cal = LpCalibrator(lam, noise=False, pools=False).fit(probs, y)
    after = sc.evaluate(cal.predict, lam, p=[2, np.inf])
    assert np.all(after["lp"] < 0.7 * before["lp"])
    assert after["squared_error"] < before["squared_error"]


# ---------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------


def test_baselines_output_distributions_and_temperature_is_recovered():
    sc = MulticlassScenario(4, n_atoms=2000, temperature=0.5, class_offsets=np.zeros(4), seed=2)
    probs, y = sc.sample(50_000, 1)
    ts = TemperatureScaling().fit(probs, y)
    assert ts.temperature_ == pytest.approx(2.0, rel=0.05)  # truth: softmax(0.5 logits) = softmax(log f / 2)
    for model in (ts, ClasswiseBinning(10).fit(probs, y), TopLabelBinning(10).fit(probs, y)):
        out = model.predict(probs[:2000])
        assert np.all(out >= 0) and np.allclose(out.sum(axis=1), 1.0)
    cw = ClasswiseBinning(10).fit(probs, y)
    assert classwise_ece(cw.predict(probs), y, 10) < 0.5 * classwise_ece(probs, y, 10)
    tl = TopLabelBinning(10).fit(probs, y)
    assert top_label_ece(tl.predict(probs), y, 10) < 0.5 * top_label_ece(probs, y, 10)
    with pytest.raises(ValueError, match="not fitted"):
        TemperatureScaling().predict(probs)
    with pytest.raises(ValueError, match="n_bins"):
        ClasswiseBinning(0).fit(probs, y)


def test_temperature_scaling_warns_when_the_optimum_lies_beyond_its_range():
    """Each label is its row's least likely class: flattening a row raises its smallest entry, so every
    row's likelihood rises towards T = infinity, the search ends at e^4 and warns; on an informative
    sample it does not."""
    probs = np.random.default_rng(5).dirichlet(np.ones(3), size=4000)
    y = probs.argmin(axis=1)
    with pytest.warns(ConvergenceWarning, match="end of its range"):
        ts = TemperatureScaling().fit(probs, y)
    assert ts.temperature_ == pytest.approx(math.exp(4.0), rel=1e-3)
    flat = np.random.default_rng(5).dirichlet(np.full(3, 2000.0), size=2000)  # rows within a few % of uniform
    with pytest.warns(ConvergenceWarning, match="far too flat"):  # labels = each row's argmax: sharpen without end
        assert TemperatureScaling().fit(flat, flat.argmax(axis=1)).temperature_ == pytest.approx(math.exp(-4.0), rel=1e-3)
    sc = MulticlassScenario(3, n_atoms=500, temperature=0.5, class_offsets=np.zeros(3), seed=2)
    probs, y = sc.sample(5000, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert 1.0 < TemperatureScaling().fit(probs, y).temperature_ < 4.0


# ---------------------------------------------------------------------------
# Theorem 6 as reconstructed (companion.multiclass_lp.bounds)
# ---------------------------------------------------------------------------


def test_threshold_inverts_the_termination_bound():
    from companion.multiclass_lp import lp_threshold

    for p in (1.25, 2.0, 3.0, 10.0, np.inf):
        for eps in (0.05, 0.2, 0.9):
            a = lp_threshold(eps, p)
            # Theorem 6 chain: groups within 3a/2, left-out level sets below 3a/2
            assert lemma14_bound(a, a, p, a / 2, a / 2) <= eps * (1 + 1e-12)
            if np.isfinite(p):
                assert 4 * a ** (1 - 1 / p) == pytest.approx(eps)
    with pytest.raises(ValueError, match="p must be greater than 1"):
        lp_threshold(0.1, 1)
    with pytest.raises(ValueError, match="epsilon"):
        lp_threshold(1.5, 2)


def test_lemma14_hand_values():
    assert lemma14_bound(0.1, 0.2, np.inf) == pytest.approx(0.3)
    # p = 2: (2 (2 a + 2 b))^(1/2)
    assert lemma14_bound(0.01, 0.04, 2) == pytest.approx(math.sqrt(2 * (0.02 + 0.08)))
    with pytest.raises(ValueError, match="group_accuracy"):
        lemma14_bound(0.1, 0.1, 2, group_accuracy=-1)
    # bad thresholds are refused with the argument's name
    with pytest.raises(ValueError, match="^threshold"):
        lemma14_bound(-0.1, 0.1, 2)
    with pytest.raises(ValueError, match="mass_threshold"):
        lemma14_bound(0.1, 0.0, 2)
    with pytest.raises(ValueError, match="mass_threshold"):
        lemma13_iteration_bound(0.1, 1.5, 0.1)
    with pytest.raises(ValueError, match="mass_threshold"):
        squared_error_excess_bound(0.1, 0.0)


def test_lemma8_size_and_accuracy_are_inverse():
    from companion.multiclass_lp import lemma8_accuracy, lemma8_sample_size

    for psi in (0.01, 0.1, 0.5):
        n = lemma8_sample_size(psi, 6, 40, 0.05)
        assert n == math.ceil(32 * math.log(4 * 6 * 40 / (0.05 * psi)) / psi**2)
        assert lemma8_accuracy(n, 6, 40, 0.05) <= psi
        assert lemma8_accuracy(n - 1, 6, 40, 0.05) == pytest.approx(psi, rel=1e-3)


def test_lemma8_laplace_tail_by_simulation():
    # the sample-accuracy step: max over kT Laplace(b) draws exceeds b log(kT / b') w.p. <= b'
    rng = np.random.default_rng(12)
    k_t, fail = 50, 0.1
    draws = np.abs(rng.laplace(size=(20_000, k_t))).max(axis=1)
    freq = np.mean(draws > math.log(k_t / fail))
    assert freq <= fail and freq > 0.5 * fail  # the union bound is nearly tight here


def test_lemma7_sample_size_by_simulation():
    from companion.multiclass_lp import lemma7_sample_size

    rng = np.random.default_rng(13)
    omega_m, n_sets, delta = 0.1, 200, 0.2
    n0 = lemma7_sample_size(omega_m, n_sets, delta)
    assert n0 == math.ceil(2 * math.log(2 * n_sets / delta) / omega_m**2)
    probs = rng.dirichlet(np.full(n_sets, 0.2))
    counts = rng.multinomial(n0, probs, size=2000)
    worst = np.abs(counts / n0 - probs).max(axis=1)
    assert np.mean(worst > omega_m / 2) <= delta


def test_theorem6_budget_is_consistent_and_monotone():
    from companion.multiclass_lp import (
        lemma8_sample_size,
        theorem6_budget,
        theorem6_iterations,
        theorem6_sample_size,
    )

    b = theorem6_budget(5, 3.0, 0.2, 0.1, 0.1)
    j = b["J"]
    assert 2 ** (j - 1) <= 1 / b["mass_threshold"] < 2**j
    assert b["n_level_sets"] == level_set_count(5, 0.1)
    assert b["pool_labels"] == lemma8_sample_size(b["threshold"] / (80 * j), 6, int(1 / b["mass_threshold"]), 0.1 / (4 * j))
    assert b["total"] == b["bins"] + j * (b["pool_mass"] + b["pool_labels"])
    assert theorem6_sample_size(5, 3.0, 0.2, 0.1, 0.1) == b["total"]
    assert theorem6_iterations(5, 3.0, 0.2, 0.1, 0.1) == pytest.approx(lemma13_iteration_bound(b["threshold"], b["threshold"], 0.1))
    sizes = [theorem6_sample_size(5, p, 0.2, 0.1, 0.1) for p in (2, 4, np.inf)]
    assert sizes[0] > sizes[1] > sizes[2]  # a larger p needs fewer samples (omega grows with p)
    assert theorem6_sample_size(5, 2, 0.1, 0.1, 0.1) > sizes[0]
    # polynomial in k: doubling k multiplies the budget by far less than 2^k
    assert theorem6_sample_size(20, np.inf, 0.2, 0.1, 0.1) < 2 * theorem6_sample_size(10, np.inf, 0.2, 0.1, 0.1)


def test_lemma13_and_excess_hand_values():
    from companion.multiclass_lp import discretisation_bound

    assert lemma13_iteration_bound(0.1, 0.5, 0.25) == pytest.approx((5 + 2.5 * math.log(4) / math.log(1.5)) / 0.01)
    assert squared_error_excess_bound(0.1, 0.5) == pytest.approx(0.4 * (1 + math.log(4) / math.log(1.5)))
    assert discretisation_bound(0.05) == pytest.approx(0.2)


# ---------------------------------------------------------------------------
# Regression tests for issue 20 (findings 1, 2 and 5 of the l_p chapter)
# ---------------------------------------------------------------------------


def _rank_by_definition(row) -> int:
    """Rank of a count vector in the combinatorial number system, straight from its definition (Python integers)."""
    total, partial = 0, 0
    for j, a in enumerate(row, start=1):
        partial += int(a)
        total += math.comb(partial + j - 1, j)
    return total


@pytest.mark.parametrize("lam", [1 / 2, 1 / 5, 1 / 10, 1 / 20])
@pytest.mark.parametrize("k", [2, 10, 56, 57, 62, 100, 327, 328, 1000, 5900, 6000])
def test_every_k_is_keyed_and_fitted(k, lam):
    """Keys agree with the definition for every k the level-set count allows (k = 57..327 overflowed at lam = 0.1)."""
    rng = np.random.default_rng(k)
    probs = rng.dirichlet(np.full(k, 0.05), size=40)
    y = rng.integers(k, size=40)
    counts = level_set_counts(probs, lam)
    keys = level_set_key(counts, lam)
    assert [int(v) for v in keys] == [_rank_by_definition(row) for row in counts]
    assert all(0 <= int(v) < math.comb(round(1 / lam) + k, k) for v in keys)
    cal = LpCalibrator(lam, noise=False, pools=False).fit(probs, y)
    out = cal.predict(probs)
    assert np.allclose(out.sum(axis=1), 1.0)


def test_keying_work_beyond_the_cap_is_refused_up_front():
    from companion.multiclass_lp import MAX_EXACT_KEY_WORK

    rng = np.random.default_rng(6)
    k = 20_000  # C(10 + k, k) > 2^62: exact keys; 3000 rows x k terms exceed the cap
    probs = rng.dirichlet(np.full(k, 0.1), size=3000)
    assert 3000 * k > MAX_EXACT_KEY_WORK
    with pytest.raises(ValueError, match=r"k = 20000.*lam"):
        LpCalibrator(0.1, noise=False, pools=False).fit(probs, np.zeros(3000, dtype=int))
    with pytest.raises(ValueError, match="lam = 1/10000 with k = 5000"):  # key table of (m + 1)(k + 1) > cap entries
        level_set_key(np.zeros((1, 5000), dtype=np.int64), 1e-4)


ROWS_32_64 = [[0.3, 0.7], [0.29, 0.71], [0.7, 0.3], [0.1, 0.9], [0.57, 0.43], [1.0, 0.0]]


@pytest.mark.parametrize("lam", [0.1, 0.01, 0.05, 0.2])
def test_float32_and_float64_rows_land_in_the_same_cells(lam):
    """The same rows as float32 and float64: same counts (a float32 [0.3, 0.7] went to (0.3, 0.6))."""
    rows64 = np.array(ROWS_32_64)
    rows32 = rows64.astype(np.float32)
    expected = np.array([[round(v * round(1 / lam) * 1e6) // 10**6 for v in row] for row in ROWS_32_64])  # exact decimals
    assert np.array_equal(level_set_counts(rows64, lam), expected)
    assert np.array_equal(level_set_counts(rows32, lam), expected)
    assert np.array_equal(rounding(rows32, lam), rounding(rows64, lam))
    assert np.array_equal(level_set_counts(np.array([[0.3, 0.7]], dtype=np.float32), lam), expected[:1])
    y = np.array([0, 1, 0, 1, 1, 0])
    assert lp_calibration_error(rows32, y, 2.0, lam) == pytest.approx(lp_calibration_error(rows64, y, 2.0, lam), abs=1e-6)


def test_float32_softmax_rows_are_accepted_and_a_wrong_sum_is_not():
    rng = np.random.default_rng(7)
    z = rng.normal(size=(2000, 5)).astype(np.float32)
    rows = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    assert rows.dtype == np.float32 and np.abs(rows.astype(np.float64).sum(axis=1) - 1).max() > 1e-8
    counts = level_set_counts(rows, 0.1)
    assert np.all((counts.sum(axis=1) <= 10) & (counts.sum(axis=1) > 5))  # level sets (characterisation lemma)
    y = rng.integers(5, size=2000)
    cal = LpCalibrator(0.1, noise=False, pools=False).fit(rows, y)
    assert np.allclose(cal.predict(rows).sum(axis=1), 1.0)
    bad = np.array([[0.3, 0.7 + 1e-5]], dtype=np.float32)
    with pytest.raises(ValueError, match="probs rows must sum to 1"):
        level_set_counts(bad, 0.1)
    with pytest.raises(ValueError, match="probs rows must sum to 1"):  # float64 keeps its tight tolerance
        level_set_counts(np.array([[0.29, 0.71]], dtype=np.float32).astype(np.float64), 0.1)


def test_lemma7_bucket_size_by_simulation_on_many_light_level_sets():
    """The bucket size of lem-multiclass-lp-bins keeps E_1 with many light level sets (no union over |V|)."""
    from companion.multiclass_lp import lemma7_sample_size, lemma7_sizes

    omega, delta = 0.1, 0.2
    sizes = lemma7_sizes(omega, 10**12, delta)
    assert sizes["buckets"] == math.ceil(8 * math.log(6 / (omega * delta)) / omega**2)
    assert sizes["union"] == math.ceil(2 * math.log(2 * 10**12 / delta) / omega**2)
    assert sizes["n0"] == min(sizes["union"], sizes["buckets"]) == lemma7_sample_size(omega, 10**12, delta)
    # a law adversarial for E_1: level sets just below omega/2 (may look heavy), just at 3 omega/2 (may look light),
    # and 2000 tiny ones
    masses = np.r_[np.full(8, 0.049), np.full(2, 0.15), np.full(2000, (1 - 8 * 0.049 - 0.3) / 2000)]
    rng = np.random.default_rng(8)
    n0 = sizes["buckets"]
    freq = rng.multinomial(n0, masses, size=4000) / n0
    heavy = freq >= omega
    failed = np.any(heavy & (masses < omega / 2), axis=1) | np.any(~heavy & (masses >= 1.5 * omega), axis=1)
    assert failed.mean() <= delta
    # the check can fail: with a hundredth of the size, E_1 fails often on the same law
    small = rng.multinomial(n0 // 100, masses, size=4000) / (n0 // 100)
    heavy = small >= omega
    assert np.mean(np.any(heavy & (masses < omega / 2), axis=1) | np.any(~heavy & (masses >= 1.5 * omega), axis=1)) > delta


def test_counts_refuse_rows_off_the_simplex():
    from companion.multiclass_lp.level_sets import _counts

    with pytest.raises(ValueError, match="not on the simplex"):
        _counts(np.array([[0.6, 0.6]]), 10)  # counts 12 > m
    with pytest.raises(ValueError, match="not on the simplex"):
        _counts(np.array([[0.05, 0.05]]), 10)  # counts 0 <= m - k
    assert np.array_equal(_counts(np.array([[0.3, 0.7]], dtype=np.float32).astype(np.float64), 10, float(np.finfo(np.float32).eps)), [[3, 7]])


@pytest.mark.parametrize("lam", [0.1, 0.01, 0.001, 1e-6])
def test_rows_a_little_below_the_simplex_that_pass_validation_are_counted(lam):
    """Rows e / (sum(e) + 1e-9) sum to 1 - O(1e-9), within the validator's tolerance; their counts are those of the
    exact rows e / sum(e), floor(m e_i / sum(e)) in integers (they once summed to m - k and were refused)."""
    m = round(1 / lam)
    e = np.array([[1, 1], [1, 3], [2, 2], [3, 1], [7, 3], [1, 4], [5, 5]], dtype=float)
    rows = e / (e.sum(axis=1, keepdims=True) + 1e-9)
    as_probability_rows(rows)  # accepted by the validator
    expected = np.array([[m * int(a) // int(row.sum()) for a in row] for row in e])
    assert np.array_equal(level_set_counts(rows, lam), expected)
    ten = np.ones((3, 10)) / (10 + 1e-9)  # every coordinate just below the grid point 1/10
    assert np.array_equal(level_set_counts(ten, lam), np.full((3, 10), m // 10))
    cal = LpCalibrator(lam, noise=False, pools=False, threshold=0.1).fit(rows, np.array([0, 1, 0, 1, 0, 0, 1]))
    assert np.allclose(cal.predict(rows).sum(axis=1), 1.0)


def test_key_work_is_checked_before_the_entries():
    """A job beyond MAX_EXACT_KEY_WORK is refused from the shape alone, before the entries are read."""
    bad = np.full((1, 5000), np.nan)
    with pytest.raises(ValueError, match="MAX_EXACT_KEY_WORK"):
        LpCalibrator(1e-4, noise=False, pools=False).fit(bad, np.zeros(1, dtype=int))
    with pytest.raises(ValueError, match="MAX_EXACT_KEY_WORK"):
        lp_calibration_error(bad, np.zeros(1, dtype=int), 2.0, 1e-4)


def test_a_grid_too_fine_for_float64_is_refused_saying_so():
    # m tol + k slack >= 1 (here m = 2e8): even the exact row (1/2, 1/2) cannot be resolved; the
    # message must name the grid, not blame the row (book: the floating-point paragraph after
    # lem-multiclass-lp-characterisation).
    with pytest.raises(ValueError, match="too fine for the input's precision"):
        level_set_counts(np.array([[0.5, 0.5]]), 1 / (2 * 10**8))
    np.testing.assert_array_equal(level_set_counts(np.array([[0.5, 0.5]]), 1 / (2 * 10**7)), [[10**7, 10**7]])
