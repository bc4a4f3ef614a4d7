"""companion.label_shift_weights: Bayes correction, BBSE, MLLS (with calibration), RLLS and the Gaussian scenarios.

Every check compares with an independent computation: a hand-built
confusion matrix and ``np.linalg.solve``, a brute-force maximisation of the
likelihood, a direct scipy fit of the calibration, densities from
``scipy.stats``, Monte Carlo, or the estimators' consistency at large n.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import log_softmax
from scipy.stats import multivariate_normal

from companion._checks import ConvergenceError
from companion.label_shift_weights import (
    bbse,
    encode_labels,
    fit_scaling,
    mlls,
    mlls_log_likelihood,
    posterior_correction,
    rlls,
    scale_probabilities,
)
from companion.scenarios import GaussianLabelShift, three_class_gaussian, two_class_gaussian

SCENARIOS = {"two_class": two_class_gaussian(), "three_class": three_class_gaussian()}


def _samples(scenario, n_source, n_target, seed):
    rng = np.random.default_rng(seed)
    xs, ys = scenario.sample(n_source, rng, "source")
    xt, yt = scenario.sample(n_target, rng, "target")
    return scenario.posterior(xs), ys, scenario.posterior(xt), yt


# ---------------------------------------------------------------------------
# Scenarios: exact posteriors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("domain", ["source", "target"])
def test_posterior_matches_bayes_rule_with_scipy_densities(name, domain):
    sc = SCENARIOS[name]
    x = np.random.default_rng(1).normal(scale=3.0, size=(200, 2))
    dens = np.column_stack([multivariate_normal(m, np.asarray(sc.covariance)).pdf(x) for m in sc.means])
    joint = dens * np.asarray(sc.prior(domain))
    np.testing.assert_allclose(sc.posterior(x, domain), joint / joint.sum(axis=1, keepdims=True), rtol=1e-10, atol=1e-14)


def test_two_class_posterior_is_formula_15_of_the_paper():
    sc = two_class_gaussian()
    x = np.random.default_rng(2).normal(size=(100, 2))
    cov = np.array([[0.75, 0.25], [0.25, 0.75]])
    phi0 = multivariate_normal([-1, 0], cov).pdf(x)
    phi1 = multivariate_normal([1, 0], cov).pdf(x)
    np.testing.assert_allclose(sc.posterior(x)[:, 1], 0.5 * phi1 / (0.5 * phi0 + 0.5 * phi1), rtol=1e-12)
    np.testing.assert_allclose(sc.weights, [0.4, 1.6])


@pytest.mark.parametrize("name", SCENARIOS)
def test_sampling_matches_priors_and_class_means(name):
    sc = SCENARIOS[name]
    x, y = sc.sample(200_000, 3, "target")
    freq = np.bincount(y, minlength=sc.n_classes) / y.size
    np.testing.assert_allclose(freq, sc.target_prior, atol=4 * np.sqrt(0.25 / y.size))
    for c in range(sc.n_classes):
        np.testing.assert_allclose(x[y == c].mean(axis=0), sc.means[c], atol=0.05)
        np.testing.assert_allclose(np.cov(x[y == c].T), sc.covariance, atol=0.1)


@pytest.mark.parametrize("name", SCENARIOS)
def test_exact_posterior_is_calibrated_by_monte_carlo(name):
    # E[1{Y = y} | eta(X) in a bin] must equal the mean of eta_y over the bin.
    sc = SCENARIOS[name]
    x, y = sc.sample(400_000, 4, "source")
    eta = sc.posterior(x)
    for c in range(sc.n_classes):
        bins = np.minimum((eta[:, c] * 10).astype(int), 9)
        for b in np.unique(bins):
            sel = bins == b
            if sel.sum() < 2000:
                continue
            freq = np.mean(y[sel] == c)
            assert abs(freq - eta[sel, c].mean()) < 5 * np.sqrt(0.25 / sel.sum())


@pytest.mark.parametrize("name", SCENARIOS)
def test_bayes_correction_of_source_posterior_is_target_posterior(name):
    sc = SCENARIOS[name]
    x = np.random.default_rng(5).normal(scale=3.0, size=(500, 2))
    np.testing.assert_allclose(posterior_correction(sc.posterior(x), sc.weights), sc.posterior(x, "target"), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("kind", ["soft", "hard"])
def test_exact_confusion_matrix_against_monte_carlo(name, kind):
    sc = SCENARIOS[name]
    exact = sc.confusion_matrix(kind)
    np.testing.assert_allclose(exact.sum(axis=0), sc.source_prior, atol=1e-10)  # columns sum to p
    x, y = sc.sample(1_000_000, 6, "source")
    eta = sc.posterior(x)
    phi = eta if kind == "soft" else np.eye(sc.n_classes)[eta.argmax(axis=1)]
    mc = phi.T @ np.eye(sc.n_classes)[y] / y.size
    np.testing.assert_allclose(mc, exact, atol=5 * np.sqrt(0.25 / y.size))


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("kind", ["soft", "hard"])
def test_target_feature_mean_is_confusion_times_weights_by_monte_carlo(name, kind):
    # nu = C w* (Lipton et al.; book prop-lsw-moment), with nu estimated from target draws.
    sc = SCENARIOS[name]
    x, _ = sc.sample(1_000_000, 7, "target")
    eta = sc.posterior(x)
    phi = eta if kind == "soft" else np.eye(sc.n_classes)[eta.argmax(axis=1)]
    np.testing.assert_allclose(phi.mean(axis=0), sc.confusion_matrix(kind) @ sc.weights, atol=5 * np.sqrt(0.25 / 1e6))


def test_projection_probabilities_against_monte_carlo():
    sc = two_class_gaussian()
    x, y = sc.sample(500_000, 8, "source")
    a, c = np.array([1.0, -0.5]), 0.3
    edges = np.array([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf])
    exact = sc.projection_probabilities(a, c, edges)
    s = x @ a + c
    for cls in range(2):
        counts = np.histogram(s[y == cls], bins=edges)[0] / np.sum(y == cls)
        np.testing.assert_allclose(counts, exact[cls], atol=0.004)


def test_log_ratio_map_is_the_log_posterior_contrast():
    sc = three_class_gaussian()
    contrasts = np.array([[-1.0, 1.0, 0.0], [-0.5, -0.5, 1.0]])
    G, g = sc.log_ratio_map(contrasts)
    x = np.random.default_rng(9).normal(size=(50, 2))
    np.testing.assert_allclose(x @ G.T + g, np.log(sc.posterior(x)) @ contrasts.T, rtol=1e-10, atol=1e-10)


def test_scenario_rejects_bad_parameters():
    with pytest.raises(ValueError, match="covariance"):
        GaussianLabelShift(((0, 0), (1, 1)), ((1, 2), (2, 1)), (0.5, 0.5), (0.5, 0.5))
    with pytest.raises(ValueError, match="target_prior"):
        GaussianLabelShift(((0, 0), (1, 1)), ((1, 0), (0, 1)), (0.5, 0.5), (0.6, 0.6))
    with pytest.raises(ValueError, match="domain"):
        two_class_gaussian().prior("test")


# ---------------------------------------------------------------------------
# Bayes correction
# ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5))
def test_correction_is_bayes_rule_on_random_discrete_laws(seed, k):
    # Discrete X with 6 values: posteriors under two priors by direct Bayes computations.
    rng = np.random.default_rng(seed)
    cond = rng.dirichlet(np.ones(6), size=k)  # P[X = x | Y = y]
    p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    post_p = (p[:, None] * cond).T / (p @ cond)[:, None]
    post_q = (q[:, None] * cond).T / (q @ cond)[:, None]
    np.testing.assert_allclose(posterior_correction(post_p, q / p), post_q, rtol=1e-9, atol=1e-12)


def test_correction_rejects_bad_input():
    with pytest.raises(ValueError, match="probs"):
        posterior_correction([[0.5, 0.6]], [1, 1])
    with pytest.raises(ValueError, match="weights"):
        posterior_correction([[0.5, 0.5]], [1, -1])
    with pytest.raises(ValueError, match="weights"):
        posterior_correction([[0.5, 0.5]], [1, 1, 1])
    with pytest.raises(ValueError, match="0/0"):
        posterior_correction([[1.0, 0.0]], [0.0, 1.0])


def test_correction_asks_for_rows_when_given_one_column():
    # issue 39: one column of predict_proba (a 1-D array of n probabilities) was read as one row of n classes
    proba = np.random.default_rng(3).uniform(size=(650, 2))
    proba /= proba.sum(axis=1, keepdims=True)
    for bad in (proba[:, 1], proba[:, :1], proba[None]):
        with pytest.raises(ValueError, match=r"probs must have shape \(n, k\).*k = 2"):
            posterior_correction(bad, [0.4, 1.6])
    # a 1-D array of length k is one row, the same as the 2-D call
    np.testing.assert_array_equal(posterior_correction(proba[0], [0.4, 1.6]), posterior_correction(proba[:1], [0.4, 1.6])[0])


def test_correction_refuses_weights_above_its_domain():
    with pytest.raises(ValueError, match=r"weights must be .* \[0, 1e\+300\]"):
        posterior_correction([[0.5, 0.5]], [1.0, 1e301])
    # inside the domain only the ratios matter, even for weights of very different sizes
    np.testing.assert_allclose(posterior_correction([[0.5, 0.5]], [1e-300, 1e300])[0], [0.0, 1.0])
    np.testing.assert_allclose(posterior_correction([[0.3, 0.7]], [1e300, 5e299]), [[0.6 / 1.3, 0.7 / 1.3]], rtol=1e-15)


def test_correction_does_not_depend_on_the_scale_of_the_weights():
    # equal tiny weights: the exact answer is the row itself (the products w * eta were subnormal before
    # the weights were divided by the largest one: 1e-20 came back 1.1e-5 off)
    row = np.array([1e-20, 1 - 1e-20])
    np.testing.assert_array_equal(posterior_correction(row, [1e-300, 1e-300]), row)
    # a row with mass 1e-30 on the one class of positive weight: exactly (0, 1), not a refusal as 0/0
    np.testing.assert_array_equal(posterior_correction([1 - 1e-30, 1e-30], [0.0, 1e-300]), [0.0, 1.0])
    # scaling the weights by any factor inside the domain changes nothing (exact Bayes rule in fractions)
    from fractions import Fraction
    eta, w = [0.2, 0.3, 0.5], [1e-12, 3e-12, 5e-13]
    exact = [Fraction(a) * Fraction(b) for a, b in zip(eta, w)]
    expected = [float(e / sum(exact)) for e in exact]
    for scale in (1e-290, 1.0, 1e280):
        np.testing.assert_allclose(posterior_correction(eta, np.array(w) * scale), expected, rtol=4 * 2**-52)


# ---------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------


def test_labels_of_any_type_are_mapped_in_the_order_of_classes():
    codes, classes = encode_labels(np.array(["b", "a", "c", "a"]), "y", 3, classes=["c", "a", "b"])
    np.testing.assert_array_equal(codes, [2, 1, 0, 1])
    np.testing.assert_array_equal(classes, ["c", "a", "b"])
    codes, classes = encode_labels(np.array(["x", "y", "x"]), "y", 2)
    np.testing.assert_array_equal(classes, ["x", "y"])
    with pytest.raises(ValueError, match="'z'"):
        encode_labels(np.array(["x", "z"]), "y", 2, classes=["x", "y"])
    with pytest.raises(ValueError, match="classes="):
        encode_labels(np.array(["x"]), "y", 2)


def test_string_labels_give_the_same_weights_as_integer_labels():
    ps, ys, pt, _ = _samples(three_class_gaussian(), 3000, 3000, 10)
    names = np.array(["setosa", "versicolor", "virginica"])
    a = bbse(ps, ys, pt, soft=True)
    b = bbse(ps, names[ys], pt, soft=True, classes=names)
    np.testing.assert_allclose(a.weights, b.weights)
    np.testing.assert_array_equal(b.classes, names)
    # Columns in another order: the weights follow the classes.
    perm = [2, 0, 1]
    c = bbse(ps[:, perm], names[ys], pt[:, perm], soft=True, classes=names[perm])
    np.testing.assert_allclose(c.weights, a.weights[perm])


# ---------------------------------------------------------------------------
# BBSE
# ---------------------------------------------------------------------------


def test_bbse_hard_against_hand_built_confusion_matrix():
    rng = np.random.default_rng(11)
    k, n = 3, 500
    ps = rng.dirichlet(np.ones(k), size=n)
    ys = rng.integers(0, k, size=n)
    pt = rng.dirichlet(np.ones(k) * 0.7, size=300)
    # Hand-built joint confusion: count (prediction, label) pairs with a loop over the sample.
    counts = np.zeros((k, k))
    for pred, lab in zip(ps.argmax(axis=1), ys):
        counts[pred, lab] += 1
    nu = np.bincount(pt.argmax(axis=1), minlength=k) / len(pt)
    expected = np.linalg.solve(counts / n, nu)
    res = bbse(ps, ys, pt, negative="keep")
    np.testing.assert_allclose(res.confusion, counts / n)
    np.testing.assert_allclose(res.raw_weights, expected, rtol=1e-12)
    np.testing.assert_allclose(res.source_prior, np.bincount(ys) / n)
    assert res.condition_number == pytest.approx(np.linalg.cond(counts / n))


def test_bbse_soft_against_hand_built_confusion_matrix():
    rng = np.random.default_rng(12)
    k, n = 4, 400
    ps = rng.dirichlet(np.ones(k), size=n)
    ys = np.concatenate([np.arange(k), rng.integers(0, k, size=n - k)])
    pt = rng.dirichlet(np.ones(k), size=200)
    cm = np.zeros((k, k))
    for row, lab in zip(ps, ys):
        cm[:, lab] += row
    expected = np.linalg.solve(cm / n, pt.mean(axis=0))
    np.testing.assert_allclose(bbse(ps, ys, pt, soft=True, negative="keep").raw_weights, expected, rtol=1e-10)


@pytest.mark.parametrize("soft", [False, True])
def test_bbse_target_prior_sums_to_one(soft):
    ps, ys, pt, _ = _samples(three_class_gaussian(), 2000, 500, 13)
    res = bbse(ps, ys, pt, soft=soft, negative="keep")
    assert res.target_prior.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("soft", [False, True])
def test_bbse_is_consistent_at_rate_one_over_root_n(name, soft):
    sc = SCENARIOS[name]
    errors = {}
    for n in (1_000, 30_000):
        errs = [np.linalg.norm(bbse(*_samples(sc, n, n, s)[:3], soft=soft, negative="keep").weights - sc.weights)
                for s in range(30)]
        errors[n] = np.median(errs)
    ratio = errors[1_000] / errors[30_000]  # rate n^(-1/2): ratio sqrt(30) = 5.5 (1 if biased)
    assert 2.5 < ratio < 12
    assert errors[30_000] < 0.12


def test_bbse_negative_weight_policies():
    # A target sample that looks almost purely like class 0 drives the class-1 weight negative.
    rng = np.random.default_rng(14)
    ps = np.vstack([np.tile([0.8, 0.2], (50, 1)), np.tile([0.3, 0.7], (50, 1))])
    ys = np.r_[np.zeros(40, int), np.ones(10, int), np.zeros(20, int), np.ones(30, int)]
    pt = np.tile([0.8, 0.2], (100, 1))
    with pytest.raises(ValueError, match="negative"):
        bbse(ps, ys, pt)
    keep = bbse(ps, ys, pt, negative="keep")
    assert keep.weights[1] < 0 and keep.weights[1] == keep.raw_weights[1]
    clip = bbse(ps, ys, pt, negative="clip")
    assert clip.weights[1] == 0 and clip.source_prior @ clip.weights == pytest.approx(1.0)
    assert rng is not None


def test_bbse_identifiability_and_absent_class_errors():
    ps = np.array([[0.9, 0.1, 0.0], [0.8, 0.2, 0.0], [0.7, 0.3, 0.0], [0.6, 0.4, 0.0]])
    ys = np.array([0, 1, 2, 0])
    pt = ps.copy()
    with pytest.raises(ValueError, match="condition number"):
        bbse(ps, ys, pt)  # class 1 and 2 are never predicted: singular confusion matrix
    with pytest.raises(ValueError, match="class 2 is absent"):
        bbse(np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1]]), [0, 1], pt)
    with pytest.raises(ValueError, match="class 'c' is absent"):
        bbse(np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1]]), ["a", "b"], pt, classes=["a", "b", "c"])


def test_bbse_bad_input_is_named():
    good = np.array([[0.6, 0.4], [0.3, 0.7]])
    with pytest.raises(ValueError, match="probs_source"):
        bbse([[0.6, 0.5], [0.3, 0.7]], [0, 1], good)
    with pytest.raises(ValueError, match="probs_target"):
        bbse(good, [0, 1], [[1.2, -0.2]])
    with pytest.raises(ValueError, match="same length"):
        bbse(good, [0, 1, 1], good)
    with pytest.raises(ValueError, match="same number of columns"):
        bbse(good, [0, 1], [[0.2, 0.3, 0.5]])
    with pytest.raises(ValueError, match="negative"):
        bbse(good, [0, 1], good, negative="ignore")


# ---------------------------------------------------------------------------
# MLLS
# ---------------------------------------------------------------------------


def _brute_force_mle(eta, p):
    """Maximise the likelihood over the simplex with a softmax parametrisation (Nelder-Mead, then BFGS)."""
    k = eta.shape[1]

    def neg(z):
        q = np.exp(log_softmax(np.r_[0.0, z]))
        return -np.mean(np.log(eta @ (q / p)))

    z = minimize(neg, np.zeros(k - 1), method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000}).x
    z = minimize(neg, z, method="BFGS", options={"gtol": 1e-12}).x
    return np.exp(log_softmax(np.r_[0.0, z]))


@pytest.mark.parametrize("name", SCENARIOS)
def test_em_matches_brute_force_likelihood_maximisation(name):
    ps, ys, pt, _ = _samples(SCENARIOS[name], 3000, 2000, 15)
    res = mlls(ps, ys, pt, tol=1e-13)
    brute = _brute_force_mle(pt, res.source_prior)
    np.testing.assert_allclose(res.target_prior, brute, atol=1e-6)
    assert res.log_likelihood == pytest.approx(mlls_log_likelihood(brute, pt, res.source_prior), abs=1e-10)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("calibration", [None, "bcts"])
def test_em_likelihood_is_monotone(name, calibration):
    ps, ys, pt, _ = _samples(SCENARIOS[name], 2000, 2000, 16)
    trace = mlls(ps, ys, pt, calibration=calibration, tol=1e-12).log_likelihood_trace
    assert trace.size > 3
    assert np.all(np.diff(trace) >= -1e-13 * np.abs(trace[:-1]))
    assert trace[-1] > trace[0]


def test_em_trace_agrees_with_public_log_likelihood():
    ps, ys, pt, _ = _samples(two_class_gaussian(), 1000, 1000, 17)
    res = mlls(ps, ys, pt)
    assert res.log_likelihood == pytest.approx(mlls_log_likelihood(res.target_prior, pt, res.source_prior), abs=1e-12)
    assert res.log_likelihood_trace[0] == pytest.approx(mlls_log_likelihood(res.source_prior, pt, res.source_prior), abs=1e-12)


def test_em_without_shift_stays_near_source_prior_and_target_prior_sums_to_one():
    sc = two_class_gaussian()
    rng = np.random.default_rng(18)
    xs, ys = sc.sample(50_000, rng, "source")
    xt, _ = sc.sample(50_000, rng, "source")
    res = mlls(sc.posterior(xs), ys, sc.posterior(xt))
    assert res.target_prior.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(res.weights, 1.0, atol=0.05)


@pytest.mark.parametrize("name", SCENARIOS)
def test_mlls_is_consistent_at_rate_one_over_root_n(name):
    sc = SCENARIOS[name]
    errors = {}
    for n in (1_000, 30_000):
        errs = [np.linalg.norm(mlls(*_samples(sc, n, n, 100 + s)[:3]).weights - sc.weights) for s in range(30)]
        errors[n] = np.median(errs)
    assert 2.5 < errors[1_000] / errors[30_000] < 12


def test_em_non_convergence_raises_named_error():
    ps, ys, pt, _ = _samples(three_class_gaussian(), 500, 500, 19)
    with pytest.raises(ConvergenceError, match="max_iter"):
        mlls(ps, ys, pt, max_iter=2)
    assert issubclass(ConvergenceError, ValueError)


def test_mlls_on_a_confident_classifier_is_the_fixed_point_in_exact_arithmetic():
    # posteriors down to about 1e-40 (a classifier at temperature 1/12): the EM limit is the fixed point
    # q = mean_t r_t(q) of the box, checked in 50-digit arithmetic, and float32 rows give the weights to float32 precision
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    ps, ys, pt, _ = _samples(three_class_gaussian(), 300, 200, 23)
    ps, pt = scale_probabilities(ps, 12.0), scale_probabilities(pt, 12.0)
    assert pt.min() < 1e-12
    res = mlls(ps, ys, pt, tol=1e-14)
    p = [mpmath.mpf(float(v)) for v in res.source_prior]
    q = [mpmath.mpf(float(v)) for v in res.target_prior]
    r_mean = [mpmath.mpf(0)] * 3
    for row in pt:
        u = [q[y] / p[y] * mpmath.mpf(float(row[y])) for y in range(3)]
        r_mean = [r_mean[y] + u[y] / sum(u) / len(pt) for y in range(3)]
    assert max(abs(float(r_mean[y] - q[y])) for y in range(3)) < 1e-12
    single = mlls(ps.astype(np.float32), ys, pt.astype(np.float32), tol=1e-14)
    np.testing.assert_allclose(single.weights, res.weights, rtol=1e-5)  # float32 rounding of the rows, amplified a little


def test_mlls_bad_input_is_named():
    good = np.array([[0.6, 0.4], [0.3, 0.7]])
    with pytest.raises(ValueError, match="calibration"):
        mlls(good, [0, 1], good, calibration="platt")
    with pytest.raises(ValueError, match="tol"):
        mlls(good, [0, 1], good, tol=0)
    with pytest.raises(ValueError, match="class 1 is absent"):
        mlls(good, [0, 0], good)
    for bad in ([0.5, 0.6], [1.0, 0.0], [0.2, 0.3, 0.5]):
        with pytest.raises(ValueError, match="source_prior"):
            mlls(good, [0, 1], good, source_prior=bad)


def test_mlls_with_a_given_source_prior_equals_mlls_whose_labels_have_that_prior():
    """source_prior=p replaces the label frequencies: the same EM as with labels whose frequencies are exactly p."""
    eta_s, _, eta_t, _ = _samples(SCENARIOS["three_class"], 2000, 3000, 31)
    labels = np.repeat([0, 1, 2], [500, 200, 1300])  # frequencies exactly (0.25, 0.1, 0.65)
    by_labels = mlls(eta_s, labels, eta_t)
    given = mlls(eta_s, np.arange(2000) % 3, eta_t, source_prior=[0.25, 0.1, 0.65])
    assert np.array_equal(by_labels.source_prior, given.source_prior)
    assert np.allclose(given.weights, by_labels.weights, rtol=1e-9) and np.allclose(given.weights * given.source_prior,
                                                                                  given.target_prior, rtol=1e-12)


# ---------------------------------------------------------------------------
# Calibration (temperature, bias-corrected temperature, vector scaling)
# ---------------------------------------------------------------------------


def _direct_nll_fit(probs, y, kind):
    """Independent fit: NLL written with scipy's log_softmax, minimised by Nelder-Mead then BFGS (numerical gradient)."""
    k = probs.shape[1]
    logp = np.log(probs)

    def unpack(t):
        if kind == "ts":
            return t[0], np.zeros(k)
        if kind == "bcts":
            return t[0], np.r_[0.0, t[1:]]
        return t[:k], np.r_[0.0, t[k:]]

    def nll(t):
        a, b = unpack(t)
        return -np.mean(log_softmax(a * logp + b, axis=1)[np.arange(len(y)), y])

    n_par = {"ts": 1, "bcts": k, "vs": 2 * k - 1}[kind]
    t = minimize(nll, np.r_[np.ones(1 if kind != "vs" else k), np.zeros(n_par - (1 if kind != "vs" else k))],
                 method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-13, "maxiter": 40000}).x
    t = minimize(nll, t, method="BFGS", options={"gtol": 1e-10}).x
    return unpack(t)


