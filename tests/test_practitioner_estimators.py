"""The practitioner's estimators (companion.estimators, issue 38 item 1) against independent references.

* the estimated target prior lies within 4 standard errors of the true one, the standard error
  computed here from the Fisher information of the label-shift likelihood (MLLS) or the delta
  method of the moment equations (BBSE), with the scenario's exact posteriors;
* the recalibrated probabilities have a lower target Brier score than the classifier's own;
* with a known target prior the estimators equal the book's functions called by hand;
* weighted conformal sets cover the target label with frequency >= 1 - alpha minus a Monte Carlo
  margin over many seeded repetitions, and with weights all ones they are split conformal sets;
* scikit-learn's conventions: clone, NotFittedError, string labels, DataFrames, Pipeline,
  GridSearchCV, and ``parametrize_with_checks`` with every expected failure and its reason.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn_checks import sklearn_checks

from companion.binning_label_shift.canonical_binning import (
    LabelShiftCanonicalBinning,
    log_ratio_quantile_partition,
    uniform_mass_partition,
)
from companion.calibration_sharpness.binning import UniformMassBinning
from companion.conformal_label_shift.scores import conformal_scores, true_label_scores
from companion.conformal_label_shift.thresholds import (
    label_conditional_thresholds,
    prediction_sets,
    split_threshold,
    weighted_thresholds,
)
from companion.estimators import LabelShiftCalibratedClassifier, TargetPriorEstimator, WeightedConformalClassifier
from companion.label_shift_recalibration.recalibration import cube_root_bins, prior_correction
from companion.label_shift_weights.correction import posterior_correction
from companion.label_shift_weights.estimators import bbse, mlls, rlls
from companion.label_shift_weights.scaling import fit_scaling
from companion.scenarios import three_class_gaussian, two_class_gaussian

SCENARIOS = {"two": two_class_gaussian, "three": three_class_gaussian}


def _world(name: str, n_train: int, n_cal: int, n_target: int, seed: int):
    """A logistic regression fitted on a source sample, a source calibration sample and a target sample."""
    sc = SCENARIOS[name]()
    rng = np.random.default_rng(seed)
    x_tr, y_tr = sc.sample(n_train, rng)
    x_cal, y_cal = sc.sample(n_cal, rng)
    x_t, y_t = sc.sample(n_target, rng, "target")
    model = LogisticRegression().fit(x_tr, y_tr)
    return sc, model, (x_cal, y_cal), (x_t, y_t)


def _brier(probs: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.sum((probs - np.eye(probs.shape[1])[y]) ** 2, axis=1)))


# ---------------------------------------------------------------------------
# The target prior within its sampling error
# ---------------------------------------------------------------------------


def _mlls_standard_errors(sc, x_target) -> np.ndarray:
    """Standard errors of the MLLS prior from the Fisher information of the target likelihood (exact posteriors).

    With q free in q_1..q_{k-1} (q_0 = 1 - sum), the score of one target point is
    (eta_j / p_j - eta_0 / p_0) / sum_y q_y eta_y / p_y; Cov(q_hat) ~ I^{-1} / n.  This is the target
    side alone; the tests take four times as many source points as target points, and the bound of
    4 standard errors leaves room for the source side (BCTS and p_hat), which is not counted here.
    """
    eta, p, q = sc.posterior(x_target), sc.prior("source"), sc.prior("target")
    ratio = eta / p
    score = (ratio[:, 1:] - ratio[:, :1]) / (ratio @ q)[:, None]
    cov = np.linalg.inv(score.T @ score / len(x_target)) / len(x_target)
    full = np.vstack([-np.ones(len(q) - 1), np.eye(len(q) - 1)])  # q = e_0 + A q_{1:}
    return np.sqrt(np.diag(full @ cov @ full.T))


def _bbse_standard_errors(sc, probs_source, y_source, probs_target) -> np.ndarray:
    """Delta-method standard errors of BBSE-soft's prior q_hat = M_hat^{-1} nu_hat (M_j = E[phi | Y = j], nu = M q).

    q_hat - q ~ M^{-1} [(nu_hat - nu) - (M_hat - M) q], so
    Cov(q_hat) ~ M^{-1} [Cov_Q(phi) / n_Q + sum_j q_j^2 Cov(phi | Y = j) / n_j] M^{-T}.
    """
    k, q = probs_source.shape[1], sc.prior("target")
    M = np.column_stack([probs_source[y_source == j].mean(axis=0) for j in range(k)])
    middle = np.cov(probs_target.T) / len(probs_target)
    for j in range(k):
        rows = probs_source[y_source == j]
        middle = middle + q[j] ** 2 * np.cov(rows.T) / len(rows)
    Minv = np.linalg.inv(M)
    return np.sqrt(np.diag(Minv @ middle @ Minv.T))


@pytest.mark.parametrize("name", ["two", "three"])
def test_mlls_prior_within_four_standard_errors(name):
    sc, model, (x_cal, y_cal), (x_t, _) = _world(name, 4000, 20000, 5000, seed=11)
    est = TargetPriorEstimator(model).fit(x_cal, y_cal, x_t)
    se = _mlls_standard_errors(sc, x_t)
    error = np.abs(est.target_prior_ - sc.prior("target"))
    assert np.all(error <= 4 * se), (error, se)
    assert est.diagnostics_["n_iter"] > 1 and est.diagnostics_["calibrator"] is not None
    np.testing.assert_allclose(est.weights_, est.target_prior_ / est.source_prior_)
    np.testing.assert_array_equal(est.classes_, np.arange(sc.n_classes))


@pytest.mark.parametrize("name", ["two", "three"])
def test_bbse_prior_within_four_standard_errors(name):
    sc, model, (x_cal, y_cal), (x_t, _) = _world(name, 4000, 20000, 5000, seed=12)
    est = TargetPriorEstimator(model, method="bbse").fit(x_cal, y_cal, x_t)
    se = _bbse_standard_errors(sc, model.predict_proba(x_cal), y_cal, model.predict_proba(x_t))
    error = np.abs(est.target_prior_ - sc.prior("target"))
    assert np.all(error <= 4 * se), (error, se)
    assert 1 <= est.diagnostics_["condition_number"] < 100


def test_every_prior_method_equals_the_book_function():
    sc, model, (x_cal, y_cal), (x_t, _) = _world("three", 2000, 3000, 2000, seed=13)
    ps, pt = model.predict_proba(x_cal), model.predict_proba(x_t)
    refs = {"mlls": mlls(ps, y_cal, pt, calibration="bcts"), "bbse": bbse(ps, y_cal, pt, soft=True, negative="clip"),
            "bbse-hard": bbse(ps, y_cal, pt, negative="clip"), "rlls": rlls(ps, y_cal, pt, 1 / np.sqrt(3000), soft=True)}
    for method, ref in refs.items():
        est = TargetPriorEstimator(model, method=method).fit(x_cal, y_cal, x_t)
        np.testing.assert_array_equal(est.target_prior_, ref.target_prior, err_msg=method)
        np.testing.assert_array_equal(est.weights_, ref.weights, err_msg=method)
    mlls_none = TargetPriorEstimator(model, calibration=None).fit(x_cal, y_cal, x_t)
    np.testing.assert_array_equal(mlls_none.target_prior_, mlls(ps, y_cal, pt).target_prior)


# ---------------------------------------------------------------------------
# Recalibrated probabilities: lower target Brier score; the book's functions by hand
# ---------------------------------------------------------------------------

#: (scenario, method) -> the target Brier scores found (before, after); filled by the test, printed for the report
BRIER: dict = {}


@pytest.mark.parametrize(("name", "method"), [("two", "composite"), ("two", "canonical"), ("two", "bcts"),
                                              ("three", "canonical"), ("three", "bcts")])
def test_recalibration_lowers_the_target_brier_score(name, method):
    sc, model, (x_cal, y_cal), (x_t, y_t) = _world(name, 2000, 5000, 5000, seed=21)
    x_test, y_test = sc.sample(20000, np.random.default_rng(22), "target")
    clf = LabelShiftCalibratedClassifier(model, method=method).fit(x_cal, y_cal, x_t)
    before, after = _brier(model.predict_proba(x_test), y_test), _brier(clf.predict_proba(x_test), y_test)
    BRIER[name, method] = (before, after)
    # the standard error of a difference of Brier scores on 20000 points is below 0.002 here
    assert after < before - 0.005, (before, after)
    oracle = _brier(sc.posterior(x_test, "target"), y_test)
    assert after < oracle + 0.5 * (before - oracle), (oracle, before, after)  # most of the way to the Bayes posterior


def _known(name):
    sc, model, (x_cal, y_cal), _ = _world(name, 2000, 3000, 10, seed=31)
    x_test, _ = sc.sample(500, np.random.default_rng(32), "target")
    p = np.bincount(y_cal) / y_cal.size
    return sc.prior("target"), p, model, model.predict_proba(x_cal), y_cal, x_cal, model.predict_proba(x_test), x_test


def test_known_prior_composite_equals_binning_and_prior_correction_by_hand():
    q, p, model, ps, y, x_cal, pt, x_test = _known("two")
    clf = LabelShiftCalibratedClassifier(model, method="composite", target_prior=q, n_bins=12).fit(x_cal, y)
    by_hand = prior_correction(UniformMassBinning(12).fit(ps[:, 1], y).predict(pt[:, 1]), p[1], q[1])
    np.testing.assert_allclose(clf.predict_proba(x_test)[:, 1], by_hand, rtol=0, atol=1e-15)
    np.testing.assert_allclose(clf.predict_proba(x_test).sum(axis=1), 1.0)
    assert clf.prior_estimator_ is None and np.array_equal(clf.target_prior_, q)


@pytest.mark.parametrize("name", ["two", "three"])
def test_known_prior_canonical_equals_label_shift_canonical_binning_by_hand(name):
    q, p, model, ps, y, x_cal, pt, x_test = _known(name)
    clf = LabelShiftCalibratedClassifier(model, method="canonical", target_prior=q).fit(x_cal, y)
    n_bins = cube_root_bins(y.size)
    partition = uniform_mass_partition(ps, n_bins) if name == "two" else log_ratio_quantile_partition(ps, n_bins)
    by_hand = LabelShiftCanonicalBinning(partition).fit(ps, y, q / p).predict(pt)
    np.testing.assert_array_equal(clf.predict_proba(x_test), by_hand)


@pytest.mark.parametrize("name", ["two", "three"])
def test_known_prior_bcts_equals_scaling_and_bayes_correction_by_hand(name):
    q, p, model, ps, y, x_cal, pt, x_test = _known(name)
    clf = LabelShiftCalibratedClassifier(model, method="bcts", target_prior=q).fit(x_cal, y)
    by_hand = posterior_correction(fit_scaling(ps, y, "bcts").transform(pt), q / p)
    np.testing.assert_array_equal(clf.predict_proba(x_test), by_hand)
    np.testing.assert_array_equal(clf.predict(x_test), np.argmax(by_hand, axis=1))


def test_binary_composite_and_canonical_agree():
    # two routes through the book to the same estimator: prior_correction of bin means = posterior_correction of bin frequencies
    q, p, model, ps, y, x_cal, pt, x_test = _known("two")
    a = LabelShiftCalibratedClassifier(model, method="composite", target_prior=q).fit(x_cal, y).predict_proba(x_test)
    b = LabelShiftCalibratedClassifier(model, method="canonical", target_prior=q).fit(x_cal, y).predict_proba(x_test)
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_estimated_prior_path_uses_the_prior_estimator():
    sc, model, (x_cal, y_cal), (x_t, _) = _world("three", 2000, 3000, 2000, seed=41)
    clf = LabelShiftCalibratedClassifier(model, method="bcts", prior="bbse").fit(x_cal, y_cal, x_t)
    ref = TargetPriorEstimator(model, method="bbse").fit(x_cal, y_cal, x_t)
    np.testing.assert_array_equal(clf.target_prior_, ref.target_prior_)
    assert clf.prior_estimator_.method == "bbse"


@pytest.mark.parametrize("bad", [[0.5, 0.6], [0.2, 0.3, 0.5], [1.5, -0.5], "half", [np.nan, 1.0]])
def test_a_target_prior_that_is_not_a_probability_vector_is_refused(bad):
    q, p, model, ps, y, x_cal, pt, x_test = _known("two")
    with pytest.raises(ValueError, match="target_prior"):
        LabelShiftCalibratedClassifier(model, method="bcts", target_prior=bad).fit(x_cal, y)


def test_composite_refuses_more_than_two_classes_and_target_information_is_required():
    q, p, model, ps, y, x_cal, pt, x_test = _known("three")
    with pytest.raises(ValueError, match="two classes"):
        LabelShiftCalibratedClassifier(model, method="composite", target_prior=q).fit(x_cal, y)
    with pytest.raises(ValueError, match="X_target.*target_prior"):
        LabelShiftCalibratedClassifier(model, method="bcts").fit(x_cal, y)
    with pytest.raises(ValueError, match="not both"):
        LabelShiftCalibratedClassifier(model, method="bcts", target_prior=q).fit(x_cal, y, x_test)


# ---------------------------------------------------------------------------
# Conformal sets: coverage under label shift, and the book's functions by hand
# ---------------------------------------------------------------------------

#: label -> (mean target coverage over the repetitions, its Monte Carlo standard error); for the report
COVERAGE: dict = {}


@pytest.mark.parametrize(("label", "kwargs"), [("oracle weights", {"weights": "oracle"}),
                                               ("mlls weights", {"weights": "mlls"}),
                                               ("label-conditional", {"label_conditional": True})])
def test_weighted_conformal_covers_the_target(label, kwargs):
    sc, model, _, _ = _world("three", 3000, 10, 10, seed=51)
    alpha, reps, n_cal, n_test = 0.1, 300, 300, 200
    rng = np.random.default_rng(52)
    x_cal, y_cal = sc.sample(n_cal, rng, size=(reps,))
    x_t, y_t = sc.sample(n_test, rng, "target", size=(reps,))
    if kwargs.get("weights") == "oracle":
        kwargs = {"weights": sc.weights}
    cover = np.empty(reps)
    for r in range(reps):  # a loop over repetitions, each a fit on a fresh calibration sample
        target = x_t[r] if label == "mlls weights" else None  # X_target only to estimate the weights
        cp = WeightedConformalClassifier(model, alpha=alpha, **kwargs).fit(x_cal[r], y_cal[r], target)
        cover[r] = cp.predict_set(x_t[r])[np.arange(n_test), y_t[r]].mean()
    mean, se = cover.mean(), cover.std(ddof=1) / np.sqrt(reps)
    COVERAGE[label] = (mean, se)
    assert mean >= 1 - alpha - 3 * se, (mean, se)  # the guarantee is >= 1 - alpha (oracle weights, label-conditional)
    assert mean <= 1 - alpha + 0.05  # and the sets are not trivially large


def test_unweighted_split_sets_miss_the_target_coverage_that_weights_restore():
    # the shift matters: the unweighted (split) sets under-cover the target class 0 (weight 3), the weighted ones do not
    sc, model, _, _ = _world("three", 3000, 10, 10, seed=53)
    rng = np.random.default_rng(54)
    x_cal, y_cal = sc.sample(2000, rng)
    x_t, y_t = sc.sample(20000, rng, "target")
    split = WeightedConformalClassifier(model, alpha=0.1, weights=np.ones(3)).fit(x_cal, y_cal)
    weighted = WeightedConformalClassifier(model, alpha=0.1, weights=sc.weights).fit(x_cal, y_cal)
    hit = {n: m.predict_set(x_t)[np.arange(y_t.size), y_t] for n, m in (("split", split), ("weighted", weighted))}
    assert hit["split"][y_t == 0].mean() < hit["weighted"][y_t == 0].mean()
    assert hit["weighted"].mean() >= 0.9 - 0.01  # 20000 points: a standard error of 0.002


def test_weights_all_ones_give_split_conformal_sets():
    sc, model, (x_cal, y_cal), (x_t, _) = _world("three", 2000, 800, 500, seed=55)
    cp = WeightedConformalClassifier(model, alpha=0.1, weights=np.ones(3)).fit(x_cal, y_cal)
    cal_scores = true_label_scores(conformal_scores(model.predict_proba(x_cal), "lac"), y_cal)
    by_hand = prediction_sets(conformal_scores(model.predict_proba(x_t), "lac"), split_threshold(cal_scores, 0.1))
    np.testing.assert_array_equal(cp.predict_set(x_t), by_hand)


@pytest.mark.parametrize("score", ["lac", "rho"])
def test_weighted_and_label_conditional_thresholds_equal_the_book_functions(score):
    sc, model, (x_cal, y_cal), (x_t, _) = _world("three", 2000, 800, 500, seed=56)
    cal_scores = true_label_scores(conformal_scores(model.predict_proba(x_cal), score), y_cal)
    test_scores = conformal_scores(model.predict_proba(x_t), score)
    w = TargetPriorEstimator(model).fit(x_cal, y_cal, x_t).weights_
    cp = WeightedConformalClassifier(model, alpha=0.1, conformity_score=score).fit(x_cal, y_cal, x_t)
    np.testing.assert_array_equal(cp.weights_, w)
    np.testing.assert_array_equal(cp.thresholds_, weighted_thresholds(cal_scores, y_cal, w, 0.1))
    np.testing.assert_array_equal(cp.predict_set(x_t), prediction_sets(test_scores, cp.thresholds_))
    lc = WeightedConformalClassifier(model, alpha=0.1, label_conditional=True, conformity_score=score).fit(x_cal, y_cal)
    np.testing.assert_array_equal(lc.thresholds_, label_conditional_thresholds(cal_scores, y_cal, 0.1, n_classes=3))
    assert lc.weights_ is None


# ---------------------------------------------------------------------------
# scikit-learn's conventions
# ---------------------------------------------------------------------------


def _binary_data(seed=0):
    X, y = make_classification(3000, n_features=6, n_informative=4, class_sep=1.5, random_state=seed)
    model = LogisticRegression().fit(X[:1000], y[:1000])
    x_new, y_new = X[2000:], y[2000:]
    x_t = np.vstack([x_new[y_new == 0][:150], x_new[y_new == 1][:350]])
    return model, X[1000:2000], y[1000:2000], x_t


ALL = [TargetPriorEstimator, LabelShiftCalibratedClassifier, WeightedConformalClassifier]


@pytest.mark.parametrize("cls", ALL)
def test_clone_and_params_round_trip(cls):
    model = _binary_data()[0]
    est = cls(model)
    params = est.get_params(deep=False)
    assert params["estimator"] is model
    twin = clone(est)
    assert twin.get_params(deep=False).keys() == params.keys() and twin.estimator is not model
    assert not hasattr(twin.estimator, "coef_")  # clone copies the wrapped model unfitted, as for every meta-estimator
    frozen = cls(FrozenEstimator(model))
    assert clone(frozen).estimator.estimator is model  # frozen: clone keeps the fitted model
    other = {"method": "bbse"} if cls is not WeightedConformalClassifier else {"alpha": 0.2}
    assert est.set_params(**other) is est and est.get_params()[next(iter(other))] == next(iter(other.values()))


def test_not_fitted_errors():
    model, x_cal, y_cal, x_t = _binary_data()
    with pytest.raises(NotFittedError):
        LabelShiftCalibratedClassifier(model).predict_proba(x_t)
    with pytest.raises(NotFittedError):
        LabelShiftCalibratedClassifier(model).predict(x_t)
    with pytest.raises(NotFittedError):
        WeightedConformalClassifier(model).predict_set(x_t)
    with pytest.raises(NotFittedError):  # the wrapped classifier must be fitted
        TargetPriorEstimator(LogisticRegression()).fit(x_cal, y_cal, x_t)


def test_a_classifier_whose_classes_differ_from_the_labels_is_refused():
    model, x_cal, y_cal, x_t = _binary_data()
    with pytest.raises(ValueError, match="estimator.classes_"):
        TargetPriorEstimator(model).fit(x_cal, np.where(y_cal == 1, 2, 0), x_t)


def _fits(X_fit, y_fit, x_cal, y_cal, x_t):
    model = LogisticRegression().fit(X_fit, y_fit)
    return (TargetPriorEstimator(model).fit(x_cal, y_cal, x_t).target_prior_,
            LabelShiftCalibratedClassifier(model, method="composite").fit(x_cal, y_cal, x_t).predict_proba(x_t),
            WeightedConformalClassifier(model).fit(x_cal, y_cal, x_t).predict_set(x_t))


def test_string_labels_give_the_same_results_as_integer_labels():
    X, y = make_classification(3000, n_features=6, n_informative=4, class_sep=1.5, random_state=1)
    names = np.array(["cat", "dog"])
    as_int = _fits(X[:1000], y[:1000], X[1000:2000], y[1000:2000], X[2000:2500])
    as_str = _fits(X[:1000], names[y[:1000]], X[1000:2000], names[y[1000:2000]], X[2000:2500])
    for a, b in zip(as_int, as_str):
        np.testing.assert_array_equal(a, b)
    model = LogisticRegression().fit(X[:1000], names[y[:1000]])
    clf = LabelShiftCalibratedClassifier(model, method="bcts").fit(X[1000:2000], names[y[1000:2000]], X[2000:2500])
    assert clf.classes_.tolist() == ["cat", "dog"] and set(clf.predict(X[2000:2100])) <= {"cat", "dog"}


def test_dataframes_give_the_same_results_as_arrays():
    X, y = make_classification(3000, n_features=6, n_informative=4, class_sep=1.5, random_state=2)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    series = pd.Series(y, name="label")
    as_array = _fits(X[:1000], y[:1000], X[1000:2000], y[1000:2000], X[2000:2500])
    as_frame = _fits(frame.iloc[:1000], series.iloc[:1000], frame.iloc[1000:2000], series.iloc[1000:2000], frame.iloc[2000:2500])
    for a, b in zip(as_array, as_frame):  # LogisticRegression on a (column-major) frame differs in the last bit
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def test_probability_rows_as_a_dataframe_with_estimator_none():
    model, x_cal, y_cal, x_t = _binary_data()
    ps, pt = model.predict_proba(x_cal), model.predict_proba(x_t)
    a = LabelShiftCalibratedClassifier(method="bcts").fit(ps, y_cal, pt).predict_proba(pt)
    b = LabelShiftCalibratedClassifier(method="bcts").fit(pd.DataFrame(ps, columns=["p0", "p1"]), list(y_cal),
                                                          pd.DataFrame(pt, columns=["p0", "p1"]))
    np.testing.assert_array_equal(a, b.predict_proba(pd.DataFrame(pt, columns=["p0", "p1"])))
    c = LabelShiftCalibratedClassifier(model, method="bcts").fit(x_cal, y_cal, x_t).predict_proba(x_t)
    np.testing.assert_array_equal(a, c)  # the wrapped classifier and its rows give the same result


def test_a_fitted_pipeline_is_wrapped():
    X, y = make_classification(3000, n_features=6, n_informative=4, class_sep=1.5, random_state=3)
    X = X * 100 + 50  # scaled features: the pipeline standardises them
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:1000], y[:1000])
    x_new, y_new = X[2000:], y[2000:]
    x_t = np.vstack([x_new[y_new == 0][:150], x_new[y_new == 1][:450]])
    y_t = np.repeat([0, 1], [150, 450])
    clf = LabelShiftCalibratedClassifier(pipe, method="bcts").fit(X[1000:2000], y[1000:2000], x_t)
    assert abs(clf.target_prior_[1] - 0.75) < 0.06
    assert _brier(clf.predict_proba(x_t), y_t) < _brier(pipe.predict_proba(x_t), y_t)
    assert clf.score(x_t, y_t) >= pipe.score(x_t, y_t) - 0.01  # ClassifierMixin's accuracy


def test_grid_search_over_n_bins():
    # with a known target prior the classifier is an ordinary scikit-learn classifier: cross-validate its bins
    model, x_cal, y_cal, _ = _binary_data()
    p = np.bincount(y_cal) / y_cal.size
    frozen = FrozenEstimator(model)  # clone (in GridSearchCV) would otherwise hand over an unfitted copy of the model
    search = GridSearchCV(LabelShiftCalibratedClassifier(frozen, method="composite", target_prior=p),
                          {"n_bins": [2, 5, 10, 40]}, scoring="neg_brier_score", cv=5).fit(x_cal, y_cal)
    assert search.best_params_["n_bins"] in (5, 10, 40)  # two bins lose the classifier's resolution
    assert search.cv_results_["mean_test_score"][0] < search.best_score_
    assert search.best_estimator_.n_bins == search.best_params_["n_bins"]


# ---------------------------------------------------------------------------
# parametrize_with_checks: the checks feed features, not probability rows
# ---------------------------------------------------------------------------

_ROWS = ("estimator=None: X must be probability rows (a classifier's outputs, each row on the simplex); the check "
         "feeds raw features (negative entries, rows not summing to 1), so fit refuses them with a ValueError")
_TARGET = ("fit(X_source_cal, y_source_cal, X_target) needs the unlabelled target sample X_target; the check calls "
           "fit(X, y)")
_POSITIVE = "the check feeds positive features, which are still not rows of the simplex"

#: every check that fails, by estimator, with its reason
_FIT_ON_FEATURES = ["check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object", "check_estimators_dtypes",
                    "check_estimators_fit_returns_self", "check_estimators_nan_inf", "check_estimators_overwrite_params",
                    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_predict1d",
                    "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
                    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_n_features_in",
                    "check_n_features_in_after_fitting", "check_pipeline_consistency", "check_readonly_memmap_input"]
EXPECTED_FAILURES = {
    "TargetPriorEstimator": {
        **{c: _TARGET for c in _FIT_ON_FEATURES + [
            "check_complex_data", "check_estimator_sparse_array", "check_estimator_sparse_matrix", "check_estimator_sparse_tag",
            "check_estimators_empty_data_messages", "check_fit1d", "check_fit2d_1feature", "check_fit2d_1sample"]},
        "check_positive_only_tag_during_fit": _TARGET},
    "LabelShiftCalibratedClassifier": {
        **{c: _ROWS for c in _FIT_ON_FEATURES + ["check_classifier_data_not_an_array", "check_classifiers_classes",
                                                 "check_classifiers_train", "check_supervised_y_2d"]},
        "check_positive_only_tag_during_fit": _POSITIVE},
    "WeightedConformalClassifier": {**{c: _ROWS for c in _FIT_ON_FEATURES}, "check_positive_only_tag_during_fit": _POSITIVE},
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILURES[type(estimator).__name__]


@sklearn_checks([TargetPriorEstimator(), LabelShiftCalibratedClassifier(method="bcts"),
                 WeightedConformalClassifier(weights=np.ones(2))], expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


# ---------------------------------------------------------------------------
# The referee's findings on issue 38 (each test fails on the code before the fix)
# ---------------------------------------------------------------------------


def _dirichlet_rows(k, n, seed=0):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(k), size=n)
    return probs, np.array([rng.choice(k, p=row) for row in probs])


def test_canonical_refuses_a_grid_that_cannot_separate_every_class():
    # k = 10, n_bins = 7: floor(7^(1/9)) = 1 interval on most axes, classes 3-9 never separated (was silent)
    probs, y = _dirichlet_rows(10, 2000)
    with pytest.raises(ValueError, match=r"n_bins must be at least 2\^\(k-1\) = 512.*got 7"):
        log_ratio_quantile_partition(probs, 7)
    q = np.full(10, 0.1)
    with pytest.raises(ValueError, match=r"n_bins \(default floor\(n\^\(1/3\)\) = 12 .*2\^\(k-1\) = 512.*method='bcts'"):
        LabelShiftCalibratedClassifier(None, method="canonical", target_prior=q).fit(probs, y)
    with pytest.raises(ValueError, match=r"^n_bins must be at least 2\^\(k-1\) = 4 .*k = 3"):
        LabelShiftCalibratedClassifier(None, method="canonical", target_prior=np.full(3, 1 / 3), n_bins=3).fit(
            *_dirichlet_rows(3, 600))
    assert log_ratio_quantile_partition(_dirichlet_rows(3, 600)[0], 4).shape == (2, 2)


def test_empty_cells_go_to_the_first_nearest_occupied_cell_in_c_order():
    # log-ratios on {-1, 0, 1}^2 without the centre, each value a third of every axis: a 3 x 3 grid whose centre
    # cell (C index 4) is empty; its four neighbours are equally near and the first in C order, (0, 1), wins
    groups = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
    u = np.repeat(groups, [10 if a and b else 20 for a, b in groups], axis=0).astype(float)
    probs = np.column_stack([np.ones(len(u)), np.exp(u)])
    part = log_ratio_quantile_partition(probs / probs.sum(axis=1, keepdims=True), 9)
    assert part.shape == (3, 3) and part.n_bins == 8
    np.testing.assert_array_equal(part.cell_to_bin, [0, 1, 2, 3, 1, 4, 5, 6, 7])


def _rounded_binary(seed=0):
    # scores rounded to two decimals, as a scoring service returns them: ties, and zeros for the confident rows
    X, y = make_classification(3000, n_features=6, n_informative=4, class_sep=3.0, random_state=seed)
    model = LogisticRegression().fit(X[:1000], y[:1000])
    x_cal, y_cal, x_new, y_new = X[1000:2000], y[1000:2000], X[2000:], y[2000:]
    x_t = np.vstack([x_new[y_new == 0][:150], x_new[y_new == 1][:350]])
    round2 = lambda x: (lambda p1: np.column_stack([1 - p1, p1]))(np.round(model.predict_proba(x)[:, 1], 2))  # noqa: E731
    return round2(x_cal), y_cal, round2(x_t)


def test_rounded_scores_merge_ties_and_errors_name_the_callers_arguments():
    P_cal, y_cal, P_t = _rounded_binary()
    n_bins = 80
    assert np.any(P_cal == 0.0) and np.unique(P_cal[:, 1]).size < P_cal.shape[0]
    with pytest.raises(ValueError, match=r"X_source_cal .*no sample point in bin .*ties=\"merge\""):
        LabelShiftCalibratedClassifier(None, method="composite", n_bins=n_bins, prior="bbse").fit(P_cal, y_cal, P_t)
    for method in ("composite", "canonical"):
        clf = LabelShiftCalibratedClassifier(None, method=method, n_bins=n_bins, prior="bbse", ties="merge")
        proba = clf.fit(P_cal, y_cal, P_t).predict_proba(P_t)
        assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    merged = LabelShiftCalibratedClassifier(None, method="composite", n_bins=n_bins, prior="bbse", ties="merge")
    merged.fit(P_cal, y_cal, P_t)
    by_hand = UniformMassBinning(n_bins, ties="merge").fit(P_cal[:, 1], y_cal)
    q1, p1 = merged.target_prior_[1], y_cal.mean()
    np.testing.assert_allclose(merged.predict_proba(P_t)[:, 1], prior_correction(by_hand.predict(P_t[:, 1]), p1, q1))
    canon = LabelShiftCalibratedClassifier(None, method="canonical", n_bins=n_bins, prior="bbse", ties="merge")
    canon.fit(P_cal, y_cal, P_t)
    np.testing.assert_allclose(canon.predict_proba(P_t), merged.predict_proba(P_t), atol=1e-12)  # same bins, same values
    for make in (lambda: LabelShiftCalibratedClassifier(None, method="bcts", target_prior=[0.5, 0.5]).fit(P_cal, y_cal),
                 lambda: TargetPriorEstimator().fit(P_cal, y_cal, P_t),
                 lambda: WeightedConformalClassifier().fit(P_cal, y_cal, P_t)):
        with pytest.raises(ValueError, match=r"X_source_cal have \d+ row\(s\) with a zero entry.*entries > 0.*"
                                             r"calibration=None.*'bbse'.*clip"):
            make()
    assert TargetPriorEstimator(method="bbse").fit(P_cal, y_cal, P_t).target_prior_.shape == (2,)
    with pytest.raises(ValueError, match=r"X_source_cal must hold at least 2 \* n_bins = 2000 rows"):
        LabelShiftCalibratedClassifier(None, n_bins=1000, prior="bbse").fit(P_cal, y_cal, P_t)


def test_composite_recalibrator_passes_ties_to_its_binning():
    from companion.label_shift_recalibration.recalibration import CompositeRecalibrator

    z = np.repeat([0.1, 0.2, 0.7, 0.9], [10, 10, 10, 10])
    y = np.tile([0, 1], 20)
    with pytest.raises(ValueError, match=r"ties=\"merge\""):
        CompositeRecalibrator(8, target_prior=0.3).fit(z, y)
    comp = CompositeRecalibrator(8, target_prior=0.3, ties="merge").fit(z, y)
    assert comp.binning_.ties == "merge" and comp.values_.size == 4
    assert clone(comp).get_params()["ties"] == "merge"


def _negative_bbse():
    # ten rows [0.8, 0.2] (labels 0 x 8, 1 x 2) and ten rows [0.2, 0.8] (1 x 8, 0 x 2); target rows all [0.9, 0.1]:
    # C = [[0.34, 0.16], [0.16, 0.34]], C w = nu gives w = (29/9, -11/9) exactly, a negative weight for class 1
    src = np.repeat([[0.8, 0.2], [0.2, 0.8]], 10, axis=0)
    return src, np.repeat([0, 1, 1, 0], [8, 2, 8, 2]), np.tile([0.9, 0.1], (10, 1))


def test_bbse_clipping_warns_and_the_negative_policy_is_a_parameter():
    src, y, tgt = _negative_bbse()
    with pytest.warns(UserWarning, match=r"weights of 1 class\(es\) were negative.*clipped"):
        est = TargetPriorEstimator(method="bbse").fit(src, y, tgt)
    np.testing.assert_allclose(est.diagnostics_["raw_weights"], [29 / 9, -11 / 9])
    np.testing.assert_allclose(est.target_prior_, [1.0, 0.0])
    with pytest.raises(ValueError, match="negative"):
        TargetPriorEstimator(method="bbse", negative="raise").fit(src, y, tgt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = TargetPriorEstimator(method="bbse", negative="keep").fit(src, y, tgt)
    np.testing.assert_allclose(kept.weights_, [29 / 9, -11 / 9])


def test_composite_names_an_estimated_prior_on_the_boundary_and_the_others_accept_it():
    src, y, tgt = _negative_bbse()  # BBSE clips the target prior to [1, 0]: a one-class target
    with pytest.warns(UserWarning), pytest.raises(
            ValueError, match=r"target prior estimated by prior='bbse' from X_target is \[1\.0, 0\.0\].*method='composite'"):
        LabelShiftCalibratedClassifier(None, method="composite", prior="bbse", n_bins=2).fit(src, y, tgt)
    for method in ("bcts", "canonical"):
        with pytest.warns(UserWarning):
            clf = LabelShiftCalibratedClassifier(None, method=method, prior="bbse", n_bins=2).fit(src, y, tgt)
        np.testing.assert_allclose(clf.predict_proba(tgt)[:, 1], 0.0, atol=1e-12)


def test_inputs_a_method_would_ignore_are_refused():
    model, x_cal, y_cal, x_t = _binary_data()
    for kwargs in ({"weights": np.ones(2)}, {"label_conditional": True}):
        with pytest.raises(ValueError, match="X_target would be ignored"):
            WeightedConformalClassifier(model, **kwargs).fit(x_cal, y_cal, x_t)
    for kwargs, name in (({"method": "mlls", "regularization": 0.1}, "regularization"),
                         ({"method": "bbse", "regularization": 0.1}, "regularization"),
                         ({"method": "bbse", "calibration": None}, "calibration"),
                         ({"method": "rlls", "calibration": "ts"}, "calibration"),
                         ({"method": "mlls", "negative": "raise"}, "negative")):
        with pytest.raises(ValueError, match=rf"^{name}=.* is used only by method="):
            TargetPriorEstimator(model, **kwargs).fit(x_cal, y_cal, x_t)
    TargetPriorEstimator(model, method="rlls", regularization=0.1).fit(x_cal, y_cal, x_t)  # its own parameter


def test_the_conformity_score_parameter_does_not_shadow_a_score_method():
    cp = WeightedConformalClassifier(conformity_score="rho")
    assert "score" not in cp.get_params() and cp.get_params()["conformity_score"] == "rho"
    assert not isinstance(getattr(cp, "score", None), str)  # GridSearchCV without scoring calls estimator.score


def test_docstrings_state_the_conditions_of_the_guarantees():
    import companion.estimators as mod
    from companion.multiclass_lp.baselines import TemperatureScaling

    assert "sample_weight" in mod.__doc__ and "target_prior" in mod.__doc__  # CV estimates the source risk; X_target sliced
    assert "calibrated on the source" in TargetPriorEstimator.__doc__  # MLLS's consistency condition
    assert "approximate" in WeightedConformalClassifier.__doc__  # coverage with estimated weights
    assert "54.6" in TemperatureScaling.__doc__
