"""The companion of the chapter on calibration, sharpness and the MSE decomposition (``chap-calibration-sharpness``).

Paper 000, sections 2-3: the decomposition of the mean squared error into calibration and
sharpness (eq. (2)), the recalibration risk (Proposition 1), reliability curves, and the
histogram-binning recalibrators whose risks the chapter computes (later chapters reuse them).

Modules
-------
metrics
    Empirical MSE decomposition, calibration, sharpness and recalibration risks, reliability curves.
binning
    Bin assignment, equal-width edges and the histogram-binning recalibrators (equal-width,
    uniform-mass).
derivations
    SymPy checks of eq. (2), Proposition 1, the Gaussian posterior log-odds and the mirror symmetry.
experiments
    Convergence of the binned decomposition and the prior-free MSE, at full scale.
"""

from __future__ import annotations

from .metrics import (
    MSEDecomposition,
    mse_decomposition,
    conditional_mean,
    calibration_risk,
    sharpness_risk,
    recalibration_risk,
    ReliabilityCurve,
    reliability_curve,
)
from .binning import bin_indices, equal_width_edges, UniformMassBinning, EqualWidthBinning
from .derivations import (
    FiniteJointDistribution,
    finite_joint_distribution,
    set_partitions,
    proposition1_residual,
    mse_decomposition_residual,
    gaussian_posterior_log_odds,
    mirror_symmetry_mse,
)
from .experiments import DECOMPOSITION_TERMS, decomposition_convergence, decomposition_across_priors

__all__ = [
    "MSEDecomposition",
    "mse_decomposition",
    "conditional_mean",
    "calibration_risk",
    "sharpness_risk",
    "recalibration_risk",
    "ReliabilityCurve",
    "reliability_curve",
    "bin_indices",
    "equal_width_edges",
    "UniformMassBinning",
    "EqualWidthBinning",
    "FiniteJointDistribution",
    "finite_joint_distribution",
    "set_partitions",
    "proposition1_residual",
    "mse_decomposition_residual",
    "gaussian_posterior_log_odds",
    "mirror_symmetry_mse",
    "DECOMPOSITION_TERMS",
    "decomposition_convergence",
    "decomposition_across_priors",
]
