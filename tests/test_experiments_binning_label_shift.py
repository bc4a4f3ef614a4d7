"""Drivers of companion.binning_label_shift.experiments, at small scale."""

import numpy as np
import pytest

from companion.binning_label_shift import (
    LogRatioGridPartition,
    podkopaev_figure2,
    podkopaev_figure7,
    scenario_partition,
    theorem3_coverage,
    theorem4_check,
)
from companion.scenarios import three_class_gaussian


def test_scenario_partition_cells_match_monte_carlo():
    sc = three_class_gaussian()
    contrasts, edges, cond = scenario_partition(sc, 2)
    x, y = sc.sample(300_000, 0)
    bins = LogRatioGridPartition(contrasts, edges).assign(sc.posterior(x))
    for c in range(3):
        freq = np.bincount(bins[y == c], minlength=cond.shape[1]) / np.sum(y == c)
        np.testing.assert_allclose(freq, cond[c], atol=0.01)


@pytest.mark.parametrize("scenario", ["two_class", "three_class"])
def test_theorem3_coverage_is_at_least_promised(scenario):
    out = theorem3_coverage(scenario, n_values=(200, 2000), deltas=(0.1, 0.5), n_reps=3000, rng=1)
    cov = out["coverage"]
    assert np.all(cov["bins"] >= out["promised"] - 3 * np.sqrt(0.25 / 3000))
    # The first event implies the second in every repetition (the theorem's proof), so its frequency is smaller.
    assert np.all(cov["calibration"] >= cov["bins"])
    assert np.all(out["max_ratio"] > 0)


def test_theorem3_coverage_fails_for_a_radius_too_small():
    # Sanity of the statistic: the radii scaled down by 4 must be violated often.
    res = theorem3_coverage("two_class", n_values=(500, 2000), deltas=(0.5,), n_reps=2000, rng=2)
    assert np.mean(res["max_ratio"] > 0.25) > 0.5


@pytest.mark.parametrize("scenario", ["two_class", "three_class"])
def test_theorem4_bound_holds_in_every_bin(scenario):
    out = theorem4_check(scenario, n_source=500, n_weights=500, n_reps=100, rng=3)
    assert out["held"] == 1.0
    assert 0 < out["ratio_median"] < 1


def test_figure2_band_and_reliability():
    out = podkopaev_figure2(n_scatter=400, n_train=500, n_calibration=1000, n_weights=1000, n_test=5000, rng=4)
    band = out["band_stats"]
    assert band["source_exact"] == pytest.approx(0.5, abs=0.01)
    assert band["target_exact"] == pytest.approx(0.8, abs=0.02)  # the odds are multiplied by w_1/w_0 = 4
    rel = out["reliability"]
    # Oracle-corrected frequencies track the exact target frequencies; uncorrected ones do not.
    assert rel["oracle"]["target_error"] < 0.05
    assert rel["estimated"]["target_error"] < 0.06
    assert rel["uncorrected"]["target_error"] > 0.1
    np.testing.assert_allclose(out["weights_hat"], [0.4, 1.6], atol=0.25)


def test_figure7_digits_runs_and_correction_helps():
    out = podkopaev_figure7(n_splits=3, rng=5)
    assert out["ece"].shape == (3, 3)
    sizes = out["splits"][0]["sizes"]
    assert sizes["train"] > 100 and sizes["test"] > 400
    unc, orc, est = out["ece"].mean(axis=0)
    assert orc < unc and est < unc
    np.testing.assert_allclose(out["true_weights"], [0.625, 2.5])


def test_figure_drivers_validate_their_own_arguments():
    for name in ("n_scatter", "n_train", "n_calibration", "n_weights", "n_test", "n_bins"):
        for bad in (0, 2.5, None, True, "3", 10**400):
            with pytest.raises(ValueError, match=name):
                podkopaev_figure2(**{name: bad})
    with pytest.raises(ValueError, match="n_test"):
        podkopaev_figure2(n_test=10**8)
    for bad in (None, [], [0.6, 0.4], [0.4, 1.5], [0.4, np.nan], ["0.4", "0.6"], [0.3, 0.5, 0.7]):
        with pytest.raises(ValueError, match="band"):
            podkopaev_figure2(band=bad)
    for name in ("source_prior", "target_prior"):
        for bad in ([0.5, 0.6], [1.0, 0.0], ["0.5", "0.5"], np.array([0.5 + 0j, 0.5]), [np.nan, 0.5], None):
            with pytest.raises(ValueError, match=name):
                podkopaev_figure7(n_splits=1, **{name: bad})
    for name in ("n_values", "deltas"):
        with pytest.raises(ValueError, match=name):
            theorem3_coverage("two_class", **{name: []}, n_reps=2)


def test_target_guarantee_coverage_holds_and_its_events_are_resolved():
    from companion.binning_label_shift import target_guarantee_coverage

    out = target_guarantee_coverage(sizes=((10_000, 20_000), (100_000, 100_000)), deltas=(0.1, 0.5), n_reps=4_000, rng=3)
    assert np.all(out["coverage"] >= out["promised"])
    # each event of the proof holds with at least its own promised probability 1 - delta/2 ...
    assert np.all(out["bins_event"] >= 1 - out["deltas"] / 2) and np.all(out["weights_event"] >= 1 - out["deltas"] / 2)
    # ... and the simulation is able to see a failure: the Theorem 3 event at delta/2 = 0.25 fails in some repetitions
    assert np.all(out["bins_event"][:, 1] < 1)
    assert np.all(out["ratio_q99"] < 1) and np.all(out["mean_radius"][1] < out["mean_radius"][0])


def test_target_guarantee_coverage_detects_a_planted_error(monkeypatch):
    """With the radii cut by 50 the coverage drops below 1 - delta: the comparison can fail."""
    import companion.binning_label_shift.experiments as mod

    real = mod.target_binning_bound
    monkeypatch.setattr(mod, "target_binning_bound", lambda *a: real(*a) / 50)
    out = mod.target_guarantee_coverage(sizes=((100_000, 100_000),), deltas=(0.1,), n_reps=4_000, rng=3)
    assert out["coverage"][0, 0] < 0.9


def test_target_guarantee_radii_and_ratios_are_bracketed_independently():
    """The smallest radius lies between the radius of a bin holding the whole sample and that of a bin holding
    n/B points (the largest bin of every sample holds at least that many); at n = 1000 it exceeds 2, so the clipped
    correction (l1 error at most 2) cannot break the bound there."""
    from companion.binning_label_shift import target_binning_bound
    from companion.binning_label_shift import target_guarantee_coverage
    from companion.scenarios import two_class_gaussian

    sc = two_class_gaussian()
    out = target_guarantee_coverage(sizes=((1_000, 5_000), (10_000, 20_000)), deltas=(0.05, 0.5), n_reps=2_000, rng=4)
    for i, (n_cal, n_w) in enumerate(out["sizes"]):
        for j, d in enumerate(out["deltas"]):
            at = lambda n: target_binning_bound(np.array([int(n)]), sc.confusion_matrix("hard"), sc.weights,
                                                int(n_w), int(n_w), float(d))[0]
            assert at(n_cal) <= out["min_radius"][i, j] <= at(-(-n_cal // out["n_bins"])) + 1e-12
            assert out["min_radius"][i, j] <= out["mean_radius"][i, j]
    assert np.all(out["min_radius"][0] > 2) and np.all(out["ratio_max"][0] <= 2 / out["min_radius"][0])
    assert np.all(out["ratio_q99"] <= out["ratio_max"]) and np.all((out["ratio_max"] < 1) == (out["coverage"] == 1))
