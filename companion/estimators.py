r"""Scikit-learn estimators for a classifier that meets a new class balance: the companion's top floor.

Three estimators wrap a *fitted* classifier (anything with ``classes_`` and
``predict_proba``: a model, a :class:`~sklearn.pipeline.Pipeline`) and call the
book's algorithms; nothing here is a second implementation.

:class:`TargetPriorEstimator`
    The target prior :math:`q` and the weights :math:`q/p` from a labelled
    source calibration sample and unlabelled target features: MLLS (the EM of
    Saerens et al. after BCTS, :func:`~companion.label_shift_weights.mlls`),
    BBSE soft or hard (:func:`~companion.label_shift_weights.bbse`) or RLLS
    (:func:`~companion.label_shift_weights.rlls`); book ``chap-label-shift-weights``.
:class:`LabelShiftCalibratedClassifier`
    Probabilities recalibrated for the target: the composite estimator of
    ``chap-label-shift-recalibration`` (binary), label-shift corrected
    canonical binning of ``chap-binning-label-shift``, or BCTS followed by the
    Bayes correction (paper 001 eq. (16)).
:class:`WeightedConformalClassifier`
    Prediction sets under label shift: the weighted thresholds of paper 001
    eqs. (8)-(9) or the label-conditional ones of eq. (10)
    (``chap-conformal-label-shift``).

Like every scikit-learn meta-estimator, :func:`sklearn.base.clone` copies the wrapped
classifier *unfitted*; to keep it fitted through a clone (``GridSearchCV``,
``cross_val_score``), wrap it in :class:`sklearn.frozen.FrozenEstimator`.  The
folds are *source* folds, so the scores estimate the source risk; for the
target risk under label shift weight each held-out point by :math:`w_y = q_y/p_y`
(``sample_weight`` to the scorer, or score by hand).  scikit-learn slices every
fit argument with one row per sample by the fold indices, so an ``X_target``
with as many rows as ``X_source_cal`` would be cut into folds too: give the
prior as the parameter ``target_prior`` instead, or make the lengths differ.

With ``estimator=None`` the inputs ``X`` are already probability rows (one
column per class, in the order of the sorted labels), e.g. the scores a
scoring service returned.  Labels may be any sortable values (integers,
strings); ``classes_`` lists them in column order.

This module imports the chapters' algorithm modules only (never their
derivations, experiments or plotting); ``tests/test_book_order.py`` holds that rule.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._checks import check_bool, check_int, check_option, check_positive
from .binning_label_shift.canonical_binning import (
    CoordinatePartition,
    LabelShiftCanonicalBinning,
    log_ratio_quantile_partition,
    uniform_mass_partition,
)
from .conformal_label_shift.scores import conformal_scores, exact_level, true_label_scores
from .conformal_label_shift.thresholds import label_conditional_thresholds, prediction_sets, weighted_thresholds
from .calibration_sharpness.binning import _merge_tied_edges
from .label_shift_recalibration.recalibration import _MIN_PRIOR, CompositeRecalibrator, cube_root_bins
from .label_shift_weights.correction import as_simplex_rows, encode_labels, posterior_correction
from .label_shift_weights.estimators import _as_prior, bbse, mlls, rlls
from .label_shift_weights.scaling import _SCALINGS, fit_scaling

__all__ = ["TargetPriorEstimator", "LabelShiftCalibratedClassifier", "WeightedConformalClassifier"]

_PRIOR_METHODS = ("mlls", "bbse", "bbse-hard", "rlls")
_RECALIBRATIONS = ("composite", "canonical", "bcts")
_SCORES = ("lac", "rho")


# ---------------------------------------------------------------------------
# Shared input handling: probability rows from the wrapped classifier, labels through classes_
# ---------------------------------------------------------------------------


def _rows(owner, X, name: str, *, reset: bool) -> np.ndarray:
    """Probability rows of ``X``: ``owner.estimator.predict_proba(X)``, or ``X`` itself when ``estimator`` is None."""
    if owner.estimator is None:
        try:
            X = validate_data(owner, X, reset=reset, dtype="numeric", ensure_min_features=2)
        except (ValueError, TypeError) as exc:  # scikit-learn's message names "X": name the caller's argument
            raise ValueError(f"{name} (probability rows, as estimator is None): {exc}") from None
        return as_simplex_rows(X, name)
    estimator = owner.estimator
    if not hasattr(estimator, "predict_proba") or not hasattr(estimator, "fit"):
        raise ValueError(f"estimator must be a fitted classifier with predict_proba, or None, got {type(estimator).__name__}")
    check_is_fitted(estimator)
    return as_simplex_rows(estimator.predict_proba(X), f"estimator.predict_proba({name})")


def _labels(y, name: str) -> np.ndarray:
    """Class labels as a 1-D array (a column vector is raveled with a warning, as in scikit-learn)."""
    try:
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name} must hold class labels: {exc}") from None
    if np.unique(y).size < 2:
        raise ValueError(f"{name} holds one class only: calibration under label shift needs at least two classes")
    return y


def _labelled_rows(owner, X, y, name_x: str, name_y: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, label codes ``0..k-1`` and ``classes`` (the wrapped classifier's, or the sorted labels of ``y``)."""
    y = _labels(y, name_y)
    probs = _rows(owner, X, name_x, reset=True)
    if y.size != probs.shape[0]:
        raise ValueError(f"{name_x} and {name_y} must have the same number of rows, got {probs.shape[0]} and {y.size}")
    labels = np.unique(y)
    if owner.estimator is not None:
        classes = np.asarray(owner.estimator.classes_)
        if labels.size != classes.size or not np.all(np.isin(labels, classes)):
            raise ValueError(f"{name_y} must hold exactly the labels of estimator.classes_ {classes.tolist()!r}, "
                             f"got {labels.tolist()!r}")
    else:
        classes = labels
        if classes.size != probs.shape[1]:
            raise ValueError(f"{name_y} holds {classes.size} distinct labels but {name_x} has {probs.shape[1]} "
                             "columns: with estimator=None every class needs its column (sorted labels) and its labels")
    codes, classes = encode_labels(y, name_y, probs.shape[1], classes)
    return probs, codes, classes