@pytest.mark.parametrize("kind", ["ts", "bcts", "vs"])
def test_scaling_fit_matches_direct_scipy_fit(kind):
    sc = three_class_gaussian()
    x, y = sc.sample(3000, 20, "source")
    distorted = scale_probabilities(sc.posterior(x), [1.8, 2.2, 2.0] if kind == "vs" else 2.0, [0.0, 0.4, -0.3])
    cal = fit_scaling(distorted, y, kind)
    a, b = _direct_nll_fit(distorted, y, kind)
    np.testing.assert_allclose(cal.slope_, np.atleast_1d(a), atol=1e-5)
    np.testing.assert_allclose(cal.bias_, b, atol=1e-5)


def test_bcts_recovers_a_distortion_inside_its_family():
    # The exact posterior distorted by temperature 1/2 and a bias: BCTS must undo it (slope 1/2, bias -b).
    sc = three_class_gaussian()
    x, y = sc.sample(200_000, 21, "source")
    bias = np.array([0.0, 0.5, -0.4])
    cal = fit_scaling(scale_probabilities(sc.posterior(x), 2.0, bias), y, "bcts")
    np.testing.assert_allclose(cal.slope_, [0.5], atol=0.01)
    np.testing.assert_allclose(cal.bias_, -bias / 2.0, atol=0.03)
    assert cal.temperature_ == pytest.approx(2.0, rel=0.02)


