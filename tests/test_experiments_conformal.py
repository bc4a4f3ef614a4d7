"""Small-scale runs of the conformal drivers (companion.conformal_label_shift.experiments) and their paper-level claims."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from companion.conformal_label_shift import (
    bernoulli_quantile_jump,
    conformal_figure1,
    conformal_figure1_digits,
    coverage_guarantee_check,
    label_conditional_draw,
    label_conditional_study,
    lda_posteriors,
    randomization_draw,
    randomization_study,
    thresholds_by_calibration_size,
    weighted_thresholds,
)
from companion.scenarios import three_class_gaussian


def test_lda_recovers_bayes_posterior_with_much_data():
    sc = three_class_gaussian()
    rng = np.random.default_rng(0)
    x, y = sc.sample(200_000, rng, "source")
    xe, _ = sc.sample(500, rng, "source")
    post = lda_posteriors(x, y, xe, 3)
    np.testing.assert_allclose(post, sc.posterior(xe, "source"), atol=0.02)


def test_figure1_standard_undercovers_weighted_do_not():
    r = conformal_figure1(n_sims=60, n_cal=300, n_weights=500, n_test=300, rng=1)
    assert np.median(r["coverage"]["standard"]) < 0.88
    for m in ("oracle", "bbse"):
        assert abs(np.mean(r["coverage"][m]) - 0.9) < 0.02
    assert r["draw"]["sets"].shape == (300, 3)


def test_figure1_digits_runs_and_weights_help():
    r = conformal_figure1_digits(n_splits=15, rng=2)
    assert np.mean(r["coverage"]["oracle"]) > np.mean(r["coverage"]["standard"]) + 0.03
    assert r["sizes"]["calibration"] == 100
    assert np.all(r["accuracy"] > 0.5)
    # the returned scores at the true labels give back the oracle coverage through the thresholds
    t = weighted_thresholds(r["cal_scores"], r["cal_labels"], r["true_weights"], r["alpha"])
    hit = r["test_scores"] <= np.take_along_axis(t, r["test_labels"], axis=-1)
    np.testing.assert_allclose(hit.mean(axis=-1), r["coverage"]["oracle"], rtol=0, atol=1e-12)


def test_randomization_scheme1_learns_one_minus_alpha():
    r = randomization_study(n_sims=40, n_cal=1000, n_test=200, rng=3)
    assert abs(np.median(r["threshold"]["scheme 1"]) - 0.95) < 0.01
    assert np.median(r["threshold"]["conformal rho"]) < 0.85
    for nm in r["coverage"]:
        assert abs(r["coverage"][nm].mean() - 0.95) < 0.01
    d = randomization_draw(n_cal=200, n_test=100, rng=4)
    assert set(d["sets"]) == {"oracle", "oracle randomized", "conformal rho", "scheme 1", "scheme 2"}
    t = thresholds_by_calibration_size(n_values=(100, 1000), n_sims=10, rng=5)
    assert t["threshold"]["scheme 1"].shape == (2, 10)


def test_label_conditional_per_class_coverage():
    r = label_conditional_study(n_sims=60, n_train=500, n_test=300, settings=(("target", 350),), rng=6)
    lc = r["results"][("target", 350)]["label-conditional"]
    assert np.all(np.nanmean(lc["per_class"], axis=0) > 0.88)
    d = label_conditional_draw(n_train=300, n_cal=200, n_test=100, rng=7)
    assert d["sets"]["label-conditional"].sum() >= d["sets"]["marginal"].sum() - 20


def test_coverage_guarantee_check_against_exact_values():
    c = coverage_guarantee_check(n_sims=1500, n_cal=24, n_test=60, rng=8)
    assert abs(c["split"]["mean"] - c["split"]["exact"]) < 4 * c["split"]["se"]
    assert c["weighted"]["mean"] > 0.9 - 4 * c["weighted"]["se"]
    # the weighted coverage against the lemma's identity G(Q(G)), computed without thresholds or test sets
    w = c["weighted"]
    assert abs(w["mean"] - w["exact"]) < 4 * np.hypot(w["se"], w["exact_se"])
    assert 0.9 <= w["exact"] <= w["upper"]
    assert np.all(np.abs(c["label_conditional"]["mean"] - c["label_conditional"]["exact"]) < 4 * c["label_conditional"]["se"])


def test_label_conditional_with_absent_classes_follows_eq10():
    # regression (issue 20): at small calibration sizes a class is often absent (here P = 0.9^10 = 0.35 for class 1);
    # eq. (10) gives it threshold 1. The simulated per-class coverage must match the exact value, whose N_y = 0 term is 1.
    c = coverage_guarantee_check(n_sims=3000, n_cal=24, n_test=60, alpha=0.5, n_cal_lc=10, rng=10)
    lc = c["label_conditional"]
    exact = [sum(binom.pmf(m, 10, p) * math.ceil((m + 1) / 2) / (m + 1) for m in range(11)) for p in (0.1, 0.6, 0.3)]
    np.testing.assert_allclose(lc["exact"], exact, rtol=1e-12)
    assert np.all(np.abs(lc["mean"] - exact) < 4 * lc["se"])
    without_empty = (exact[0] - binom.pmf(0, 10, 0.1)) / (1 - binom.pmf(0, 10, 0.1))  # the old conditioning on N_y >= 1
    assert abs(lc["mean"][0] - without_empty) > 4 * lc["se"][0]
    # the Figure 6 study runs through draws without class-1 calibration points
    r = label_conditional_study(n_sims=40, n_train=300, n_test=100, settings=(("target", 8),), rng=11)
    res = r["results"][("target", 8)]["label-conditional"]
    assert res["coverage"].shape == (40,) and np.all(np.isfinite(res["coverage"]))
    assert np.sum(r["absent"][("target", 8)] > 0) >= 5  # P = 0.9^8 = 0.43 per simulation: several such draws


def test_bernoulli_jump_simulation_matches_binomial():
    r = bernoulli_quantile_jump(n_values=(10, 1000), n_reps=20_000, rng=9)
    se = np.sqrt(r["exact"] * (1 - r["exact"]) / 20_000)
    assert np.all(np.abs(r["simulated"] - r["exact"]) <= 4 * se + 1e-12)
    assert abs(r["exact"][1, 1] - 0.5) < 0.03  # offset 0 tends to 1/2


@pytest.mark.parametrize("call", [
    lambda: conformal_figure1(n_sims=0),
    lambda: conformal_figure1(alpha=1.5),
    lambda: conformal_figure1_digits(source_prior=(0.5, 0.5)),
    lambda: label_conditional_study(settings=(("elsewhere", 100),), n_sims=1),
    lambda: bernoulli_quantile_jump(offsets=(0.2,)),
])
def test_bad_arguments_raise(call):
    with pytest.raises(ValueError):
        call()
