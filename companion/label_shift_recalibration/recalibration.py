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
not here: the composite of this module uses the target labels.

Book labels: ``def-prior-correction``, ``prop-ls-composition``,
``alg-ls-composite`` and ``thm-ls-composite`` in the chapter
``chap-label-shift-recalibration``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .._checks import as_labels, as_probabilities, check_int, check_same_length
from .._numerics import _returned
from ..calibration_sharpness import UniformMassBinning
from ..calibration_sharpness.binning import _check_enough_samples

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


def _composite_inputs(z_source, y_source, y_target) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checks of :meth:`CompositeRecalibrator.fit`: forecasts in [0, 1], labels in {0, 1}, source arrays of one length."""
    z_source = as_probabilities(z_source, "z_source")
    y_source = as_labels(y_source, "y_source")
    check_same_length(z_source=z_source, y_source=y_source)
    return z_source, y_source, as_labels(y_target, "y_target")


def _class_prior(y: np.ndarray, name: str) -> float:
    """Empirical ``P[Y = 1]``; both classes must be present for the weights of eq. (16)."""
    prior = float(y.mean())
    if prior in (0.0, 1.0):
        raise ValueError(f"{name} must contain both classes 0 and 1 (only class {int(prior)} found)")
    return prior


class CompositeRecalibrator:
    r"""Two-stage recalibration under label shift, :math:`\hat h_Q = \hat g \circ \hat h_P` (eq. (17); book: ``alg-ls-composite``).

    Step 1 fits uniform-mass binning on the labelled source sample; step 2
    estimates the class priors of both domains from their labels; step 3
    applies :func:`prior_correction` to the bin means.  The target features
    are not used.

    Parameters
    ----------
    n_bins : int, optional
        Number of source bins; default :func:`cube_root_bins` of the source size.

    Attributes
    ----------
    binning_ : UniformMassBinning
        The source recalibrator :math:`\hat h_P` (the SOURCE baseline).
    source_prior_, target_prior_ : float
        Empirical :math:`\hat P[Y=1]` and :math:`\hat Q[Y=1]`.
    edges_ : numpy.ndarray
        Bin edges of ``binning_``.
    values_ : numpy.ndarray
        Corrected bin values :math:`\hat g(\hat\theta_I)`, with
        :math:`\hat\theta_I` the empirical mean of the source labels in bin
        :math:`I`: the composite is piecewise constant on the source bins.

    Examples
    --------
    >>> z_source = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    >>> y_source = np.array([0, 0, 1, 0, 1, 1])
    >>> model = CompositeRecalibrator(n_bins=2).fit(z_source, y_source, y_target=[0, 0, 0, 1])
    >>> model.values_.round(4)  # bin means 1/3 and 2/3, moved from prior 1/2 to prior 1/4
    array([0.1429, 0.4   ])
    >>> model.predict([0.05, 0.8]).round(4)
    array([0.1429, 0.4   ])
    """

    def __init__(self, n_bins: int | None = None):
        self.n_bins = None if n_bins is None else check_int(n_bins, "n_bins")

    def fit(self, z_source, y_source, y_target) -> "CompositeRecalibrator":
        """Fit on source forecasts and labels, and target labels only (``alg-ls-composite``)."""
        z_source, y_source, y_target = _composite_inputs(z_source, y_source, y_target)
        n_bins = cube_root_bins(z_source.size) if self.n_bins is None else self.n_bins
        _check_enough_samples(z_source.size, n_bins, "z_source")
        self.binning_ = UniformMassBinning(n_bins).fit(z_source, y_source)  # step 1: h_P, bin means theta_I
        self.source_prior_ = _class_prior(y_source, "y_source")  # step 2: p_1 and q_1, the weights of eq. (16)
        self.target_prior_ = _class_prior(y_target, "y_target")
        self.edges_ = self.binning_.edges_
        self.values_ = self.correct(self.binning_.values_)  # step 3: g_hat(theta_I), eq. (17)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "binning_"):
            raise ValueError("CompositeRecalibrator is not fitted yet: call fit(z_source, y_source, y_target)")

    def correct(self, z) -> np.ndarray:
        r"""The fitted correction :math:`\hat g(z)` alone (the LABEL-SHIFT baseline applied to ``f``)."""
        self._check_fitted()
        return prior_correction(z, self.source_prior_, self.target_prior_)

    def predict(self, z) -> np.ndarray:
        r"""Composite forecast :math:`\hat g(\hat h_P(z))`."""
        self._check_fitted()
        return self.correct(self.binning_.predict(z))


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