def test_bcts_calibrated_posteriors_average_to_label_frequencies():
    sc = three_class_gaussian()
    x, y = sc.sample(5000, 22, "source")
    probs = scale_probabilities(sc.posterior(x), 1.7, [0.0, 0.3, 0.1])
    for kind in ("bcts", "vs"):
        cal = fit_scaling(probs, y, kind)
        np.testing.assert_allclose(cal.transform(probs).mean(axis=0), np.bincount(y) / y.size, atol=1e-9)


@pytest.mark.parametrize("name", SCENARIOS)
def test_uncalibrated_mlls_is_biased_and_bcts_mlls_is_not(name):
    sc = SCENARIOS[name]
    rng = np.random.default_rng(23)
    xs, ys = sc.sample(100_000, rng, "source")
    xt, _ = sc.sample(100_000, rng, "target")
    bias = np.linspace(0.0, 0.6, sc.n_classes)
    bad_s = scale_probabilities(sc.posterior(xs), 2.5, bias)
    bad_t = scale_probabilities(sc.posterior(xt), 2.5, bias)
    raw = np.linalg.norm(mlls(bad_s, ys, bad_t).weights - sc.weights)
    fixed = np.linalg.norm(mlls(bad_s, ys, bad_t, calibration="bcts").weights - sc.weights)
    assert raw > 0.05  # a bias far above the sampling error (about 0.01 here)
    assert fixed < 0.03


