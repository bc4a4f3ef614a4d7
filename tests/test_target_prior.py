"""Tests for companion.target_prior: each method checked against its defining equations."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.special import expit
from scipy.stats import norm

from companion import target_prior
from companion._checks import ConvergenceError
from companion.target_prior import InfeasibleSystemError
from companion.scenarios import RatingScaleExample

EX = RatingScaleExample()
ETA, F, P, Q = EX.source_posteriors, EX.target_masses, EX.source_prior, EX.target_prior
SOURCE_AUC = target_prior.conditional_auc(EX.class_masses[1], EX.class_masses[0])  # independent of eq. (13)


def brute_force_auc(values, masses1, masses0):
    """(3a) by summing over every pair of values: P[S1 > S0] + P[S1 = S0] / 2."""
    gt = values[:, None] > values[None, :]
    eq = values[:, None] == values[None, :]
    joint = masses1[:, None] * masses0[None, :]
    return float(joint[gt].sum() + 0.5 * joint[eq].sum())


# --- AUC -----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_implied_auc_matches_pairwise_auc(n, seed, ties):
    rng = np.random.default_rng(seed)
    # with ties, values from a grid of 9 points strictly inside (0, 1): repeated values must count as one grade
    s = rng.integers(1, 10, n) / 10 if ties else rng.uniform(0.01, 0.99, n)
    pi = rng.dirichlet(np.ones(n))
    mean = pi @ s
    expected = brute_force_auc(s, pi * s / mean, pi * (1 - s) / (1 - mean))
    assert target_prior.implied_auc(s, pi) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_conditional_auc_matches_pairwise_auc(n, seed):
    rng = np.random.default_rng(seed)
    m1, m0 = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    assert target_prior.conditional_auc(m1, m0) == pytest.approx(brute_force_auc(np.arange(n), m1, m0), abs=1e-12)


def test_uninformative_score_has_auc_one_half():
    assert target_prior.implied_auc(np.full(5, 0.3), np.full(5, 0.2)) == pytest.approx(0.5, abs=1e-15)


def test_source_auc_from_posteriors_equals_class_conditional_auc():
    assert target_prior.implied_auc(ETA, EX.source_masses) == pytest.approx(SOURCE_AUC, abs=1e-13)


def test_midpoint_cdf_and_empirical_distribution():
    values, masses = target_prior.empirical_distribution([3.0, 1.0, 3.0, 2.0])
    np.testing.assert_array_equal(values, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(masses, [0.25, 0.25, 0.5])
    # G*(s_i) = (P[S <= s_i] + P[S < s_i]) / 2
    np.testing.assert_allclose(target_prior.midpoint_cdf(masses), [0.125, 0.375, 0.75])


# --- methods: defining equations -----------------------------------------


def test_capped_scaling_equations():
    fit = target_prior.capped_scaling(ETA, F, Q)
    t = fit.params["t"]
    assert F @ fit.posteriors == pytest.approx(Q, abs=1e-10)
    np.testing.assert_allclose(fit.posteriors, np.minimum(t * ETA, 1.0), rtol=0, atol=0)
    assert fit.params["n_capped"] >= 1  # this example needs the cap


def test_label_shift_is_bayes_rule_and_preserves_auc_on_a_mixture():
    fit = target_prior.label_shift(ETA, P, Q)
    m0, m1 = EX.class_masses
    bayes = Q * m1 / (Q * m1 + (1 - Q) * m0)  # Bayes' rule under the label-shift target (5)
    np.testing.assert_allclose(fit.posteriors, bayes, rtol=1e-12)
    mixture = EX.label_shift_target_masses(Q)
    assert mixture @ fit.posteriors == pytest.approx(Q, abs=1e-12)
    assert target_prior.implied_auc(fit.posteriors, mixture) == pytest.approx(SOURCE_AUC, abs=1e-12)  # prop-tp-label-shift-auc


def test_fjs_equations_and_bounds():
    fit = target_prior.fjs(ETA, F, P, Q)
    rho = fit.params["rho"]
    lo, hi = fit.params["rho_bounds"]
    assert lo <= rho <= hi
    assert F @ fit.posteriors == pytest.approx(Q, abs=1e-10)
    odds = lambda u: u / (1 - u)  # noqa: E731
    np.testing.assert_allclose(odds(fit.posteriors) / odds(ETA), rho * (Q / P) * (1 - P) / (1 - Q), rtol=1e-10)


def test_fjs_with_mixture_target_gives_rho_one():
    fit = target_prior.fjs(ETA, EX.label_shift_target_masses(Q), P, Q)
    assert fit.params["rho"] == pytest.approx(1.0, abs=1e-10)


@pytest.mark.parametrize("method", ["platt", "logistic", "normal"])
def test_qmm_systems_meet_mean_and_auc(method):
    if method == "platt":
        fit = target_prior.platt(ETA, F, Q, SOURCE_AUC)
        expected = 1 / (1 + np.exp(-(fit.params["a"] * ETA + fit.params["b"])))
    else:
        fit = target_prior.cspd(ETA, F, Q, SOURCE_AUC, link=method)
        a, b = fit.params["a"], fit.params["b"]
        if method == "logistic":
            expected = 1 / (1 + np.exp(-(a * np.log(ETA / (1 - ETA)) + b)))
        else:
            expected = norm.cdf(a * norm.ppf(ETA) + b)
    np.testing.assert_allclose(fit.posteriors, expected, rtol=1e-12)
    assert F @ fit.posteriors == pytest.approx(Q, abs=1e-10)
    assert target_prior.implied_auc(fit.posteriors, F) == pytest.approx(SOURCE_AUC, abs=1e-8)
    assert np.all(np.diff(fit.posteriors) > 0)  # CSPD: strictly increasing transformation


def test_roc_qmm_fixed_point_and_approximate_targets():
    fit = target_prior.roc_qmm(F, Q, SOURCE_AUC)
    f0, c = fit.params["class0_masses"], fit.params["c"]
    assert c == pytest.approx(np.sqrt(2) * norm.ppf(SOURCE_AUC), rel=1e-14)  # (10c)
    assert f0.sum() == pytest.approx(1.0, abs=1e-14)
    G = np.cumsum(f0) - f0 / 2
    eta = 1 / (1 + (1 - Q) / Q * np.exp(c**2 / 2 - c * norm.ppf(G)))  # (10b)
    np.testing.assert_allclose(fit.posteriors, eta, rtol=1e-12)
    # fixed point of (11b), up to normalization
    np.testing.assert_allclose(f0, F * (1 - eta) / (F @ (1 - eta)), atol=1e-12)
    # discrete F_0: mean and AUC met only approximately (paper: 0.049 and 0.799)
    assert abs(F @ fit.posteriors - Q) < 2e-3
    assert abs(target_prior.implied_auc(fit.posteriors, F) - SOURCE_AUC) < 5e-3
    changes = fit.params["changes"]
    assert changes[-1] <= 1e-12 and np.all(np.diff(np.log(changes[:10])) < 0)


def test_two_param_qmm_equations():
    fit = target_prior.two_param_qmm(F, Q, SOURCE_AUC)
    a, b, f0 = fit.params["a"], fit.params["b"], fit.params["class0_masses"]
    np.testing.assert_allclose(fit.posteriors, 1 / (1 + np.exp(b + a * norm.ppf(np.cumsum(f0) - f0 / 2))), rtol=1e-12)
    assert a < 0
    assert F @ fit.posteriors == pytest.approx(Q, abs=1e-10)
    assert target_prior.implied_auc(fit.posteriors, F) == pytest.approx(SOURCE_AUC, abs=1e-8)


@pytest.mark.parametrize("link", ["logistic", "normal"])
def test_one_parameter_cspd_quantifier(link):
    fit = target_prior.cspd_quantify(ETA, F, SOURCE_AUC, link=link)
    assert target_prior.implied_auc(fit.posteriors, F) == pytest.approx(SOURCE_AUC, abs=1e-8)
    assert fit.params["prior_estimate"] == pytest.approx(F @ fit.posteriors, abs=1e-15)
    link_fn = (lambda x: 1 / (1 + np.exp(-x))) if link == "logistic" else norm.cdf
    inv = np.log(ETA / (1 - ETA)) if link == "logistic" else norm.ppf(ETA)
    np.testing.assert_allclose(fit.posteriors, link_fn(fit.params["a"] * inv), rtol=1e-12)


def test_cspd_auc_profile_is_increasing_and_hits_solution():
    fit = target_prior.cspd(ETA, F, Q, SOURCE_AUC)
    a = fit.params["a"]
    prof = target_prior.cspd_auc_profile(ETA, F, Q, [a / 2, a, 2 * a])
    assert prof[1] == pytest.approx(SOURCE_AUC, abs=1e-10)
    assert prof[0] < prof[1] < prof[2]


# --- failures: infeasible systems and divergent iterations -----------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: target_prior.platt(ETA, F, Q, 0.9999),
        lambda: target_prior.cspd(ETA, F, Q, 0.9999, link="logistic"),
        lambda: target_prior.cspd(ETA, F, Q, 0.9999, link="normal"),
        lambda: target_prior.two_param_qmm(F, Q, 0.9999),
    ],
)
def test_unreachable_auc_is_infeasible(call):
    # the AUC profile of the 17-grade target saturates below 0.9999 (the one-parameter quantifier, free of the
    # mean equation, reaches it: tests/test_extreme_known.py)
    with pytest.raises(InfeasibleSystemError, match="no solution"):
        call()


@pytest.mark.parametrize("link", ["logistic", "normal"])
def test_qmm_solves_every_auc_the_unsaturated_profile_reaches(link):
    # Regression: the slope search used to give up at the last doubling before the map saturated
    # in floating point, declaring AUCs infeasible that the profile (computed independently by
    # cspd_auc_profile) reaches at an unsaturated slope. Take the largest profile value over slopes
    # whose fitted posteriors stay strictly inside (0, 1), and ask for an AUC just below it.
    slopes = np.geomspace(0.5, 40.0, 200)
    profile = target_prior.cspd_auc_profile(ETA, F, Q, slopes, link=link)
    F_link = {"logistic": expit, "normal": norm.cdf}[link]
    x = {"logistic": np.log(ETA / (1 - ETA)), "normal": norm.ppf(ETA)}[link]
    inside = []
    for a in slopes:
        b = brentq(lambda b: F @ F_link(a * x + b) - Q, -500.0, 500.0, xtol=1e-14)
        post = F_link(a * x + b)
        inside.append(bool(np.all((post > 0.0) & (post < 1.0))))
    reachable = float(np.max(profile[np.array(inside)]))
    target = reachable - 1e-6
    fit = target_prior.cspd(ETA, F, Q, target, link=link)
    assert target_prior.implied_auc(fit.posteriors, F) == pytest.approx(target, abs=1e-9)
    # and the limit reported for an unreachable AUC is at least what the profile reached
    with pytest.raises(InfeasibleSystemError) as err:
        target_prior.cspd(ETA, F, Q, 0.99999, link=link)
    reported = float(str(err.value).split("rises only to ")[1].split(" ")[0])
    assert reported >= reachable - 1e-6


def test_qmm_limit_is_below_the_step_map_auc():
    # Every family F(a F^-1(u) + b(a)) tends to the step map with mean q as a -> infinity; its implied
    # AUC (computed directly from the target masses) bounds every feasible AUC.
    upper = np.cumsum(F[::-1])[::-1]
    k = int(np.max(np.nonzero(upper >= Q)[0]))
    step = np.where(np.arange(F.size) > k, 1.0, 0.0)
    step[k] = (Q - upper[k + 1]) / F[k]
    limit = target_prior.implied_auc(step, F)
    with pytest.raises(InfeasibleSystemError) as err:
        target_prior.cspd(ETA, F, Q, 0.99999, link="logistic")
    reported = float(str(err.value).split("rises only to ")[1].split(" ")[0])
    assert 0.999 < reported <= limit < 0.99999


def test_infeasible_error_is_value_error():
    assert issubclass(InfeasibleSystemError, ValueError) and issubclass(ConvergenceError, ValueError)


def test_single_valued_score_is_infeasible():
    with pytest.raises(InfeasibleSystemError, match="single value"):
        target_prior.cspd([0.2, 0.2], [0.5, 0.5], 0.3, 0.7)


def test_literal_raw_iteration_leaves_domain_as_prior_grows():
    small = target_prior.roc_qmm(F, 0.01, SOURCE_AUC, iteration="literal-raw")  # small q: converges ...
    normalized = target_prior.roc_qmm(F, 0.01, SOURCE_AUC)
    assert np.max(np.abs(small.posteriors - normalized.posteriors)) > 1e-3  # ... but to another fixed point
    with pytest.raises(ConvergenceError, match="domain of Phi"):
        target_prior.roc_qmm(F, 0.05, SOURCE_AUC, iteration="literal-raw")


@pytest.mark.parametrize("q", [0.05, 0.5, 0.9])
def test_literal_iteration_is_the_normalized_one_rescaled(q):
    literal = target_prior.roc_qmm(F, q, SOURCE_AUC, iteration="literal")
    normalized = target_prior.roc_qmm(F, q, SOURCE_AUC)
    np.testing.assert_allclose(literal.posteriors, normalized.posteriors, rtol=0, atol=1e-10)
    f0 = literal.params["class0_masses"]
    np.testing.assert_allclose(f0 / f0.sum(), normalized.params["class0_masses"], rtol=0, atol=1e-10)
    # (11b) as written: f0 = f (1 - eta) / (1 - q) at the fixed point, total mass (1 - E_Q eta) / (1 - q)
    np.testing.assert_allclose(f0, F * (1 - literal.posteriors) / (1 - q), rtol=0, atol=1e-11)
    assert f0.sum() == pytest.approx((1 - F @ literal.posteriors) / (1 - q), abs=1e-10)
    assert f0.sum() > 1  # the target mean is missed from below, so the iterate is not a probability vector


def test_roc_qmm_trace_follows_the_iteration_and_reaches_a_floor():
    fit = target_prior.roc_qmm(F, Q, SOURCE_AUC)
    trace = target_prior.roc_qmm_trace(F, Q, SOURCE_AUC, 60)
    k = fit.params["changes"].size
    np.testing.assert_allclose(trace[:k], fit.params["changes"], rtol=1e-6, atol=1e-15)
    assert trace.shape == (60,) and np.max(trace[40:]) < 1e-14  # rounding floor, far below the default tol
    with pytest.raises(ConvergenceError, match="domain of Phi"):
        target_prior.roc_qmm_trace(F, Q, SOURCE_AUC, 5, iteration="literal-raw")


def _normalized_map(f0, q, c):
    """The map of the normalized iteration, written independently with scipy.stats.norm."""
    G = np.cumsum(f0) - f0 / 2
    eta = 1 / (1 + (1 - q) / q * np.exp(c**2 / 2 - c * norm.ppf(G)))
    h = F * (1 - eta)
    return h / h.sum()


@pytest.mark.parametrize("auc, q", [(SOURCE_AUC, 0.05), (0.8, 0.3), (0.95, 0.5)])
def test_roc_qmm_jacobian_matches_finite_differences(auc, q):
    fit = target_prior.roc_qmm(F, q, auc, tol=1e-10)
    f0, c = fit.params["class0_masses"], fit.params["c"]
    J = target_prior.roc_qmm_jacobian(F, q, auc, f0)
    # small relative steps: the top grade carries a tiny class-0 mass, and G* must stay below 1
    steps = 1e-4 * np.minimum(f0, f0[-1])
    fd = np.column_stack([(_normalized_map(f0 + h * e, q, c) - _normalized_map(f0 - h * e, q, c)) / (2 * h)
                          for h, e in zip(steps, np.eye(f0.size))])
    np.testing.assert_allclose(J, fd, rtol=1e-5, atol=1e-7 * np.abs(J).max())
    # the spectral radius is below 1: the fixed point attracts, as the iteration shows
    assert np.max(np.abs(np.linalg.eigvals(J))) < 1


def test_iteration_limit_raises():
    with pytest.raises(ConvergenceError, match="max_iter = 3"):
        target_prior.roc_qmm(F, Q, SOURCE_AUC, max_iter=3)


# --- bad inputs ------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: target_prior.implied_auc([0.2, 0.4], [0.5, 0.6]), "masses"),
        (lambda: target_prior.implied_auc([0.2, 1.4], [0.5, 0.5]), "posteriors"),
        (lambda: target_prior.implied_auc([0.0, 0.0], [0.5, 0.5]), "mean"),
        (lambda: target_prior.implied_auc([0.2, 0.4, 0.5], [0.5, 0.5]), "same length"),
        (lambda: target_prior.conditional_auc([0.5, 0.5], [1.0]), "same length"),
        (lambda: target_prior.capped_scaling(ETA, F * 2, Q), "target_masses"),
        (lambda: target_prior.capped_scaling(np.r_[0.0, ETA[1:]], F, Q), "posteriors"),
        (lambda: target_prior.capped_scaling(ETA, F, 1.0), "target_prior"),
        (lambda: target_prior.label_shift(ETA, 0.0, Q), "source_prior"),
        (lambda: target_prior.label_shift(ETA, P, -0.1), "target_prior"),
        (lambda: target_prior.fjs(ETA, F, P, 1.5), "target_prior"),
        (lambda: target_prior.platt(ETA, F, Q, 0.4), "auc"),
        (lambda: target_prior.cspd(ETA, F, Q, 0.8, link="probit"), "link"),
        (lambda: target_prior.cspd(ETA, F, 0.0, 0.8), "target_prior"),
        (lambda: target_prior.roc_qmm(F, Q, 1.2), "auc"),
        (lambda: target_prior.roc_qmm(F, Q, 0.8, tol=0.0), "tol"),
        (lambda: target_prior.roc_qmm(F, Q, 0.8, max_iter=0), "max_iter"),
        (lambda: target_prior.roc_qmm(F, Q, 0.8, iteration="renormalize"), "iteration"),
        (lambda: target_prior.roc_qmm_trace(F, Q, 0.8, 0), "n_iter"),
        (lambda: target_prior.roc_qmm_jacobian(F, Q, 0.8, F[:-1] / F[:-1].sum()), "same length"),
        (lambda: target_prior.roc_qmm_jacobian(F, Q, 0.8, F * 2), "class0_masses"),
        (lambda: target_prior.roc_qmm(np.r_[F[:-1] + F[-1] / 16, 0.0], Q, 0.8), "target_masses"),
        (lambda: target_prior.cspd_auc_profile(ETA, F, Q, [-1.0]), "slopes"),
        (lambda: target_prior.midpoint_cdf([0.5, 0.6]), "masses"),
        (lambda: target_prior.empirical_distribution([]), "sample"),
        # solver options and options are checked under their public names before any solver runs
        (lambda: target_prior.fjs(ETA, F, P, Q, xtol=float("nan")), "xtol"),
        (lambda: target_prior.platt(ETA, F, Q, 0.8, xtol=2.0), "xtol"),
        (lambda: target_prior.cspd(ETA, F, Q, 0.8, xtol=True), "xtol"),
        (lambda: target_prior.cspd_auc_profile(ETA, F, Q, [1.0], xtol="1e-15"), "xtol"),
        (lambda: target_prior.cspd_quantify(ETA, F, 0.8, max_iter=2.5), "max_iter"),
        (lambda: target_prior.cspd(ETA, F, Q, 0.8, link=["logistic"]), "link"),
        (lambda: target_prior.cspd_quantify(ETA, F, 0.8, link="Logistic"), "link"),
        (lambda: target_prior.roc_qmm(F, Q, 0.8, tol=True), "tol"),
        (lambda: target_prior.roc_qmm(F, Q, 0.8, tol=[1e-12]), "tol"),
        (lambda: target_prior.roc_qmm(F, Q, 0.8, iteration=None), "iteration"),
        (lambda: target_prior.two_param_qmm(F, Q, 0.8, tol="0.3"), "tol"),
        (lambda: target_prior.two_param_qmm(F, Q, 0.8, xtol=float("inf")), "xtol"),
        (lambda: target_prior.two_param_qmm(F, Q, 0.8, max_iter=10**400), "max_iter"),
        (lambda: target_prior.two_param_qmm(list(map(str, F)), Q, 0.8), "target_masses"),
    ],
)
def test_bad_inputs(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_implied_auc_of_posteriors_at_zero_and_one():
    # A grade with posterior 0 or 1 is a valid auto-calibrated value (capped scaling caps at 1).
    # A step map separates the classes completely: AUC 1.
    assert target_prior.implied_auc([0.0, 0.0, 1.0, 1.0], [0.25] * 4) == 1.0
    # Posteriors 0, 1/2, 1 on equal masses, by hand from (3a)-(3b): P1 = (0, 1/3, 2/3), P0 = (2/3, 1/3, 0),
    # AUC = 1/3 (2/3 + 1/6) + 2/3 = 17/18.
    assert target_prior.implied_auc([0.0, 0.5, 1.0], [1 / 3, 1 / 3, 1 / 3]) == pytest.approx(17 / 18, abs=1e-15)


@pytest.mark.parametrize("call", [
    lambda eta, f: target_prior.platt(eta, f, 0.2, 0.8),
    lambda eta, f: target_prior.cspd(eta, f, 0.2, 0.8, link="logistic"),
    lambda eta, f: target_prior.cspd(eta, f, 0.2, 0.8, link="normal"),
])
def test_one_hot_target_mass_is_infeasible_not_a_zero_division(call):
    """Issue 20 item 18: with all target mass on one grade every implied AUC is 1/2 (was ZeroDivisionError)."""
    eta = np.array([0.1, 0.2, 0.3])
    assert target_prior.implied_auc(np.array([0.1, 0.25, 0.3]), np.array([0.0, 1.0, 0.0])) == 0.5  # any map: AUC 1/2
    with pytest.raises(InfeasibleSystemError, match="single value"):
        call(eta, np.array([0.0, 1.0, 0.0]))


@pytest.mark.parametrize("call, name", [
    (lambda: target_prior.capped_scaling(np.r_[1e-310, ETA[1:]], F, Q), "posteriors"),
    (lambda: target_prior.capped_scaling(ETA, F, 5e-324), "target_prior"),
    (lambda: target_prior.fjs(np.r_[ETA[:-1], 1 - 2**-53], F, P, Q), "posteriors"),
    (lambda: target_prior.fjs(ETA, F, 1e-310, Q), "source_prior"),
    (lambda: target_prior.fjs([1e-300, 1e-300], [0.5, 0.5], 0.5, 1 - 2**-52), "target_prior"),
    (lambda: target_prior.platt(np.r_[1e-320, ETA[1:]], F, Q, 0.8), "posteriors"),
    (lambda: target_prior.cspd(ETA, F, 1e-301, 0.8), "target_prior"),
    (lambda: target_prior.cspd_auc_profile(ETA, F, Q, [1e300]), "slopes"),
    (lambda: target_prior.roc_qmm(F, 5e-324, 0.8), "target_prior"),
    (lambda: target_prior.two_param_qmm(F, 1 - 2**-53, 0.8), "target_prior"),
])
def test_methods_refuse_inputs_outside_their_domain(call, name):
    """Posteriors and priors in DOMAIN = [1e-300, 1 - 2**-52], slopes in SLOPE_RANGE (book, Numerical notes)."""
    with pytest.raises(ValueError, match=name):
        call()


def test_qmm_refuses_an_auc_no_slope_in_the_range_reaches():
    """An AUC below the limit of the profile but reached only by a slope beyond SLOPE_RANGE is refused, naming auc.

    Two scores 1e-7 sd apart next to a far one: the step limit needs the pair to separate, a * 1e-7 sd >> 1.
    """
    from scipy.special import logit

    eta, f = np.array([0.1, 0.5, 0.5 + 1e-8]), np.array([0.5, 0.25, 0.25])
    top = 1e6 / target_prior.qmm._target_sd(logit(eta), f)  # the largest slope of SLOPE_RANGE
    reached = target_prior.cspd_auc_profile(eta, f, 0.3, [top * (1 - 1e-12)])[0]
    limit = target_prior.qmm._step_auc(logit(eta), f, 0.3)
    assert reached < limit - 1e-3  # the pair 4e-8 apart in logit is not separated at a * sd = 1e6
    with pytest.raises(InfeasibleSystemError, match="SLOPE_RANGE.*auc"):
        target_prior.cspd(eta, f, 0.3, 0.5 * (reached + limit))
