"""Drivers of the l_p calibration chapter (companion.multiclass_lp.experiments), at small sizes."""

import numpy as np
import pytest

from companion.multiclass_lp import (
    MULTICLASS_CONFIGS,
    bernoulli_test_size,
    book_multiclass_scenario,
    exact_trajectory,
    full_version_demo,
    grid_size,
    lemma14_bound,
    level_set_count,
    level_set_mass_check,
    level_sets_visited,
    light_level_sets_check,
    lp_error_grid,
    lp_rate_summary,
    method_comparison,
    squared_error_vs_lam,
    two_worlds_demo,
)


@pytest.fixture(scope="module")
def small_grid():
    return lp_error_grid(k_values=(3, 5), n_values=(2000, 20_000, 200_000), n_reps=2, rng=5)


def test_grid_shapes_and_reproducibility(small_grid):
    g = small_grid
    assert g["lp"].shape == (2, len(MULTICLASS_CONFIGS), 3, 2, 4)
    assert np.all(g["converged"] == 1)
    again = lp_error_grid(k_values=(3,), n_values=(2000,), n_reps=2, rng=5)
    assert np.array_equal(again["lp"][0], g["lp"][0, :, :1])  # same seeds for the first k and n
    assert list(g["n_level_sets"]) == [level_set_count(3, 0.1), level_set_count(5, 0.1)]
    assert list(g["grid_cells"]) == [grid_size(3, 0.1), grid_size(5, 0.1)]


def test_plain_algorithm_improves_with_n_and_beats_the_discretised_forecaster(small_grid):
    g = small_grid
    plain = g["configs"].index("plain")
    mean = g["lp"][:, plain].mean(axis=2)  # [k, n, p]
    for a in range(2):
        for q in (1, 2, 3):  # p = 2, 4, inf
            assert mean[a, -1, q] < mean[a, 0, q]
            assert mean[a, -1, q] < 0.6 * g["lp_discretised"][a, q]
    # the Lemma 8 radius is never exceeded where it applies (pools)
    pools = [g["configs"].index(c) for c in ("noise + pools", "pools only")]
    assert np.nanmax(g["lemma8_ratio"][:, pools]) <= 1.0
    assert np.all(np.isnan(g["lemma8_ratio"][:, [g["configs"].index("plain")]]))


def test_rate_summary(small_grid):
    s = lp_rate_summary(small_grid, n_min=2000)
    assert s["slopes"].shape == (2, 4, 4)
    assert np.isnan(s["theorem"][0]) and s["theorem"][-1] == -0.5 and s["theorem"][1] == -0.25
    plain = small_grid["configs"].index("plain")
    assert np.all(s["slopes"][:, plain, 1:] < 0)
    with pytest.raises(ValueError, match="n_min"):
        lp_rate_summary(small_grid, n_min=10**6)


def test_level_sets_visited(small_grid):
    v = level_sets_visited(small_grid)
    assert v["n"] == 200_000
    assert np.all(v["visited"] >= v["n_high"]) and np.all(v["visited"] <= v["n_level_sets"][:, None])
    assert np.all(v["occupied"] <= v["n_level_sets"][:, None])


def test_exact_trajectory_checks_the_lemmas():
    t = exact_trajectory(k=3, lam=0.1, threshold=0.005)
    assert t["steps"] > 0 and t["steps"] <= t["iteration_bound"]
    assert t["min_decrease"] > t["threshold"] ** 2
    assert t["max_merge_excess"] <= 1e-14
    assert np.all(t["lp_stage2"][-1] <= t["lp_bound"])
    assert t["sq_stage2"][-1] < t["sq_start"]
    assert t["lp_bound"][0] == pytest.approx(lemma14_bound(0.005, 0.005, 2.0))


def test_squared_error_vs_lam():
    r = squared_error_vs_lam(k=3, lam_values=(0.5, 0.1), n=5000, n_reps=1, rng=1)
    assert r["sq_calibrated"].shape == (2, 2, 1)
    # Lemma 12 against the exact discretisation
    assert np.all(r["sq_discretised"] - r["sq_f"] <= r["lemma12"])
    assert np.all(r["sq_calibrated"] - r["sq_f"] <= r["theorem6"][:, :, None])


def test_method_comparison():
    r = method_comparison(k=3, n=5000, n_reps=2, rng=2)
    v = r["values"]
    assert v.shape == (7, 7, 2)
    sq = r["metrics"].index("squared error")
    # the discretised forecaster loses at most 4 lambda of squared error (Lemma 12)
    assert np.all(v[1, sq] - v[0, sq] <= 0.4)
    assert np.all((v[:, :-1] >= 0))