def test_scaling_bad_input_is_named():
    with pytest.raises(ValueError, match="kind"):
        fit_scaling([[0.5, 0.5]], [0], "platt")
    with pytest.raises(ValueError, match="strictly positive"):
        fit_scaling([[1.0, 0.0], [0.5, 0.5]], [0, 1], "ts")
    with pytest.raises(ValueError, match="slope"):
        scale_probabilities([[0.5, 0.5]], [1.0, 2.0, 3.0])


def test_separable_scores_raise_convergence_error():
    probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.2, 0.8], [0.1, 0.9]])
    with pytest.raises(ConvergenceError):
        fit_scaling(probs, [0, 0, 1, 1], "ts")


# ---------------------------------------------------------------------------
# RLLS
# ---------------------------------------------------------------------------


def _brute_force_rlls(confusion, b, p_hat, lam):
    """Minimise the RLLS objective on the plane p^T theta = 0 (k = 3): a 2-D grid, then Nelder-Mead."""
    from scipy.linalg import null_space

    N = null_space(p_hat[None, :])

    def obj(z):
        th = N @ z
        return np.linalg.norm(confusion @ th - b) + lam * np.linalg.norm(th)

    g = np.linspace(-3, 3, 601)
    zz = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    th = zz @ N.T
    vals = np.linalg.norm(th @ confusion.T - b, axis=1) + lam * np.linalg.norm(th, axis=1)
    z = zz[np.argmin(vals)]
    z = minimize(obj, z, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000}).x
    return 1.0 + N @ z