def _check_estimator_param(estimator) -> None:
    if estimator is not None and not (hasattr(estimator, "predict_proba") and hasattr(estimator, "fit")):
        raise ValueError(f"estimator must be a fitted classifier with predict_proba, or None, got {estimator!r}")


def _check_n_bins(n_bins) -> int | None:
    return None if n_bins is None else check_int(n_bins, "n_bins")


def _frequencies(codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, minlength=k) / codes.size


# ---------------------------------------------------------------------------
# The target prior
# ---------------------------------------------------------------------------


class TargetPriorEstimator(BaseEstimator):
    r"""The target class prior and the importance weights :math:`q/p` from unlabelled target features.

    Book ``chap-label-shift-weights`` (paper 001 Appendix A): ``method="mlls"``
    runs :func:`~companion.label_shift_weights.mlls` (the EM of Saerens et al.)
    after the calibration ``calibration`` (bias-corrected temperature scaling
    by default, book ``alg-lsw-bcts-mlls``); ``"bbse"`` and ``"bbse-hard"`` solve
    :math:`\hat C w = \hat\nu` with the probability vectors or the arg-max
    (:func:`~companion.label_shift_weights.bbse`; by default negative solutions
    are clipped to 0 and rescaled, with a warning, and
    ``diagnostics_["raw_weights"]`` keeps them); ``"rlls"`` is the
    regularised BBSE-soft of :func:`~companion.label_shift_weights.rlls`.

    Consistency differs (book ``rem-lsw-remark5``): MLLS converges to the true
    prior only if the (BCTS-)calibrated classifier is calibrated on the source;
    a residual miscalibration leaves a bias that more target points do not
    remove (a logistic regression on ``make_classification`` with true
    :math:`q_1 = 0.8`: MLLS-BCTS 0.806, 0.808, 0.811 at :math:`n_T = 2\cdot
    10^3, 2\cdot 10^4, 6\cdot 10^4`, BBSE 0.802).  BBSE and RLLS need only an
    invertible confusion matrix :math:`\hat C`.  BCTS acts on log-probabilities:
    with ``method="mlls"`` and a calibration, every probability must be
    ``> 0`` (rounded scores with zeros: ``calibration=None`` or ``method="bbse"``).

    Parameters
    ----------
    estimator : fitted classifier or None
        Its ``predict_proba`` gives the probability rows; ``None``: the ``X``
        passed to :meth:`fit` are the rows already.
    method : {"mlls", "bbse", "bbse-hard", "rlls"}
    calibration : {"bcts", "ts", "vs", None}
        The scaling fitted on the source before MLLS; another method refuses a
        value other than the default.
    regularization : float, optional
        :math:`\lambda` of RLLS; default :math:`1/\sqrt{n}` for ``n`` source
        points; another method refuses a value.
    negative : {"clip", "raise", "keep"}
        BBSE's policy for negative weights (:func:`~companion.label_shift_weights.bbse`):
        set to 0 and rescale (a ``UserWarning`` names how many classes), refuse,
        or keep them; another method refuses a value other than the default.

    Attributes
    ----------
    classes_ : numpy.ndarray
        The labels, in the order of every vector below.
    source_prior_, target_prior_ : numpy.ndarray
        The source label frequencies :math:`\hat p` and the estimate :math:`\hat q`.
    weights_ : numpy.ndarray
        :math:`\hat q/\hat p`.
    result_ : NamedTuple
        The book function's full result (``MLLSResult``, ``BBSEResult`` or ``RLLSResult``).
    diagnostics_ : dict
        MLLS: ``n_iter``, ``log_likelihood``, ``calibrator`` (the fitted scaling);
        BBSE: ``condition_number`` of :math:`\hat C`, ``confusion``, ``raw_weights``;
        RLLS: ``condition_number``, ``confusion``, ``regularization``, ``objective``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(6000, n_features=6, n_informative=4, class_sep=1.5, random_state=0)
    >>> model = LogisticRegression().fit(X[:2000], y[:2000])  # the classifier, fitted on its own sample
    >>> X_cal, y_cal, X_new, y_new = X[2000:4000], y[2000:4000], X[4000:], y[4000:]  # source calibration sample
    >>> X_target = np.vstack([X_new[y_new == 0][:300], X_new[y_new == 1][:700]])  # target: 30 % / 70 %
    >>> est = TargetPriorEstimator(model).fit(X_cal, y_cal, X_target)
    >>> est.source_prior_.round(3), est.target_prior_.round(3), est.weights_.round(3)
    (array([0.493, 0.507]), array([0.297, 0.703]), array([0.603, 1.386]))
    >>> TargetPriorEstimator(model, method="bbse").fit(X_cal, y_cal, X_target).target_prior_.round(3)
    array([0.298, 0.702])
    """

    def __init__(self, estimator=None, method: str = "mlls", calibration: str | None = "bcts", regularization=None,
                 negative: str = "clip"):
        self.estimator = estimator
        self.method = method
        self.calibration = calibration
        self.regularization = regularization
        self.negative = negative

    def fit(self, X_source_cal, y_source_cal, X_target) -> "TargetPriorEstimator":
        """Estimate :math:`q` from the labelled source calibration sample and the unlabelled target features."""
        _check_estimator_param(self.estimator)
        method = check_option(self.method, "method", _PRIOR_METHODS)
        calibration = check_option(self.calibration, "calibration", (None, *_SCALINGS))
        lam = None if self.regularization is None else check_positive(self.regularization, "regularization")
        negative = check_option(self.negative, "negative", ("clip", "raise", "keep"))
        _check_unused(method, calibration=(calibration, "bcts", "mlls"), regularization=(lam, None, "rlls"),
                      negative=(negative, "clip", ("bbse", "bbse-hard")))
        probs, codes, classes = _labelled_rows(self, X_source_cal, y_source_cal, "X_source_cal", "y_source_cal")
        if X_target is None:
            raise ValueError("X_target (the unlabelled target features) is required")
        probs_target = _rows(self, X_target, "X_target", reset=False)
        for rows, name in ((probs, "X_source_cal"), (probs_target, "X_target")) if calibration and method == "mlls" else ():
            _check_positive_rows(rows, name, f"calibration={calibration!r} before MLLS")
        positions = np.arange(probs.shape[1])
        if method == "mlls":
            res = mlls(probs, codes, probs_target, calibration=calibration, classes=positions)
            diagnostics = {"n_iter": res.n_iter, "log_likelihood": res.log_likelihood, "calibrator": res.calibrator}
        elif method == "rlls":
            lam = 1.0 / np.sqrt(codes.size) if lam is None else lam
            res = rlls(probs, codes, probs_target, lam, soft=True, classes=positions)
            diagnostics = {"condition_number": float(np.linalg.cond(res.confusion)), "confusion": res.confusion,
                           "regularization": res.regularization, "objective": res.objective}
        else:
            res = bbse(probs, codes, probs_target, soft=method == "bbse", classes=positions, negative=negative)
            clipped = int(np.sum(res.raw_weights < 0))
            if negative == "clip" and clipped:
                warnings.warn(f"method={method!r}: the estimated weights of {clipped} class(es) were negative "
                              f"(raw weights {np.round(res.raw_weights, 4).tolist()}) and were clipped to 0 and rescaled "
                              "(negative='clip'); diagnostics_['raw_weights'] keeps them", UserWarning, stacklevel=2)
            diagnostics = {"condition_number": res.condition_number, "confusion": res.confusion,
                           "raw_weights": res.raw_weights}
        self.classes_ = classes
        self.source_prior_ = res.source_prior
        self.target_prior_ = res.target_prior
        self.weights_ = res.weights
        self.result_ = res
        self.diagnostics_ = diagnostics
        return self


