"""companion.label_shift_recalibration.experiments: Table 1 against the paper, structural identities, the bound checks.

Book: chap-label-shift-recalibration (Table 1, fig-ls-figure4, fig-ls-remark4, fig-ls-grid).
"""

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit, logit
from scipy.stats import norm

from companion.label_shift_recalibration import (
    LABEL_SHIFT_METHODS,
    LABEL_SHIFT_TERMS,
    SUN_TABLE1_PAPER,
    label_shift_curves,
    label_shift_grid,
    label_shift_risks,
    prior_correction,
    ratio_event_frequency,
    sun_table1,
    target_sample_complexity,
    theorem2_check,
)
from companion.scenarios import GaussianMixture

SRC, TGT, LS, COMP = (LABEL_SHIFT_METHODS.index(m) for m in ("source", "target", "label_shift", "composite"))
CAL, SHA, RISK, MSE = (LABEL_SHIFT_TERMS.index(t) for t in ("cal", "sha", "risk", "mse"))


@pytest.fixture(scope="module")
def run9():
    return label_shift_risks(n_reps=400, rng=11, n_bins_source=9)


def test_structure_of_the_risks(run9):
    v = run9["values"]
    assert v.shape == (400, 4, 4) and run9["n_bins"] == (9, 4)
    # g_hat is injective, so the composite keeps exactly the source bins' information.
    np.testing.assert_allclose(v[:, COMP, SHA], v[:, SRC, SHA], rtol=1e-9, atol=1e-15)
    # MSE = risk + E_Q[h*(1 - h*)], the irreducible noise of the target (computed independently).
    target = GaussianMixture(0.1)
    noise = target.expect(lambda x: target.posterior_x(x) * (1 - target.posterior_x(x)))
    np.testing.assert_allclose(v[..., MSE] - v[..., RISK], noise, atol=1e-10)


def test_table1_matches_the_paper(run9):
    # The paper's means are over 10 realizations: standard error sd / sqrt(10); ours over 400.
    v = run9["values"]
    for i, method in enumerate(LABEL_SHIFT_METHODS):
        for j, term in enumerate(LABEL_SHIFT_TERMS):
            paper_mean, paper_sd = SUN_TABLE1_PAPER[method][term]
            ours = v[:, i, j]
            tol = 3.5 * np.sqrt(paper_sd**2 / 10 + ours.var(ddof=1) / ours.size) + 1e-12
            assert abs(ours.mean() - paper_mean) <= tol, (method, term, ours.mean(), paper_mean)


def test_same_seed_same_table():
    a = label_shift_risks(n_reps=3, rng=5)["values"]
    b = label_shift_risks(n_reps=3, rng=5)["values"]
    np.testing.assert_array_equal(a, b)


def test_label_shift_row_is_the_exact_risk_of_g_hat():
    # Independent adaptive quadrature in x of E_Q[(g_hat(sigmoid(X)) - h*_Q)^2], g_hat in logit form.
    run = label_shift_risks(n_reps=2, rng=3)
    prior, mu = 0.1, 2.0
    dens = lambda x: prior * norm.pdf(x, mu) + (1 - prior) * norm.pdf(x, -mu)  # noqa: E731
    post = lambda x: prior * norm.pdf(x, mu) / dens(x)  # noqa: E731
    for r, (p_hat, q_hat) in enumerate(run["priors_hat"]):
        g_hat = lambda x: expit(x + logit(q_hat) - logit(p_hat))  # noqa: E731
        risk = integrate.quad(lambda x: dens(x) * (g_hat(x) - post(x)) ** 2, -40, 40, points=[-mu, 0.0, mu],
                              epsabs=1e-14, epsrel=1e-12, limit=200)[0]
        assert run["values"][r, LS, RISK] == pytest.approx(risk, abs=1e-9)


