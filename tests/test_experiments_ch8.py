"""Chapter 8 drivers against the paper's Table 1 and the defining equations."""

import numpy as np
import pytest

from companion import prior
from companion.experiments import (
    TASCHE_TABLE1_PAPER,
    remark1_quantification,
    roc_qmm_convergence,
    sampled_table1,
    tasche_figure1,
    tasche_figure2,
    tasche_table1,
)
from companion.scenarios import RatingScaleExample

ROWS = tasche_table1()
# The one entry that differs in the third decimal: the paper prints AUC 0.803 for
# logistic CSPD, but (8c) forces the source AUC (0.8017); see Chapter 8.
EXPLAINED = {("Logistic CSPD", "auc")}


def test_table1_has_the_paper_rows_in_order():
    assert [r.method for r in ROWS] == list(TASCHE_TABLE1_PAPER)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.method)
def test_table1_matches_paper_to_three_decimals(row):
    for col, paper in zip(("mean", "auc", "mean_sqrt"), TASCHE_TABLE1_PAPER[row.method]):
        ours = getattr(row, col)
        if (row.method, col) in EXPLAINED:
            assert round(ours, 3) == pytest.approx(paper - 0.001, abs=1e-12)
        else:
            assert round(ours, 3) == pytest.approx(paper, abs=1e-12), (row.method, col, ours, paper)


def test_table1_mean_sqrt_within_jensen_bounds():
    for row in ROWS[1:]:
        assert row.mean <= row.mean_sqrt <= np.sqrt(row.mean) + 1e-15  # (2) with C = sqrt, C(0) = 0, C(1) = 1


def test_figure_drivers():
    fig1 = tasche_figure1()
    assert fig1["source"].shape == fig1["target"].shape == (17,)
    fig2 = tasche_figure2()
    assert set(fig2["target"]) == set(TASCHE_TABLE1_PAPER) - {"Source"}
    for name, post in fig2["target"].items():
        assert np.all(np.diff(post) >= 0), name  # every method keeps the ranking of the grades
    for name in ("Capped scaling", "Label shift", "FJS"):  # odds scaled up: above the source everywhere
        assert np.all(fig2["target"][name] > fig2["source"]), name


def test_convergence_driver_shows_literal_failure_and_normalized_success():
    out = roc_qmm_convergence(cases=((0.8017, 0.05),), literal_priors=(0.01, 0.05))
    assert isinstance(out["literal"][0.01], int)
    assert "domain of Phi" in out["literal"][0.05]
    assert out["changes"][(0.8017, 0.05)][-1] <= 1e-12


def test_remark1_recovers_source_prior_when_target_equals_source():
    ex = RatingScaleExample()
    out = remark1_quantification(true_priors=(ex.source_prior,))
    for link in ("logistic", "normal"):
        assert out["estimates"][link][0] == pytest.approx(ex.source_prior, abs=1e-10)
    auc = prior.implied_auc(ex.source_posteriors, ex.source_masses)
    fit = prior.cspd_quantify(ex.source_posteriors, ex.target_masses, auc)
    assert out["vasicek_target"]["logistic"] == pytest.approx(fit.params["prior_estimate"], abs=1e-14)


def test_bad_example():
    with pytest.raises(ValueError, match="example"):
        tasche_table1(example="not an example")


def test_sampled_target_converges_to_population_table():
    out = sampled_table1(n_values=(20_000,), n_reps=4, rng=1)
    assert out["mean_sqrt"].shape == (1, 4, 8)
    np.testing.assert_allclose(out["mean_sqrt"][0].mean(axis=0), out["exact"], atol=5e-3)


def test_sample_target_has_vasicek_mean():
    grades = RatingScaleExample().sample_target(200_000, 3)
    # mean 4.8; the sd of the mean is below 0.01 (Var S < 16 * 0.3 * 0.7 + 16^2 * Var P)
    assert abs(grades.mean() - 4.8) < 0.04
    with pytest.raises(ValueError, match="n must be at least 1"):
        RatingScaleExample().sample_target(0, 3)