def _check_unused(method: str, **params) -> None:
    """Refuse a parameter set to a non-default value that ``method`` does not use: ``name=(value, default, users)``."""
    for name, (value, default, users) in params.items():
        users = (users,) if isinstance(users, str) else users
        if method not in users and value != default:
            raise ValueError(f"{name}={value!r} is used only by method={' or '.join(map(repr, users))}; method={method!r} "
                             f"would ignore it: leave {name} at its default {default!r}")


def _check_positive_rows(probs: np.ndarray, name: str, what: str) -> None:
    """Scaling acts on log-probabilities: refuse zero entries, naming the caller's argument and the ways out."""
    if np.any(probs <= 0.0):
        raise ValueError(f"the probability rows of {name} have {int(np.sum(np.any(probs <= 0.0, axis=1)))} row(s) with "
                         f"a zero entry, and {what} acts on log-probabilities (entries > 0): use calibration=None or "
                         "method/prior 'bbse' (or method='composite'/'canonical'), or clip the classifier's "
                         "probabilities yourself (e.g. np.clip(P, 1e-6, None), rows renormalised)")


def _target_prior(owner, probs, codes, X_target, method_name: str) -> tuple[np.ndarray, "TargetPriorEstimator | None"]:
    """The target prior: the ``target_prior`` parameter when given, else estimated from ``X_target`` by ``method_name``."""
    k = probs.shape[1]
    if owner.target_prior is not None:
        if X_target is not None:
            raise ValueError("give X_target or target_prior, not both: the target prior is known or estimated from X_target")
        return _as_prior(owner.target_prior, "target_prior", k, positive=False), None
    if X_target is None:
        raise ValueError("give X_target (unlabelled target features) or the parameter target_prior (a known target prior)")
    method = getattr(owner, method_name)
    prior = TargetPriorEstimator(None, method=method).fit(probs, codes, _rows(owner, X_target, "X_target", reset=False))
    return prior.target_prior_, prior


