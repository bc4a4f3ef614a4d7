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

__all__ = [
    "prior_correction",
    "cube_root_bins",
    "CompositeRecalibrator",
    "LabelShiftEstimators",
    "fit_label_shift_estimators",
]


def prior_correction(z, source_prior, target_prior) -> np.ndarray:
    r"""Label-shift correction :math:`g(z) = w_1 z / (w_1 z + w_0 (1 - z))` (eqs. (13), (16)).

    With :math:`w_k = q_k / p_k`, :math:`p_1 = ` ``source_prior`` and
    :math:`q_1 = ` ``target_prior``.  Evaluated as
    :math:`g(z) = z q_1 p_0 / (z q_1 p_0 + (1-z) q_0 p_1)` with every factor
    split into a mantissa and an exact power of two (``frexp``), so no product
    overflows or underflows: within a few ulps of the exact value for every
    input down to the smallest subnormal float (``5e-324``), a subnormal result
    included (the logit form lost up to 1e-13 relative where
    :math:`|\operatorname{logit} z|` is near 745); exact at ``z = 0`` (gives 0)
    and ``z = 1`` (gives 1).

    Parameters
    ----------
    z : array_like
        Probabilities in [0, 1], any shape.
    source_prior, target_prior : float or array_like
        Priors in the open interval (0, 1); they broadcast against ``z``
        (e.g. shape ``(m, 1)`` priors give ``m`` corrected copies of ``z``).

    Returns
    -------
    numpy.ndarray
        ``g(z)``, of the broadcast shape.
    """
    z = as_probabilities(z, "z", ndim=np.ndim(z))
    p1 = as_probabilities(source_prior, "source_prior", ndim=np.ndim(source_prior), open_interval=True)
    q1 = as_probabilities(target_prior, "target_prior", ndim=np.ndim(target_prior), open_interval=True)
    try:
        np.broadcast_shapes(z.shape, p1.shape, q1.shape)
    except ValueError:
        raise ValueError(f"source_prior (shape {p1.shape}) and target_prior (shape {q1.shape}) must broadcast against "
                         f"z (shape {z.shape}), e.g. scalars, or shape (m, 1) for m corrected copies of z") from None
    # g = z q1 (1 - p1) / (z q1 (1 - p1) + (1 - z) (1 - q1) p1) with every factor split by frexp into a mantissa in
    # [1/2, 1) and an exact integer exponent: no product can overflow or underflow, a few ulps over the float range
    (m_z, e_z), (m_z0, e_z0) = np.frexp(z), np.frexp(1.0 - z)
    (m_q, e_q), (m_q0, e_q0) = np.frexp(q1), np.frexp(1.0 - q1)
    (m_p, e_p), (m_p0, e_p0) = np.frexp(p1), np.frexp(1.0 - p1)
    up, down = m_z * m_q * m_p0, m_z0 * m_q0 * m_p  # in [1/8, 1), or 0 at z = 0 (up) and z = 1 (down)
    shift = (e_z + e_q + e_p0) - (e_z0 + e_q0 + e_p)  # g = up 2^shift / (up 2^shift + down)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):  # unused branch; ends below
        g = np.where(shift <= 0, np.ldexp(up / (np.ldexp(up, shift) + down), shift), up / (up + np.ldexp(down, -shift)))
    return _returned(np.where(z == 0.0, 0.0, np.where(z == 1.0, 1.0, g)))


def cube_root_bins(n: int) -> int:
    r"""The paper's number of bins :math:`B = \lfloor n^{1/3} \rfloor`, in exact integer arithmetic.

    (``int(1000 ** (1 / 3))`` is 9 in floating point; this returns 10.)
    """
    n = check_int(n, "n", minimum=1)
    b = int(round(n ** (1.0 / 3.0)))
    while b**3 > n:
        b -= 1
    while (b + 1) ** 3 <= n:
        b += 1
    return b


def _class_prior(y: np.ndarray, name: str) -> float:
    """Empirical ``P[Y = 1]``; both classes must be present for the weights of eq. (16)."""
    prior = float(y.mean())
    if prior in (0.0, 1.0):
        raise ValueError(f"{name} must contain both classes 0 and 1 (only class {int(prior)} found)")
    return prior


class CompositeRecalibrator:
    r"""Two-stage recalibration under label shift, :math:`\hat h_Q = \hat g \circ \hat h_P` (eq. (17); book: ``alg-ls-composite``).

    Step 1 fits uniform-mass binning on the labelled source sample; step 2
    estimates the class priors of both domains from their labels and
    applies :func:`prior_correction` to the bin means.

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
    """

    def __init__(self, n_bins: int | None = None):
        self.n_bins = None if n_bins is None else check_int(n_bins, "n_bins")

    def fit(self, z_source, y_source, y_target) -> "CompositeRecalibrator":
        """Fit on source forecasts and labels, and target labels only."""
        z_source = as_probabilities(z_source, "z_source")
        y_source = as_labels(y_source, "y_source")
        check_same_length(z_source=z_source, y_source=y_source)
        y_target = as_labels(y_target, "y_target")
        n_bins = cube_root_bins(z_source.size) if self.n_bins is None else self.n_bins
        self.source_prior_ = _class_prior(y_source, "y_source")
        self.target_prior_ = _class_prior(y_target, "y_target")
        self.binning_ = UniformMassBinning(n_bins).fit(z_source, y_source)
        self.edges_ = self.binning_.edges_
        self.values_ = self.correct(self.binning_.values_)
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