@pytest.mark.parametrize("factor", [0.3, 2.0, 6.0])
def test_rlls_three_classes_against_brute_force(factor):
    # lambda below, at and above the shrinkage threshold (about the smallest singular value of C).
    sc = three_class_gaussian()
    ps, ys, pt, _ = _samples(sc, 400, 400, 24)
    res_bbse = bbse(ps, ys, pt, soft=True, negative="keep")
    lam = factor * np.linalg.svd(res_bbse.confusion, compute_uv=False).min()
    res = rlls(ps, ys, pt, lam, soft=True)
    b = pt.mean(axis=0) - res.confusion.sum(axis=1)
    expected = _brute_force_rlls(res.confusion, b, res.source_prior, lam)
    np.testing.assert_allclose(res.weights, expected, atol=2e-5)
    obj = lambda w: np.linalg.norm(res.confusion @ (w - 1) - b) + lam * np.linalg.norm(w - 1)  # noqa: E731
    assert obj(res.weights) <= obj(expected) + 1e-12


def test_rlls_shrinks_between_bbse_and_no_shift():
    sc = three_class_gaussian()
    ps, ys, pt, _ = _samples(sc, 400, 400, 24)
    res_bbse = bbse(ps, ys, pt, soft=True, negative="keep")
    sigma = np.linalg.svd(res_bbse.confusion, compute_uv=False).min()
    small = rlls(ps, ys, pt, 0.3 * sigma, soft=True)
    middle = rlls(ps, ys, pt, 2.0 * sigma, soft=True)
    large = rlls(ps, ys, pt, 50.0, soft=True)
    np.testing.assert_allclose(small.weights, res_bbse.weights, atol=1e-10)  # below the kink: BBSE exactly
    assert 0 < np.linalg.norm(middle.weights - 1) < np.linalg.norm(res_bbse.weights - 1)
    np.testing.assert_allclose(large.weights, 1.0, atol=1e-12)