# ---------------------------------------------------------------------------
# Recalibrated probabilities for the target
# ---------------------------------------------------------------------------


class LabelShiftCalibratedClassifier(ClassifierMixin, BaseEstimator):
    r"""A fitted classifier's probabilities recalibrated for a target population with another class prior.

    ``fit`` reads a labelled source calibration sample (not the classifier's
    training sample) and either the known ``target_prior`` or unlabelled target
    features (the prior is then estimated by :class:`TargetPriorEstimator` with
    ``prior``).  ``method``:

    * ``"composite"`` (two classes): uniform-mass binning on the source, then
      the prior correction of the bin means
      (:class:`~companion.label_shift_recalibration.CompositeRecalibrator`, book ``alg-ls-composite``);
    * ``"canonical"``: canonical binning on the source reweighted by :math:`q/p`
      (:class:`~companion.binning_label_shift.LabelShiftCanonicalBinning`, book
      ``alg-binls-corrected``) on a uniform-mass partition of the class-1 score
      (two classes) or a quantile grid of the log-ratios
      (:func:`~companion.binning_label_shift.log_ratio_quantile_partition`, more
      classes): that grid needs ``n_bins`` :math:`\ge 2^{k-1}` cells (two
      intervals per axis) and enough source points per cell, so it serves few
      classes; for many classes use ``"bcts"``;
    * ``"bcts"``: bias-corrected temperature scaling on the source
      (:func:`~companion.label_shift_weights.fit_scaling`), then the Bayes
      correction :func:`~companion.label_shift_weights.posterior_correction`
      with :math:`q/p` (paper 001 eq. (16)); BCTS acts on log-probabilities, so
      every probability must be ``> 0``.

    The target prior's domain: ``"canonical"`` and ``"bcts"`` accept any
    :math:`q` on the simplex, zeros included (a class with :math:`q_y = 0` gets
    probability 0); ``"composite"`` needs :math:`q_1` in :math:`[10^{-100}, 1)`
    (the domain of :func:`~companion.label_shift_recalibration.prior_correction`)
    and refuses an estimated prior on the boundary (e.g. a one-class target),
    naming it.  With ``prior="bbse"`` or ``"bbse-hard"`` negative weights are
    clipped to 0 and rescaled with a warning (:class:`TargetPriorEstimator`'s
    default ``negative="clip"``); with ``prior="mlls"`` the rows must be ``> 0``
    (BCTS before the EM).

    Parameters
    ----------
    estimator : fitted classifier or None
        Its ``predict_proba`` gives the rows; ``None``: ``X`` are probability rows.
    method : {"composite", "canonical", "bcts"}
    prior : {"mlls", "bbse", "bbse-hard", "rlls"}
        How the target prior is estimated when ``target_prior`` is None.
    target_prior : array_like of shape (k,), optional
        The known target prior, in the order of ``classes_``.
    n_bins : int, optional
        Bins of the binning methods; default :math:`\lfloor n^{1/3}\rfloor`
        (``"canonical"`` with :math:`k > 2` refuses a value below :math:`2^{k-1}`,
        the default included, and suggests ``method="bcts"``).
    ties : {"raise", "merge"}
        Tied scores (e.g. rounded to two decimals) can leave a uniform-mass bin
        empty: refuse, or merge the tied edges (fewer bins; ``UniformMassBinning``'s
        ``ties``).  Used by ``"composite"`` and by ``"canonical"`` with two classes
        (the log-ratio grid of more classes always merges tied cuts and empty cells).

    Attributes
    ----------
    classes_ : numpy.ndarray
    source_prior_, target_prior_, weights_ : numpy.ndarray
        Source label frequencies, the target prior used, and their ratio.
    prior_estimator_ : TargetPriorEstimator or None
        The fitted prior estimator (None when ``target_prior`` was given).
    recalibrator_ : object
        The book's fitted recalibrator (a ``CompositeRecalibrator``, a
        ``LabelShiftCanonicalBinning`` or a ``ScalingCalibrator``).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(6000, n_features=6, n_informative=4, class_sep=1.5, random_state=0)
    >>> model = LogisticRegression().fit(X[:2000], y[:2000])  # the classifier, fitted on its own sample
    >>> X_cal, y_cal, X_new, y_new = X[2000:4000], y[2000:4000], X[4000:], y[4000:]  # source calibration sample
    >>> X_target = np.vstack([X_new[y_new == 0][:300], X_new[y_new == 1][:700]])  # target: 30 % / 70 %
    >>> clf = LabelShiftCalibratedClassifier(model, method="bcts").fit(X_cal, y_cal, X_target)
    >>> clf.target_prior_.round(3), clf.predict_proba(X_target).mean(axis=0).round(3)
    (array([0.297, 0.703]), array([0.297, 0.703]))
    >>> y_target = np.repeat([0, 1], [300, 700])
    >>> def brier(p): return round(float(np.mean((p[:, 1] - y_target) ** 2)), 4)
    >>> brier(model.predict_proba(X_target)), brier(clf.predict_proba(X_target))  # uncorrected, recalibrated
    (0.1508, 0.134)
    """

    def __init__(self, estimator=None, method: str = "composite", prior: str = "mlls", target_prior=None, n_bins=None,
                 ties: str = "raise"):
        self.estimator = estimator
        self.method = method
        self.prior = prior
        self.target_prior = target_prior
        self.n_bins = n_bins
        self.ties = ties

    def fit(self, X_source_cal, y_source_cal, X_target=None) -> "LabelShiftCalibratedClassifier":
        """Fit the source recalibrator and the target prior (known, or estimated from ``X_target``)."""
        _check_estimator_param(self.estimator)
        method = check_option(self.method, "method", _RECALIBRATIONS)
        check_option(self.prior, "prior", _PRIOR_METHODS)
        n_bins = _check_n_bins(self.n_bins)
        ties = check_option(self.ties, "ties", ("raise", "merge"))
        probs, codes, classes = _labelled_rows(self, X_source_cal, y_source_cal, "X_source_cal", "y_source_cal")
        k = probs.shape[1]
        if method == "composite" and k != 2:
            raise ValueError(f"method='composite' serves two classes only, got {k}: use 'canonical' or 'bcts'")
        if method == "bcts":
            _check_positive_rows(probs, "X_source_cal", "method='bcts'")
        n_bins = _checked_bins(method, n_bins, codes.size, k) if method != "bcts" else n_bins
        q, self.prior_estimator_ = _target_prior(self, probs, codes, X_target, "prior")
        p = _frequencies(codes, k)
        if np.any(p == 0):
            raise ValueError("y_source_cal must contain every class (its source prior is the weight's denominator)")
        if method == "composite":
            if not _MIN_PRIOR <= q[1] < 1.0:
                origin = ("the parameter target_prior" if self.prior_estimator_ is None else
                          f"the target prior estimated by prior={self.prior!r} from X_target")
                raise ValueError(f"{origin} is {np.round(q, 4).tolist()}, on the boundary of the simplex: "
                                 f"method='composite' needs Q[Y = classes_[1]] in [{_MIN_PRIOR:g}, 1) (the domain of "
                                 "prior_correction); use method='bcts' or 'canonical', which accept zeros in q")
            composite = CompositeRecalibrator(n_bins, target_prior=float(q[1]), ties=ties)
            self.recalibrator_ = _fit_named(lambda: composite.fit(probs[:, 1], codes))
        elif method == "canonical":
            partition = _fit_named(lambda: _partition(probs, n_bins, ties))
            self.recalibrator_ = _fit_named(lambda: LabelShiftCanonicalBinning(partition).fit(probs, codes, q / p))
        else:
            self.recalibrator_ = fit_scaling(probs, codes, "bcts")
        self.classes_, self.source_prior_, self.target_prior_, self.weights_ = classes, p, q, q / p
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities for the target population, one column per entry of ``classes_``."""
        check_is_fitted(self, "recalibrator_")
        probs = _rows(self, X, "X", reset=False)
        if self.method == "composite":
            z = self.recalibrator_.predict(probs[:, 1])
            return np.column_stack([1.0 - z, z])
        if self.method == "canonical":
            return self.recalibrator_.predict(probs)
        return posterior_correction(self.recalibrator_.transform(probs), self.weights_)

    def predict(self, X) -> np.ndarray:
        """The most probable class for the target population (a label of ``classes_``)."""
        proba = self.predict_proba(X)  # first: it raises NotFittedError before fit
        return self.classes_[np.argmax(proba, axis=1)]


def _checked_bins(method: str, n_bins, n: int, k: int) -> int:
    """``n_bins`` (default the cube root of ``n``), refused with the caller's names when it cannot be fitted."""
    name = "n_bins" if n_bins is not None else f"n_bins (default floor(n^(1/3)) = {cube_root_bins(n)} for n = {n})"
    n_bins = cube_root_bins(n) if n_bins is None else n_bins
    if method == "canonical" and k > 2 and n_bins < 2 ** (k - 1):
        raise ValueError(f"{name} must be at least 2^(k-1) = {2 ** (k - 1)} for method='canonical' with k = {k} classes "
                         "(the log-ratio grid needs two intervals on each of its k - 1 axes, and enough source points "
                         "per cell); use method='bcts' for many classes")
    if n < 2 * n_bins:
        raise ValueError(f"X_source_cal must hold at least 2 * n_bins = {2 * n_bins} rows for {name}, got {n}")
    return n_bins