def test_oracle_composite_curve_matches_monte_carlo():
    res = target_sample_complexity(n_target_values=(100, 1000), n_source=2000, n_reps=2, rng=0)
    rng = np.random.default_rng(2)
    source, target = GaussianMixture(0.5), GaussianMixture(0.1)
    for n, exact in zip((100, 1000), res["mean_risk"]["composite_oracle"]):
        k = rng.binomial(n, 0.1, 4000)
        q_hat = (k[(k > 0) & (k < n)] / n)[:, None]
        mc = target.population_risks_of_map(lambda z: prior_correction(source.h_star(z), 0.5, q_hat))["risk"]
        assert abs(mc.mean() - exact) <= 4 * mc.std() / np.sqrt(mc.size)
    assert res["mean_risk"]["target"].shape == (2,)


def test_remark4_slopes():
    res = target_sample_complexity(n_target_values=(100, 1000, 10_000), n_source=1000, n_reps=3, rng=1)
    assert res["slopes"]["composite_oracle"] == pytest.approx(-1.0, abs=0.1)
    # The fitted power law reproduces the (nearly exact power-law) oracle risks within a few per cent.
    n = res["n_target"]
    fitted = np.exp(res["intercepts"]["composite_oracle"] + res["slopes"]["composite_oracle"] * np.log(n))
    np.testing.assert_allclose(fitted, res["mean_risk"]["composite_oracle"], rtol=0.05)


def test_theorem2_bounds_hold():
    res = theorem2_check(n_source=5000, n_target=2000, n_reps=30, rng=4)
    assert np.all(res["risk"] <= res["deterministic_bound"])
    assert np.mean(res["risk"] <= res["high_probability_bound"]) >= 0.9
    # The estimated priors are the class frequencies of the samples: binomial means and spreads.
    p_hat, q_hat = res["priors_hat"].T
    for est, prior, n in ((p_hat, 0.5, 5000), (q_hat, 0.3, 2000)):
        assert abs(est.mean() - prior) <= 4 * np.sqrt(prior * (1 - prior) / n / est.size)
        assert 0.5 < est.std(ddof=1) / np.sqrt(prior * (1 - prior) / n) < 1.6


def test_corollary9_frequency():
    res = ratio_event_frequency(beta=1.4, delta=0.3, n_reps=20_000, rng=3)
    assert res["frequency"] >= res["promised"]


def test_curves_and_grid_shapes():
    c = label_shift_curves(n_grid=101, rng=0)
    p_hat, q_hat = c["priors_hat"]
    inner = slice(1, -1)  # logit form, away from the end points 0 and 1
    shift = logit(q_hat) - logit(p_hat)
    np.testing.assert_allclose(c["curves"]["label_shift"][inner], expit(logit(c["z"][inner]) + shift), rtol=1e-12)
    src = c["curves"]["source"]
    inside = (src > 0) & (src < 1)
    np.testing.assert_allclose(c["curves"]["composite"][inside], expit(logit(src[inside]) + shift), rtol=1e-12)
    # h*_Q of the Gaussian family: sigmoid(2 mu logit z + logit q) with mu = 2.
    np.testing.assert_allclose(c["h_star"][inner], expit(4 * logit(c["z"][inner]) + logit(0.1)), rtol=1e-12)
    g = label_shift_grid(target_priors=(0.1, 0.5), n_source_values=(1000,), n_target_values=(100, 1000), n_reps=2, rng=0)
    assert g["values"].shape == (2, 1, 2, 4, 4) and g["n_redrawn"].shape == (2, 1, 2)
    assert g["sd"].shape == g["values"].shape and g["n_reps"] == 2


