"""The companion of the chapter on label shift: the Bayes correction and estimating the weights (``chap-label-shift-weights``).

Paper 001, eq. (16) and Appendix A; paper 000, Remark 5.  The Gaussian scenarios the chapter
uses are on the ground floor (:mod:`companion.scenarios`).

Modules
-------
correction
    Label encoding, simplex rows and the Bayes correction of the posterior (eq. (16)).
scaling
    Temperature, bias-corrected temperature and vector scaling (the calibration MLLS needs).
estimators
    BBSE (hard and soft), MLLS (EM) and RLLS.
bounds
    The BBSE error bound.
derivations
    SymPy checks of the correction, the moment identity, the perturbation bound, the EM
    stationarity and the Remark 5 chain.
experiments
    Estimation rates, the miscalibration study and the Remark 5 rates.
"""

from __future__ import annotations

from .correction import as_simplex_rows, encode_labels, posterior_correction
from .scaling import scale_probabilities, ScalingCalibrator, fit_scaling
from .estimators import BBSEResult, MLLSResult, RLLSResult, bbse, mlls, mlls_log_likelihood, rlls
from .bounds import bbse_error_bound
from .derivations import (
    bayes_correction_residuals,
    moment_identity_residuals,
    bbse_perturbation_residuals,
    em_stationarity,
    remark5_chain,
)
from .experiments import (
    WEIGHT_METHODS,
    MISCALIBRATION_METHODS,
    REMARK5_METHODS,
    label_shift_scenario,
    weight_estimation_rates,
    miscalibration_study,
    remark5_rates,
)

__all__ = [
    "as_simplex_rows",
    "encode_labels",
    "posterior_correction",
    "scale_probabilities",
    "ScalingCalibrator",
    "fit_scaling",
    "BBSEResult",
    "MLLSResult",
    "RLLSResult",
    "bbse",
    "mlls",
    "mlls_log_likelihood",
    "rlls",
    "bbse_error_bound",
    "bayes_correction_residuals",
    "moment_identity_residuals",
    "bbse_perturbation_residuals",
    "em_stationarity",
    "remark5_chain",
    "WEIGHT_METHODS",
    "MISCALIBRATION_METHODS",
    "REMARK5_METHODS",
    "label_shift_scenario",
    "weight_estimation_rates",
    "miscalibration_study",
    "remark5_rates",
]