def _fit_named(fit):
    """Run a book fit; its ValueError (naming an internal variable: z, probs) is re-raised naming X_source_cal."""
    try:
        return fit()
    except ValueError as exc:
        raise ValueError(f"X_source_cal (the source calibration sample's probability rows): {exc}") from None


def _partition(probs: np.ndarray, n_bins: int, ties: str = "raise"):
    """Uniform mass on the class-1 score (two classes; ``ties="merge"`` drops the edges that would leave a bin empty);
    a quantile grid of the log-ratios (more classes)."""
    if probs.shape[1] == 2:
        partition = uniform_mass_partition(probs, n_bins)
        if ties == "merge":
            partition = CoordinatePartition(_merge_tied_edges(partition.edges, float(probs[:, 1].max())), 1)
        return partition
    return log_ratio_quantile_partition(probs, n_bins)


# ---------------------------------------------------------------------------
# Conformal prediction sets under label shift
# ---------------------------------------------------------------------------


class WeightedConformalClassifier(BaseEstimator):
    r"""Conformal prediction sets for a target population under label shift (paper 001 section 2).

    ``fit`` scores a labelled source calibration sample with the fitted
    classifier and computes one threshold per label: the label-shift weighted
    quantile of eqs. (8)-(9) (:func:`~companion.conformal_label_shift.weighted_thresholds`,
    book ``alg-conf-weighted``) with weights :math:`q/p` estimated from
    unlabelled target features or given, or the label-conditional quantile of
    eq. (10) (:func:`~companion.conformal_label_shift.label_conditional_thresholds`),
    valid under any label shift without weights.  ``predict_set`` returns
    :math:`\{y : s(x, y)\le t(y)\}` (:func:`~companion.conformal_label_shift.prediction_sets`).

    Parameters
    ----------
    estimator : fitted classifier or None
        Its ``predict_proba`` gives the rows; ``None``: ``X`` are probability rows.
    alpha : float
        Miscoverage level in (0, 1): sets cover the target label with
        probability at least :math:`1-\alpha` with the true weights
        :math:`q_y/p_y` or with ``label_conditional=True``; with weights
        estimated from ``X_target`` the coverage is approximate (it carries the
        error of :math:`\hat q`).
    weights : {"mlls", "bbse"} or array_like of shape (k,)
        Estimated from ``X_target`` by :class:`TargetPriorEstimator` (with
        ``"bbse"`` negative weights are clipped to 0 and rescaled, with a
        warning; ``"mlls"`` needs every probability ``> 0``), or the weights
        :math:`q_y/p_y` themselves (in the order of ``classes_``; ``fit`` then
        refuses an ``X_target``).
    label_conditional : bool
        Label-conditional thresholds (coverage :math:`1-\alpha` within every
        class; no weights needed, ``fit`` refuses an ``X_target``).
    conformity_score : {"lac", "rho"}
        The non-randomised score of :func:`~companion.conformal_label_shift.conformal_scores`:
        :math:`1-\hat\eta_y`, or the mass of the labels more likely than :math:`y`.

    Attributes
    ----------
    classes_ : numpy.ndarray
    weights_ : numpy.ndarray or None
        The weights used (None with ``label_conditional=True``).
    thresholds_ : numpy.ndarray of shape (k,)
        One threshold per class.
    prior_estimator_ : TargetPriorEstimator or None

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(6000, n_features=6, n_informative=4, class_sep=1.5, random_state=0)
    >>> model = LogisticRegression().fit(X[:2000], y[:2000])  # the classifier, fitted on its own sample
    >>> X_cal, y_cal, X_new, y_new = X[2000:4000], y[2000:4000], X[4000:], y[4000:]  # source calibration sample
    >>> X_target = np.vstack([X_new[y_new == 0][:300], X_new[y_new == 1][:700]])  # target: 30 % / 70 %
    >>> cp = WeightedConformalClassifier(model, alpha=0.1).fit(X_cal, y_cal, X_target)
    >>> sets = cp.predict_set(X_target)
    >>> y_target = np.repeat([0, 1], [300, 700])
    >>> sets.shape, float(sets[np.arange(1000), y_target].mean()), float(sets.sum(axis=1).mean())  # coverage, size
    ((1000, 2), 0.909, 1.331)
    """

    def __init__(self, estimator=None, alpha: float = 0.1, weights="mlls", label_conditional: bool = False,
                 conformity_score: str = "lac"):
        self.estimator = estimator
        self.alpha = alpha
        self.weights = weights
        self.label_conditional = label_conditional
        self.conformity_score = conformity_score

    def fit(self, X_cal, y_cal, X_target=None) -> "WeightedConformalClassifier":
        """Compute the thresholds on the labelled calibration sample (and the weights from ``X_target``).

        ``X_target`` (unlabelled target features) is needed, and accepted, only when
        ``weights`` is ``"mlls"`` or ``"bbse"`` and ``label_conditional`` is False.
        """
        _check_estimator_param(self.estimator)
        score = check_option(self.conformity_score, "conformity_score", _SCORES)
        label_conditional = check_bool(self.label_conditional, "label_conditional")
        alpha = exact_level(self.alpha)
        if isinstance(self.weights, str):
            check_option(self.weights, "weights", ("mlls", "bbse"))
        if X_target is not None and (label_conditional or not isinstance(self.weights, str)):
            raise ValueError("give X_target only to estimate the weights (weights='mlls' or 'bbse'): "
                             + ("label_conditional=True needs no weights" if label_conditional else
                                "the weights were given as an array") + ", so X_target would be ignored")
        probs, codes, classes = _labelled_rows(self, X_cal, y_cal, "X_cal", "y_cal")
        k = probs.shape[1]
        cal_scores = true_label_scores(conformal_scores(probs, score), codes)
        self.prior_estimator_, self.weights_ = None, None
        if label_conditional:
            self.thresholds_ = label_conditional_thresholds(cal_scores, codes, alpha, n_classes=k)
        else:
            if isinstance(self.weights, str):
                if X_target is None:
                    raise ValueError(f"weights={self.weights!r} estimates the weights from X_target: give X_target, "
                                     "or the weights themselves")
                self.prior_estimator_ = TargetPriorEstimator(None, method=self.weights).fit(
                    probs, codes, _rows(self, X_target, "X_target", reset=False))
                self.weights_ = self.prior_estimator_.weights_
            else:
                self.weights_ = _as_class_weights(self.weights, k)
            self.thresholds_ = weighted_thresholds(cal_scores, codes, self.weights_, alpha)
        self.classes_ = classes
        return self

    def predict_set(self, X) -> np.ndarray:
        """Boolean prediction sets, shape (n, k): column ``j`` is ``classes_[j]``."""
        check_is_fitted(self, "thresholds_")
        return prediction_sets(conformal_scores(_rows(self, X, "X", reset=False), self.conformity_score), self.thresholds_)


def _as_class_weights(weights, k: int) -> np.ndarray:
    """Weights given by the user: one finite non-negative number per class, not all zero."""
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be 'mlls', 'bbse' or one non-negative number per class ({k}), got {weights!r}") from None
    if w.shape != (k,) or not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
        raise ValueError(f"weights must be 'mlls', 'bbse' or one finite non-negative number per class ({k}), not all "
                         f"zero; got {weights!r}")
    return w
