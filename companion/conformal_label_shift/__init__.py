"""The companion of the chapter on conformal prediction sets under label shift (``chap-conformal-label-shift``).

Paper 001, section 2 and Appendix B.

Modules
-------
scores
    Exact levels and ranks, the conformity scores (randomised and not).
prediction_sets
    Split, weighted and label-conditional thresholds, oracle sets, prediction sets and coverage.
derivations
    SymPy checks of the weighted quantile, the label-shift weights and the split coverage.
experiments
    Figures 1 and 3-6.
guarantee_checks
    Simulations of the coverage guarantees and the Bernoulli example of Corollary 1.
"""

from __future__ import annotations

from .scores import SCORE_KINDS, mass_above, conformal_scores, true_label_scores, exact_level, conformal_rank
from .prediction_sets import (
    WEIGHT_RTOL_PER_CLASS,
    split_threshold,
    weighted_masses,
    weighted_thresholds,
    label_conditional_thresholds,
    prediction_sets,
    oracle_sets,
    Coverage,
    coverage,
    set_sizes,
)
from .derivations import (
    permutation_weight_residuals,
    label_shift_factorization_residual,
    uniform_weight_masses,
    split_coverage_interval,
    split_coverage_by_integration,
    bernoulli_normal_limits,
)
from .experiments import (
    lda_posteriors,
    conformal_figure1,
    conformal_figure1_digits,
    DIGIT_GROUPS,
    randomization_draw,
    randomization_study,
    thresholds_by_calibration_size,
    label_conditional_draw,
    label_conditional_study,
)
from .guarantee_checks import coverage_guarantee_check, bernoulli_quantile_jump

__all__ = [
    "SCORE_KINDS",
    "mass_above",
    "conformal_scores",
    "true_label_scores",
    "exact_level",
    "conformal_rank",
    "WEIGHT_RTOL_PER_CLASS",
    "split_threshold",
    "weighted_masses",
    "weighted_thresholds",
    "label_conditional_thresholds",
    "prediction_sets",
    "oracle_sets",
    "Coverage",
    "coverage",
    "set_sizes",
    "permutation_weight_residuals",
    "label_shift_factorization_residual",
    "uniform_weight_masses",
    "split_coverage_interval",
    "split_coverage_by_integration",
    "bernoulli_normal_limits",
    "lda_posteriors",
    "conformal_figure1",
    "conformal_figure1_digits",
    "DIGIT_GROUPS",
    "randomization_draw",
    "randomization_study",
    "thresholds_by_calibration_size",
    "label_conditional_draw",
    "label_conditional_study",
    "coverage_guarantee_check",
    "bernoulli_quantile_jump",
]