def test_rlls_without_regularisation_is_bbse_when_feasible_and_large_lambda_gives_no_shift():
    ps, ys, pt, _ = _samples(two_class_gaussian(), 3000, 3000, 25)
    np.testing.assert_allclose(rlls(ps, ys, pt, 0.0).weights, bbse(ps, ys, pt).weights, atol=1e-7)
    np.testing.assert_allclose(rlls(ps, ys, pt, 100.0).weights, [1.0, 1.0], atol=1e-7)
    res = rlls(ps, ys, pt, 0.05, soft=True)
    assert res.target_prior.sum() == pytest.approx(1.0, abs=1e-9)


def test_rlls_two_classes_against_a_grid_search_with_active_bound():
    # k = 2: theta = t (p1, -p0) is one-dimensional; brute-force the objective on a fine grid.
    rng = np.random.default_rng(26)
    ps = rng.dirichlet([2, 2], size=300)
    ys = (rng.random(300) < ps[:, 1]).astype(int)
    pt = rng.dirichlet([0.3, 3], size=300)  # almost all class 1: the class-0 weight hits its bound 0
    lam = 0.05
    res = rlls(ps, ys, pt, lam, soft=True)
    p_hat = res.source_prior
    b = pt.mean(axis=0) - res.confusion.sum(axis=1)
    direction = np.array([p_hat[1], -p_hat[0]])
    t_min = -1.0 / direction[0]  # theta_0 >= -1
    ts = np.linspace(t_min, -t_min * 10, 2_000_001)
    thetas = ts[:, None] * direction
    obj = np.linalg.norm(thetas @ res.confusion.T - b, axis=1) + lam * np.linalg.norm(thetas, axis=1)
    best = 1.0 + thetas[np.argmin(obj)]
    np.testing.assert_allclose(res.weights, best, atol=1e-4)
    assert res.weights[0] == pytest.approx(0.0, abs=1e-8)