def test_grid_cell_is_the_mean_and_sd_of_its_realizations():
    g = label_shift_grid(target_priors=(0.2,), n_source_values=(2000,), n_target_values=(300,), n_reps=5, rng=9)
    run = label_shift_risks(2000, 300, 0.5, 0.2, 5, rng=9)["values"]
    np.testing.assert_allclose(g["values"][0, 0, 0], run.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(g["sd"][0, 0, 0], run.std(axis=0, ddof=1), rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: label_shift_risks(n_reps=0), "n_reps"),
        (lambda: label_shift_risks(n_source=1), "n_source"),
        (lambda: label_shift_risks(target_prior=1.0), "prior"),
        (lambda: label_shift_risks(n_target=5, target_prior=1e-6, n_reps=1), "too small"),
        (lambda: target_sample_complexity(n_target_values=(1,)), "n_target_values"),
        (lambda: label_shift_curves(n_grid=1), "n_grid"),
        (lambda: theorem2_check(n_target=100), "n_target"),
        (lambda: ratio_event_frequency(beta=3.0), "beta"),
        (lambda: label_shift_grid(n_reps=1), "n_reps"),
        (lambda: sun_table1(n_reps_values=(1,)), "n_reps_values"),
        # each driver checks its own arguments under their public names before delegating
        (lambda: label_shift_curves(n_source=0), "n_source"),
        (lambda: label_shift_curves(target_prior="0.1"), "target_prior"),
        (lambda: label_shift_risks(source_prior=1.5), "source_prior"),
        (lambda: label_shift_risks(n_bins_target=2.5), "n_bins_target"),
        (lambda: label_shift_risks(n_bins_source=10**400), "n_bins_source"),
        (lambda: label_shift_grid(target_priors=[0.0]), "target_priors"),
        (lambda: label_shift_grid(n_source_values=[]), "n_source_values"),
        (lambda: label_shift_grid(n_target_values=["100"]), "n_target_values"),
        (lambda: sun_table1(n_bins_source_values=None), "n_bins_source_values"),
        (lambda: sun_table1(n_bins_source_values=[2.5]), "n_bins_source_values"),
        (lambda: theorem2_check(n_source=True), "n_source"),
        (lambda: theorem2_check(delta=1.0), "delta"),
        (lambda: ratio_event_frequency(source_prior=0.0), "source_prior"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_remark4_bootstrap_interval():
    res = target_sample_complexity(n_target_values=(100, 1000, 10_000), n_source=1000, n_reps=6, rng=2, n_boot=400)
    lo, hi = res["exponent_interval"]["target"]
    point = 1 / res["slopes"]["target"]
    assert lo < point < hi
    # The per-realization risks are what the means average, and they scatter (the interval has width).
    np.testing.assert_allclose(res["risk_reps"]["target"].mean(axis=0), res["mean_risk"]["target"], rtol=1e-12)
    assert hi - lo > 0.0
    # A narrower level gives a nested interval.
    narrow = target_sample_complexity(n_target_values=(100, 1000, 10_000), n_source=1000, n_reps=6, rng=2,
                                      n_boot=400, level=0.5)["exponent_interval"]["target"]
    assert lo <= narrow[0] <= narrow[1] <= hi


@pytest.mark.parametrize("kwargs", [{"level": 1.0}, {"level": 0.0}, {"n_reps": 1}, {"n_boot": 0}])
def test_remark4_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError, match="level|n_reps|n_boot"):
        target_sample_complexity(n_target_values=(100, 1000), n_source=500, **{"n_reps": 2, **kwargs})


def test_sizes_are_bounded_before_allocation():
    # Regression (issue 20, item 18): sizes like 10**15 reached numpy's MemoryError (or ran for ever).

    huge = 10**15
    for call, name in [
        (lambda: label_shift_risks(n_source=huge, n_reps=1), "n_source"),
        (lambda: label_shift_risks(n_target=huge, n_reps=1), "n_target"),
        (lambda: label_shift_risks(n_reps=huge), "n_reps"),
        (lambda: sun_table1((huge,), (9,)), "n_reps_values"),
        (lambda: label_shift_curves(n_grid=huge), "n_grid"),
        (lambda: target_sample_complexity((100, huge), n_reps=2, n_source=1000, n_boot=2), "n_target_values"),
        (lambda: target_sample_complexity((100, 200), n_reps=2, n_source=1000, n_boot=huge), "n_boot"),
        (lambda: label_shift_grid((0.3,), (huge,), (100,), n_reps=2), "n_source_values"),
        (lambda: label_shift_grid((0.3,), (1000,), (100,), n_reps=huge), "n_reps"),
        (lambda: theorem2_check(n_reps=huge), "n_reps"),
        (lambda: ratio_event_frequency(n_reps=huge), "n_reps"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()
