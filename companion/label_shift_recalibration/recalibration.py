"""Recalibration under label shift (paper 000, section 5).

The book's chapter on the composite estimator uses three pieces:

* :func:`prior_correction`, the label-shift correction ``g`` of eqs. (13)/(16):
  it moves a probability calibrated for a population with ``P[Y=1] = p``
  to a population with ``P[Y=1] = q`` and the same class-conditional laws;
* :class:`CompositeRecalibrator`, the two-stage estimator ``g_hat o h_hat_P``
  of eq. (17): uniform-mass binning on the source sample, then the
  correction with priors estimated from the two label samples;
* :func:`fit_label_shift_estimators`, the four estimators compared in the
  paper's Table 1 (SOURCE, TARGET, LABEL-SHIFT, COMPOSITE), fitted at once.

Estimating the target prior from *unlabelled* target features (black-box
shift estimation, maximum-likelihood label shift; the paper's Remark 5) is
not here: the composite of this module takes the target labels, or the
target prior itself (``target_prior=``, e.g. an estimate from the chapter on
label-shift weights).

Book labels: ``def-prior-correction``, ``prop-ls-composition``,
``alg-ls-composite`` and ``thm-ls-composite`` in the chapter
``chap-label-shift-recalibration``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._checks import as_labels, as_probabilities, check_int, check_same_length
from .._numerics import _returned
from ..calibration_sharpness import UniformMassBinning
from ..calibration_sharpness.binning import _check_enough_samples
from ..label_shift_weights.correction import encode_labels
from ..label_shift_weights.scaling import _frame_values

__all__ = [
    "prior_correction",
    "cube_root_bins",
    "CompositeRecalibrator",
    "LabelShiftEstimators",
    "fit_label_shift_estimators",
]


#: The priors :func:`prior_correction` serves: [1e-100, 1) (numerical notes, ``label_shift_recalibration``).
_MIN_PRIOR = 1e-100


def prior_correction(z, source_prior, target_prior) -> np.ndarray:
    r"""Label-shift correction :math:`g_w(z) = w_1 z / (w_1 z + w_0 (1 - z))` with :math:`w_k = q_k / p_k` (eqs. (13), (16)).

    Moves a probability of class 1 calibrated for a population with
    :math:`P[Y=1] = p_1` (``source_prior``) to one with :math:`Q[Y=1] = q_1`
    (``target_prior``) and the same class-conditional laws (book:
    ``def-prior-correction``).

    Parameters
    ----------
    z : array_like
        Probabilities of class 1 in [0, 1], any shape.  A two-column
        ``predict_proba`` array (shape ``(n, 2)``, rows summing to 1) is
        refused: pass its class-1 column ``proba[:, 1]``.
    source_prior, target_prior : float or array_like
        Priors of class 1 in [1e-100, 1); they broadcast against ``z``
        (shape ``(m, 1)`` priors give ``m`` corrected copies of ``z``).

    Returns
    -------
    float or numpy.ndarray
        :math:`g_w(z)`, of the broadcast shape (a float for scalar inputs);
        ``g(0) = 0`` and ``g(1) = 1`` exactly.

    Examples
    --------
    >>> round(prior_correction(0.5, source_prior=0.5, target_prior=0.1), 4)
    0.1
    >>> prior_correction([0.0, 0.3, 0.9, 1.0], 0.5, 0.1).round(4)
    array([0.    , 0.0455, 0.5   , 1.    ])

    Notes
    -----
    Evaluated as :math:`z / (z + (1 - z)\, w_0 / w_1)`, the first form divided by
    :math:`w_1`; on the stated domain no step overflows.  Accuracy and domain:
    the book's numerical notes.
    """
    z, p1, q1 = _correction_inputs(z, source_prior, target_prior)
    ratio = ((1.0 - q1) / (1.0 - p1)) / (q1 / p1)  # w_0 / w_1, eq. (16)
    return _returned(z / (z + (1.0 - z) * ratio))  # g_w(z), eq. (13)


def _correction_inputs(z, source_prior, target_prior) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checks of :func:`prior_correction`: z in [0, 1] and not a predict_proba array, priors in [1e-100, 1), shapes that broadcast."""
    z = as_probabilities(z, "z", ndim=np.ndim(z))
    if z.ndim == 2 and z.shape[1] == 2 and np.all(np.abs(z.sum(axis=1) - 1.0) <= 1e-6):
        raise ValueError("z must hold probabilities of class 1, got shape (n, 2) with rows summing to 1 (a predict_proba "
                         "array?): pass its class-1 column, proba[:, 1]")
    priors = []
    for name, prior in (("source_prior", source_prior), ("target_prior", target_prior)):
        prior = as_probabilities(prior, name, ndim=np.ndim(prior), open_interval=True)
        if np.any(prior < _MIN_PRIOR):
            raise ValueError(f"{name} must lie in [{_MIN_PRIOR:g}, 1), the domain of prior_correction")
        priors.append(prior)
    try:
        np.broadcast_shapes(z.shape, priors[0].shape, priors[1].shape)
    except ValueError:
        raise ValueError(f"source_prior (shape {priors[0].shape}) and target_prior (shape {priors[1].shape}) must "
                         f"broadcast against z (shape {z.shape}), e.g. scalars, or shape (m, 1) for m corrected copies of z") from None
    return z, priors[0], priors[1]