def test_rlls_infeasible_and_bad_input():
    good = np.array([[0.6, 0.4], [0.3, 0.7]])
    with pytest.raises(ValueError, match="infeasible"):
        rlls(good, [0, 1], good, 0.1, max_weight=0.5)
    with pytest.raises(ValueError, match="regularization"):
        rlls(good, [0, 1], good, -1.0)
    with pytest.raises(ValueError, match="class 1 is absent"):
        rlls(good, [0, 0], good, 0.1)


def test_rlls_max_weight_is_respected():
    ps, ys, pt, _ = _samples(three_class_gaussian(), 3000, 3000, 27)
    res = rlls(ps, ys, pt, 0.0, soft=True, max_weight=2.0)
    assert res.weights.max() <= 2.0 + 1e-9
    assert res.target_prior.sum() == pytest.approx(1.0, abs=1e-9)


# ---------------------------------------------------------------------------
# Input validation at the public boundary (issue 13)
# ---------------------------------------------------------------------------


def test_string_labels_are_classes_of_their_own_not_parsed_numbers():
    # The same sample with labels renamed: the weights must be those of the integer codes, in the order of `classes`.
    ps, ys, pt, _ = _samples(SCENARIOS["three_class"], 2000, 2000, 41)
    names = np.array(["0", "1", "2"])[ys]
    by_code = bbse(ps, ys, pt, soft=True)
    by_name = bbse(ps, names, pt, soft=True)
    np.testing.assert_array_equal(by_name.weights, by_code.weights)
    assert by_name.classes.tolist() == ["0", "1", "2"]
    with pytest.raises(ValueError, match="y_source"):
        bbse(ps, ys.astype(complex), pt)
    with pytest.raises(ValueError, match="y_source"):
        bbse(ps, None, pt)
    with pytest.raises(ValueError, match="y_source"):
        bbse(ps, np.r_[np.nan, ys[1:].astype(float)], pt)