def test_two_worlds():
    r = two_worlds_demo(n_bins_values=(10_000,), n_values=(50, 20_000), bias=0.2, n_reps=50, rng=3)
    # with n << sqrt(N) the plug-in l_1 estimate is the same in both worlds (no repeated bin)
    assert r["collision"][0, 0] < 0.2
    a, b = r["plugin_l1"][:, 0, 0]
    assert abs(a - b) < 0.05 * a
    # with n >> sqrt(N) the worlds separate
    a, b = r["plugin_l1"][:, 0, 1]
    assert b > a + 0.05
    assert r["exact_l2"][0] == pytest.approx(0.2 * np.sqrt(2 / 10_000))
    with pytest.raises(ValueError, match="bias"):
        two_worlds_demo(bias=0.7)


def test_bad_driver_arguments():
    with pytest.raises(ValueError, match="configs"):
        lp_error_grid(k_values=(3,), n_values=(100,), configs=("fast",))
    with pytest.raises(ValueError, match="lam"):
        squared_error_vs_lam(lam_values=(0.3,))
    assert book_multiclass_scenario(7).n_classes == 7


def test_drivers_name_their_own_arguments():
    # each bad value is rejected before any work, with the driver's argument name (not check_p's "p" or check_lam's "lam")
    for bad in ([], [0.5], ["2.0"], [True], [2.0 + 0j], [[2.0]], None):
        for driver in (exact_trajectory, method_comparison, light_level_sets_check):
            with pytest.raises(ValueError, match="p_values"):
                driver(k=3, p_values=bad)
        with pytest.raises(ValueError, match="p_values"):
            lp_error_grid(k_values=(3,), n_values=(100,), p_values=bad)
    for bad in ([], [0.3], ["0.5"], [np.nan], None, [[0.5]]):
        with pytest.raises(ValueError, match="lam_values"):
            squared_error_vs_lam(k=3, lam_values=bad)
    for bad in ((), None, 3, {}, "plain", ("plain", ["x"])):
        with pytest.raises(ValueError, match="configs"):
            lp_error_grid(k_values=(3,), n_values=(100,), configs=bad)
        with pytest.raises(ValueError, match="configs"):
            squared_error_vs_lam(k=3, configs=bad)
    for name, kwargs in (("k_values", dict(k_values=())), ("n_values", dict(n_values=())), ("k_values", dict(k_values=(1,)))):
        with pytest.raises(ValueError, match=name):
            lp_error_grid(**kwargs)
    for name in ("n_bins_values", "n_values"):
        with pytest.raises(ValueError, match=name):
            two_worlds_demo(**{name: ()})
    with pytest.raises(ValueError, match="threshold_values"):
        light_level_sets_check(k=3, threshold_values=())
    for bad in (10**400, np.uint64(2**64 - 1), -1):
        with pytest.raises(ValueError, match="seed"):
            book_multiclass_scenario(3, seed=bad)


def test_summaries_check_the_grid(small_grid):
    for bad in (None, 3, "x", {}):
        with pytest.raises(ValueError, match="grid"):
            lp_rate_summary(bad)
        with pytest.raises(ValueError, match="grid"):
            level_sets_visited(bad)
    nan_grid = dict(small_grid, lp=np.full_like(small_grid["lp"], np.nan))
    with pytest.raises(ValueError, match="grid"):
        lp_rate_summary(nan_grid)
    short = dict(small_grid, visited=small_grid["visited"][:, :, :1])
    with pytest.raises(ValueError, match="grid"):
        level_sets_visited(short)


def test_light_level_sets_and_mass_checks():
    c = light_level_sets_check(k=3, threshold_values=(0.01, 0.1), p_values=(2.0, 3.0))
    assert np.all(c["light_sum"] <= c["bound"]) and np.all(c["light_sum"] > 0)
    assert c["light_mass"][0] <= c["light_mass"][1]
    r = level_set_mass_check(k=3, threshold=0.1, delta=0.1, n_reps=50, rng=4)
    assert r["union"]["n0"] == int(np.ceil(2 * np.log(2 * 166 / 0.1) / 0.01))
    assert r["buckets"]["n0"] == int(np.ceil(8 * np.log(6 / (0.1 * 0.1)) / 0.01))
    for rule in ("union", "buckets"):
        assert r[rule]["failure_rate"] <= 0.1 and r[rule]["worst"].max() < 0.1