def cube_root_bins(n: int) -> int:
    r"""The paper's number of bins :math:`B = \lfloor n^{1/3} \rfloor`, in exact integer arithmetic.

    (``int(1000 ** (1 / 3))`` is 9 in floating point; this returns 10.)

    Examples
    --------
    >>> cube_root_bins(1000), cube_root_bins(999)
    (10, 9)
    """
    n = check_int(n, "n", minimum=1)
    b = int(round(n ** (1.0 / 3.0)))
    while b**3 > n:
        b -= 1
    while (b + 1) ** 3 <= n:
        b += 1
    return b


def _as_scores(z, name: str) -> np.ndarray:
    """Scores in [0, 1] given as a 1-D array-like or one column (an ``(n, 1)`` array, a one-column DataFrame)."""
    z = _frame_values(z)
    try:
        arr = np.asarray(z)
    except (TypeError, ValueError):  # ragged input: as_probabilities names it
        arr = None
    if arr is not None and arr.ndim == 2:
        if arr.shape[1] != 1:
            raise ValueError(f"{name} must be 1-D or one column of scores in [0, 1], got shape {arr.shape}")
        z = arr[:, 0]
    elif arr is not None and not isinstance(z, (list, tuple, np.ndarray)):
        z = arr  # other array-likes (the dtype is kept)
    return as_probabilities(z, name)


