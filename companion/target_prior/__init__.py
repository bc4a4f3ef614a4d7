"""The companion of the chapter on recalibrating to a target prior (``chap-target-prior``).

Paper 003 (Tasche): recalibration without target labels, by scaling, FJS, CSPD and quasi
moment matching.

Modules
-------
auc
    Empirical distributions, mid-point CDFs, conditional and implied AUC (eq. (13)).
recalibration
    Capped scaling, label shift and FJS, with the root-finding helpers the methods share.
qmm
    Platt scaling, CSPD, ROC QMM and two-parameter QMM.
derivations
    SymPy checks of eq. (13), the Jensen bounds and the binormal ROC.
experiments
    Table 1, Figures 1-2, the ROC-QMM iteration and Remark 1.
"""

from __future__ import annotations

from .auc import empirical_distribution, midpoint_cdf, implied_auc, conditional_auc
from .recalibration import InfeasibleSystemError, Recalibrated, capped_scaling, label_shift, fjs
from .qmm import (
    platt,
    cspd,
    cspd_auc_profile,
    cspd_quantify,
    ROC_QMM_ITERATIONS,
    roc_qmm,
    roc_qmm_trace,
    roc_qmm_jacobian,
    two_param_qmm,
)
from .derivations import (
    implied_auc_residual,
    jensen_bounds_derivation,
    binormal_auc_derivation,
    binormal_posterior_residual,
)
from .experiments import (
    TASCHE_TABLE1_PAPER,
    QMM_METHODS,
    Table1Row,
    AucSums,
    RocConvergence,
    LiteralOutcome,
    tasche_recalibrations,
    tasche_table1,
    tasche_figure1,
    tasche_figure2,
    eq13_as_printed,
    table1_auc_sums,
    roc_qmm_convergence,
    literal_iteration_study,
    auc_sensitivity,
    remark1_quantification,
    sampled_table1,
)

__all__ = [
    "empirical_distribution",
    "midpoint_cdf",
    "implied_auc",
    "conditional_auc",
    "InfeasibleSystemError",
    "Recalibrated",
    "capped_scaling",
    "label_shift",
    "fjs",
    "platt",
    "cspd",
    "cspd_auc_profile",
    "cspd_quantify",
    "ROC_QMM_ITERATIONS",
    "roc_qmm",
    "roc_qmm_trace",
    "roc_qmm_jacobian",
    "two_param_qmm",
    "implied_auc_residual",
    "jensen_bounds_derivation",
    "binormal_auc_derivation",
    "binormal_posterior_residual",
    "TASCHE_TABLE1_PAPER",
    "QMM_METHODS",
    "Table1Row",
    "AucSums",
    "RocConvergence",
    "LiteralOutcome",
    "tasche_recalibrations",
    "tasche_table1",
    "tasche_figure1",
    "tasche_figure2",
    "eq13_as_printed",
    "table1_auc_sums",
    "roc_qmm_convergence",
    "literal_iteration_study",
    "auc_sensitivity",
    "remark1_quantification",
    "sampled_table1",
]