def test_rate_intervals_against_scipy_linregress(small_grid):
    """Slopes and 95 % intervals of lp_rate_summary against scipy's linregress on the same points."""
    from scipy import stats

    s = lp_rate_summary(small_grid, n_min=2000, level=0.95)
    use = small_grid["n"] >= 2000
    reps = small_grid["lp"].shape[3]
    x = np.repeat(np.log(small_grid["n"][use].astype(float)), reps)
    for a, c, q in [(0, 3, 1), (1, 3, 3), (1, 1, 2)]:
        yv = np.log(small_grid["lp"][a, c][use][:, :, q]).ravel()
        fit = stats.linregress(x, yv)
        half = stats.t.ppf(0.975, x.size - 2) * fit.stderr
        assert s["slopes"][a, c, q] == pytest.approx(fit.slope, rel=1e-10, abs=1e-12)
        assert s["low"][a, c, q] == pytest.approx(fit.slope - half, rel=1e-9, abs=1e-12)
        assert s["high"][a, c, q] == pytest.approx(fit.slope + half, rel=1e-9, abs=1e-12)
    assert np.all(s["low"] <= s["slopes"]) and np.all(s["slopes"] <= s["high"])
    with pytest.raises(ValueError, match="level"):
        lp_rate_summary(small_grid, level=1.5)


def test_guaranteed_version_acts_on_a_strongly_miscalibrated_forecaster():
    r = full_version_demo(k=3, lam=0.5, temperature=0.2, n=100_000, n_reps=2, rng=3)
    assert np.all(r["steps"] > 0) and np.all(r["n_high"] > 0)
    assert np.all(r["lp"][:, 0] < 0.8 * r["lp_discretised"][0])  # err_2 falls
    assert np.all(r["sq"] < r["sq_discretised"]) and np.all(r["lemma8_ratio"] <= 1.0)
    # the mass radius solves the pool-size equation of the disjoint-queries lemma (delta 0.1 split over 4J pools, |H| events)
    for size, psi, n_sizes, n_high in zip(r["pool_size"], r["radius_mass"], r["n_sizes"], r["n_high"]):
        assert size == pytest.approx(32 * np.log(4 * n_high / (0.1 / (4 * n_sizes) * psi)) / psi**2, rel=1e-9)
    # outside the theorem's regime: E_2 would need J psi_m <= omega / 8, and the radius exceeds the threshold itself
    assert np.all(r["n_sizes"] * r["radius_mass"] > r["threshold"] / 8) and np.all(r["radius_mass"] > r["threshold"])


def _minimax_error_by_lp(n, e):
    """Smallest max(type I, type II) over ALL randomised tests of Bin(n, 1/2) against Bin(n, 1/2 + e), by linear programming."""
    from scipy import optimize, stats

    x = np.arange(n + 1)
    pa, pb = stats.binom.pmf(x, n, 0.5), stats.binom.pmf(x, n, 0.5 + e)
    # variables: phi_0..phi_n (probability of saying B) and t; minimise t
    cost = np.r_[np.zeros(n + 1), 1.0]
    a_ub = np.vstack([np.r_[pa, -1.0], np.r_[-pb, -1.0]])  # P_A(say B) <= t, 1 - P_B(say B) <= t
    res = optimize.linprog(cost, A_ub=a_ub, b_ub=[0.0, -1.0], bounds=[(0, 1)] * (n + 1) + [(0, 1)], method="highs")
    assert res.status == 0
    return res.fun


def test_bernoulli_test_size_is_the_minimax_size():
    """Checked against a linear programme over every randomised test (no Neyman-Pearson lemma, no monotonicity used),
    scanning every n: the first n whose best worst-case error is at most 1/3."""
    r = bernoulli_test_size(eps_values=(0.2, 0.1, 0.05), error=1 / 3)
    for e, n, before in zip(r["eps"], r["n"], r["type2_before"]):
        errors = [_minimax_error_by_lp(m, e) for m in range(1, n + 1)]
        assert errors[-1] <= 1 / 3 + 1e-12 and all(v > 1 / 3 for v in errors[:-1])
        assert abs(errors[-2] - before) < 0.01  # the printed type-II error at n - 1 exceeds 1/3
        assert n >= 1 / (18 * e**2)
    # at eps = 0.05 the total variation reaches 1/3 one sample before a test exists (74 against 75)
    assert r["n_tv"][2] == r["n"][2] - 1
    assert np.all(r["n_tv"] <= r["n"])
    assert np.allclose(r["bound"], 1 / (18 * r["eps"] ** 2))
    # halving epsilon multiplies the size by about four (the 1/eps^2 law)
    assert 3.2 < r["n"][2] / r["n"][1] < 4.8
