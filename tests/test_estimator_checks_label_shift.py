"""The book's label-shift recalibrators as scikit-learn estimators (issue 38, item 1) and the many-class partition (item 2).

``parametrize_with_checks`` runs scikit-learn's estimator checks on
:class:`CompositeRecalibrator`, :class:`CanonicalBinning`,
:class:`LabelShiftCanonicalBinning` and :class:`ScalingCalibrator`; every check
they fail is listed below with its reason (the checks feed normal features
and continuous or many-class targets, and these estimators take scores in
[0, 1] or rows of the simplex).  The tests after it can fail: the contract
(clone, get_params, NotFittedError, any labels, DataFrames) and agreement
with the book's computations written out here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn_checks import sklearn_checks

from companion.binning_label_shift import (
    CanonicalBinning,
    CoordinatePartition,
    LabelShiftCanonicalBinning,
    log_ratio_quantile_partition,
    uniform_mass_partition,
)
from companion.label_shift_recalibration import CompositeRecalibrator, prior_correction
from companion.label_shift_weights import ScalingCalibrator, fit_scaling, scale_probabilities
from companion.scenarios import three_class_gaussian

PART = CoordinatePartition([0.0, 0.5, 1.0], coordinate=1)

# ---------------------------------------------------------------------------
# scikit-learn's checks, with every expected failure and its reason
# ---------------------------------------------------------------------------

#: Checks that fit on data outside the estimators' domain (several columns of normal features, continuous or many-class y).
_DOMAIN = (
    "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
    "check_estimators_dtypes", "check_dtype_object", "check_pipeline_consistency", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    "check_dict_unchanged", "check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in",
    "check_fit2d_predict1d", "check_positive_only_tag_during_fit", "check_fit2d_1feature",
)
#: Checks that look for scikit-learn's wording of a refusal; the companion refuses with its own message naming the argument.
_WORDING = (
    "check_complex_data", "check_estimators_empty_data_messages", "check_fit2d_1sample", "check_estimators_nan_inf",
    "check_estimator_sparse_tag", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
)
_REGRESSOR_DOMAIN = ("check_regressors_train", "check_regressor_data_not_an_array", "check_regressors_no_decision_function",
                     "check_supervised_y_2d", "check_regressors_int")
_TRANSFORMER_DOMAIN = ("check_transformer_data_not_an_array", "check_transformer_general", "check_transformer_preserve_dtypes")

_SCORES = ("scores must be one column in [0, 1] (a classifier's probability of the positive class) and y two classes: "
           "the check feeds several columns of normal features, or a continuous or many-class y")
_ROWS = ("probs must be rows of the simplex (a classifier's predict_proba, every entry positive for scaling): the check "
         "feeds normal features")
_MESSAGE = ("the bad input is refused with the companion's ValueError naming the argument (e.g. 'probs must hold "
            "probabilities in [0, 1]'), found before and worded otherwise than the check's expected message")


def _expected_failures(estimator) -> dict:
    if isinstance(estimator, CompositeRecalibrator):
        return {**{c: _SCORES for c in _DOMAIN + _REGRESSOR_DOMAIN}, **{c: _MESSAGE for c in _WORDING}}
    if isinstance(estimator, ScalingCalibrator | CanonicalBinning):
        return {**{c: _ROWS for c in _DOMAIN + _TRANSFORMER_DOMAIN}, **{c: _MESSAGE for c in _WORDING}}
    return {}


ESTIMATORS = [
    CompositeRecalibrator(target_prior=0.3),
    CanonicalBinning(partition=PART),
    LabelShiftCanonicalBinning(partition=PART, weights=[0.5, 2.0]),
    ScalingCalibrator(),
]


@sklearn_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _binary(n=600, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.random(n)
    y = (rng.random(n) < z).astype(int)
    return z, y


def _rows(n=900, seed=1):
    sc = three_class_gaussian()
    x, y = sc.sample(n, seed, "source")
    return sc.posterior(x), y


def _fitted(est):
    """Fit ``est`` on data of its kind; return it, the data it predicts on, and the integer labels."""
    if isinstance(est, CompositeRecalibrator):
        z, y = _binary()
        return est.fit(z, y), z, y
    probs, y = _two_column_rows() if isinstance(est, CanonicalBinning) else _rows()  # PART bins two-column rows
    return est.fit(probs, y), probs, y


def _two_column_rows(n=600, seed=2):
    z, y = _binary(n, seed)
    return np.column_stack((1.0 - z, z)), y


def _apply(est, data):
    return est.predict(data) if isinstance(est, CompositeRecalibrator) else est.transform(data)


def _fresh():
    return [clone(e) for e in ESTIMATORS]


_IDS = [type(e).__name__ for e in ESTIMATORS]

# ---------------------------------------------------------------------------
# The contract
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("est", _fresh(), ids=_IDS)
def test_clone_and_get_params_round_trip(est):
    params = est.get_params()
    copy = clone(est)
    assert type(copy) is type(est) and set(copy.get_params()) == set(params)
    for name, value in params.items():
        got = copy.get_params()[name]
        if isinstance(value, CoordinatePartition):
            assert got is not value and np.array_equal(got.edges, value.edges)  # a deep copy
        else:
            assert np.array_equal(np.asarray(got), np.asarray(value)) if value is not None else got is None
    name = next(iter(params))
    assert copy.set_params(**{name: params[name]}) is copy
    fitted, data, _ = _fitted(clone(est))
    again = clone(fitted)
    assert not any(k.endswith("_") and not k.startswith("_") for k in vars(again))  # clone drops the fit
    np.testing.assert_array_equal(_apply(_fitted(again)[0], data), _apply(fitted, data))


@pytest.mark.parametrize("est", _fresh(), ids=_IDS)
def test_not_fitted_error_before_fit(est):
    data = np.array([0.2, 0.7]) if isinstance(est, CompositeRecalibrator) else np.array([[0.4, 0.6], [0.7, 0.3]])
    with pytest.raises(NotFittedError):
        _apply(est, data)
    if isinstance(est, CanonicalBinning | ScalingCalibrator):
        with pytest.raises(NotFittedError):
            est.predict(data)


@pytest.mark.parametrize("est", _fresh(), ids=_IDS)
def test_string_labels_give_the_same_probabilities_as_integer_labels(est):
    fitted, data, y = _fitted(clone(est))
    names = np.array(["apple", "banana", "cherry"])  # sorted as the codes 0, 1, 2
    refit = clone(est).fit(data, names[y])
    np.testing.assert_array_equal(_apply(refit, data), _apply(fitted, data))
    assert refit.classes_.tolist() == names[: refit.classes_.size].tolist()


@pytest.mark.parametrize("est", _fresh(), ids=_IDS)
def test_a_dataframe_gives_the_same_as_an_array(est):
    fitted, data, y = _fitted(clone(est))
    frame = pd.DataFrame(data[:, None] if data.ndim == 1 else data, columns=None)
    refit = clone(est).fit(frame, pd.Series(y))
    np.testing.assert_array_equal(_apply(refit, frame), _apply(fitted, data))


def test_a_score_column_is_one_column_only():
    z, y = _binary()
    model = CompositeRecalibrator(target_prior=0.3).fit(z[:, None], y)
    np.testing.assert_array_equal(model.predict(z[:, None]), model.predict(z))
    with pytest.raises(ValueError, match=r"z_source must be 1-D or one column"):
        CompositeRecalibrator(target_prior=0.3).fit(np.column_stack((z, z)), y)


# ---------------------------------------------------------------------------
# CompositeRecalibrator: the book's computation, and the target prior given or estimated
# ---------------------------------------------------------------------------


def test_composite_equals_prior_correction_of_uniform_mass_bin_means():
    z_s, y_s = _binary(900, 3)
    y_t = (np.random.default_rng(4).random(300) < 0.2).astype(int)
    n_bins = 9  # cube root of 900 rounded down
    model = CompositeRecalibrator().fit(z_s, y_s, y_t)
    # uniform-mass binning written out (def-umb): edges at the order statistics z_(floor(n b / B)), bins (e_{b-1}, e_b]
    s = np.sort(z_s)
    edges = np.concatenate(([0.0], s[(z_s.size * np.arange(1, n_bins)) // n_bins - 1], [1.0]))
    bins = np.searchsorted(edges[1:-1], z_s, side="left")
    means = np.array([y_s[bins == b].mean() for b in range(n_bins)])
    np.testing.assert_array_equal(model.edges_, edges)
    expected = prior_correction(means, y_s.mean(), y_t.mean())  # alg-ls-composite, step 3
    np.testing.assert_allclose(model.values_, expected, rtol=1e-15)
    z_new = np.random.default_rng(5).random(50)
    np.testing.assert_allclose(model.predict(z_new), expected[np.searchsorted(edges[1:-1], z_new, side="left")], rtol=1e-15)


def test_y_target_and_target_prior_equal_to_its_mean_give_the_same():
    z_s, y_s = _binary(500, 6)
    y_t = np.array([0, 0, 0, 1, 0, 1, 0, 0])
    a = CompositeRecalibrator(n_bins=5).fit(z_s, y_s, y_t)
    b = CompositeRecalibrator(n_bins=5, target_prior=y_t.mean()).fit(z_s, y_s)
    np.testing.assert_array_equal(a.values_, b.values_)
    assert a.target_prior_ == b.target_prior_ == 0.25


def test_target_prior_neither_or_both_is_refused():
    z_s, y_s = _binary(100, 7)
    with pytest.raises(ValueError, match="give y_target or target_prior"):
        CompositeRecalibrator().fit(z_s, y_s)
    with pytest.raises(ValueError, match="give y_target or target_prior, not both"):
        CompositeRecalibrator(target_prior=0.3).fit(z_s, y_s, y_s)
    with pytest.raises(ValueError, match="target_prior must"):
        CompositeRecalibrator(target_prior=1.5).fit(z_s, y_s)


def test_composite_positive_class_is_the_larger_label():
    z_s, y_s = _binary(400, 8)
    ints = CompositeRecalibrator(target_prior=0.3).fit(z_s, y_s)
    flipped = CompositeRecalibrator(target_prior=0.3).fit(z_s, np.where(y_s == 1, 5, -5))
    np.testing.assert_array_equal(flipped.predict(z_s), ints.predict(z_s))
    with pytest.raises(ValueError, match="y_source must hold class labels"):
        CompositeRecalibrator(target_prior=0.3).fit(z_s, y_s + 0.5)
    with pytest.raises(ValueError, match="exactly two classes"):
        CompositeRecalibrator(target_prior=0.3).fit(z_s, np.arange(z_s.size) % 3)


# ---------------------------------------------------------------------------
# Canonical binning: class counts per cell written out
# ---------------------------------------------------------------------------


def test_canonical_binning_equals_class_counts_per_cell():
    probs, y = _rows(3000, 9)
    part = log_ratio_quantile_partition(probs, 16)
    assert part.shape == (4, 4)
    # the cells written out: u_j = log p_j - log p_0 (as A log p, so edge points round alike), per-axis search, C order
    assert np.array_equal(part.contrasts, [[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])
    u = np.log(probs) @ part.contrasts.T
    idx = [np.searchsorted(e[1:-1], u[:, r], side="left") for r, e in enumerate(part.edges)]
    cell = np.ravel_multi_index(tuple(idx), part.shape)
    bins = part.cell_to_bin[cell]
    np.testing.assert_array_equal(part.assign(probs), bins)
    counts = np.zeros((part.n_bins, 3))
    for b, label in zip(bins, y):
        counts[b, label] += 1
    model = CanonicalBinning(part).fit(probs, y)
    np.testing.assert_array_equal(model.class_counts_, counts)
    np.testing.assert_allclose(model.transform(probs), (counts / counts.sum(1, keepdims=True))[bins], rtol=1e-15)
    w = np.array([3.0, 1 / 3, 5 / 3])
    shifted = LabelShiftCanonicalBinning(part, weights=w).fit(probs, y)
    moved = counts * w
    np.testing.assert_allclose(shifted.transform(probs), (moved / moved.sum(1, keepdims=True))[bins], rtol=1e-14)
    # fit's weights take precedence over the constructor's
    np.testing.assert_array_equal(LabelShiftCanonicalBinning(part, weights=[1.0, 1.0, 1.0]).fit(probs, y, w).frequencies_,
                                  shifted.frequencies_)
    with pytest.raises(ValueError, match="weights must be given"):
        LabelShiftCanonicalBinning(part).fit(probs, y)


def test_scaling_calibrator_is_fit_scaling_and_at_the_optimum():
    probs, y = _rows(2000, 10)
    distorted = scale_probabilities(probs, 1.7, [0.0, 0.3, -0.2])
    cal = ScalingCalibrator("bcts").fit(distorted, y)
    book = fit_scaling(distorted, y, "bcts")
    np.testing.assert_array_equal(cal.slope_, book.slope_)
    np.testing.assert_array_equal(cal.bias_, book.bias_)
    # first-order conditions of the mean NLL, written out: d/db_y and d/da vanish at the optimum
    s = cal.transform(distorted)
    resid = s - np.eye(3)[y]
    np.testing.assert_allclose(resid[:, 1:].mean(axis=0), 0.0, atol=1e-9)
    assert abs(np.mean(np.sum(resid * np.log(distorted), axis=1))) < 1e-9
    assert cal.temperature_ == pytest.approx(1.0 / cal.slope_[0])


# ---------------------------------------------------------------------------
# Many classes (item 2): the new partition against column-1 uniform mass
# ---------------------------------------------------------------------------


def test_uniform_mass_partition_refuses_more_than_two_columns():
    probs, _ = _rows(100, 11)
    with pytest.raises(ValueError, match=r"probs must have two columns.*log_ratio_quantile_partition"):
        uniform_mass_partition(probs, 4)


def _brier(p, y):
    return float(np.mean(np.sum((p - np.eye(p.shape[1])[y]) ** 2, axis=1)))


def k3_target_brier(n_cal=20_000, n_test=200_000, n_bins=16, seed=38) -> dict:
    """Target Brier scores on the three-class Gaussian of paper 001 (p = (0.1, 0.6, 0.3), q = (0.3, 0.2, 0.5)).

    The classifier is the exact source posterior; the corrected binnings use
    the oracle weights q/p and ``n_bins`` bins fitted on ``n_cal`` labelled
    source points; the scores are on ``n_test`` target points.
    """
    sc = three_class_gaussian()
    rng = np.random.default_rng(seed)
    x, y = sc.sample(n_cal, rng, "source")
    xt, yt = sc.sample(n_test, rng, "target")
    p, pt = sc.posterior(x), sc.posterior(xt)
    s = np.sort(p[:, 1])  # what uniform_mass_partition did for k > 2: uniform-mass edges of column 1 alone
    col1 = CoordinatePartition(np.concatenate(([0.0], s[(s.size * np.arange(1, n_bins)) // n_bins - 1], [1.0])), 1)
    out = {"uncorrected": _brier(pt, yt), "bayes": _brier(sc.posterior(xt, "target"), yt)}
    for name, part in (("column1_uniform_mass", col1), ("log_ratio_quantile", log_ratio_quantile_partition(p, n_bins))):
        out[name] = _brier(LabelShiftCanonicalBinning(part, weights=sc.weights).fit(p, y).transform(pt), yt)
    return out


def test_the_log_ratio_quantile_partition_beats_column_one_and_no_correction():
    # 2e5 target points: the standard error of each Brier difference is about 1e-3, the gaps are about 0.1
    b = k3_target_brier()
    assert b["log_ratio_quantile"] < b["uncorrected"] - 0.05
    assert b["log_ratio_quantile"] < b["column1_uniform_mass"] - 0.05
    assert b["column1_uniform_mass"] > b["uncorrected"]  # the finding: column 1 alone is worse than nothing
    assert b["log_ratio_quantile"] > b["bayes"] - 2e-3  # and no binning beats the target's Bayes posterior


def test_empty_grid_cells_are_merged_into_a_neighbour():
    # classes 0 and 1 share their score (log(p_1/p_0) = 0): the first axis has one value, half its grid cells are empty
    z = np.linspace(0.1, 0.9, 400)
    probs = np.column_stack((z / 2, z / 2, 1 - z))
    part = log_ratio_quantile_partition(probs, 16)
    counts = np.bincount(part.assign(probs), minlength=part.n_bins)
    assert part.n_bins < 16 and counts.min() > 0
    CanonicalBinning(part).fit(probs, np.arange(400) % 3)  # no empty bin


def test_the_transformers_chain_in_a_pipeline_and_the_composite_in_a_grid_search():
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    probs, y = _two_column_rows(800, 12)
    pipe = make_pipeline(ScalingCalibrator("bcts"), LabelShiftCanonicalBinning(PART, weights=[0.5, 2.0])).fit(probs, y)
    by_hand = ScalingCalibrator("bcts").fit(probs, y)
    scaled = by_hand.transform(probs)
    expected = LabelShiftCanonicalBinning(PART, weights=[0.5, 2.0]).fit(scaled, y).transform(scaled)
    np.testing.assert_array_equal(pipe.transform(probs), expected)
    # the number of bins chosen by cross-validation (R^2 of the recalibrated scores on held-out source folds)
    z, yz = _binary(900, 13)
    search = GridSearchCV(CompositeRecalibrator(target_prior=float(yz.mean())), {"n_bins": [2, 5, 9]}, cv=3).fit(z[:, None], yz)
    assert search.best_params_["n_bins"] in (2, 5, 9) and search.best_estimator_.binning_.values_.size == search.best_params_["n_bins"]
