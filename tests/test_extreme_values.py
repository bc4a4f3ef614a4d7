"""Valid extremes that gave wrong values, hangs at documented maxima, and unchecked arguments (issue 27, items 16-18).

Each test fails on the code before the fix; the expected values come from an
independent route (a closed-form limit, an invariance, a direct formula).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.stats import binom

# --- item 16: valid extremes, right values ---


@pytest.mark.parametrize("big", [1e16, 1e200, 1e308])
def test_projection_to_the_simplex_at_huge_magnitudes(big):
    from companion.multiclass_lp import project_to_simplex

    assert project_to_simplex([[big, 0.0, 0.0]]).tolist() == [[1.0, 0.0, 0.0]]
    # Pi(w + t 1) = Pi(w): a shift by t moves nothing
    w = np.array([[0.2, 0.9, -0.1], [0.5, 0.5, 0.4]])
    for t in (1e6, -1e12):
        assert np.allclose(project_to_simplex(w + t), project_to_simplex(w), atol=1e-3 * max(1.0, abs(t)) * 2**-40)
    assert np.allclose(project_to_simplex(w), [[0.15, 0.85, 0.0], [0.3666666666666667, 0.3666666666666667, 0.2666666666666667]])


def test_gaussian_posterior_far_out_is_its_limit():
    from companion._numerics import _softmax
    from companion.scenarios.label_shift import three_class_gaussian

    g = three_class_gaussian()
    x = np.array([[0.3, -0.2], [2.0, 1.0], [-40.0, 5.0]])
    reference = _softmax(g.log_class_densities(x) + np.log(g.prior("target")))  # the old route, fine for moderate x
    assert np.allclose(g.posterior(x, "target"), reference, rtol=1e-12, atol=1e-300)
    far = g.posterior([[1e200, 1e200]])
    limit = np.argmax(g._m @ g._precision @ np.array([1.0, 1.0]))  # the class whose log-odds grow fastest along (1, 1)
    assert far.tolist() == [np.eye(3)[limit].tolist()]
    try:  # at the float limit: a simplex row or the named refusal, never NaN
        edge = g.posterior([[1.7e308, -1.7e308]])
        assert np.all(np.isfinite(edge)) and np.allclose(edge.sum(axis=1), 1.0)
    except ValueError as exc:
        assert "x is too large" in str(exc)


@pytest.mark.parametrize("scale", [1e300, 1e-300, 3.0])
def test_projection_probabilities_are_scale_invariant(scale):
    from companion.scenarios.label_shift import three_class_gaussian

    g = three_class_gaussian()
    edges = np.array([-np.inf, -0.5, 0.0, 2.0, np.inf])
    unit = g.projection_probabilities([1.0, -0.5], 0.25, edges)
    scaled = g.projection_probabilities([scale, -0.5 * scale], 0.25 * scale, edges * scale)
    assert np.all(np.isfinite(scaled)) and np.allclose(scaled, unit, rtol=1e-12, atol=1e-15)
    assert np.allclose(unit.sum(axis=1), 1.0)
    assert np.all(np.isfinite(g.projection_probabilities([1e300, 0.0], 0.0, [-np.inf, 0.0, np.inf])))


@pytest.mark.parametrize("mu", [20.0, 40.0])  # the domain ends at 40; beyond is refused (test_exact_sampling)
def test_expected_bin_ones_at_separated_classes(mu):
    from companion.uniform_mass_binning import umb_expected_bin_ones
    from companion.uniform_mass_binning.exact_sampling import _uniform_mass_ranks

    n, n_bins, prior = 100, 5, 0.5
    # separated classes: the N1 ~ Bin(n, prior) ones hold the top ranks, so rank r is a one iff N1 >= n - r + 1
    ranks = np.concatenate(([0], _uniform_mass_ranks(n, n_bins), [n]))
    limit = [binom.sf(n - np.arange(a + 1, b + 1), n, prior).sum() for a, b in zip(ranks[:-1], ranks[1:])]
    got = umb_expected_bin_ones(n, n_bins, prior, mu)
    assert np.allclose(got, limit, atol=1e-9) and abs(got.sum() - n * prior) < 1e-9


def test_roc_qmm_jacobian_at_an_end_mass_of_zero_is_refused_and_tiny_end_masses_are_finite():
    from companion.target_prior.experiments import roc_qmm_jacobian

    f = np.array([0.2, 0.3, 0.5])
    for f0 in ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]):
        with pytest.raises(ValueError, match="class0_masses must be positive at the lowest and highest score"):
            roc_qmm_jacobian(f, 0.3, 0.8, np.array(f0))
    moderate = np.array([0.2, 0.3, 0.5])
    jac = roc_qmm_jacobian(f, 0.3, 0.8, moderate)
    # against central differences of the normalized map N(f0) = U / sum U
    from scipy.special import expit, ndtri

    c = np.sqrt(2.0) * ndtri(0.8)

    def normalized(f0):
        z = ndtri(np.cumsum(f0) - 0.5 * f0)
        u = f * (1.0 - expit(np.log(0.3 / 0.7) - 0.5 * c * c + c * z))
        return u / u.sum()

    h = 1e-6
    numeric = np.column_stack([(normalized(moderate + h * e) - normalized(moderate - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.allclose(jac, numeric, atol=1e-7)
    tiny = np.array([1e-300, 0.5, 0.5 - 1e-300])
    assert np.all(np.isfinite(roc_qmm_jacobian(f, 0.3, 0.8, tiny)))


def test_mirror_symmetry_at_a_huge_offset_and_offsets_are_checked():
    import sympy as sp

    from companion.calibration_sharpness import mirror_symmetry_mse

    derivative, parts = mirror_symmetry_mse(1e300)  # OverflowError before: exp(1e300) evaluated in floats
    assert derivative != 0 and parts["integrand"] != 0
    assert parts["integrand"].has(sp.Integer(10) ** 300)  # the offset kept exact, not rounded to a float
    for bad in ("0", 1j, float("nan"), True, sp.Symbol("c")):
        with pytest.raises(ValueError, match="offset must be a finite real number"):
            mirror_symmetry_mse(bad)


# --- item 17: the documented maxima run in seconds; beyond them a named refusal, not a hang ---


def _documented_maxima():
    from companion.calibration_sharpness.derivations import mse_decomposition_residual
    from companion.conformal_label_shift.derivations import permutation_weight_residuals
    from companion.label_shift_weights.derivations import moment_identity_residuals
    from companion.multiclass_lp.guarantee_checks import bernoulli_test_size
    from companion.target_prior.experiments import roc_qmm_trace
    from companion.uniform_mass_binning.derivations import binwise_pooling_identity

    masses = np.array([0.125, 0.25, 0.25, 0.25, 0.125])
    # (call at the maximum, call just beyond it, the argument the refusal names)
    return {
        "binwise_pooling_identity": (lambda: binwise_pooling_identity(4), lambda: binwise_pooling_identity(5), "n_bins"),
        "mse_decomposition_residual": (lambda: mse_decomposition_residual(10), lambda: mse_decomposition_residual(11), "m"),
        "permutation_weight_residuals": (lambda: permutation_weight_residuals(3, 3), lambda: permutation_weight_residuals(4, 3), "n_classes"),
        "moment_identity_residuals": (lambda: moment_identity_residuals(4, 3), lambda: moment_identity_residuals(4, 4), "k * m"),
        "bernoulli_test_size": (lambda: bernoulli_test_size((1e-3,)), lambda: bernoulli_test_size((9e-4,)), "eps_values"),
        "roc_qmm_trace": (lambda: roc_qmm_trace(masses, 0.3, 0.8, 10**4), lambda: roc_qmm_trace(masses, 0.3, 0.8, 10**4 + 1), "n_iter"),
    }


@pytest.mark.parametrize("name", sorted(_documented_maxima()))
def test_documented_maximum_runs_and_beyond_is_refused(name):
    import os
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    from api_cases import Hang, run_with_timeout

    at_max, beyond, arg = _documented_maxima()[name]
    with pytest.raises(ValueError, match=re.escape(arg)):
        beyond()  # accepted before, and then ran for minutes
    result, exc, _ = run_with_timeout(at_max, 120)  # seconds on an idle machine; generous for a loaded CI runner
    assert exc is None, f"{name} at its documented maximum: {type(exc).__name__} {exc}"
    assert not isinstance(exc, Hang)


# --- item 18: one float32 rule for probability rows, in every package ---


def _float32_rows():
    """Rows that sum to 1 in float32 but are off by more than 1e-9 in float64 (the old rule refused them)."""
    rng = np.random.default_rng(3)
    rows = rng.dirichlet([1.0, 1.0, 1.0], size=60).astype(np.float32)
    rows[:, 2] = np.float32(1) - rows[:, 0] - rows[:, 1]
    off = np.abs(rows.astype(np.float64).sum(axis=1) - 1.0)
    assert off.max() > 1e-9 and off.max() < 3 * np.finfo(np.float32).eps
    return rows, np.arange(60) % 3


def test_the_float32_rule_is_one_function():
    from companion._checks import SIMPLEX_ATOL, simplex_tolerance

    assert simplex_tolerance(np.zeros(3), 3) == SIMPLEX_ATOL
    assert simplex_tolerance(np.zeros(3, np.float32), 3) == 3 * float(np.finfo(np.float32).eps)
    assert simplex_tolerance([0.5, 0.5], 2) == SIMPLEX_ATOL  # lists are float64
    with pytest.raises(ValueError, match="rows summing to 1"):  # and a float64 row off by 1e-7 is still refused
        from companion.label_shift_weights import as_simplex_rows

        as_simplex_rows(np.array([[0.5, 0.5 + 1e-7]]), "probs")


def test_float32_rows_are_accepted_and_computed_in_float64_in_every_package():
    from companion.binning_label_shift import CanonicalBinning, CoordinatePartition
    from companion.conformal_label_shift import conformal_scores
    from companion.label_shift_weights import bbse
    from companion.multiclass_lp import as_probability_rows
    from companion.target_prior.experiments import roc_qmm_trace

    rows, y = _float32_rows()
    as64 = rows.astype(np.float64)
    assert as_probability_rows(rows).dtype == np.float64
    assert np.allclose(bbse(rows, y, rows).weights, bbse(as64 / as64.sum(1, keepdims=True), y, as64 / as64.sum(1, keepdims=True)).weights, atol=1e-6)
    fitted = CanonicalBinning(CoordinatePartition(np.array([0.0, 0.5, 1.0]), 1)).fit(rows, y)
    assert fitted.predict(rows).dtype == np.float64
    assert np.all(np.isfinite(conformal_scores(rows, "lac")))
    masses = np.array([0.125, 0.25, 0.25, 0.25, 0.125], dtype=np.float32) + np.array([3e-8, 0, 0, 0, 0], dtype=np.float32)
    assert np.all(np.isfinite(roc_qmm_trace(masses, 0.3, 0.8, 3)))


def test_canonical_binning_refuses_rows_of_another_class_count():
    from companion.binning_label_shift import CanonicalBinning, CoordinatePartition

    rows2 = np.array([[0.3, 0.7], [0.6, 0.4], [0.2, 0.8], [0.9, 0.1]])
    fitted = CanonicalBinning(CoordinatePartition(np.array([0.0, 0.5, 1.0]), 1)).fit(rows2, [0, 1, 1, 0])
    with pytest.raises(ValueError, match=r"probs must have one column per fitted class \(2\)"):
        fitted.predict(np.array([[0.2, 0.3, 0.5]]))
    with pytest.raises(ValueError, match="probs"):
        fitted.predict(np.array([[0.2, 0.9]]))


def test_sizes_and_lengths_checks():
    from companion._checks import as_sizes, check_same_length

    with pytest.raises(ValueError, match="n_values must hold numbers, not booleans"):
        as_sizes([True, 5], "n_values")
    with pytest.raises(ValueError, match="at least one named array"):
        check_same_length()
    assert as_sizes(np.array([1000, 3000], dtype=object), "n") == [1000, 3000]


# --- item 18: the unchecked arguments of the issue ---


def test_loglog_fit_checks_its_points():
    from companion._numerics import loglog_fit

    assert np.allclose(loglog_fit([1.0, 0.5, 0.25], [1.0, 2.0, 4.0]), [-1.0])  # a list, slope -1 exactly
    for bad in ([np.nan, 1.0, 2.0], [0.0, 1.0, 2.0], [-1.0, 1.0, 2.0], [np.inf, 1.0, 2.0]):
        with pytest.raises(ValueError, match="response must be"):
            loglog_fit(np.array(bad), np.array([1.0, 2.0, 4.0]))
    with pytest.raises(ValueError, match="response must be 1-dimensional"):
        loglog_fit(np.ones((3, 1)), np.array([1.0, 2.0, 4.0]))
    with pytest.raises(ValueError, match=r"regressors\[0\] must have the length of response"):
        loglog_fit([1.0, 2.0], [1.0, 2.0, 3.0])


def test_display_checks_tables_and_formulas():
    from companion.display import Table, table, typeset

    assert repr(table(["a"], [[10**400]], formats=".3g")).split() == ["a", "1.00e+400"]  # exact, not OverflowError
    with pytest.raises(ValueError, match=r"rows\[0\] must hold LaTeX strings or sympy expressions, got None"):
        typeset(("cap", None))
    for args, name in (((["a"], [[1]], [True], None, None), "cells"), (("a", [["1"]], [True], None, None), "columns"),
                       ((["a"], [["1"]], [1], None, None), "numeric"), ((["a"], [["1"]], [True], 3, None), "caption"),
                       ((["a"], [["1"]], [True], None, "1x"), "label")):
        with pytest.raises(ValueError, match=name):
            Table(*args)


def test_plotting_extremes_and_keywords():
    import matplotlib

    matplotlib.use("Agg")
    from companion.plotting import band_plot, power_of_ten

    assert power_of_ten(5e-324) == r"$4.9\cdot 10^{-324}$" and power_of_ten(9.99e3) == "$10^{4}$"
    assert power_of_ten(1.7e308) == r"$1.7\cdot 10^{308}$" and power_of_ten(3e4) == r"$3\cdot 10^{4}$"
    with pytest.raises(ValueError, match="kw must hold keywords of matplotlib's Axes.plot.*bogus"):
        band_plot(np.arange(4.0), np.arange(12.0).reshape(4, 3), bogus=1)


def test_bbse_bound_needs_a_joint_law():
    from companion.label_shift_weights import bbse_error_bound

    with pytest.raises(ValueError, match="confusion must be a joint law"):
        bbse_error_bound(-np.eye(3) / 3, np.ones(3), 10**6, 10**6, 0.1)
    with pytest.raises(ValueError, match="confusion must be a joint law"):
        bbse_error_bound(np.eye(3), np.ones(3), 10**6, 10**6, 0.1)
    assert np.isfinite(bbse_error_bound(np.eye(3) / 3, np.ones(3), 10**6, 10**6, 0.1))


def test_scaling_calibrator_parameters_are_checked_by_fit():
    # a scikit-learn estimator since issue 38: the constructor stores, fit checks (the record of before is gone)
    from companion.label_shift_weights import ScalingCalibrator

    probs, y = np.array([[0.9, 0.1], [0.6, 0.4], [0.4, 0.6], [0.8, 0.2]]), [0, 0, 1, 1]
    with pytest.raises(ValueError, match="kind must be one of"):
        ScalingCalibrator("nonsense").fit(probs, y)
    with pytest.raises(ValueError, match="gtol must be a real tolerance"):
        ScalingCalibrator("ts", gtol=np.nan).fit(probs, y)
    fitted = ScalingCalibrator("ts").fit(probs, y)
    with pytest.raises(ValueError, match=r"probs must have one column per fitted class \(2\)"):
        fitted.transform(np.array([[0.2, 0.3, 0.5]]))


def test_lp_calibrator_without_high_mass_level_sets_checks_the_class_count():
    from companion.multiclass_lp import LpCalibrator

    rng = np.random.default_rng(0)
    probs = rng.dirichlet([1.0, 1.0, 1.0], size=40)
    fitted = LpCalibrator(0.25, threshold=0.9, noise=False, check_sample_size=False, rng=0).fit(probs, np.arange(40) % 3)
    assert fitted.keys_.size == 0  # no level set reaches mass 0.9
    with pytest.raises(ValueError, match=r"probs must have one column per fitted class \(3\)"):
        fitted.predict(rng.dirichlet([1.0] * 4, size=2))


def test_map_risks_declares_its_public_names():
    import companion.scenarios.map_risks as map_risks

    assert map_risks.__all__ == []  # a mixin of GaussianMixture: its methods are public there
