"""Drivers of the l_p calibration chapter (companion.experiments.multiclass), at small sizes."""

import numpy as np
import pytest

from companion.bounds import lemma14_bound
from companion.experiments import (
    MULTICLASS_CONFIGS,
    book_multiclass_scenario,
    exact_trajectory,
    level_sets_visited,
    lp_error_grid,
    level_set_mass_check,
    light_level_sets_check,
    lp_rate_summary,
    method_comparison,
    squared_error_vs_lam,
    two_worlds_demo,
)
from companion.multiclass import grid_size, level_set_count


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
    assert r["n0"] == int(np.ceil(2 * np.log(2 * 166 / 0.1) / 0.01))
    assert r["failure_rate"] <= 0.1 and r["worst"].max() < 0.1
