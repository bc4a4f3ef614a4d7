"""The book's binning and multiclass recalibrators as scikit-learn estimators (issue 38).

``UniformMassBinning``, ``EqualWidthBinning`` (regressors from one score column to a probability)
and ``TemperatureScaling``, ``ClasswiseBinning``, ``TopLabelBinning``, ``LpCalibrator``
(transformers of probability rows) under scikit-learn's own check suite, every expected
failure listed with its reason; then tests of the conventions the suite cannot see (labels of
any values, DataFrames, Pipelines, GridSearchCV), each estimator against the book's
computation written here, and the ``ties="merge"`` option of uniform-mass binning.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import brier_score_loss, make_scorer
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn_checks import sklearn_checks

from companion.calibration_sharpness import EqualWidthBinning, UniformMassBinning
from companion.multiclass_lp import ClasswiseBinning, LpCalibrator, TemperatureScaling, TopLabelBinning
from companion.label_shift_recalibration import cube_root_bins

# ---------------------------------------------------------------------------
# scikit-learn's check suite
# ---------------------------------------------------------------------------

#: The checks feed normal features with several columns (negative entries, any magnitude).
_SCORES = ("the check feeds normal features in several columns; a binary recalibrator takes one column of scores "
           "in [0, 1] and refuses anything else, as the book does")
_ROWS = ("the check feeds normal (or shifted non-negative) features whose rows do not sum to 1; the recalibrators take "
         "probability rows on the simplex and refuse anything else, as the book does (nothing is renormalised)")
_OWN_WORDS = "the input is refused, but with the companion's message (naming the argument and its rule), not scikit-learn's wording"
_SPARSE = "sparse input is refused by the companion's real-array validation, whose message does not say 'sparse'"

#: Checks that fail because of the input domain, for every estimator of the module.
_DOMAIN_CHECKS = (
    "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object", "check_pipeline_consistency",
    "check_estimators_nan_inf", "check_estimators_pickle", "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1sample",
    "check_fit2d_1feature", "check_dict_unchanged", "check_fit_idempotent", "check_fit_check_is_fitted",
    "check_n_features_in", "check_fit2d_predict1d",
)
_BINARY_CHECKS = ("check_regressors_train", "check_regressor_data_not_an_array", "check_regressors_no_decision_function",
                  "check_supervised_y_2d", "check_regressors_int")
_TRANSFORMER_CHECKS = ("check_transformer_data_not_an_array", "check_transformer_general", "check_transformer_preserve_dtypes")


def expected_failures(estimator) -> dict[str, str]:
    """Every check the estimator is expected to fail, with the reason."""
    binary = isinstance(estimator, (UniformMassBinning, EqualWidthBinning))
    domain = _SCORES if binary else _ROWS
    out = {name: domain for name in _DOMAIN_CHECKS + (_BINARY_CHECKS if binary else _TRANSFORMER_CHECKS)}
    out["check_fit2d_1feature"] = (
        "one column of normal values lies outside [0, 1] (refused: scores must lie in [0, 1])" if binary
        else "one column is not a probability row (k >= 2 classes), refused with the companion's message")
    out["check_positive_only_tag_during_fit"] = domain + " (negative entries are refused with that message, not 'Negative values in data')"
    out["check_complex_data"] = _OWN_WORDS
    out["check_estimators_empty_data_messages"] = _OWN_WORDS
    for name in ("check_estimator_sparse_tag", "check_estimator_sparse_array", "check_estimator_sparse_matrix"):
        out[name] = _SPARSE
    if isinstance(estimator, LpCalibrator):
        out["check_transformer_n_iter"] = domain
    return out


ESTIMATORS = [
    UniformMassBinning(2),
    UniformMassBinning(2, ties="merge"),
    EqualWidthBinning(2),
    TemperatureScaling(),
    ClasswiseBinning(3),
    TopLabelBinning(3),
    LpCalibrator(0.25, threshold=0.05, noise=False, pools=False, check_sample_size=False),
]


@sklearn_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def binary_sample(n=2000, seed=0, decimals=None, shape=(2.0, 3.0)):
    rng = np.random.default_rng(seed)
    z = rng.beta(*shape, n)
    if decimals is not None:
        z = np.round(z, decimals)
    y = (rng.random(n) < z ** 1.5).astype(int)
    return z, y


def multiclass_sample(n=3000, k=3, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 1.5
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    truth = np.exp(logits * 0.6) / np.exp(logits * 0.6).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(truth, axis=1)).sum(axis=1)
    return probs, np.minimum(y, k - 1)


BINARY = [UniformMassBinning(12), UniformMassBinning(12, ties="merge"), EqualWidthBinning(12)]
MULTICLASS = [TemperatureScaling(), ClasswiseBinning(8), TopLabelBinning(8),
              LpCalibrator(0.1, threshold=0.01, noise=False, pools=False), LpCalibrator(0.1, rng=3)]


def _id(est):
    return repr(est)


# ---------------------------------------------------------------------------
# Conventions: clone, parameters, NotFittedError, labels, DataFrames
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("est", BINARY + MULTICLASS, ids=_id)
def test_clone_and_parameters_round_trip(est):
    params = est.get_params()
    twin = clone(est)
    assert type(twin) is type(est) and twin.get_params() == params and twin is not est
    assert not any(name.endswith("_") for name in vars(twin))  # __init__ stores parameters only
    changed = {"n_bins": 5} if "n_bins" in params else {"lam": 0.25} if "lam" in params else {}
    if changed:
        assert twin.set_params(**changed) is twin and twin.get_params() == {**params, **changed}
        assert est.get_params() == params  # the original is untouched
    assert clone(twin).get_params() == twin.get_params()


@pytest.mark.parametrize("est", BINARY + MULTICLASS, ids=_id)
def test_not_fitted_error_before_fit(est):
    data = np.array([0.2, 0.7]) if est in BINARY else np.full((2, 3), 1 / 3)
    method = est.predict if est in BINARY else est.transform
    with pytest.raises(NotFittedError):
        method(data)
    with pytest.raises(NotFittedError):
        est.predict(data)


def test_invalid_parameters_are_refused_by_fit_naming_them():
    z, y = binary_sample(100)
    probs, yk = multiclass_sample(100)
    for est, arg, data in ((UniformMassBinning(0), "n_bins", (z, y)), (UniformMassBinning(3, ties="keep"), "ties", (z, y)),
                           (EqualWidthBinning(2.5), "n_bins", (z, y)), (ClasswiseBinning(-1), "n_bins", (probs, yk)),
                           (TopLabelBinning("3"), "n_bins", (probs, yk)), (LpCalibrator(0.3), "lam", (probs, yk)),
                           (LpCalibrator(0.1, threshold=2.0), "threshold", (probs, yk))):
        with pytest.raises(ValueError, match=arg):
            est.fit(*data)


@pytest.mark.parametrize("est", BINARY, ids=_id)
@pytest.mark.parametrize("names", [("neg", "pos"), (-1, 1), (False, True)])
def test_binary_labels_of_any_values(est, names):
    z, y = binary_sample()
    a = clone(est).fit(z, y)
    b = clone(est).fit(z, np.array(names, dtype=object if isinstance(names[0], str) else None)[y])
    assert list(b.classes_) == ([0, 1] if names == (False, True) else list(names))
    np.testing.assert_array_equal(a.predict(z), b.predict(z))
    np.testing.assert_array_equal(a.values_, b.values_)
    assert a.score(z, y) == b.score(z, np.array(names)[y])


def test_binary_labels_must_be_two_classes():
    z, y = binary_sample(100)
    with pytest.raises(ValueError, match="y .*a single class"):
        UniformMassBinning(3).fit(z, np.full(100, "pos"))
    with pytest.raises(ValueError, match="y .*3 distinct"):
        UniformMassBinning(3).fit(z, np.array(["a", "b", "c"])[np.arange(100) % 3])


@pytest.mark.parametrize("est", MULTICLASS, ids=_id)
def test_multiclass_labels_of_any_values(est):
    probs, y = multiclass_sample()
    names = np.array(["ant", "bee", "cat"])
    a = clone(est).fit(probs, y)
    b = clone(est).fit(probs, names[y])
    c = clone(est).fit(probs, y + 1)  # 1, 2, 3: three distinct labels, columns in sorted order
    assert list(b.classes_) == list(names) and list(c.classes_) == [1, 2, 3] and list(a.classes_) == [0, 1, 2]
    np.testing.assert_array_equal(a.transform(probs), b.transform(probs))
    np.testing.assert_array_equal(a.transform(probs), c.predict(probs))
    with pytest.raises(ValueError, match="y must contain only labels"):
        clone(est).fit(probs, np.where(np.arange(y.size) == 0, 9, y))  # four distinct labels for three columns


@pytest.mark.parametrize("est", BINARY, ids=_id)
def test_binary_dataframe_and_column_equal_the_array(est):
    z, y = binary_sample()
    a = clone(est).fit(z, y)
    frame = pd.DataFrame({"score": z})
    b = clone(est).fit(frame, pd.Series(y))
    np.testing.assert_array_equal(a.predict(z), b.predict(frame))
    np.testing.assert_array_equal(a.predict(z), a.predict(z[:, None]))
    with pytest.raises(ValueError, match="z must be one column"):
        a.predict(np.column_stack((z, z)))


@pytest.mark.parametrize("est", MULTICLASS, ids=_id)
def test_multiclass_dataframe_equals_the_array(est):
    probs, y = multiclass_sample()
    frame = pd.DataFrame(probs, columns=["a", "b", "c"])
    a = clone(est).fit(probs, y)
    b = clone(est).fit(frame, pd.Series(y))
    np.testing.assert_array_equal(a.transform(probs), b.transform(frame))
    np.testing.assert_array_equal(a.fit_transform(probs, y), a.transform(probs))


# ---------------------------------------------------------------------------
# The book's computations, written here
# ---------------------------------------------------------------------------


def umb_by_sorting(z, y, n_bins):
    """Definition 6 and eq. (9): edges at the order statistics z_(floor(n b / B)), bin means by sorting and splitting."""
    order = np.argsort(z, kind="stable")
    zs, ys = z[order], y[order]
    n = z.size
    ranks = [(n * b) // n_bins for b in range(1, n_bins)]
    edges = np.array([0.0] + [zs[r - 1] for r in ranks] + [1.0])
    stops = [np.searchsorted(zs, e, side="right") for e in edges[1:-1]] + [n]
    starts = [0] + stops[:-1]
    return edges, np.array([ys[a:b].mean() for a, b in zip(starts, stops)])


def test_umb_and_ewb_equal_the_book_computation_and_work_in_a_pipeline():
    z, y = binary_sample(3001, seed=4)
    edges, values = umb_by_sorting(z, y, 14)
    fit = UniformMassBinning(14).fit(z, y)
    np.testing.assert_array_equal(fit.edges_, edges)
    np.testing.assert_allclose(fit.values_, values, rtol=1e-15)
    at = np.linspace(0, 1, 101)
    np.testing.assert_allclose(fit.predict(at), values[np.searchsorted(edges[1:-1], at, side="left")], rtol=1e-15)
    ewb = EqualWidthBinning(5).fit(z, y)
    bins = np.maximum(np.ceil(z * 5).astype(int) - 1, 0)  # (b/5, (b+1)/5], the first bin closed
    np.testing.assert_allclose(ewb.values_, [y[bins == b].mean() for b in range(5)], rtol=1e-15)
    # after a model that outputs one score column (here: a logistic map of a raw score)
    raw = np.log(z / (1 - z))[:, None]
    pipe = make_pipeline(FunctionTransformer(lambda x: 1 / (1 + np.exp(-x))), UniformMassBinning(14)).fit(raw, y)
    np.testing.assert_allclose(pipe.predict(raw), fit.predict(z), rtol=0, atol=1e-12)


def test_umb_score_is_the_brier_skill_score_and_grid_search_picks_n_bins():
    z, y = binary_sample(4000, seed=5)
    fit = UniformMassBinning(10).fit(z, y)
    brier, base = np.mean((fit.predict(z) - y) ** 2), np.mean((y.mean() - y) ** 2)
    assert fit.score(z, y) == pytest.approx(1 - brier / base, rel=1e-12)
    cv = KFold(4, shuffle=True, random_state=0)
    for scoring in (None, make_scorer(brier_score_loss, greater_is_better=False)):
        search = GridSearchCV(UniformMassBinning(), {"n_bins": [2, 5, 10, 20, 40]}, cv=cv, scoring=scoring).fit(z[:, None], y)
        assert search.best_params_["n_bins"] in (5, 10, 20, 40)
        assert isinstance(search.best_estimator_, UniformMassBinning) and search.best_estimator_.n_bins_ == search.best_params_["n_bins"]
    # the two criteria rank the same way (BSS = 1 - Brier / a constant per fold)
    a = GridSearchCV(UniformMassBinning(), {"n_bins": [2, 5, 10, 20, 40]}, cv=cv).fit(z, y)
    b = GridSearchCV(UniformMassBinning(), {"n_bins": [2, 5, 10, 20, 40]}, cv=cv,
                     scoring=make_scorer(brier_score_loss, greater_is_better=False)).fit(z, y)
    assert a.best_params_ == b.best_params_


def test_temperature_scaling_is_the_likelihood_maximiser():
    probs, y = multiclass_sample(4000, seed=2)
    ts = TemperatureScaling().fit(probs, y)
    logp = np.log(probs)

    def nll(t):
        s = logp / t
        s = s - s.max(axis=1, keepdims=True)
        return np.mean(np.log(np.exp(s).sum(axis=1)) - s[np.arange(y.size), y])

    grid = np.exp(np.linspace(-2, 2, 4001))
    best = grid[np.argmin([nll(t) for t in grid])]
    assert ts.temperature_ == pytest.approx(best, rel=2e-3)
    s = logp / ts.temperature_
    np.testing.assert_allclose(ts.transform(probs), np.exp(s) / np.exp(s).sum(axis=1, keepdims=True), rtol=1e-12)


def test_classwise_and_top_label_binning_equal_the_book_computation():
    probs, y = multiclass_sample(3000, seed=3)
    n_bins = 6
    cw, tl = ClasswiseBinning(n_bins).fit(probs, y), TopLabelBinning(n_bins).fit(probs, y)
    # class-wise: each coordinate's quantile bins (e_{j-1}, e_j], the class frequency, then rows renormalised
    expected = np.empty_like(probs)
    for i in range(3):
        edges = np.unique(np.quantile(probs[:, i], np.arange(1, n_bins) / n_bins))
        fit_bin, new_bin = np.searchsorted(edges, probs[:, i]), np.searchsorted(edges, probs[:, i])
        freq = np.array([np.mean(y[fit_bin == b] == i) for b in range(edges.size + 1)])
        expected[:, i] = freq[new_bin]
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(cw.transform(probs), expected, rtol=1e-12)
    # top-label: the top confidence's accuracy in its quantile bin among points with the same top class
    top, conf = probs.argmax(axis=1), probs.max(axis=1)
    new_top = np.empty(y.size)
    for c in range(3):
        sel = top == c
        edges = np.unique(np.quantile(conf[sel], np.arange(1, n_bins) / n_bins))
        b = np.searchsorted(edges, conf[sel])
        acc = np.array([np.mean(y[sel][b == j] == c) for j in range(edges.size + 1)])
        new_top[sel] = acc[b]
    out = tl.transform(probs)
    np.testing.assert_allclose(out[np.arange(y.size), top], new_top, rtol=1e-12)
    rest = probs * ((1 - new_top) / (1 - conf))[:, None]
    rest[np.arange(y.size), top] = new_top
    np.testing.assert_allclose(out, rest, rtol=1e-12)


def test_lp_calibrator_transform_is_predict_and_fits_after_a_classifier():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(8)
    X = rng.normal(size=(6000, 4))
    y = np.array(["ant", "bee", "cat"])[np.argmax(X[:, :3] + rng.gumbel(size=(6000, 3)), axis=1)]
    clf = LogisticRegression().fit(X[:3000], y[:3000])
    cal = LpCalibrator(0.1, threshold=0.01, noise=False, pools=False).fit(clf.predict_proba(X[3000:]), y[3000:])
    np.testing.assert_array_equal(cal.transform(clf.predict_proba(X[:10])), cal.predict(clf.predict_proba(X[:10])))
    assert list(cal.classes_) == list(clf.classes_)
    # the same recalibrator after the classifier's probabilities, in a Pipeline
    pipe = make_pipeline(FunctionTransformer(clf.predict_proba), LpCalibrator(0.1, threshold=0.01, noise=False, pools=False))
    pipe.fit(X[3000:], y[3000:])
    np.testing.assert_array_equal(pipe.transform(X[:10]), cal.transform(clf.predict_proba(X[:10])))
    with pytest.raises(ValueError, match="bin_predictions"):
        cal.predict(clf.predict_proba(X[:2]), np.zeros((cal.keys_.size, 3)))


# ---------------------------------------------------------------------------
# ties="merge"
# ---------------------------------------------------------------------------


def merged_by_unique_edges(z, y, n_bins):
    """Independent: Definition 6's edges, repeated ones (and those at the largest score) dropped; each
    bin's mean by grouping the points on the unique edges with a loop."""
    zs = np.sort(z)
    n = z.size
    inner = sorted({float(zs[(n * b) // n_bins - 1]) for b in range(1, n_bins)})
    inner = [e for e in inner if e < zs[-1]]
    edges = [0.0] + inner + [1.0]
    values, counts = [], []
    for lo, hi, first in zip(edges[:-1], edges[1:], [True] + [False] * len(inner)):
        inside = (z >= lo) & (z <= hi) if first else (z > lo) & (z <= hi)
        counts.append(int(inside.sum()))
        values.append(float(y[inside].mean()))
    return np.array(edges), np.array(counts), np.array(values)


def test_rounded_scores_fit_with_merge_and_refuse_without():
    # scores of a rare class (base rate about 0.1), rounded to two decimals as a scoring service returns them
    z, y = binary_sample(10_000, seed=11, decimals=2, shape=(1.0, 8.0))
    n_bins = cube_root_bins(z.size)
    with pytest.raises(ValueError, match="no sample point in bin"):
        UniformMassBinning(n_bins).fit(z, y)
    fit = UniformMassBinning(n_bins, ties="merge").fit(z, y)
    edges, counts, values = merged_by_unique_edges(z, y, n_bins)
    assert fit.n_bins_ == edges.size - 1 < n_bins
    np.testing.assert_array_equal(fit.edges_, edges)
    np.testing.assert_array_equal(fit.counts_, counts)
    np.testing.assert_allclose(fit.values_, values, rtol=1e-14)
    assert fit.counts_.min() > 0 and fit.counts_.sum() == z.size
    np.testing.assert_allclose(fit.predict(z), values[np.searchsorted(edges[1:-1], z, side="left")], rtol=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_merge_equals_raise_on_untied_scores(seed):
    z, y = binary_sample(1000 + 37 * seed, seed=seed)
    for n_bins in (1, 2, 7, cube_root_bins(z.size), 100):
        a = UniformMassBinning(n_bins).fit(z, y)
        b = UniformMassBinning(n_bins, ties="merge").fit(z, y)
        assert a.n_bins_ == b.n_bins_ == n_bins
        for name in ("edges_", "counts_", "values_"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(a.predict(z), b.predict(z))


def test_merge_drops_an_edge_at_the_largest_score():
    # 6 points, the top three tied at 0.9: edges z_(2), z_(4) = 0.9; the last bin (0.9, 1] would be empty
    z = np.array([0.1, 0.2, 0.3, 0.9, 0.9, 0.9])
    y = np.array([0, 0, 1, 1, 1, 0])
    with pytest.raises(ValueError, match="no sample point"):
        UniformMassBinning(3).fit(z, y)
    fit = UniformMassBinning(3, ties="merge").fit(z, y)
    assert fit.edges_.tolist() == [0.0, 0.2, 1.0] and fit.counts_.tolist() == [2, 4]
    np.testing.assert_allclose(fit.values_, [0.0, 0.75])