def _binary_codes(y, name: str, classes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Labels of any values as codes 0/1 (1 for ``classes[1]``) and the sorted classes; two classes in ``y`` unless ``classes`` is given."""
    y = _frame_values(y)
    if y is None:
        raise ValueError(f"{name} must be an array of labels: the estimator requires y to be passed, but the target y is None")

    arr = np.asarray(y)
    if arr.dtype.kind == "f" and np.any(np.isfinite(arr) & (arr != np.round(arr))):
        raise ValueError(f"{name} must hold class labels (integers, strings, booleans), got non-integer numbers")
    if classes is None:
        try:
            uniq = np.unique(arr)
        except TypeError as exc:
            raise ValueError(f"{name} must hold mutually comparable labels ({exc})") from None
        if uniq.size == 1 and uniq.dtype.kind in "biu" and uniq[0] in (0, 1):
            raise ValueError(f"{name} must contain both classes 0 and 1 (only class {int(uniq[0])} found)")
        if uniq.size != 2:
            raise ValueError(f"{name} must contain exactly two classes, found {uniq.size}")
    codes, classes = encode_labels(y, name, 2, classes if classes is not None else uniq)
    return codes, classes


def _class_prior(y: np.ndarray, name: str, classes=(0, 1)) -> float:
    """Empirical ``P[Y = 1]`` of codes 0/1; both classes must be present for the weights of eq. (16)."""
    prior = float(y.mean())
    if prior in (0.0, 1.0):
        c = np.asarray(classes).tolist()
        raise ValueError(f"{name} must contain both classes {c[0]!r} and {c[1]!r} (only class {c[int(prior)]!r} found)")
    return prior


class CompositeRecalibrator(RegressorMixin, BaseEstimator):
    r"""Two-stage recalibration under label shift, :math:`\hat h_Q = \hat g \circ \hat h_P` (eq. (17); book: ``alg-ls-composite``).

    Step 1 fits uniform-mass binning on the labelled source sample; step 2
    estimates the class priors: the source prior from the source labels, the
    target prior from the target labels ``y_target`` or, for an unlabelled
    target, takes it as the parameter ``target_prior`` (known, or estimated
    by BBSE or MLLS); step 3 applies :func:`prior_correction` to the bin
    means.  The target features are not used.  A scikit-learn regressor of
    scores: ``predict(z)`` returns the recalibrated probabilities of the
    positive class ``classes_[1]``.

    Parameters
    ----------
    n_bins : int, optional
        Number of source bins; default :func:`cube_root_bins` of the source size.
    target_prior : float, optional
        :math:`Q[Y = \text{classes\_}[1]]` in [1e-100, 1), used when ``fit``
        gets no ``y_target`` (give one of the two, not both).
    ties : {"raise", "merge"}, default "raise"
        Passed to the source :class:`UniformMassBinning`: tied scores (e.g.
        rounded to two decimals) that leave a bin empty are refused, or their
        edges are merged (fewer bins).

    Attributes
    ----------
    binning_ : UniformMassBinning
        The source recalibrator :math:`\hat h_P` (the SOURCE baseline).
    source_prior_, target_prior_ : float
        Empirical :math:`\hat P[Y=1]` and :math:`\hat Q[Y=1]` (or the given ``target_prior``).
    edges_ : numpy.ndarray
        Bin edges of ``binning_``.
    values_ : numpy.ndarray
        Corrected bin values :math:`\hat g(\hat\theta_I)`, with
        :math:`\hat\theta_I` the empirical mean of the source labels in bin
        :math:`I`: the composite is piecewise constant on the source bins.
    classes_ : numpy.ndarray
        The two labels, sorted; ``classes_[1]`` is the positive class.
    n_features_in_ : int
        1 (one score per sample).

    Examples
    --------
    >>> z_source = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    >>> y_source = np.array([0, 0, 1, 0, 1, 1])
    >>> model = CompositeRecalibrator(n_bins=2).fit(z_source, y_source, y_target=[0, 0, 0, 1])
    >>> model.values_.round(4)  # bin means 1/3 and 2/3, moved from prior 1/2 to prior 1/4
    array([0.1429, 0.4   ])
    >>> model.predict([0.05, 0.8]).round(4)
    array([0.1429, 0.4   ])
    >>> unlabelled = CompositeRecalibrator(n_bins=2, target_prior=0.25).fit(z_source, ["no", "no", "yes", "no", "yes", "yes"])
    >>> unlabelled.predict([0.05, 0.8]).round(4), unlabelled.classes_.tolist()
    (array([0.1429, 0.4   ]), ['no', 'yes'])
    """

    def __init__(self, n_bins: int | None = None, target_prior: float | None = None, ties: str = "raise"):
        self.n_bins = n_bins
        self.target_prior = target_prior
        self.ties = ties

    def fit(self, z_source, y_source, y_target=None) -> "CompositeRecalibrator":
        """Fit on source scores and labels, and the target labels or the ``target_prior`` parameter (``alg-ls-composite``)."""
        n_bins = None if self.n_bins is None else check_int(self.n_bins, "n_bins")
        if (y_target is None) == (self.target_prior is None):
            raise ValueError("give y_target or target_prior, not both" if y_target is not None else
                             "give y_target or target_prior: the target prior comes from the target labels or is the parameter")
        codes, classes = _binary_codes(y_source, "y_source")
        z_source = _as_scores(z_source, "z_source")
        check_same_length(z_source=z_source, y_source=codes)
        n_bins = cube_root_bins(z_source.size) if n_bins is None else n_bins
        _check_enough_samples(z_source.size, n_bins, "z_source")
        self.binning_ = UniformMassBinning(n_bins, ties=self.ties).fit(z_source, codes)  # step 1: h_P, bin means theta_I
        self.source_prior_ = _class_prior(codes, "y_source")  # step 2: p_1 and q_1, the weights of eq. (16)
        if y_target is not None:
            target_codes = _binary_codes(y_target, "y_target (read against the classes of y_source)", classes)[0]
            self.target_prior_ = _class_prior(target_codes, "y_target", classes)
        else:
            prior = as_probabilities(self.target_prior, "target_prior", ndim=0, open_interval=True)
            if prior < _MIN_PRIOR:
                raise ValueError(f"target_prior must lie in [{_MIN_PRIOR:g}, 1), the domain of prior_correction")
            self.target_prior_ = float(prior)
        self.classes_ = classes
        self.n_features_in_ = 1
        self.edges_ = self.binning_.edges_
        self.values_ = prior_correction(self.binning_.values_, self.source_prior_, self.target_prior_)  # step 3: eq. (17)
        return self

    def correct(self, z) -> np.ndarray:
        r"""The fitted correction :math:`\hat g(z)` alone (the LABEL-SHIFT baseline applied to ``f``)."""
        check_is_fitted(self, "binning_")
        return prior_correction(z, self.source_prior_, self.target_prior_)

    def predict(self, z) -> np.ndarray:
        r"""Composite forecast :math:`\hat g(\hat h_P(z))`: the probability of ``classes_[1]`` (``z`` 1-D or one column)."""
        check_is_fitted(self, "binning_")
        return self.correct(self.binning_.predict(_as_scores(z, "z")))


class LabelShiftEstimators(NamedTuple):
    """The four recalibrators of the paper's Table 1, fitted on one pair of samples."""

    #: Uniform-mass binning fitted on the source sample (:math:`\hat h_P`).
    source: UniformMassBinning
    #: Uniform-mass binning fitted on the (small) target sample.
    target: UniformMassBinning
    #: The label-shift map :math:`z \mapsto \hat g(z)` (the composite's ``correct`` method).
    label_shift: Callable[[np.ndarray], np.ndarray]
    #: The two-stage composite recalibrator.
    composite: CompositeRecalibrator


def fit_label_shift_estimators(
    z_source,
    y_source,
    z_target,
    y_target,
    n_bins_source: int | None = None,
    n_bins_target: int | None = None,
) -> LabelShiftEstimators:
    r"""Fit SOURCE, TARGET, LABEL-SHIFT and COMPOSITE (paper 000, Table 1 and App. E.2).

    Bins default to :math:`\lfloor n_P^{1/3}\rfloor` on the source sample and
    :math:`\lfloor n_Q^{1/3}\rfloor` on the target sample.  The target
    forecasts are used only by TARGET.

    Examples
    --------
    >>> z = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    >>> est = fit_label_shift_estimators(z, [0, 0, 1, 0, 1, 1], z[:4], [0, 0, 0, 1], n_bins_source=2, n_bins_target=2)
    >>> est.composite.values_.round(4), est.target.values_.round(4)
    (array([0.1429, 0.4   ]), array([0. , 0.5]))
    >>> round(est.label_shift(0.5), 4)  # g_hat alone: the source prior 1/2 moved to 1/4
    0.25
    """
    z_source = as_probabilities(z_source, "z_source")
    z_target = as_probabilities(z_target, "z_target")
    y_target = as_labels(y_target, "y_target")
    check_same_length(z_target=z_target, y_target=y_target)
    for name, n_bins, z in (("n_bins_source", n_bins_source, z_source), ("n_bins_target", n_bins_target, z_target)):
        if n_bins is not None and check_int(n_bins, name) > z.size // 2:
            raise ValueError(f"{name} must be at most half the sample size ({z.size // 2}: uniform-mass binning "
                             f"needs two points per bin), got {n_bins}")
    n_bins_source = None if n_bins_source is None else int(n_bins_source)
    n_bins_target = None if n_bins_target is None else int(n_bins_target)
    composite = CompositeRecalibrator(n_bins_source).fit(z_source, y_source, y_target)
    n_bins_target = cube_root_bins(z_target.size) if n_bins_target is None else n_bins_target
    target = UniformMassBinning(n_bins_target).fit(z_target, y_target)
    return LabelShiftEstimators(composite.binning_, target, composite.correct, composite)