@pytest.mark.parametrize("bad", ["False", 0, 1, None])
def test_soft_must_be_a_bool(bad):
    ps, ys, pt, _ = _samples(SCENARIOS["two_class"], 200, 200, 3)
    with pytest.raises(ValueError, match="soft"):
        bbse(ps, ys, pt, soft=bad)
    with pytest.raises(ValueError, match="soft"):
        rlls(ps, ys, pt, 0.01, soft=bad)


@pytest.mark.parametrize("bad", [None, "1e-10", True, 0.0, -1e-3, 2.0, np.nan, np.inf, [1e-10], 10**400])
def test_solver_tolerances_are_validated(bad):
    ps, ys, pt, _ = _samples(SCENARIOS["two_class"], 200, 200, 4)
    with pytest.raises(ValueError, match="tol"):
        mlls(ps, ys, pt, tol=bad)
    with pytest.raises(ValueError, match="tol"):
        rlls(ps, ys, pt, 0.01, tol=bad)
    with pytest.raises(ValueError, match="gtol"):
        fit_scaling(ps, ys, "ts", gtol=bad)


def test_regularization_accepts_numpy_and_zero_d_scalars():
    ps, ys, pt, _ = _samples(SCENARIOS["three_class"], 500, 500, 5)
    ref = rlls(ps, ys, pt, 0.05)
    for lam in (np.float32(0.05), np.array(0.05), np.float64(0.05)):
        np.testing.assert_allclose(rlls(ps, ys, pt, lam).weights, ref.weights, rtol=1e-6)
    for bad in (np.nan, -0.1, "0.05", 10**400, True):
        with pytest.raises(ValueError, match="regularization"):
            rlls(ps, ys, pt, bad)


def test_simplex_tolerance_and_priors_are_validated():
    from companion.label_shift_weights import as_simplex_rows

    rows = np.array([[0.5, 0.5], [0.25, 0.75]])
    for bad in (np.nan, -1.0, "1e-9", None, True, np.inf):
        with pytest.raises(ValueError, match="atol"):
            as_simplex_rows(rows, "probs", atol=bad)
    with pytest.raises(ValueError, match="target_prior must sum to 1"):
        mlls_log_likelihood([0.5, 0.5, 0.5], np.full((2, 3), 1 / 3), np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="source_prior must be positive"):
        mlls_log_likelihood([0.2, 0.3, 0.5], np.full((2, 3), 1 / 3), [0.0, 0.5, 0.5])


def test_gaussian_scenario_methods_validate_their_arguments():
    sc = three_class_gaussian()
    # 0-d and numpy integer orders are integers: same matrix as a Python int
    np.testing.assert_array_equal(sc.confusion_matrix("soft", order=np.array(16)), sc.confusion_matrix("soft", order=16))
    np.testing.assert_array_equal(sc.confusion_matrix("soft", order=np.int64(16)), sc.confusion_matrix("soft", order=16))
    for bad in (2.5, 0, True, None, "8", 10**400):
        with pytest.raises(ValueError, match="order"):
            sc.confusion_matrix("soft", order=bad)
    for bad in (np.zeros((0, 2)), np.array([[np.nan, 0.0]]), np.zeros((2, 2), dtype=bool), [["0", "1"]], None):
        with pytest.raises(ValueError, match="x"):
            sc.posterior(bad)
    a = np.array([1.0, 0.0])
    for bad in (np.nan, np.inf, None, True, [0.0], "0"):
        with pytest.raises(ValueError, match="offset"):
            sc.projection_probabilities(a, bad, [-np.inf, 0.0, np.inf])
    with pytest.raises(ValueError, match="direction"):
        sc.projection_probabilities([1.0, 0.0, 0.0], 0.0, [-np.inf, np.inf])
    for bad in (["-1", "0"], [1.0, 0.0], [0.0, np.nan, 1.0], [-np.inf, np.inf, 1.0]):
        with pytest.raises(ValueError, match="edges"):
            sc.projection_probabilities(a, 0.0, bad)
    for bad in (None, 3, "x", {}, [[-np.inf, np.inf]]):
        with pytest.raises(ValueError, match="edges"):
            sc.grid_cell_probabilities([[-1.0, 1.0, 0.0], [-0.5, -0.5, 1.0]], bad)
    for bad in ((0,), "a", (2.5,), None, (10**5, 10**5)):
        with pytest.raises(ValueError, match="size"):
            sc.sample(10, 0, size=bad)
    with pytest.raises(ValueError, match="n must be at most"):
        sc.sample(10**9, 0)
    # the sample's shape follows `size` given as a tuple, an int, a numpy int or a list
    for size, shape in (((), (7,)), (3, (3, 7)), (np.int64(2), (2, 7)), ([2, 3], (2, 3, 7))):
        assert sc.sample(7, 0, size=size)[1].shape == shape


def test_projection_probabilities_sum_to_one_over_the_real_line():
    # an independent property: with end points -inf and +inf the cells cover the line, per class
    sc = two_class_gaussian()
    cells = sc.projection_probabilities([0.3, -1.2], 0.7, [-np.inf, -1.0, 0.0, 2.5, np.inf])
    np.testing.assert_allclose(cells.sum(axis=1), 1.0, atol=1e-15)
